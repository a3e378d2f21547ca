"""The graph's snapshot: structure, culling, picking, walking, styles, batches, palettes."""

from __future__ import annotations

from array import array

from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPalette

from explorer.store.layout_store import ERROR, TOOL_CALL
from explorer.store.reads import SkeletonNode
from explorer.tree.layout import layout_ids
from explorer.ui.graph.geometry import build_geometry, cosmetic
from explorer.ui.graph.item import Lod, lod_for
from explorer.ui.graph.model import (
    BOX_W,
    F_ACTIVE,
    F_CHECKPOINT,
    F_TIP,
    GraphMarks,
    GraphModel,
    build_model,
)
from explorer.ui.graph.packed import polygon, segments
from explorer.ui.graph.palette import (
    STYLE_ERROR,
    STYLE_NAMES,
    STYLE_TOOL_CALL,
    STYLE_USER,
    dark_palette,
    is_dark,
    light_palette,
)
from explorer.ui.graph.view import down, left, right, up

# 1 ── 2 ┬─ 3 ── 4
#        ├─ 5
#        └─ 6
# 7 (a second root)
NODES = [
    SkeletonNode(1, None, "user", "first\nsecond line"), SkeletonNode(2, 1, "assistant", "a"),
    SkeletonNode(3, 2, "user", "b"), SkeletonNode(4, 3, "assistant", "c"),
    SkeletonNode(5, 2, "user", "d"), SkeletonNode(6, 2, "user", "e"),
    SkeletonNode(7, None, "system", "f"),
]


def _model(**marks: object) -> GraphModel:
    lay = layout_ids([n.id for n in NODES], [n.parent_id for n in NODES])
    defaults: dict[str, object] = {"active": frozenset({1, 2, 5}), "tip": 5}
    defaults.update(marks)
    return build_model(NODES, GraphMarks(**defaults), lay.xs, lay.depths)  # type: ignore[arg-type]


def _ids(m: GraphModel, positions: array[int] | list[int]) -> list[int]:
    return [int(m.ids[i]) for i in positions]


def test_structure_children_siblings_and_roots() -> None:
    m = _model()
    assert _ids(m, m.children(m.index[2])) == [3, 5, 6]
    assert _ids(m, m.siblings(m.index[5])) == [3, 5, 6]
    assert _ids(m, m.roots) == [1, 7]
    assert m.child_count(m.index[2]) == 3 and m.child_count(m.index[4]) == 0
    assert m.previews[0] == "first"


def test_flags_and_styles_follow_the_marks() -> None:
    m = _model(labels={3: ("here",)}, message_flags={4: TOOL_CALL, 6: ERROR})
    assert m.tip == m.index[5] and m.flags[m.index[5]] & F_TIP
    assert [bool(m.flags[i] & F_ACTIVE) for i in range(len(m))] == [
        True, True, False, False, True, False, False]
    assert m.flags[m.index[3]] & F_CHECKPOINT
    assert m.styles[m.index[4]] == STYLE_TOOL_CALL
    assert m.styles[m.index[6]] == STYLE_ERROR
    assert m.styles[m.index[1]] == STYLE_USER


def test_picking_and_culling_use_scene_positions() -> None:
    m = _model()
    i = m.index[4]
    assert m.node_at(m.xs[i], m.ys[i]) == i
    assert m.node_at(m.xs[i] + BOX_W / 2 + 30, m.ys[i]) == -1
    assert m.node_at(m.xs[i] + BOX_W / 2 + 30, m.ys[i], tolerance=40) == i
    visible = set(m.visible(m.xs[i] - 1, m.ys[i] - 1, m.xs[i] + 1, m.ys[i] + 1))
    assert visible == {i}
    left_, top, right_, bottom = m.bounds
    assert set(m.visible(left_, top, right_, bottom)) == set(range(len(m)))


def test_walking_up_down_and_across() -> None:
    m = _model()
    at = m.index
    assert up(m, at[5]) == at[2]
    assert up(m, at[1]) == -1
    assert down(m, at[2]) == at[5]  # the child on the active path, not the first
    assert down(m, at[3]) == at[4]  # off the path: the first child
    assert down(m, at[4]) == -1
    assert left(m, at[5]) == at[3] and right(m, at[5]) == at[6]
    assert right(m, at[6]) == -1 and left(m, at[3]) == -1
    assert right(m, at[1]) == at[7]  # roots are siblings of each other


def test_batches_hold_every_node_once_and_every_edge() -> None:
    m = _model()
    geo = build_geometry(m, light_palette())
    dots = sum(poly.size() for b in geo.batches.values() for _, poly in b.dots)
    assert dots == len(m)
    active_dots = sum(b.active_dots.size() for b in geo.batches.values())
    assert active_dots == 3
    ends = sum(b.edges.elementCount() + b.active_edges.elementCount()
               for b in geo.batches.values())
    assert ends % 2 == 0 and ends > 0
    assert not geo.overview.isNull() and geo.overview_scale > 0


def test_polygon_is_built_from_packed_coordinates() -> None:
    poly = polygon(array("d", [1.0, 2.0, 3.5, -4.0]))
    assert [(p.x(), p.y()) for p in (poly.at(0), poly.at(1))] == [(1.0, 2.0), (3.5, -4.0)]
    assert polygon(array("d")).size() == 0


def test_segments_are_separate_lines_built_from_packed_coordinates() -> None:
    path = segments(array("d", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.5]))
    got = [(path.elementAt(i).type, path.elementAt(i).x, path.elementAt(i).y)
           for i in range(path.elementCount())]
    move, line = QPainterPath.ElementType.MoveToElement, QPainterPath.ElementType.LineToElement
    assert got == [(move, 1.0, 2.0), (line, 3.0, 4.0), (move, 5.0, 6.0), (line, 7.0, 8.5)]
    assert segments(array("d")).isEmpty()
    assert segments(array("d", [1.0, 2.0, 3.0])).isEmpty()  # half a segment is no segment


def test_segments_paint_the_same_pixels_as_draw_lines() -> None:
    coords = array("d", [2.0, 3.0, 40.0, 3.0, 10.0, 5.0, 10.0, 30.0, 1.0, 1.0, 35.5, 28.25])
    pairs = polygon(coords)
    for width in (1.0, 2.0):
        pen = cosmetic(QColor("black"), width)
        by_lines, by_path = _canvas(), _canvas()
        painter = QPainter(by_lines)
        painter.setPen(pen)
        painter.drawLines(pairs)  # type: ignore[call-overload]
        painter.end()
        painter = QPainter(by_path)
        painter.strokePath(segments(coords), pen)
        painter.end()
        assert by_lines == by_path
        assert by_path != _canvas()


def _canvas() -> QImage:
    image = QImage(48, 36, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    return image


def test_level_of_detail_thresholds() -> None:
    assert lod_for(0.001, 0.002) == Lod.OVERVIEW
    assert lod_for(0.05, 0.002) == Lod.DOTS
    assert lod_for(0.3, 0.002) == Lod.BOXES
    assert lod_for(1.0, 0.002) == Lod.TEXT


def test_palette_follows_the_application_theme() -> None:
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor("#202020"))
    pal.setColor(QPalette.ColorRole.WindowText, QColor("#f0f0f0"))
    assert is_dark(pal)
    pal.setColor(QPalette.ColorRole.Window, QColor("#f0f0f0"))
    pal.setColor(QPalette.ColorRole.WindowText, QColor("#101010"))
    assert not is_dark(pal)
    assert dark_palette().background.lightness() < light_palette().background.lightness()
    assert len(dark_palette().styles) == len(light_palette().styles) == len(STYLE_NAMES)


def test_an_empty_conversation_gives_an_empty_model() -> None:
    m = build_model([], GraphMarks(), array("d"), array("i"))
    assert len(m) == 0 and m.tip == -1 and m.node_at(0, 0) == -1
    assert not build_geometry(m, light_palette()).batches
