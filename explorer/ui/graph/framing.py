"""Framing the tree in its pane: the legend and the minimap sit over the view's bottom, so
the tree is fitted into the band they leave free, and they are placed where they do so.

The view switch sits above the view (never over a node); only the bottom is covered.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QWidget

from explorer.ui.graph.legend import Legend
from explorer.ui.graph.view import GraphView

MINIMAP_MARGIN = 10


def place_overlays(view: GraphView, legend: Legend, minimap: QWidget) -> None:
    """The minimap in the bottom-right corner, the legend bottom-left (folded when the pane
    is too narrow to show it open beside the minimap)."""
    vp = view.viewport().geometry()
    minimap.move(vp.right() - minimap.width() - MINIMAP_MARGIN,
                 vp.bottom() - minimap.height() - MINIMAP_MARGIN)
    room = vp.width() - minimap.width() - 3 * MINIMAP_MARGIN
    if legend.fold_to_fit(room):
        legend.adjustSize()
    legend.move(vp.left() + MINIMAP_MARGIN, vp.bottom() - legend.height() - MINIMAP_MARGIN)
    for w in (minimap, legend):
        w.raise_()


def covered_below(view: GraphView, overlays: tuple[QWidget, ...]) -> int:
    """Viewport pixels the shown overlays cover at the bottom."""
    vp = view.viewport().geometry()
    covered = [w.geometry() for w in overlays if w.isVisible()]
    return max(0, max((vp.bottom() - r.top() + MINIMAP_MARGIN for r in covered), default=0))


def band_scale(view: GraphView, bottom: int) -> float:
    """The zoom at which the whole tree fits above ``bottom`` covered pixels."""
    item = view.item
    if item is None:
        return 1.0
    bounds, vp = item.boundingRect(), view.viewport().rect()
    free = max(vp.height() - bottom, 40)
    return min(vp.width() / max(bounds.width(), 1.0), free / max(bounds.height(), 1.0))


def frame_whole(view: GraphView, scale: float, bottom: int) -> None:
    """The tree at ``scale``, centred in the band above ``bottom`` covered pixels."""
    item = view.item
    if item is None:
        return
    view.set_scale(scale)
    s = view.scale_factor()
    view.centerOn(item.boundingRect().center() + QPointF(0, bottom / s / 2))
    view.viewChanged.emit()
