"""A turn view as a few large byte strings, for the pipe between the graph's child and the window.

Pickling the projection's objects as they are would be cheap for the child and costly for
the window: unpickling makes every small object again while holding the GIL. The turn tree
and its projection are already columns (arrays, UTF-8 buffers with offsets, sorted id
indexes), so each column travels as its raw bytes and becomes an array again in one C
copy; only the few small attributes (names, subagent links, root lists) are pickled as
they are. The window's thread then spends milliseconds, not seconds, on a 100,000-message
tree.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable
from dataclasses import fields, replace
from typing import Any, TypeVar

from explorer.app.graph.cells import Collected
from explorer.app.graph.model import GraphModel
from explorer.app.graph.spots import LabelSpots, Spots
from explorer.app.graph.turn_model import NodeIndex, turn_info
from explorer.app.graph.turn_text import TurnView
from explorer.app.views.tree_text import TreeMarks
from explorer.store.turn_reads import SubagentInfo, TurnSource
from explorer.tree.columns import IdIndex, TextColumn
from explorer.tree.turn_runs import TurnProjection
from explorer.tree.turn_view import TurnTree

Packed = dict[str, Any]
Holder = TypeVar("Holder")

_ARRAY, _TEXT, _INDEX = "array", "text", "index"


def pack_value(value: Any) -> Any:
    """A column as (kind, raw bytes...); anything else as it is (it must be small)."""
    if isinstance(value, array):
        return (_ARRAY, value.typecode, value.tobytes())
    if isinstance(value, TextColumn):
        buf, ends = value.raw()
        return (_TEXT, bytes(buf), ends.tobytes())
    if isinstance(value, IdIndex):
        keys, values, base, other = value.raw()
        return (_INDEX, keys.tobytes(), values.tobytes(), base, other)
    return value


def unpack_value(value: Any) -> Any:
    if not isinstance(value, tuple) or not value or value[0] not in (_ARRAY, _TEXT, _INDEX):
        return value
    kind = value[0]
    if kind == _ARRAY:
        return _array(value[1], value[2])
    if kind == _TEXT:
        return TextColumn.from_raw(value[1], _array("I", value[2]))
    return IdIndex.from_raw(_array("q", value[1]), _array("i", value[2]), value[3], value[4])


def _array(code: str, raw: bytes) -> array[Any]:
    out = array(code)
    out.frombytes(raw)
    return out


def pack_object(obj: object, skip: tuple[str, ...] = ()) -> Packed:
    """Every attribute of a column holder (a turn tree, a projection), packed."""
    return {name: pack_value(v) for name, v in vars(obj).items() if name not in skip}


def unpack_object(cls: type[Holder], packed: Packed) -> Holder:
    """The holder again, its attributes set as they were (no constructor runs: the
    projection's would walk every node again)."""
    obj = cls.__new__(cls)
    for name, value in packed.items():
        setattr(obj, name, unpack_value(value))
    return obj


def pack_view(view: TurnView) -> tuple[Packed, Packed, Packed]:
    """(tree, projection, rest): three messages, each turned back into objects at once.
    The active path travels as an id array, not a set of 60,000 ints."""
    proj = view.projection
    marks = view.marks
    rest: Packed = {
        "conversation_id": view.conversation_id,
        "subagents": view.source.subagents,
        "active": pack_value(array("q", sorted(marks.active))),
        "marks": replace(marks, active=set()),
    }
    return pack_object(proj.tree), pack_object(proj, skip=("tree",)), rest


def unpack_view(tree: Packed, projection: Packed, rest: Packed) -> TurnView:
    turn_tree = unpack_object(TurnTree, tree)
    proj = unpack_object(TurnProjection, projection)
    proj.tree = turn_tree
    marks: TreeMarks = replace(rest["marks"], active=set(unpack_value(rest["active"])))
    subagents: dict[Hashable, SubagentInfo] = rest["subagents"]
    return TurnView(rest["conversation_id"], TurnSource(None, subagents), proj, marks)


_MADE_FROM_VIEW = ("index", "previews", "turns", "grid")
"""What the window makes again from the view (lazily, per node drawn) or from columns."""


def pack_model(model: GraphModel) -> Packed:
    """The model's columns; its grid as three flat arrays; its words as the view makes them
    (only the model changes, a walk over every node, travel)."""
    out: Packed = {f.name: pack_value(getattr(model, f.name)) for f in fields(model)
                   if f.name not in _MADE_FROM_VIEW}
    keys = sorted(model.grid)
    out["grid"] = (pack_value(array("i", (c for c, _ in keys))),
                   pack_value(array("i", (r for _, r in keys))),
                   [pack_value(model.grid[k]) for k in keys])
    out["model_changes"] = model.turns.model_changes if model.turns is not None else {}
    return out


def unpack_model(packed: Packed, view: TurnView) -> GraphModel:
    values = {k: unpack_value(v) for k, v in packed.items()
              if k not in ("grid", "model_changes")}
    cols, rows, cells = packed["grid"]
    grid = dict(zip(zip(unpack_value(cols), unpack_value(rows), strict=True),
                    map(unpack_value, cells), strict=True))
    info = turn_info(view, packed["model_changes"])
    return GraphModel(**values, index=NodeIndex(view.projection), previews=info.answers,
                      turns=info, grid=grid)


def pack_cells(collected: Collected) -> Packed:
    """Each cell's shapes (already the bytes Qt streams them from) and the label spots."""
    spots = [[pack_value(getattr(one, name)) for name in _SPOT_COLUMNS]
             for one in (getattr(collected.spots, f.name) for f in fields(LabelSpots))]
    return {"cells": collected.cells, "marked": pack_value(collected.marked),
            "branches": pack_value(collected.branches), "sides": pack_value(collected.sides),
            "spots": spots}


def unpack_cells(packed: Packed, model: GraphModel) -> Collected:
    spots = LabelSpots(*(_spots(one, model.ys) for one in packed["spots"]))
    return Collected(packed["cells"], unpack_value(packed["marked"]),
                     unpack_value(packed["branches"]), unpack_value(packed["sides"]), spots)


_SPOT_COLUMNS = ("bands", "starts", "xs", "nodes")  # then the model's ys


def _spots(packed: list[Any], ys: array[float]) -> Spots:
    bands, starts, xs, nodes = map(unpack_value, packed)
    return Spots(bands, starts, xs, nodes, ys)
