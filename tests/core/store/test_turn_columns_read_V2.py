"""V2: the turn view reads a big conversation straight into arrays, not an object per message.

The graph worker reads every message of a 100,000-message session to group it into
turns; made of one Python object per message (a record, a flags dict entry, a row
tuple) that read held the GIL for most of a second and pinned memory the window kept.
These tests write real rows (parts, meta records, subagents, branches), read them
back as columns and check both the representation and that the grouping is exactly
the one the per-message inputs give.
"""

from __future__ import annotations

import gc
import json
import random
import sqlite3
import tracemalloc
from array import array
from functools import partial
from pathlib import Path

from explorer.store import Store
from explorer.store.ids import next_ids
from explorer.store.layout_store import ERROR, TOOL_CALL, TOOL_RESULT, message_flags
from explorer.store.turn_columns import hex_array, parent_positions
from explorer.store.turn_reads import read_previews, read_turn_source
from explorer.tree.columns import IdIndex
from explorer.tree.turn_grouping import group_columns, group_turns
from explorer.tree.turn_source import TurnColumns
from explorer.tree.turn_view import TurnInput, TurnTree, opens_turn

TOOLS = ("Bash", "Read", "Edit", "Grep")


class _Writer:
    """Rows of one conversation and, beside them, the input each message stands for."""

    def __init__(self, conn: sqlite3.Connection, cid: int, n: int) -> None:
        self.conn, self.cid = conn, cid
        self.ids = iter(range(next_ids(conn, "messages", n + 64).start, 10**15))
        self.part_ids = iter(range(next_ids(conn, "parts", 3 * n + 64).start, 10**15))
        self.inputs: list[TurnInput] = []
        self.uses: dict[str, int] = {}  # tool_use id → message holding it

    def add(self, parent: int | None, role: str, preview: str, parts: list[tuple[str, str]],
            meta: dict[str, object] | None = None, model: str | None = None,
            errors: int = 0) -> int:
        mid = next(self.ids)
        self.conn.execute(
            "INSERT INTO messages (id, conversation_id, parent_id, role, created_at, model, "
            "source_meta, preview) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (mid, self.cid, parent, role, float(mid), model, json.dumps(meta) if meta else None,
             preview))
        tools: list[str] = []
        for k, (kind, name) in enumerate(parts):
            use = f"toolu_{mid}_{k}" if kind == "tool_use" else None
            if use:
                self.uses[use] = mid
                tools.append(name)
            self.conn.execute(
                "INSERT INTO parts (id, message_id, idx, kind, text, tool_name, tool_use_id, "
                "is_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (next(self.part_ids), mid, k, kind, preview, name or None, use,
                 1 if kind == "tool_result" and k < errors else 0))
        kinds = [kind for kind, _ in parts]
        result_only = bool(kinds) and all(k == "tool_result" for k in kinds)
        record = bool(meta and meta.get("meta_record"))
        self.inputs.append(TurnInput(
            mid, parent, role, preview,
            prompt=not record and opens_turn(role, result_only, preview),
            has_text="text" in kinds, tool_calls=len(tools),
            tool_errors=min(errors, kinds.count("tool_result")), tools=tuple(tools),
            model=model if role == "assistant" else None, record=record))
        return mid


def _session(store: Store, n: int, seed: int = 5) -> tuple[int, list[TurnInput]]:
    """An agent session of about ``n`` messages with everything the turn view tells apart."""
    cid = store.create_conversation(f"session {n}")
    out: list[TurnInput] = []

    def write(conn: sqlite3.Connection) -> None:
        w = _Writer(conn, cid, n)
        rnd = random.Random(seed)
        tip = w.add(None, "system", "You are a careful assistant.", [("text", "")])
        line = [tip]
        agents: list[dict[str, str]] = []
        while len(w.inputs) < n:
            if rnd.random() < 0.05:  # a rewind: the next prompt branches further up
                del line[len(line) - rnd.randint(1, min(len(line) - 1, 30)):]
            parent = line[-1]
            if rnd.random() < 0.1:  # Claude Code's file snapshot above a prompt
                parent = w.add(parent, "user", "snapshot", [("text", "")],
                               meta={"meta_record": "file_snapshot"})
            text = rnd.choice(("please fix the failing test", "Caveat: local output",
                               "<command-name>/model</command-name> pick", "  why is CI red?"))
            parent = w.add(parent, "user", text, [("text", "")])
            for _ in range(rnd.randint(0, 3)):
                names = rnd.sample(TOOLS, rnd.randint(1, 2))
                parts = [("tool_use", name) for name in names]
                if rnd.random() < 0.3:
                    parts.insert(0, ("text", ""))
                parent = w.add(parent, "assistant", f"[{names[0]}] run", parts,
                               model=rnd.choice(("model-a", "model-b", "")))
                parent = w.add(parent, "user", "[result] ok",
                               [("tool_result", "")] * len(names), errors=rnd.randint(0, 2))
            answer = [("text", "")] if rnd.random() < 0.8 else [("thinking", "")]
            parent = w.add(parent, "assistant", rnd.choice(("Done: it works.", "")), answer,
                           model=rnd.choice(("model-a", "model-b")))
            line.append(parent)
            if rnd.random() < 0.02 and w.uses:  # a subagent started from an earlier call
                use = rnd.choice(sorted(w.uses))
                agent = f"agent-{len(agents)}"
                agents.append({"agent_id": agent, "description": f"look into {agent}"})
                root = w.add(None, "user", "look into the logs", [("text", "")],
                             meta={"subagent": agent, "spawned_by_tool_use_id": use})
                w.add(root, "assistant", "the logs are clean", [("text", "")],
                      meta={"subagent": agent}, model="model-a")
                i = len(w.inputs) - 2
                w.inputs[i].subagent = f"look into {agent}"
                w.inputs[i].spawned_by = w.uses[use]
        conn.execute("UPDATE conversations SET tip_id = ?, meta = ? WHERE id = ?",
                     (line[-1], json.dumps({"subagents": agents}), cid))
        out.extend(w.inputs)

    store._writer.call(write)
    return cid, out


def _same_tree(a: TurnTree, b: TurnTree) -> None:
    assert list(a.order) == list(b.order) and list(a.starts) == list(b.starts)
    assert list(a.parent) == list(b.parent) and a.roots == b.roots
    assert list(a.prompts) == list(b.prompts) and list(a.answers) == list(b.answers)
    assert list(a.calls) == list(b.calls) and list(a.errors) == list(b.errors)
    assert a.records_only == b.records_only
    assert a.subagent == b.subagent and a.spawned_by == b.spawned_by
    assert a.side_roots == b.side_roots
    for t in range(len(a)):
        assert a.tools(t) == b.tools(t)
        assert a.turns[t].first_model == b.turns[t].first_model
        assert a.turns[t].last_model == b.turns[t].last_model
        assert a.agent_of(t) == b.agent_of(t)
        assert list(a.children(t)) == list(b.children(t))
        assert list(a.side(t)) == list(b.side(t))
    assert all(a.turn_of[m] == b.turn_of[m] for m in b.order)


def test_V2_turns_grouped_from_the_stores_columns_are_the_per_message_inputs_turns(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "t.db")
    try:
        cid, inputs = _session(store, 3000)
        read = read_turn_source(store.reader, cid)
        assert read.columns is not None and len(read.columns) == len(inputs)
        tree = group_columns(read.columns, partial(read_previews, store.reader))
        expected = group_turns(inputs)
        assert len(expected) > 300 and expected.subagent and expected.side_roots == []
        first = expected.turns[0]  # the system text sets up the first turn; a prompt names it
        assert first.messages[0] == inputs[0].id and len(first.messages) > 1
        assert not expected.prompts[0].startswith("[system]")
        _same_tree(tree, expected)
    finally:
        store.close()


def test_V2_archived_messages_left_out_of_the_columns_group_as_if_never_read(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "t.db")
    try:
        cid, inputs = _session(store, 1500, seed=9)
        read = read_turn_source(store.reader, cid)
        assert read.columns is not None
        hidden = {m.id for m in inputs[400:700]}
        tree = group_columns(read.columns.without(hidden), partial(read_previews, store.reader))
        _same_tree(tree, group_turns([m for m in inputs if m.id not in hidden]))
    finally:
        store.close()


def test_V2_the_turn_source_of_20k_messages_is_held_in_arrays_not_per_message_objects(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "t.db")
    try:
        cid, inputs = _session(store, 20_000)
        n = len(inputs)
        del inputs
        read_turn_source(store.reader, cid)  # the statements compiled, the pages cached
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            objects = len(gc.get_objects())
            cols = read_turn_source(store.reader, cid).columns
            held, peak = tracemalloc.get_traced_memory()
            made = len(gc.get_objects()) - objects
        finally:
            tracemalloc.stop()
        assert isinstance(cols, TurnColumns) and len(cols) == n
        for name, value in vars(cols).items():
            if name not in ("model_names", "tool_words", "subagents", "ids_sorted"):
                assert isinstance(value, array | bytearray), (name, type(value))
        assert len(cols.subagents) < n // 100 and len(cols.tool_words) == len(TOOLS)
        # ~32 bytes a message in the columns; an object per message (a record ~100 bytes,
        # a row tuple ~80) would break both bounds, the peak one at its height.
        assert cols.nbytes() <= 40 * n
        assert held - before <= 1.2 * cols.nbytes() + 64 * 1024  # arrays grow in steps
        assert peak - before <= 4 * cols.nbytes() + 256 * 1024
        assert made < 100  # arrays and a few small lists, not one object per message
    finally:
        store.close()


def test_V2_hex_columns_decode_to_the_values_sqlite_wrote() -> None:
    conn = sqlite3.connect(":memory:")
    values = [0, 1, -1, 2**31 - 1, -(2**31), 2**40, -(2**40)]
    text = conn.execute(
        "SELECT group_concat(printf('%016x', v), '') FROM (SELECT value AS v FROM "
        "json_each(?) ORDER BY key)", (json.dumps(values),)).fetchone()[0]
    assert list(hex_array("q", text)) == values
    assert list(hex_array("I", None)) == []


def test_V2_parent_positions_by_offset_or_bisection_agree() -> None:
    dense = array("q", range(10, 20))
    sparse = array("q", [3, 7, 8, 20, 41])
    assert list(parent_positions(dense, array("q", [-1, 10, 19, 20, 9, 15]))) == [
        -1, 0, 9, -1, -1, 5]
    assert list(parent_positions(sparse, array("q", [-1, 3, 41, 9, 20]))) == [-1, 0, 4, -1, 3]
    assert list(parent_positions(array("q"), array("q"))) == []


def test_V2_message_flags_are_two_arrays_that_read_as_the_parts_say(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    try:
        cid, inputs = _session(store, 1200, seed=3)
        flags = message_flags(store.reader, cid)
        assert isinstance(flags, IdIndex)
        expected = {}
        for m in inputs:
            bits = (TOOL_CALL if m.tool_calls else 0) | (
                TOOL_RESULT | (ERROR if m.tool_errors else 0) if m.preview == "[result] ok" else 0)
            if bits:
                expected[m.id] = bits
        assert dict(flags.pairs()) == expected and flags == expected
        assert flags.nbytes() == 9 * len(expected)
    finally:
        store.close()
