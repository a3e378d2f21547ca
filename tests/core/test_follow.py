"""Following one session file (S1): a poll of an unchanged file writes nothing, appended
lines import once, and the tip follows the agent only from where the agent left off."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_home import CODEX_LONG, codex_rollout
from helpers import new_store

from explorer.app.importing.demo import load_demo
from explorer.app.importing.follow import NotFollowable, followable, poll
from explorer.app.importing.run import import_paths
from explorer.store import Store


def commits_seen(store: Store) -> int:
    return int(store.reader.execute("PRAGMA data_version").fetchone()[0])


def growing_rollout(tmp_path: Path) -> tuple[Path, list[bytes]]:
    lines = codex_rollout().read_bytes().splitlines(keepends=True)
    target = tmp_path / "sessions" / CODEX_LONG
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:20]) + lines[20][:40])  # Codex is mid-line
    return target, lines


def test_S1_a_followed_file_that_did_not_change_writes_nothing(
        tmp_path: Path) -> None:
    target, _lines = growing_rollout(tmp_path)
    with new_store(tmp_path) as store:
        import_paths(store, [target])
        (conv,) = store.conversations()
        followed = followable(store, conv.id)
        assert followed.agent == "Codex CLI" and followed.path == target
        first = poll(store, followed)  # the first poll records the file (read whole, merged)
        assert first.added == 0 and first.errors == []
        before = commits_seen(store)
        again = poll(store, followed)
        assert again.added == 0 and not again.reread
        assert commits_seen(store) == before


def test_S1_lines_appended_to_a_followed_session_import_once_and_move_the_tip(
        tmp_path: Path) -> None:
    target, lines = growing_rollout(tmp_path)
    with new_store(tmp_path) as store:
        import_paths(store, [target])
        (conv,) = store.conversations()
        followed = followable(store, conv.id)
        poll(store, followed)
        count = store.conversation(conv.id).message_count
        assert count == 5  # the two opening texts, the first prompt and answer, the second prompt
        target.write_bytes(b"".join(lines[:28]))
        grown = poll(store, followed)
        after = store.conversation(conv.id)
        # the words before a shell call, the call, its output, the words before the next
        assert grown.added == after.message_count - count == 4
        assert grown.tip == after.tip_id == store.path(conv.id)[-1].id
        assert poll(store, followed).added == 0  # nothing twice


def test_S1_the_tip_stays_where_the_person_moved_it(tmp_path: Path) -> None:
    target, lines = growing_rollout(tmp_path)
    with new_store(tmp_path) as store:
        import_paths(store, [target])
        (conv,) = store.conversations()
        followed = followable(store, conv.id)
        poll(store, followed)
        agent_end = store.conversation(conv.id).tip_id
        earlier = store.path(conv.id)[3].id  # the first answer
        store.branch(conv.id, earlier)  # the person looks at an earlier point
        target.write_bytes(b"".join(lines[:28]))
        grown = poll(store, followed)
        assert grown.added == 4
        assert store.conversation(conv.id).tip_id == earlier
        newest = max(n.id for n in store.skeleton(conv.id))
        assert agent_end in store.path_ids(newest)  # stored below where the agent was
        store.branch(conv.id, newest)  # back at the agent's end: the tip follows again
        target.write_bytes(b"".join(lines[:35]))
        assert poll(store, followed).added == 3  # the second call, its output, the last words
        assert store.conversation(conv.id).tip_id == max(n.id for n in store.skeleton(conv.id))


def test_only_a_conversation_read_from_an_agent_session_can_be_followed(
        tmp_path: Path) -> None:
    target, _lines = growing_rollout(tmp_path)
    with new_store(tmp_path) as store:
        demo = load_demo(store)
        with pytest.raises(NotFollowable, match="not read from an agent's session file"):
            followable(store, demo)
        import_paths(store, [target])
        conv = next(c for c in store.conversations() if c.source_format == "codex")
        target.unlink()
        with pytest.raises(NotFollowable, match="no longer there"):
            followable(store, conv.id)
