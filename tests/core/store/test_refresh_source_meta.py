"""S1: a merge that refreshes a grown message refreshes its source metadata too.

An agent writes one response over several lines; a sync that stored it mid-write and
then reads the rest gives the stored message its later parts, and with them what the
source says about the whole response (the lines it spans, its stop reason). What this
program recorded on the message itself stays.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.store import Store
from explorer.store.sync_writes import SyncRecord
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message, Part


def _conv(parts: list[Part], meta: dict[str, object]) -> ImportedConversation:
    prompt = Message("u1", None, "user", [Part("text", "hi")], source_id="u1",
                     source_meta={"line": 1})
    answer = Message("a1", "u1", "assistant", parts, source_id="a1", source_meta=meta)
    return ImportedConversation("t", "claude_code", [prompt, answer], tip="a1", source_id="s1")


def _meta(store: Store, source_id: str) -> dict[str, object]:
    (raw,) = store.reader.execute("SELECT source_meta FROM messages WHERE source_id = ?",
                                  (source_id,)).fetchone()
    return dict(json.loads(raw))


def test_S1_a_refreshed_message_gets_the_source_meta_of_its_grown_read(tmp_path: Path) -> None:
    rec = SyncRecord(str(tmp_path / "s.jsonl"), "claude_code", 1, 1)
    with Store(tmp_path / "x.db") as store:
        store.sync_import([_conv([Part("thinking", "hmm")], {"line": 2, "uuids": ["a1"]})], rec)
        store._writer.call(lambda c: c.execute(
            "UPDATE messages SET source_meta = json_set(source_meta, '$.edited_from', 7) "
            "WHERE source_id = 'a1'"))
        grown = _conv([Part("thinking", "hmm"), Part("text", "done")],
                      {"line": 2, "uuids": ["a1", "a1b"], "stop_reason": "end_turn"})
        store.sync_import([grown], rec)
        meta = _meta(store, "a1")
        assert meta == {"line": 2, "uuids": ["a1", "a1b"], "stop_reason": "end_turn",
                        "edited_from": 7}
        parts = store.reader.execute(
            "SELECT kind FROM parts p JOIN messages m ON m.id = p.message_id "
            "WHERE m.source_id = 'a1' ORDER BY idx").fetchall()
        assert [k for (k,) in parts] == ["thinking", "text"]
        assert _meta(store, "u1") == {"line": 1}  # an unchanged message is not rewritten
