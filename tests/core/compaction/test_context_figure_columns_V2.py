"""The context figure's costs read as columns equal the ones read message by message (V2).

``cost_columns`` sums each message's parts in SQLite and hands back whole columns; it must
give every message exactly the row ``cost_into`` gives it (signature, text and image
costs, measured prompt, role, each part's bucket and raw cost, the records it keeps),
for every part kind, images and snapshot pages, measured answers with and without
records, records not sent, parts not sized yet, and each target family and redactor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from coding_session import png_bytes
from costs_by_message import cost_into

from explorer.app.context import compacting
from explorer.app.context.costs import CostTable
from explorer.app.context.figure import ContextFigure
from explorer.app.context.figure_columns import cost_columns
from explorer.app.context.figure_path import PathSums
from explorer.app.importing.run import import_paths
from explorer.app.targets import build_target
from explorer.compaction import planner
from explorer.compaction.estimate import IMAGE_PRICE_KEY, REQUEST_KEY
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.model import Message, Part, Usage
from tests.corpus import claude_code_sessions as cc
from tests.helpers import chat_turn, tool_turn, user

SECRET = "AKIAIOSFODNN7EXAMPLE"
TARGETS = (build_target(), build_target("openai", model="gpt-4o"), build_target(redact=False))


def _answer(text: str, usage: Usage | None, meta: dict[str, Any] | None = None,
            extra: list[Part] | None = None) -> Message:
    return Message(id=None, parent_id=None, role="assistant",
                   parts=[Part("thinking", "hmm — lässt sich machen, 好的"), Part("text", text),
                          *(extra or [])], usage=usage, source_meta=meta or {})


def _turns() -> list[list[Message]]:
    """Every part kind, two image sizes, a snapshot page, an unreadable image, system and
    tool roles, answers measured with cache counts, with records, without usage, a record
    not sent, a message without parts."""
    shot = Part("image", data=png_bytes(640, 480), media_type="image/png")
    tall = Part("image", data=png_bytes(300, 1800), media_type="image/png")
    broken = Part("image", data=b"not an image", media_type="image/png")
    page = Part("image", data=png_bytes(1568, 728), media_type="image/png",
                meta={"compaction": "snapshot"})
    recorded = {REQUEST_KEY: {"text": 400, "images": 1}, IMAGE_PRICE_KEY: 700}
    notice = Message(id=None, parent_id=None, role="user", parts=[Part("text", "a notice")],
                     source_meta={"meta_record": "notice"})
    return [
        [Message(id=None, parent_id=None, role="system", parts=[Part("text", "be brief")])],
        chat_turn(0), tool_turn(1), tool_turn(2, tool="Read", error=True),
        tool_turn(3, tool="a tool with spaces — ünïcode"),
        [Message(id=None, parent_id=None, role="user",
                 parts=[Part("text", f"password = 'hunter2hunter2' and {SECRET}"), shot, tall]),
         _answer(f"the key {SECRET} is noted",
                 Usage(input_tokens=900, output_tokens=40, cache_read_tokens=300,
                       cache_write_tokens=12), recorded)],
        [notice, user("again"), _answer("no usage", None)],
        [user("pages"), _answer("a page", Usage(input_tokens=1500), {IMAGE_PRICE_KEY: 650},
                                [page, broken])],
        [Message(id=None, parent_id=None, role="tool", parts=[Part("text", "tool says")]),
         Message(id=None, parent_id=None, role="user", parts=[]),
         _answer("only output", Usage(input_tokens=None, output_tokens=5))],
        chat_turn(4),
    ]


def _rows(table: CostTable) -> dict[int, tuple[object, ...]]:
    """Each message's latest row, as values."""
    return {table.ids[r]: (table.signature(r), table.text[r], table.image[r],
                           table.measured[r], table.role[r], list(table.parts(r)),
                           table.record(r)) for r in range(len(table))}


def _both(store: Store, ids: list[int], target: Target) -> tuple[Any, Any]:
    one, bulk = CostTable(), CostTable()
    by_message = cost_into(store.reader, ids, target, target.estimator(), one)
    by_column = cost_columns(store.reader, ids, target, target.estimator(), bulk)
    assert by_message[0] == by_column[0] and sorted(by_message[1]) == sorted(by_column[1])
    return _rows(one), _rows(bulk)


@pytest.mark.parametrize("target", TARGETS, ids=["anthropic", "openai", "no-redactor"])
def test_V2_costs_read_as_columns_equal_those_read_message_by_message(
        tmp_path: Path, target: Target) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("every kind")
        for turn in _turns():
            store.append_turn(conv, turn)
        ids = [i for (i,) in store.reader.execute("SELECT id FROM messages ORDER BY id DESC")]
        one, bulk = _both(store, ids, target)  # (in no order: the path's order is not the ids')
        assert one == bulk and len(one) == len(ids)
        assert any(record != (None, None) for *_, record in one.values())
        assert {bucket for row in one.values() for bucket, _, _ in row[5]} >= {0, 1, 2, 3, 4, 5}
        figure = ContextFigure(store)
        expected = planner.usage(compacting.active_context(store, conv), target).to_dict()
        assert figure.usage(conv, target).to_dict() == expected
        assert figure.read_texts == 0 and figure.costed > 0


def test_V2_messages_with_parts_not_sized_are_left_out_of_the_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("unsized")
        for turn in _turns():
            store.append_turn(conv, turn)
        store.transact(lambda conn: conn.execute(
            "UPDATE parts SET size_chars = NULL WHERE message_id IN (3, 7)"))
        ids = [i for (i,) in store.reader.execute("SELECT id FROM messages ORDER BY id")]
        table = CostTable()
        added, unsized = cost_columns(store.reader, ids, TARGETS[0], TARGETS[0].estimator(),
                                      table)
        assert unsized == [3, 7] and added == len(ids) - 2
        one, bulk = _both(store, ids, TARGETS[0])
        assert one == bulk and 3 not in bulk and 7 not in bulk


def test_V2_a_claude_code_session_costs_the_same_read_as_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        report = import_paths(store, [cc.original().parent])  # with subagents and a fork
        assert report.errors == [] and report.added_messages > 0
        ids = [i for (i,) in store.reader.execute("SELECT id FROM messages ORDER BY id")]
        for target in TARGETS:
            one, bulk = _both(store, ids, target)
            assert one == bulk and len(one) == len(ids)
        assert any(row[3] for row in one.values()), "the sample's answers are measured"


def test_V2_a_run_of_new_rows_sums_as_the_rows_one_by_one(tmp_path: Path) -> None:
    """A path's new rows are summed in columns; the sums (and cutting them back) equal
    those made row by row."""
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("sums")
        for turn in _turns() * 3:
            store.append_turn(conv, turn)
        ids = [i for (i,) in store.reader.execute("SELECT id FROM messages ORDER BY id")]
        table = CostTable()
        cost_columns(store.reader, ids, TARGETS[0], TARGETS[0].estimator(), table)
        by_run, by_row = PathSums(table), PathSums(table)
        by_run.extend(ids[:5], range(5))
        by_run.extend(ids[5:], range(5, len(ids)))
        by_row.extend(ids, list(range(len(ids))))

        def state(sums: PathSums) -> tuple[object, ...]:
            return (list(sums.ids), list(sums.rows), sums.role_count, sums.image_tokens,
                    sums.text_parts, sums.text_total, sums.image_total,
                    list(sums.measured_at), list(sums.text_before), list(sums.image_before),
                    list(sums.measured_rows), list(sums.records))

        assert state(by_run) == state(by_row)
        assert by_run.records and by_run.image_total > 0 and len(by_run.measured_at) > 3
        by_run.cut(len(ids) // 2)
        by_row.cut(len(ids) // 2)
        assert state(by_run) == state(by_row)
