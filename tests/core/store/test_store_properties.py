"""T2, T4 and C4 as properties over random trees in a real SQLite file."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from helpers import chat_turn, tool_turn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.store import Store

OPS = st.lists(st.tuples(st.sampled_from(["turn", "tool", "branch", "edit"]),
                         st.integers(0, 10_000)), min_size=1, max_size=12)
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _grow(s: Store, ops: list[tuple[str, int]]) -> int:
    c = s.create_conversation("prop")
    s.append_turn(c, chat_turn(0))
    for i, (op, pick) in enumerate(ops, start=1):
        nodes = [n.id for n in s.skeleton(c)]
        node = nodes[pick % len(nodes)]
        if op == "turn":
            s.append_turn(c, chat_turn(i))
        elif op == "tool":
            s.append_turn(c, tool_turn(i))
        elif op == "branch":
            s.branch(c, node)
            if not _at_boundary(s, c):
                s.branch(c, nodes[-1])
        else:
            prompts = [n for n in nodes if s.message(n).is_prompt]
            s.edit_prompt(c, prompts[pick % len(prompts)], f"edited {i}")
    return c


def _at_boundary(s: Store, c: int) -> bool:
    from explorer.tree.turns import boundary_flags
    return boundary_flags(s.path(c))[-1]


def _dump(db: Path) -> list[object]:
    with sqlite3.connect(db) as conn:
        return [conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                for t in ("messages", "parts", "blobs", "checkpoints", "rewinds")]


@SETTINGS
@given(ops=OPS, pick=st.integers(0, 10_000))
def test_T2_branching_anywhere_writes_nothing_but_the_tip(ops: list[tuple[str, int]],
                                                          pick: int) -> None:
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "p.db") as s:
        c = _grow(s, ops)
        nodes = [n.id for n in s.skeleton(c)]
        target = nodes[pick % len(nodes)]
        before = _dump(s.db_path)
        s.branch(c, target)
        assert _dump(s.db_path) == before
        assert s.path(c)[-1].id == target


@SETTINGS
@given(ops=OPS, pick=st.integers(0, 10_000))
def test_T4_fork_of_any_node_copies_its_path_and_shares_no_row(ops: list[tuple[str, int]],
                                                              pick: int) -> None:
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "p.db") as s:
        c = _grow(s, ops)
        nodes = [n.id for n in s.skeleton(c)]
        target = nodes[pick % len(nodes)]
        original = s.path(c, target)
        f = s.fork(c, target)
        copy = s.path(f)
        assert [(m.role, m.text) for m in copy] == [(m.role, m.text) for m in original]
        assert not {m.id for m in copy} & {n.id for n in s.skeleton(c)}
        assert s.conversation(f).message_count == len(original)


@SETTINGS
@given(ops=OPS, keep=st.integers(1, 4), label_picks=st.lists(st.integers(0, 10_000), max_size=4))
def test_C4_store_trim_drops_exactly_the_cut_labels(
    ops: list[tuple[str, int]], keep: int, label_picks: list[int]
) -> None:
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "p.db") as s:
        c = _grow(s, ops)
        path = s.path(c)
        from explorer.tree.turns import boundary_flags
        flags = boundary_flags(path)
        spots = [m.id for m, ok in zip(path, flags, strict=True) if ok]
        for i, pick in enumerate(label_picks):
            s.checkpoint(c, f"l{i}", at=int(str(spots[pick % len(spots)])))
        labels = s.checkpoints(c)
        plan = s.trim(c, keep_turns=keep)
        cut = {m.id for m in path[: plan.start_index]}
        assert set(plan.dropped_checkpoints) == {k for k, v in labels.items() if v in cut}
        assert s.checkpoints(c) == {k: v for k, v in labels.items() if v not in cut}
