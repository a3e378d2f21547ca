"""A 20,000-message tree: one item, every level of detail paints, picking works when zoomed out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_trees import generated_conversation, loaded_graph
from PySide6.QtCore import QPoint, QRectF, Qt, QThreadPool
from PySide6.QtGui import QImage, QPainter
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.geometry import DOTS_MAX_SCALE
from explorer.ui.graph.item import Lod

N = 20_000


@pytest.fixture(scope="module")
def big_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("big") / "big.db"
    with Store(path) as store:
        cid = generated_conversation(store, N, seed=5, branch=0.08)
    return path, cid


@pytest.fixture
def big(qtbot: QtBot, big_db: tuple[Path, int]) -> Iterator[TreeGraphWidget]:
    with loaded_graph(qtbot, *big_db, (1000, 700)) as w:
        yield w
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def _render(w: TreeGraphWidget) -> QImage:
    image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    w.view.render(painter, QRectF(image.rect()), w.view.viewport().rect())
    painter.end()
    return image


def _paints(image: QImage) -> int:
    """How many of a coarse sample of pixels were painted (not left transparent)."""
    return sum(1 for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
               if image.pixelColor(x, y).alpha() > 0)


def test_a_20000_node_tree_loads_into_one_item(big: TreeGraphWidget) -> None:
    assert big.data is not None and len(big.data.model) == N
    assert len(big.view.scene().items()) == 1


def test_every_level_of_detail_paints(big: TreeGraphWidget) -> None:
    item = big.view.item
    assert item is not None
    seen = {}
    big.fit()
    dots = (item.geometry.overview_scale * DOTS_MAX_SCALE) ** 0.5  # between overview and boxes
    for scale in (big.view.scale_factor(), dots, 0.3, 1.0):
        big.view.set_scale(scale)
        image = _render(big)
        assert item.last_lod is not None
        seen[item.last_lod] = _paints(image)
    assert set(seen) == {Lod.OVERVIEW, Lod.DOTS, Lod.BOXES, Lod.TEXT}
    assert all(count > 0 for count in seen.values())
    assert len(big.view.scene().items()) == 1


def test_fit_shows_the_overview_image_with_all_nodes_inside(big: TreeGraphWidget) -> None:
    big.fit()
    _render(big)
    assert big.view.item is not None and big.view.item.last_lod == Lod.OVERVIEW
    m = big.data.model if big.data else None
    assert m is not None
    vp = big.view.viewport().rect()
    corners = [(min(m.xs), min(m.ys)), (max(m.xs), max(m.ys))]
    for x, y in corners:
        assert vp.contains(big.view.mapFromScene(x, y))


def test_clicking_a_dot_when_zoomed_out_selects_it(qtbot: QtBot, big: TreeGraphWidget) -> None:
    m = big.data.model if big.data else None
    assert m is not None
    big.view.set_scale(0.05)
    target = int(m.ids[m.tip])
    big.view.centerOn(m.xs[m.tip], m.ys[m.tip])
    pos = big.view.mapFromScene(m.xs[m.tip], m.ys[m.tip])
    with qtbot.waitSignal(big.nodeSelected) as sig:
        qtbot.mouseClick(big.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert sig.args == [target]
    _render(big)
    assert big.view.item is not None and big.view.item.last_lod == Lod.DOTS
    assert big.view.node_at_view(QPoint(-50, -50)) == -1
