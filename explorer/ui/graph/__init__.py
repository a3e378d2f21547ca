"""The zoomable tree graph: one painted item, a layout computed on a worker and stored."""

from explorer.ui.graph.widget import TreeGraphWidget

__all__ = ["TreeGraphWidget"]
