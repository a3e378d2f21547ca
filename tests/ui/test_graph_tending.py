"""Tending drawn on the graph (T6, T7): folded and deleted branches, stale answers, merge links.

The demo is tended the way a person would (archive, delete, merge back, edit a prompt);
then the graph's model must carry every mark in both projections, and painting must
draw the chips up close, small glyphs far away and the merge link at every zoom, in the
light and the dark palette alike; undoing the actions takes the drawings away again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from explorer.app.importing.demo import load_demo
from explorer.app.tending import merge, tree_actions, undo
from explorer.store import Store
from explorer.ui.graph.item import GraphItem, Lod
from explorer.ui.graph.legend import Legend
from explorer.ui.graph.model import F_ARCHIVED, F_DELETED, F_MERGE, F_STALE
from explorer.ui.graph.palette import GraphPalette, dark_palette, light_palette
from explorer.ui.graph.worker import build_graph, build_turn_graph

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def tended(tmp_path: Path) -> Iterator[Store]:
    """Demo: 18 archived (at 17), 23 deleted (at 22), 11 merged after 24 (as the new tip),
    and prompt 20 edited into a sibling, so 21 and 24 are stale; the tip is the merge."""
    store = Store(tmp_path / "t.db")
    conv = load_demo(store)
    tree_actions.archive(store, 18)
    tree_actions.delete(store, 23)
    merge.merge(store, 11, 24)
    tip = store.conversation(conv).tip_id
    tree_actions.edit(store, conv, 20, "Is the dashboard count right?")
    tree_actions.branch(store, conv, tip or 0)
    yield store
    store.close()


def _paint(item: GraphItem, mid: int, scale: float, pal: GraphPalette) -> QImage:
    """The item painted as the view would, centred on ``mid`` at ``scale``."""
    m = item.model
    image = QImage(700, 500, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(pal.background)
    painter = QPainter(image)
    i = m.index[mid]
    painter.translate(350, 250)
    painter.scale(scale, scale)
    painter.translate(-m.xs[i], -m.ys[i])
    option = QStyleOptionGraphicsItem()
    option.exposedRect = painter.worldTransform().inverted()[0].mapRect(QRectF(0, 0, 700, 500))
    item.paint(painter, option)
    painter.end()
    return image


def _pixels_like(image: QImage, color: QColor, tolerance: int = 30) -> int:
    target = (color.red(), color.green(), color.blue())
    count = 0
    for y in range(0, image.height(), 1):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            if sum(abs(a - b) for a, b in zip((c.red(), c.green(), c.blue()), target,
                                              strict=True)) < tolerance:
                count += 1
    return count


def test_T6_T7_the_model_carries_every_tending_mark_in_both_projections(tended: Store) -> None:
    data = build_graph(tended, 1, light_palette())
    m = data.model
    flags = {mid: m.flags[m.index[mid]] for mid in (17, 22, 21, 24, 11)}
    assert flags[17] & F_ARCHIVED and not flags[17] & F_DELETED
    assert flags[22] & F_DELETED and not flags[22] & F_ARCHIVED
    assert flags[21] & F_STALE and flags[24] & F_STALE and not flags[17] & F_STALE
    assert flags[11] & F_MERGE
    tip = m.tip
    assert m.flags[tip] & F_MERGE
    assert m.tending.folded == {m.index[17]: (1, 0), m.index[22]: (0, 1)}
    assert m.tending.merges == ((m.index[11], tip),)
    turns = build_turn_graph(tended, 1, light_palette()).model
    assert turns.tending.merges == ((turns.index[11], turns.tip),)
    assert turns.tending.folded[turns.index[17]] == (1, 0)
    assert turns.tending.folded[turns.index[22]] == (0, 1)
    assert turns.flags[turns.index[21]] & F_STALE


@pytest.mark.parametrize("pal", [light_palette(), dark_palette()], ids=["light", "dark"])
def test_T6_T7_chips_up_close_glyphs_far_away_and_the_merge_link_always(
    tended: Store, pal: GraphPalette
) -> None:
    data = build_graph(tended, 1, pal)
    item = GraphItem(data.model, data.geometry, pal)
    near = _paint(item, 22, 1.0, pal)
    assert item.last_lod == Lod.TEXT
    assert item.tending.chips == ["▸ 1 archived", "✕ 1 deleted · undo"]
    assert item.tending.links == 1
    assert _pixels_like(near, pal.deleted) > 20  # the chip is there, in its colour
    assert _pixels_like(near, pal.stale) > 20  # the dashed outline of stale answers
    assert _pixels_like(near, pal.merge) > 20  # the merge link
    _paint(item, 20, 0.3, pal)  # boxes without text: short chips, still there
    assert item.last_lod == Lod.BOXES
    assert sorted(item.tending.chips) == ["▸ 1", "✕ 1"]
    far = _paint(item, 20, 0.03, pal)
    assert item.last_lod in (Lod.OVERVIEW, Lod.DOTS) and item.tending.chips == []
    assert item.tending.glyphs == 4  # archived, deleted, the stale answers 21 and 24
    assert item.tending.links == 1 and _pixels_like(far, pal.stale) > 3


def test_T7_undoing_the_actions_takes_the_drawings_away(tended: Store) -> None:
    for _ in range(5):
        undo.undo(tended, 1)
    pal = light_palette()
    data = build_graph(tended, 1, pal)
    item = GraphItem(data.model, data.geometry, pal)
    image = _paint(item, 22, 1.0, pal)
    assert item.tending.chips == [] and item.tending.links == 0
    assert _pixels_like(image, pal.deleted) == 0 and _pixels_like(image, pal.merge) == 0


def test_the_legend_explains_the_tending_marks() -> None:
    legend = Legend()
    for mode in ("turns", "messages"):
        legend.set_mode(mode)
        texts = [row[2] for row in legend.rows()]
        assert {"archived branches", "deleted branch", "stale answer", "merge link",
                "branch name", "note"} <= set(texts)
    legend.deleteLater()


@pytest.fixture
def named(tmp_path: Path) -> Iterator[Store]:
    """Demo with three named branches: 8 (off the path), 12 (on it) and 17, which also
    carries the checkpoint "fixed"."""
    store = Store(tmp_path / "n.db")
    load_demo(store)
    for mid, name in ((8, "chardet try"), (12, "utf-8 fallback"), (17, "shipped")):
        tree_actions.label(store, mid, name)
    yield store
    store.close()


def _names(item: GraphItem) -> list[str]:
    return sorted(text for _box, text in item.labels.named)


def _apart(boxes: list[QRectF]) -> bool:
    return not any(a.intersects(b) for k, a in enumerate(boxes) for b in boxes[k + 1:])


def test_T6_branch_names_reach_the_graph_model_in_both_projections(named: Store) -> None:
    m = build_graph(named, 1, light_palette()).model
    assert {m.ids[i]: v for i, v in m.names.items()} == {
        8: ("chardet try",), 12: ("utf-8 fallback",), 17: ("shipped",)}
    turns = build_turn_graph(named, 1, light_palette()).model
    by_turn = {turns.ids[i]: v for i, v in turns.names.items()}
    assert sorted(v for names in by_turn.values() for v in names) == [
        "chardet try", "shipped", "utf-8 fallback"]
    assert by_turn[turns.ids[turns.index[8]]] == ("chardet try",)
    tree_actions.label(named, 8, "")  # cleared: gone from the graph too
    cleared = build_graph(named, 1, light_palette()).model
    assert {cleared.ids[i] for i in cleared.names} == {12, 17}


@pytest.mark.parametrize("pal", [light_palette(), dark_palette()], ids=["light", "dark"])
@pytest.mark.parametrize("mode", ["messages", "turns"])
def test_T6_a_branch_name_is_drawn_on_its_node_up_close_and_far_away(
    named: Store, pal: GraphPalette, mode: str
) -> None:
    data = (build_graph if mode == "messages" else build_turn_graph)(named, 1, pal)
    item = GraphItem(data.model, data.geometry, pal)
    near = _paint(item, 12, 1.0, pal)  # the opening zoom
    assert item.last_lod == Lod.TEXT
    # A turn holds 12 (its prompt) to 17 (its answer): both names sit on that one node.
    on_path = "⎇ utf-8 fallback" if mode == "messages" else "⎇ utf-8 fallback, shipped"
    assert {"⎇ chardet try", on_path} <= set(_names(item))
    assert _pixels_like(near, pal.branch_name, 12) > 300  # solid pills, in the theme's colour
    assert _apart([box for box, _ in item.labels.named])
    _paint(item, 17, 1.0, pal)  # beside the checkpoint's own name, not over it
    [shipped] = [box for box, text in item.labels.named if text.endswith("shipped")]
    assert shipped.left() > 350 - 212 / 2 + 40  # after "⚑ fixed", which starts the line
    _paint(item, 12, 0.3, pal)
    assert item.last_lod == Lod.BOXES  # cut to a column's width, never gone
    assert any(text.startswith("⎇ utf-8") for text in _names(item))
    far = _paint(item, 12, 0.05, pal)  # the whole demo is a few dozen pixels tall here
    assert item.last_lod in (Lod.OVERVIEW, Lod.DOTS)
    assert _names(item) and _apart([box for box, _ in item.labels.named])
    assert _pixels_like(far, pal.branch_name, 12) > 50


def test_T6_many_branch_names_far_away_are_capped_and_never_overlap(tmp_path: Path) -> None:
    from graph_trees import generated_conversation

    from explorer.store.marks import set_marks
    from explorer.ui.graph.labels import MAX_NAME_LABELS
    with Store(tmp_path / "big.db") as store:
        cid = generated_conversation(store, 3000, seed=4, branch=0.2)
        ids = [n.id for n in store.skeleton(cid)]

        def name_all(conn: object) -> None:
            for mid in ids[::5]:
                set_marks(conn, cid, mid, label=f"branch {mid}")  # type: ignore[arg-type]
        store.transact(name_all)
        pal = light_palette()
        data = build_graph(store, cid, pal)
    item = GraphItem(data.model, data.geometry, pal)
    assert len(data.geometry.spots.branch_names) == len(ids[::5]) > MAX_NAME_LABELS
    drawn = []
    for scale in (0.02, 0.06, 0.3, 1.0):
        _paint(item, data.model.ids[data.model.tip], scale, pal)
        boxes = [box for box, _ in item.labels.named]
        assert len(boxes) <= MAX_NAME_LABELS and _apart(boxes), scale
        drawn.append(len(boxes))
    assert drawn[0] > 10 and drawn[1] > 10  # far away, as many as fit side by side


@pytest.mark.parametrize("pal", [light_palette(), dark_palette()], ids=["light", "dark"])
@pytest.mark.parametrize("mode", ["messages", "turns"])
def test_a_note_is_shown_on_its_node_in_both_views(
    named: Store, pal: GraphPalette, mode: str
) -> None:
    tree_actions.note(named, 21, "Check the skipped rows\nwith the warehouse team first")
    data = (build_graph if mode == "messages" else build_turn_graph)(named, 1, pal)
    m = data.model
    assert m.memos == {m.index[21]: ("Check the skipped rows\nwith the warehouse team first",)}
    item = GraphItem(m, data.geometry, pal)
    image = _paint(item, 21, 1.0, pal)
    [(box, text)] = item.labels.memos
    assert text.startswith("✎ Check the skipped rows w") and "\n" not in text
    # under its own box, in the gap before its child: over no other node's text
    assert box.top() >= 250 + 46 / 2 and box.bottom() <= 250 + 80 - 46 / 2 + 1
    assert box.left() >= 350 - 212 / 2 - 1
    assert _pixels_like(image, pal.note, 10) > 200
    _paint(item, 21, 0.05, pal)  # kept when zoomed out, as names are
    assert len(item.labels.memos) <= 1
    assert "note: Check the skipped rows" in m.tooltip(m.index[21])


@pytest.mark.parametrize("mode", ["messages", "turns"])
def test_T6_a_preferred_path_shows_a_star_on_each_chosen_child(tmp_path: Path, mode: str) -> None:
    """``convo star`` prefers a path at each branch point on the way; the graph draws
    "★ preferred" on each chosen child (a name it also has follows the star)."""
    store = Store(tmp_path / "s.db")
    load_demo(store)
    tree_actions.label(store, 18, "dashboard check")
    tree_actions.star(store, 19)
    pal = light_palette()
    data = (build_graph if mode == "messages" else build_turn_graph)(store, 1, pal)
    item = GraphItem(data.model, data.geometry, pal)
    model_names = {name for names in data.model.names.values() for name in names}
    assert model_names == {"★ preferred", "★ dashboard check"}  # 12's turn and 18
    _paint(item, 18, 1.0, pal)
    names = _names(item)
    assert any(n.startswith("★ dashboard check") for n in names), names
    assert not any(n.startswith("⎇ ★") for n in names)
    store.close()


@pytest.mark.parametrize("mode", ["messages", "turns"])
def test_T6_a_checkpoint_name_never_covers_an_archived_chip(tmp_path: Path, mode: str) -> None:
    """The "▸ 1 archived" chip of a branch point and the checkpoint just under it: the name
    moves right of the chip instead of over it, and is still drawn."""
    store = Store(tmp_path / "t.db")
    load_demo(store)
    active = set(store.path_ids(store.conversation(1).tip_id or 0))
    off = next(n.id for n in store.skeleton(1) if n.id not in active
               and store.message(n.id).parent_id in active)
    tree_actions.archive(store, off)
    pal = light_palette()
    data = (build_graph if mode == "messages" else build_turn_graph)(store, 1, pal)
    item = GraphItem(data.model, data.geometry, pal)
    _paint(item, 12, 0.8, pal)  # a window's opening fit: rows 27 px apart
    chips = [box for box, _node, kind in item.tending.chip_boxes if kind == "archived"]
    assert chips and item.labels.flags
    for flag, _node in item.labels.flags:
        assert not any(flag.intersects(chip) for chip in chips), (flag, chips)
    store.close()
