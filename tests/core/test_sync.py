"""Sync (S1): an unchanged source writes nothing, appended lines import once, a rewritten or
truncated source is re-read and merged by ids without duplicates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agent_home import (
    CLAUDE_DIR,
    CODEX_DAY,
    CODEX_LONG,
    GEMINI,
    claude_session,
    codex_rollout,
    fake_home,
    recorded,
)
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.formats import codex
from explorer.store import Store


def commits_seen(store: Store) -> int:
    """SQLite's count of commits by other connections, as this reader sees them."""
    return int(store.reader.execute("PRAGMA data_version").fetchone()[0])


def rollout(home: Path) -> Path:
    return home / CODEX_DAY / CODEX_LONG


def stored_keys(store: Store, fmt: str) -> list[str]:
    return [r[0] for r in store.reader.execute(
        "SELECT m.source_id FROM messages m JOIN conversations c ON c.id = m.conversation_id "
        "WHERE c.source_format = ? ORDER BY m.id", (fmt,))]


def test_S1_syncing_an_unchanged_source_writes_nothing(tmp_path: Path) -> None:
    env = Environment(fake_home(tmp_path / "home"))
    with new_store(tmp_path) as store:
        first = sync_sources(store, env)
        assert first.errors == [] and first.added_messages > 0
        assert first.reread == 9 and first.unchanged == 0
        assert len(store.conversations()) == 8  # the Claude Code and pi copies join theirs
        formats = {c.source_format for c in store.conversations()}
        assert formats == {"claude_code", "pi", "codex", "gemini_cli", "opencode", "llm"}
        before = commits_seen(store)
        again = sync_sources(store, env)
        assert again.unchanged == 9 and again.added_messages == 0
        assert again.appended == again.reread == 0
        assert commits_seen(store) == before
        sync_sources(store, env, {"codex"})
        assert commits_seen(store) == before
        path = next(u for u in store.sync_records() if u.endswith(".jsonl") and "codex" in u)
        Path(path).write_bytes(Path(path).read_bytes())  # touched: a new mtime, same bytes
        assert sync_sources(store, env, {"codex"}).added_messages == 0
        assert commits_seen(store) > before  # the new mtime is remembered: this one writes


def test_S1_an_unchanged_check_reads_only_the_small_index_of_the_records(
        tmp_path: Path) -> None:
    """Every file's size and time are compared with its record: read from an index of
    those four columns, not the rows (which carry the tail cursors)."""
    env = Environment(fake_home(tmp_path / "home"))
    with new_store(tmp_path) as store:
        sync_sources(store, env)
        plan = " ".join(str(r[-1]) for r in store.reader.execute(
            "EXPLAIN QUERY PLAN SELECT path, size, mtime_ns, byte_offset FROM sync_files"))
        records = store.sync_records()
        assert "COVERING INDEX sync_files_compare" in plan
        assert len(records) == 9 and all(
            records.unchanged(p, r.size, r.mtime_ns, None) for p, r in
            ((p, records[p]) for p in records))


def test_S1_lines_appended_to_a_session_import_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    whole = codex_rollout().read_bytes()
    lines = whole.splitlines(keepends=True)
    target = rollout(home)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:20]) + lines[20][:40])  # Codex is mid-line
    env = Environment(home)
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {"codex"})
        assert first.reread == 1
        count = len(stored_keys(store, "codex"))
        assert count == 5  # two opening system texts, a prompt, its answer, the next prompt
        target.write_bytes(b"".join(lines[:35]))
        grown = sync_sources(store, env, {"codex"})
        assert grown.appended == 1 and grown.reread == 0
        assert grown.added_messages == len(stored_keys(store, "codex")) - count == 7
        target.write_bytes(whole)
        assert sync_sources(store, env, {"codex"}).appended == 1
        assert sync_sources(store, env, {"codex"}).unchanged == 1
        expected = [m.id for m in next(codex.read(codex_rollout())).messages]
        assert stored_keys(store, "codex") == expected  # every line once, in order
        conv = store.conversations()[0]
        path = store.path(conv.id)
        assert [m.source_id for m in path] == expected  # one unbroken chain to the new tip
        assert conv.tip_id == path[-1].id


def test_S1_a_truncated_or_rewritten_session_is_reread_and_merged(
    tmp_path: Path
) -> None:
    home = tmp_path / "home"
    whole = codex_rollout().read_bytes()
    lines = whole.splitlines(keepends=True)
    target = rollout(home)
    target.parent.mkdir(parents=True)
    target.write_bytes(whole)
    env = Environment(home)
    with new_store(tmp_path) as store:
        sync_sources(store, env, {"codex"})
        keys = stored_keys(store, "codex")
        target.write_bytes(b"".join(lines[:25]))  # truncated after a command's output
        cut = sync_sources(store, env, {"codex"})
        assert cut.reread == 1 and cut.added_messages == 0
        # rewritten: the line before the old end changes, the rest follows as before
        edited = lines[24].replace(b'"type":', b'"type": ', 1)
        assert edited != lines[24]
        target.write_bytes(b"".join([*lines[:24], edited, *lines[25:]]))
        rewritten = sync_sources(store, env, {"codex"})
        assert rewritten.reread == 1 and rewritten.appended == 0
        after = stored_keys(store, "codex")
        assert len(after) == len(set(after)) == len(keys) + 1  # only the edited line is new
        assert set(keys) < set(after)
        assert len(store.conversations()) == 1


def test_a_rewritten_gemini_record_adds_its_calls_below_the_stored_text(
    tmp_path: Path
) -> None:
    lines = recorded("gemini_cli", GEMINI).read_bytes().splitlines(keepends=True)
    chat = tmp_path / "home" / ".gemini" / "tmp" / "p" / "chats" / "session-1.jsonl"
    chat.parent.mkdir(parents=True)
    chat.write_bytes(b"".join(lines[:14]))  # the answer's first copy: words, no call yet
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        sync_sources(store, env, {"gemini-cli"})
        chat.write_bytes(b"".join(lines))
        report = sync_sources(store, env, {"gemini-cli"})
        assert report.appended == 1
        rows = dict(store.reader.execute(
            "SELECT m.source_id, p.source_id FROM messages m "
            "LEFT JOIN messages p ON p.id = m.parent_id"))
        rid = "f35a2764-f90d-45f3-b86c-d8185eeee24a"
        assert rows[f"{rid}:calls"] == rid and rows[f"{rid}:results"] == f"{rid}:calls"
        assert len(rows) == 18  # 3 prompts, 7 answers, 4 calls, 4 results


def test_a_grown_claude_code_session_is_merged_by_ids(tmp_path: Path) -> None:
    source = claude_session()
    lines = source.read_bytes().splitlines(keepends=True)
    target = tmp_path / "home" / CLAUDE_DIR / source.name
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[: len(lines) // 2]))
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store, new_store(tmp_path, "direct.db") as direct:
        sync_sources(store, env, {"claude-code"})
        shutil.copyfile(source, target)
        report = sync_sources(store, env, {"claude-code"})
        assert report.appended == 1 and report.added_messages > 0  # read from the offset
        sync_sources(direct, env, {"claude-code"})
        assert sorted(stored_keys(store, "claude_code")) == sorted(
            stored_keys(direct, "claude_code"))
        assert parts_by_key(store) == parts_by_key(direct)


def parts_by_key(store: Store) -> list[tuple[str, int, int]]:
    return store.reader.execute(
        "SELECT m.source_id, count(p.id), coalesce(sum(length(p.text)), 0) FROM messages m "
        "LEFT JOIN parts p ON p.message_id = m.id GROUP BY m.id ORDER BY m.source_id").fetchall()


def split_response(lines: list[bytes]) -> int:
    """Where to cut so a response Claude Code wrote over several lines is cut after its first."""
    api = [json.loads(line).get("message", {}).get("id") if b'"assistant"' in line else None
           for line in lines]
    return next(i + 1 for i in range(len(api) - 1) if api[i] and api[i] == api[i + 1])


def test_a_response_stored_mid_write_gets_the_parts_written_after(
    tmp_path: Path
) -> None:
    source = claude_session()
    lines = source.read_bytes().splitlines(keepends=True)
    target = tmp_path / "home" / CLAUDE_DIR / source.name
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:split_response(lines)]))
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store, new_store(tmp_path, "direct.db") as direct:
        sync_sources(store, env, {"claude-code"})
        early = dict((k, n) for k, n, _ in parts_by_key(store))
        shutil.copyfile(source, target)
        sync_sources(store, env, {"claude-code"})
        sync_sources(direct, env, {"claude-code"})
        after = parts_by_key(store)
        assert after == parts_by_key(direct)
        assert any(n > early[k] for k, n, _ in after if k in early)  # a message really grew
        for word in ("Calling", "Bash", "notes"):  # replaced parts left the index
            assert sorted(h.snippet for h in store.search(word)) == sorted(
                h.snippet for h in direct.search(word))


def test_a_file_that_cannot_be_read_is_named_once_and_skipped(
    tmp_path: Path
) -> None:
    home = fake_home(tmp_path / "home")
    broken = rollout(home).with_name("rollout-2026-05-12T00-00-00-broken.jsonl")
    broken.write_bytes(b"\x00\x01 not json\n[1]\n")
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(home), {"codex"})
        assert any("broken" in e and "nothing readable" in e for e in report.errors)
        assert report.added_messages > 0  # the good rollout beside it is imported
        assert sync_sources(store, Environment(home), {"codex"}).errors == []


def test_watch_follows_a_session_as_it_grows(tmp_path: Path) -> None:
    from explorer.app.importing.sync import SyncReport, watch

    lines = codex_rollout().read_bytes().splitlines(keepends=True)
    target = rollout(tmp_path / "home")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:20]))
    reports: list[SyncReport] = []
    polls = []

    def stop() -> bool:
        polls.append(1)
        if len(polls) == 3:  # the agent writes more while we follow
            with target.open("ab") as f:
                f.write(b"".join(lines[20:35]))
        return len(polls) > 12

    with new_store(tmp_path) as store:
        watch(store, Environment(tmp_path / "home"), {"codex"}, 0.001, reports.append, stop)
        assert len(reports) == 2
        assert reports[0].reread == 1 and reports[1].appended == 1
        assert reports[1].added_messages > 0
