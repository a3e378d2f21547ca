"""Model calls are undoable operations (T8): undo tombstones what a call wrote and puts the
tip back; redo puts exactly those rows back, ids and all. Over real HTTP on loopback."""

from __future__ import annotations

from typing import Any

import pytest
from provider_seed import run_options, seed_conversation
from provider_server import ProviderServer
from test_stream_faults_P2 import make

from explorer.app.calls import conversation_ops as ops
from explorer.app.calls import fanout
from explorer.app.tending import redo, undo
from explorer.providers.http import HttpPolicy
from explorer.store import Store, StoreError

OPTS = run_options("openai")
TABLES = {
    "messages": "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id",
    "parts": "SELECT p.* FROM parts p JOIN messages m ON m.id = p.message_id "
             "WHERE m.conversation_id = ? ORDER BY p.id",
    "compactions": "SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id",
    "tombstones": "SELECT id FROM tombstones WHERE conversation_id = ?",
    "conversation": "SELECT tip_id, clean_tip_id FROM conversations WHERE id = ?",
}


def rows(store: Store, conv: int) -> dict[str, list[tuple[Any, ...]]]:
    out = {k: [tuple(r) for r in store.reader.execute(q, (conv,))] for k, q in TABLES.items()}
    out["search"] = sorted(h.message_id for h in store.search("answer", 500))
    return out


def test_T8_send_regenerate_and_rerun_are_each_one_undoable_and_redoable_operation(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    provider = make("openai", server, policy)
    conv = seed_conversation(store, 1)
    states = [rows(store, conv)]
    sent = ops.send(store, conv, "a follow-up", provider, OPTS)
    states.append(rows(store, conv))
    ops.regenerate(store, conv, sent.answer_id, provider, OPTS)
    states.append(rows(store, conv))
    ops.edit_and_run(store, conv, sent.message_ids[0], "a better follow-up", provider, OPTS)
    states.append(rows(store, conv))
    kinds = [o.kind for o in store.operations(conv)]
    assert kinds == ["rerun", "regenerate", "send"]
    for k in (2, 1, 0):
        change = undo.undo(store, conv)
        assert rows(store, conv) == states[k]
        assert change.changed["removed"]  # the call's messages went
    assert store.tombstones(conv) == []  # nothing shows as a deleted branch
    for k in (1, 2, 3):
        change = redo.redo(store, conv)
        assert rows(store, conv) == states[k]  # the same rows, ids and all
        assert change.kind == "redo" and change.changed["restored"]
    with pytest.raises(StoreError, match="nothing to redo"):
        redo.redo(store, conv)
    undo.undo(store, conv)
    assert rows(store, conv) == states[2]


def test_T8_a_fanout_is_undone_and_redone_whole(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    before = rows(store, conv)
    targets = [fanout.Target("openai:a", make("openai", server, policy), OPTS)]
    result = fanout.fanout(store, conv, "pick one", targets, samples=3)
    after = rows(store, conv)
    assert [o.kind for o in store.operations(conv)] == ["fanout"]  # one operation, not four
    assert len(store.children(result.prompt_id)) == 3
    undo.undo(store, conv)
    assert rows(store, conv) == before
    redo.redo(store, conv)
    assert rows(store, conv) == after


def test_T8_a_new_operation_forgets_what_could_be_redone(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    provider = make("openai", server, policy)
    conv = seed_conversation(store, 1)
    ops.send(store, conv, "first", provider, OPTS)
    undo.undo(store, conv)
    assert redo.redo_kind(store, conv) == "send"
    ops.send(store, conv, "second", provider, OPTS)
    assert redo.redo_kind(store, conv) is None
    with pytest.raises(StoreError, match="nothing to redo"):
        redo.redo(store, conv)
    assert [m.text for m in store.path(conv) if m.role == "user"][-1] == "second"


def test_T7_purge_also_drops_what_undone_calls_kept_for_a_redo(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    ops.send(store, conv, "secret plans", make("openai", server, policy), OPTS)
    undo.undo(store, conv)
    undo.purge(store, conv)
    assert redo.redo_kind(store, conv) is None
    kept = store.reader.execute("SELECT group_concat(undo) FROM operations").fetchone()[0]
    assert "secret plans" not in kept
