"""The graph's selected message, and the selection and centring asked for while it loads.

In the turn view a node stands for a whole turn (or a folded run of turns), so the node
alone does not say which message was chosen: the message is kept here, and every command
that acts on "the selected message" gets that one, not the turn's head. A selection or a
centring asked for while a tree is being laid out waits here and is applied once it is in.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.ui.graph.item import TEXT_MIN_SCALE
from explorer.ui.graph.view import GraphView

OPEN_SCALE = 1.0


class GraphFocus:
    """Selection and centring by message id over a :class:`GraphView` that may be loading."""

    def __init__(self, view: GraphView, loading: Callable[[], bool]) -> None:
        self.view = view
        self._loading = loading
        self.mid: int | None = None  # the message chosen, inside its turn in the turn view
        self.pending_select: int | None = None
        self.pending_center: int | None = None

    def forget(self) -> None:
        """Another conversation: nothing is selected."""
        self.mid = None

    def selected(self) -> int | None:
        """The selected message: in the turn view, the one chosen inside the selected turn;
        while a tree loads, the one chosen meanwhile (the old tree still shows the last)."""
        if self.pending_select is not None and self._loading():
            return self.pending_select
        model, i = self.view.model, self.view.selected
        if model is None or i < 0:
            return None
        if self.mid is not None and model.index.get(self.mid, -1) == i:
            return self.mid
        return int(model.ids[i])

    def chosen_in(self, mid: int) -> int:
        """The message a command on ``mid``'s node acts on: the selected message when that
        node holds it (a right-click on the selected turn), else ``mid`` itself."""
        chosen, model = self.selected(), self.view.model
        if chosen is None or model is None:
            return mid
        return chosen if model.index.get(chosen, -1) == model.index.get(mid, -2) else mid

    def select(self, mid: int) -> bool:
        """Select a message without announcing it; False if it is not in this tree."""
        self.mid = mid
        if self._loading() or self.view.model is None:
            self.pending_select = mid
            return False
        i = self.view.model.index.get(mid, -1)
        if i >= 0:
            self.view.select(i)
        return i >= 0

    def center_on(self, mid: int) -> bool:
        """Centre the view on a message, zooming in to read it when it is too small to see."""
        if self._loading() or self.view.model is None:
            self.pending_center = mid
            return False
        i = self.view.model.index.get(mid, -1)
        if i >= 0:
            if self.view.scale_factor() < TEXT_MIN_SCALE:
                self.view.set_scale(OPEN_SCALE)
            self.view.center_on_node(i)
            self.view.viewChanged.emit()
        return i >= 0

    def apply_pending(self) -> None:
        """The tree is in: make the selection and the centring asked for meanwhile."""
        if self.pending_select is not None:
            self.select(self.pending_select)
        if self.pending_center is not None:
            self.center_on(self.pending_center)
        self.pending_select = self.pending_center = None
