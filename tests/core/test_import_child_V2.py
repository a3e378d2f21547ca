"""A window's import read in a child process stores and reports what ``convo import`` does (V2).

The window reads in a child so its event loop never waits behind the reading; the child
runs the same import against the window's store through a pipe. Whatever path a file
takes, the database and the report must come out the same: skipped lines named with
their reasons, duplicates, dangling parents and cycles repaired with the same notes,
the same rows and sizes.
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.app.importing import process as import_process
from explorer.app.importing.process import ChildImport, import_in_child
from explorer.app.importing.run import ImportProgress, ImportReport, import_paths
from explorer.store import Store
from tests.corpus import claude_code_sessions as cc
from tests.corpus import manifests

CONVERSATIONS = ("SELECT c.title, c.source_format, c.source_id, t.source_id, k.source_id "
                 "FROM conversations c LEFT JOIN messages t ON t.id = c.tip_id "
                 "LEFT JOIN messages k ON k.id = c.clean_tip_id ORDER BY c.source_id")
MESSAGES = ("SELECT c.source_id, m.source_id, p.source_id, m.role, m.created_at, m.model, "
            "m.usage, m.source_meta, m.preview FROM messages m "
            "JOIN conversations c ON c.id = m.conversation_id "
            "LEFT JOIN messages p ON p.id = m.parent_id ORDER BY 1, 2")
PARTS = ("SELECT c.source_id, m.source_id, p.idx, p.kind, p.text, p.tool_name, p.tool_use_id, "
         "p.is_error, p.blob_hash, p.media_type, p.meta, p.size_chars, p.size_words, "
         "p.size_punct, p.size_wide, p.sent_words, p.sent_punct, p.sent_wide, p.image_width, "
         "p.image_height FROM parts p JOIN messages m ON m.id = p.message_id "
         "JOIN conversations c ON c.id = m.conversation_id ORDER BY 1, 2, 3")


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    here, there = Store(tmp_path / "here.db"), Store(tmp_path / "there.db")
    try:
        yield here, there
    finally:
        here.close()
        there.close()


def contents(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(store.db_path)
    try:
        return {q: conn.execute(q).fetchall() for q in (CONVERSATIONS, MESSAGES, PARTS)}
    finally:
        conn.close()


def same_report(a: ImportReport, b: ImportReport) -> None:
    def outcomes(r: ImportReport) -> list[tuple[Any, ...]]:
        return [(c.title, c.source_format, c.added, c.already_present, c.notes,
                 c.ignored_records, c.incomplete) for c in r.conversations]
    assert outcomes(a) == outcomes(b)
    assert (a.errors, a.skipped_files, a.cancelled) == (b.errors, b.skipped_files, b.cancelled)


def both(stores: tuple[Store, Store], paths: list[Path]) -> tuple[ImportReport, ImportReport]:
    here, there = stores
    return import_paths(here, paths), import_in_child(there, paths)


def damaged_session(folder: Path) -> Path:
    """A Claude Code session with bad lines, a duplicate, a dangling parent and a cycle."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "5e55-damaged.jsonl"

    def line(uuid: str, parent: str | None, role: str, text: str) -> str:
        return json.dumps({"type": role, "uuid": uuid, "parentUuid": parent,
                           "sessionId": "5e55-damaged", "timestamp": "2025-01-01T00:00:00Z",
                           "message": {"role": role, "content": text}})
    lines = [
        line("a", None, "user", "hello there, key sk-ant-api03-" + "x" * 40),
        "{not json",
        line("b", "a", "assistant", "hi"),
        "[1, 2, 3]",
        line("b", "a", "assistant", "a second b: the first is kept"),
        line("c", "gone", "user", "my parent is missing"),
        line("d", "e", "user", "d and e point at each other"),
        line("e", "d", "assistant", "e"),
        line("f", "b", "user", "the tip"),
    ]
    path.write_text("\n".join(lines) + '\n{"type": "user", "uuid": "cut', encoding="utf-8")
    return path


def test_V2_a_child_import_reports_the_same_skipped_lines_and_repairs(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    session = damaged_session(tmp_path / "projects" / "-home-dev-x")
    here, there = both(stores, [session])
    same_report(here, there)
    notes = " ".join(there.conversations[0].notes)
    for said in ("line 2", "invalid JSON", "line 4", "not a JSON object", "line 10",
                 "truncated last line"):
        assert said in notes, said
    assert contents(stores[0]) == contents(stores[1])


def test_V2_a_child_import_of_every_sample_stores_the_same_rows(
        stores: tuple[Store, Store], corpus_dir: Path) -> None:
    sessions = corpus_dir / "codex" / "home" / ".codex" / "sessions"
    here, there = both(stores, [corpus_dir / "exports", sessions])
    recorded = len(manifests()["codex"]["files"])  # one conversation a rollout
    assert len(there.conversations) == 11 + recorded and not there.cancelled
    assert {c.source_format for c in there.conversations} == {
        "chatgpt", "claude_ai", "codex", "librechat", "openwebui", "sillytavern"}
    same_report(here, there)
    assert contents(stores[0]) == contents(stores[1])


def test_V2_a_child_import_of_a_missing_path_and_a_stranger_file_says_so(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    stranger = tmp_path / "notes.txt"
    stranger.write_text("just some notes\n", encoding="utf-8")
    here, there = both(stores, [tmp_path / "nowhere.jsonl", stranger])
    same_report(here, there)
    assert len(there.errors) == 2 and stores[1].conversations() == []


def test_V2_importing_again_through_the_child_adds_nothing(
        stores: tuple[Store, Store]) -> None:
    _, there = stores
    first = import_in_child(there, [cc.PROJECTS])
    again = import_in_child(there, [cc.PROJECTS])
    assert first.added_messages == 59 + 5 and again.added_messages == 0
    # each session's messages are found again: the fork's copy of the start as well
    assert again.present_messages == 59 + 22


@pytest.mark.slow
def test_V2_a_huge_session_read_light_in_the_child_stores_the_same_rows(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """Over the light-reading size: its content is asked of the child chunk by chunk."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.reader import LAZY_BYTES

    session = one_session(tmp_path / "in", 0, seed=5, mb=LAZY_BYTES / 2**20 + 0.5)
    assert session.stat().st_size >= LAZY_BYTES
    seen: list[ImportProgress] = []
    here = import_paths(stores[0], [session])
    there = import_in_child(stores[1], [session], progress=seen.append)
    same_report(here, there)
    assert contents(stores[0]) == contents(stores[1])
    size = session.stat().st_size
    written = [p for p in seen if p.conversations_done == 0 and p.messages_done > 0]
    assert len({p.bytes_done for p in written}) >= 3, "the bar moves while it is written"
    assert seen[-1].bytes_done == size


def test_V2_the_window_tells_the_child_its_chunks_and_takes_back_rows_only(
        stores: tuple[Store, Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked chunk by chunk, the child read while the writer waited and the writer wrote
    while the child waited (a 100,000-message session: 15 s, against 8 s on the command
    line), and each answer carried the parts beside the rows. The chunks are told to the
    child first (its reading processes fill them ahead) and only rows come back."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.reader import LAZY_BYTES

    session = one_session(tmp_path / "in", 0, seed=7, mb=LAZY_BYTES / 2**20 + 0.5)
    planned: list[int] = []
    answers: list[Any] = []
    plan, ask = import_process._Remote.plan, import_process._Link.ask

    def spy_plan(self: Any, chunks: Any) -> None:
        planned.append(sum(len(c) for c in chunks))
        plan(self, chunks)

    def spy_ask(self: Any, *question: Any) -> Any:
        answers.append(ask(self, *question))
        return answers[-1]
    monkeypatch.setattr(import_process._Remote, "plan", spy_plan)
    monkeypatch.setattr(import_process._Link, "ask", spy_ask)
    here = import_paths(stores[0], [session])
    there = import_in_child(stores[1], [session])
    same_report(here, there)
    assert contents(stores[0]) == contents(stores[1])
    assert planned == [there.added_messages]
    rows = [r for answer, _repaired in answers  # (passed on pickled when filled ahead)
            for r in (answer if isinstance(answer, dict) else pickle.loads(answer)).values()]
    assert len(rows) == there.added_messages
    assert all(len(r) == 3 and isinstance(r[1], list) and isinstance(r[2], dict) for r in rows)


def test_T5_a_huge_session_imported_again_through_the_child_adds_nothing(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """A session read light, imported by a window a second time (or grown since): the
    messages in common are compared with their content, as on the command line, so it
    continues its conversation. The child's rows alone had left them light, the
    comparison saw other previews, and the same session was stored a second time."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.reader import LAZY_BYTES

    session = one_session(tmp_path / "in", 0, seed=8, mb=LAZY_BYTES / 2**20 + 0.5)
    first = import_in_child(stores[1], [session])
    (conv,) = [c.conversation_id for c in first.conversations]
    again = import_in_child(stores[1], [session])
    assert [(c.conversation_id, c.added, c.already_present) for c in again.conversations] \
        == [(conv, 0, first.added_messages)]
    assert not any("another conversation already uses" in n
                   for c in again.conversations for n in c.notes)
    assert [c.id for c in stores[1].conversations()] == [conv]


def test_T5_a_huge_session_grown_since_continues_as_on_the_command_line(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """Imported, then grown by the agent and imported again, both times read light and
    filled ahead: through the window's child the second import adds only the new messages
    to the same conversation, and both files hold the same rows as ``convo import``'s."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.reader import LAZY_BYTES

    full = one_session(tmp_path / "in", 0, seed=9, mb=1.6 * LAZY_BYTES / 2**20 + 0.5)
    lines = full.read_bytes().splitlines(keepends=True)
    cut, size = 0, 0
    while size < LAZY_BYTES + 200_000:  # the first part is read light too
        size, cut = size + len(lines[cut]), cut + 1
    grown = full.read_bytes()
    full.write_bytes(b"".join(lines[:cut]))
    firsts = [fn(store, [full]) for fn, store in zip((import_paths, import_in_child), stores,
                                                         strict=True)]
    full.write_bytes(grown)
    agains = [fn(store, [full]) for fn, store in zip((import_paths, import_in_child), stores,
                                                         strict=True)]
    for first, again in zip(firsts, agains, strict=True):
        (before,), (after,) = first.conversations, again.conversations
        assert after.conversation_id == before.conversation_id
        assert after.already_present == before.added and after.added > 0
    assert agains[0].conversations[0].added == agains[1].conversations[0].added
    assert contents(stores[0]) == contents(stores[1])


def test_V2_what_the_childs_reads_of_a_huge_session_repair_is_named_in_the_report(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """Lone surrogates in a session read light are found when its content is read again
    for the writer, in the child: the window's report names them as ``convo import``'s
    does (it said nothing, though the text was repaired)."""
    from explorer.formats.claude_code.reader import LAZY_BYTES

    session = tmp_path / "cut.jsonl"
    with session.open("w", encoding="utf-8") as out:
        n = 0
        while out.tell() < LAZY_BYTES + 500_000:
            role = "assistant" if n % 2 else "user"
            text = (f"cut \ud83d {n} " if n % 500 == 250 else f"fine {n} ") + "x" * 1500
            out.write(json.dumps({"type": role, "uuid": f"u{n}", "sessionId": "cut",
                                  "parentUuid": f"u{n - 1}" if n else None,
                                  "message": {"id": f"m{n}", "role": role,
                                              "content": [{"type": "text", "text": text}]}})
                      + "\n")
            n += 1
    here, there = both(stores, [session])
    same_report(here, there)
    (outcome,) = there.conversations
    cuts = len(range(250, n, 500))
    assert [note for note in outcome.notes if "lone surrogates" in note] == [
        f"lone surrogates (text cut inside an emoji) replaced with U+FFFD in {cuts} place(s)"]
    assert contents(stores[0]) == contents(stores[1])


def test_V2_a_reading_process_that_dies_is_reported_and_leaves_the_store_whole(
        stores: tuple[Store, Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 1200, seed=3)
    started: list[ChildImport] = []
    real_init = ChildImport.__init__

    def remember(self: ChildImport, *args: Any) -> None:
        real_init(self, *args)
        started.append(self)

    monkeypatch.setattr(import_process.ChildImport, "__init__", remember)

    def kill_on_first_bytes(p: ImportProgress) -> None:
        if p.bytes_done > 0 and started[0].proc.poll() is None:
            started[0].proc.kill()

    _, there = stores
    report = import_in_child(there, [session], progress=kill_on_first_bytes)
    assert any("the reading process failed" in e for e in report.errors)
    assert not report.cancelled and report.conversations == []
    assert there.conversations() == []
    assert there.reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_V2_a_cancel_reaches_the_child_while_it_reads(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """Cancelled at the first bytes read: the child hears it at its next progress step
    (it always has progress waiting to be read, so the flag must be looked at between
    messages, not only when the pipe is quiet) and stops well before the end."""
    from benchmarks.scale_data import one_session

    from explorer.formats.jsonl import REPORT_EVERY_BYTES

    session = one_session(tmp_path / "in", 2500, seed=4)
    steps = session.stat().st_size // REPORT_EVERY_BYTES
    assert steps >= 10
    reading: list[int] = []

    def progress(p: ImportProgress) -> None:
        if p.bytes_done > 0:
            reading.append(p.bytes_done)

    report = import_in_child(stores[1], [session], progress=progress,
                             cancel=lambda: bool(reading))
    assert report.cancelled and report.errors == [] and report.conversations == []
    assert len(reading) < steps, "the child stopped reading before the end of the file"
    assert stores[1].conversations() == []


def test_V2_without_a_child_process_the_import_reads_in_process(
        stores: tuple[Store, Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no processes here")

    monkeypatch.setattr(import_process.subprocess, "Popen", refuse)
    session = damaged_session(tmp_path / "projects" / "-home-dev-x")
    here, there = both(stores, [session])
    same_report(here, there)
    assert there.added_messages > 0
    assert contents(stores[0]) == contents(stores[1])


@pytest.mark.slow
def test_V2_a_huge_session_changed_while_written_is_not_stored_and_is_named(
        stores: tuple[Store, Store], tmp_path: Path) -> None:
    """Its content, read again by the child for the writer, is gone: that conversation is
    rolled back and named, as in-process, and the import ends normally."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.reader import LAZY_BYTES

    session = one_session(tmp_path / "in", 0, seed=6, mb=LAZY_BYTES / 2**20 + 0.5)

    def cut_when_written(p: ImportProgress) -> None:
        if p.messages_done > 0 and p.conversations_done == 0 and session.stat().st_size:
            session.write_bytes(b"")

    report = import_in_child(stores[1], [session], progress=cut_when_written)
    assert report.conversations == [] and stores[1].conversations() == []
    assert len(report.errors) == 1 and str(session) in report.errors[0]
    assert "reading process" not in report.errors[0], report.errors[0]
    assert stores[1].reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_T5_a_session_with_subagents_and_a_fork_read_light_in_the_child_stores_the_same(
        stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded Claude Code session, with its subagents' files and the session that
    forked it, read light (its content read again by file and offset) in a window's
    import child: the same rows as reading it light here, and imported again, nothing
    added."""
    from explorer.formats.claude_code import reader

    source = cc.original().parent
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)  # here
    monkeypatch.setenv(reader.LAZY_BYTES_ENV, "1")  # in the child
    here = import_paths(stores[0], [source])
    there = import_in_child(stores[1], [source])
    same_report(here, there)
    assert contents(stores[0]) == contents(stores[1])
    again = import_in_child(stores[1], [source])
    assert again.added_messages == 0 and not again.errors
    assert sorted(c.conversation_id for c in again.conversations) == sorted(
        c.conversation_id for c in there.conversations)
    assert contents(stores[0]) == contents(stores[1])
