"""V2: the turn columns' cheaper read (decimal columns, meta records looked up apart) and the
grouping's per-turn tally say exactly what a plain per-message reading of the rows says.

The reference here reads every row and part into Python and applies the turn view's own
definitions (``opens_turn``, a meta record, an answer with words), on a generated session
with every case the view tells apart and on the Claude Code sample as imported.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter
from functools import partial
from pathlib import Path

from explorer.app.graph.turn_build import build_model, build_view
from explorer.app.graph.turn_model import NodeIndex
from explorer.app.importing.run import import_paths
from explorer.store import Store
from explorer.store.ids import next_ids
from explorer.store.layout_store import ERROR, TOOL_CALL, TOOL_RESULT
from explorer.store.turn_columns import int_array, read_snapshot, read_turn_columns
from explorer.store.turn_reads import read_previews, tool_flags
from explorer.tree.turn_grouping import group_columns
from explorer.tree.turn_labels import answer_words, prompt_words
from explorer.tree.turn_source import ANSWER, PROMPT, RECORD, SYSTEM, TurnColumns
from explorer.tree.turn_view import TurnTree, opens_turn
from tests.corpus import claude_code_sessions as cc


def _reference(conn: sqlite3.Connection, cid: int) -> list[tuple[object, ...]]:
    """Per message, in id order: id, parent id, bits, calls, errors, model, tools."""
    parts: dict[int, list[tuple[str, object, str | None]]] = {}
    for mid, kind, err, name in conn.execute(
            "SELECT p.message_id, p.kind, p.is_error, p.tool_name FROM parts p JOIN messages m "
            "ON m.id = p.message_id WHERE m.conversation_id = ? ORDER BY p.message_id, p.idx",
            (cid,)):
        parts.setdefault(mid, []).append((kind, err, name))
    out: list[tuple[object, ...]] = []
    for mid, parent, role, model, preview, meta_text in conn.execute(
            "SELECT id, parent_id, role, model, preview, source_meta FROM messages "
            "WHERE conversation_id = ? ORDER BY id", (cid,)):
        meta = json.loads(meta_text) if meta_text else {}
        mine = parts.get(mid, [])
        kinds = [k for k, _, _ in mine]
        record = isinstance(meta, dict) and (
            meta.get("meta_record") is not None or bool(meta.get("isCompactSummary")))
        result_only = bool(kinds) and all(k == "tool_result" for k in kinds)
        prompt = not record and opens_turn(role, result_only, preview or "")
        answer = role == "assistant" and "text" in kinds and bool(preview)
        bits = ((PROMPT if prompt else 0) | (ANSWER if answer else 0)
                | (RECORD if record else 0) | (SYSTEM if role == "system" else 0))
        out.append((
            mid, parent, bits, kinds.count("tool_use"),
            sum(1 for k, e, _ in mine if k == "tool_result" and e),
            model if role == "assistant" and model else "",
            [n or "tool" for k, _, n in mine if k == "tool_use"]))
    return out


def _as_rows(cols: TurnColumns) -> list[tuple[object, ...]]:
    ids = cols.ids
    return [
        (ids[i], ids[cols.parents[i]] if cols.parents[i] >= 0 else None, cols.bits[i],
         cols.calls[i], cols.errors[i], cols.model_names[cols.models[i]],
         [cols.tool_words[cols.tool_items[k]]
          for k in range(cols.tool_starts[i], cols.tool_starts[i + 1])])
        for i in range(len(cols))]


def _same_flags(store: Store, cid: int, cols: TurnColumns) -> None:
    """The tool flags read with the columns are the store's own read of every part."""
    flags = tool_flags(cols)
    assert flags is not None
    assert dict(flags.items()) == dict(store.message_flags(cid).items())


def _read(store: Store, cid: int) -> TurnColumns:
    conn = store.reader
    with read_snapshot(conn):
        return read_turn_columns(conn, cid)


def _check_tally(tree: TurnTree, cols: TurnColumns, conn: sqlite3.Connection) -> None:
    """Each turn's counts, tools, models, label and answer, from its messages one by one."""
    at = {cols.ids[i]: i for i in range(len(cols))}
    said = read_previews(conn, list(cols.ids))
    bits = cols.bits
    for t in range(len(tree)):
        seg = [at[m] for m in tree.message_ids(t)]
        assert tree.calls[t] == sum(cols.calls[i] for i in seg)
        assert tree.errors[t] == sum(cols.errors[i] for i in seg)
        tools: Counter[str] = Counter()
        for i in seg:
            tools.update(cols.tool_words[cols.tool_items[k]]
                         for k in range(cols.tool_starts[i], cols.tool_starts[i + 1]))
        assert tree.tools(t) == dict(tools)
        named = [cols.model_names[cols.models[i]] for i in seg if cols.models[i]]
        assert tree.turns[t].first_model == (named[0] if named else None)
        assert tree.turns[t].last_model == (named[-1] if named else None)
        first = tree.parent[t] < 0 or t in tree.subagent  # a session's or subagent's first

        def setup(i: int, first: bool = first) -> bool:  # a record, or a first turn's system
            return bool(bits[i] & RECORD or (first and bits[i] & SYSTEM))
        assert bool(tree.records_only[t]) == all(setup(i) for i in seg)
        label, only = -1, True
        for k, i in enumerate(seg):
            if (k == 0 and bits[i] & (PROMPT | SYSTEM)) or (k and bits[i] & PROMPT and only):
                label = i
            only = only and setup(i)
        if label < 0:
            assert tree.prompts[t] == ""
        else:
            role, text = said[cols.ids[label]]
            words = prompt_words(text)
            kind = "note" if bits[label] & RECORD else role  # a tool's own bookkeeping
            assert tree.prompts[t] == (words if bits[label] & PROMPT else f"[{kind}] {words}")
        answers = [i for i in seg if bits[i] & ANSWER]
        assert tree.answers[t] == (answer_words(said[cols.ids[answers[-1]]][1])
                                   if answers else "")


def _generated(store: Store, n: int, seed: int) -> int:
    """Messages of every kind the read tells apart, on a branching tree."""
    cid = store.create_conversation("generated")

    def write(conn: sqlite3.Connection) -> None:
        ids = iter(range(next_ids(conn, "messages", n + 8).start, 10**15))
        pids = iter(range(next_ids(conn, "parts", 3 * n + 8).start, 10**15))
        rnd = random.Random(seed)
        made: list[int] = []
        for _ in range(n):
            mid = next(ids)
            parent = rnd.choice(made[-5:]) if made and rnd.random() < 0.97 else None
            role = rnd.choice(("user", "user", "assistant", "assistant", "system"))
            preview = rnd.choice(("", "fix it", "  \tCaveat: echo", "[Request interrupted",
                                  "<local-command-stdout>", "done", "\u00a0odd space"))
            meta = rnd.choice((None, {"meta_record": "file_snapshot"}, {"isCompactSummary": True},
                               {"isCompactSummary": False}, {"merged_from": 3}, {"x": 1}))
            model = rnd.choice((None, "", "m-a", "m-b"))
            conn.execute(
                "INSERT INTO messages (id, conversation_id, parent_id, role, model, "
                "source_meta, preview) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (mid, cid, parent, role, model, json.dumps(meta) if meta else None, preview))
            for k in range(rnd.randint(0, 3)):
                kind = rnd.choice(("text", "tool_use", "tool_result", "thinking"))
                conn.execute(
                    "INSERT INTO parts (id, message_id, idx, kind, text, tool_name, is_error) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (next(pids), mid, k, kind, "x", rnd.choice((None, "Bash", "Read")),
                     rnd.choice((None, 0, 1))))
            made.append(mid)

    store._writer.call(write)
    return cid


def test_V2_turn_columns_read_as_a_per_message_reading_of_generated_rows(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    try:
        other = _generated(store, 300, seed=1)  # another conversation's rows stay out
        for seed in (2, 3):
            cid = _generated(store, 1500, seed=seed)
            cols = _read(store, cid)
            expected = _reference(store.reader, cid)
            assert _as_rows(cols) == expected
            _same_flags(store, cid, cols)
            assert any(r[2] & RECORD for r in expected) and any(r[2] & PROMPT for r in expected)
            tree = group_columns(cols, partial(read_previews, store.reader))
            _check_tally(tree, cols, store.reader)
        assert len(_read(store, other)) == 300
        assert len(_read(store, 10**9)) == 0
    finally:
        store.close()


def test_V2_turn_columns_read_as_a_per_message_reading_of_the_claude_code_sample(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    try:
        import_paths(store, [cc.original().parent])
        convs = [r[0] for r in store.reader.execute("SELECT id FROM conversations")]
        assert convs
        checked = 0
        for cid in convs:
            cols = _read(store, cid)
            assert _as_rows(cols) == _reference(store.reader, cid)
            _same_flags(store, cid, cols)
            tree = group_columns(cols, partial(read_previews, store.reader))
            _check_tally(tree, cols, store.reader)
            checked += len(cols)
        # the session's 59 messages with its subagents', and the fork's own 5 as a branch
        assert checked == 59 + 5
    finally:
        store.close()


def test_V2_decimal_columns_decode_to_the_values_sqlite_wrote() -> None:
    conn = sqlite3.connect(":memory:")
    values = [0, 1, -1, 2**31 - 1, -(2**31), 2**40, -(2**40)]
    text = conn.execute(
        "SELECT group_concat(v) FROM (SELECT value AS v FROM json_each(?) ORDER BY key)",
        (json.dumps(values),)).fetchone()[0]
    assert list(int_array("q", text)) == values
    assert list(int_array("I", None)) == []
    assert list(int_array("I", "7")) == [7]


def test_V2_each_turn_nodes_tool_flags_are_its_messages_flags(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    try:
        _generated(store, 200, seed=4)
        cid = _generated(store, 2000, seed=5)
        view = build_view(store, cid)
        model = build_model(store, cid, view)
        index = NodeIndex(view.projection)
        expected = [0] * len(model.ids)
        for mid, f in store.message_flags(cid).items():
            node = index.get(mid)
            if node is not None:
                expected[node] |= f
        mask = TOOL_CALL | TOOL_RESULT | ERROR
        assert any(expected) and len(set(expected)) > 2
        assert [f & mask for f in model.flags] == expected
    finally:
        store.close()


def test_V2_the_active_path_walked_in_the_columns_is_the_stores(tmp_path: Path) -> None:
    """The graph's build takes the active path from the parents it read with the turn
    columns instead of a second, recursive read: from any tip of a branching tree (with
    several roots) the same ids; a tip written after the columns were read is not there."""
    from explorer.app.graph.turn_build import path_in

    store = Store(tmp_path / "t.db")
    try:
        cid = _generated(store, 1500, seed=4)
        cols = _read(store, cid)
        rnd = random.Random(5)
        for tip in rnd.sample(list(cols.ids), 60):
            assert path_in(cols, tip) == set(store.path_ids(tip))
        assert path_in(cols, max(cols.ids) + 1) is None
        store.branch(cid, cols.ids[-7])
        view = build_view(store, cid)
        assert view.marks.active == set(store.path_ids(cols.ids[-7])) != set()
    finally:
        store.close()
