"""Importing on a worker: progress in bytes, a live event loop, Cancel between conversations,
the report dialog, and drag-and-drop of files."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QThreadPool, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QWidget
from pytestqt.qtbot import QtBot

from explorer.app.importing.plan import input_size
from explorer.app.importing.run import ImportProgress, ImportReport
from explorer.formats.base import ImportedConversation
from explorer.formats.jsonl import REPORT_EVERY_BYTES
from explorer.store import Store, StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.ui.importing import worker as import_worker
from explorer.ui.importing.dialog import (
    PROGRESS_STEPS,
    ImportDialog,
    Rate,
    report_outline,
    report_summary,
)
from explorer.ui.importing.drop import install_drop_import
from explorer.ui.importing.worker import IMPORT_SWITCH_S, ImportJob, collector_paused

GATE_TIMEOUT_S = 60  # a safety net so a broken build fails instead of hanging
FINISH_TIMEOUT_MS = 120_000


class GatedStore(Store):
    """A real store whose import pauses after the n-th conversation until the test opens it."""

    def __init__(self, path: Path, hold_after: int = 1, fail_on: int | None = None) -> None:
        super().__init__(path)
        self.hold_after = hold_after
        self.fail_on = fail_on
        self.calls = 0
        self.holding = threading.Event()
        self.gate = threading.Event()

    def import_conversations(
        self, conversations: list[ImportedConversation],
        cancel: Callable[[], bool] | None = None,
    ) -> list[ImportOutcome | StoreError]:
        """One conversation at a time, so the gate can hold between two of a batch."""
        out: list[ImportOutcome | StoreError] = []
        for ic in conversations:
            if cancel is not None and cancel():
                break
            out.append(self.import_conversation(ic))
        return out

    def import_conversation(self, ic: ImportedConversation) -> ImportOutcome:
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("disk on fire")
        outcome = super().import_conversation(ic)
        if self.calls == self.hold_after:
            self.holding.set()
            if not self.gate.wait(GATE_TIMEOUT_S):
                raise RuntimeError("the gate was never opened")
        return outcome


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "x.db")
    yield s
    s.close()


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[GatedStore]:
    s = GatedStore(tmp_path / "g.db")
    yield s
    s.gate.set()
    s.close()


@pytest.fixture(autouse=True)
def nothing_left_running(qapp: QApplication) -> Iterator[None]:
    """No timer or pool thread outlives a test (``qapp``: the application is there even
    for a test that makes no widget, run alone)."""
    yield
    assert [t for t in qapp.findChildren(QTimer) if t.isActive()] == []
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def stored_messages(store: Store) -> int:
    return sum(c.message_count for c in store.conversations())


def test_progress_reaches_the_total_and_the_report_matches_the_store(
    qtbot: QtBot, store: Store, corpus_dir: Path
) -> None:
    job = ImportJob(store, [corpus_dir / "exports"])
    seen: list[ImportProgress] = []
    threads: set[threading.Thread] = set()

    def on_progress(p: ImportProgress) -> None:
        seen.append(p)
        threads.add(threading.current_thread())

    job.progressed.connect(on_progress)
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    report: ImportReport = blocker.args[0]
    assert not job.is_running() and job.report is report
    assert threads == {threading.main_thread()}
    total = input_size(corpus_dir / "exports")
    assert total > 0 and {p.bytes_total for p in seen} == {total}
    assert seen[-1].bytes_done == total
    done = [p.bytes_done for p in seen]
    assert done == sorted(done) and done[0] < total
    assert seen[-1].conversations_done == len(report.conversations) == len(store.conversations())
    assert seen[-1].messages_done == report.added_messages == stored_messages(store)
    assert not report.cancelled and report.errors == []


def test_the_event_loop_keeps_running_while_the_worker_imports(
    qtbot: QtBot, gated: GatedStore, corpus_dir: Path
) -> None:
    """Ticks are counted while the worker is held mid-import; a frozen loop would count none."""
    job = ImportJob(gated, [corpus_dir / "exports"])
    ticks_while_importing = 0

    def tick() -> None:
        nonlocal ticks_while_importing
        if gated.holding.is_set() and job.is_running():
            ticks_while_importing += 1
            if ticks_while_importing >= 3:
                gated.gate.set()

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    try:
        with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
            job.start()
    finally:
        timer.stop()
    assert ticks_while_importing >= 3
    report: ImportReport = blocker.args[0]
    assert report.errors == [] and len(report.conversations) == len(gated.conversations())


def test_cancel_after_the_first_conversation_leaves_only_whole_conversations(
    qtbot: QtBot, gated: GatedStore, corpus_dir: Path
) -> None:
    job = ImportJob(gated, [corpus_dir / "exports"])
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
        qtbot.waitUntil(gated.holding.is_set, timeout=FINISH_TIMEOUT_MS)
        job.cancel()
        gated.gate.set()
    report: ImportReport = blocker.args[0]
    assert report.cancelled and job.cancel_requested
    assert len(report.conversations) == 1 == len(gated.conversations())
    assert stored_messages(gated) == report.added_messages > 0
    assert gated.reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert "cancelled" in report_summary(report).lower()


def test_a_failure_inside_the_import_ends_the_job_with_what_was_done(
    qtbot: QtBot, tmp_path: Path, corpus_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The dialog says what stopped it; the log keeps the traceback (E1)."""
    s = GatedStore(tmp_path / "f.db", hold_after=0, fail_on=2)
    try:
        job = ImportJob(s, [corpus_dir / "exports"])
        with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
            job.start()
        report: ImportReport = blocker.args[0]
        assert any("RuntimeError: disk on fire" in e for e in report.errors)
        logged = [r for r in caplog.records if "disk on fire" in r.getMessage()]
        assert logged and logged[0].exc_info is not None
        assert len(report.conversations) == 1 == len(s.conversations())
        assert not job.is_running()
    finally:
        s.close()


def test_the_dialog_ends_with_the_report(
    qtbot: QtBot, store: Store, corpus_dir: Path
) -> None:
    dialog = ImportDialog(store, [corpus_dir / "exports"])
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.importFinished, timeout=FINISH_TIMEOUT_MS) as blocker:
        dialog.start()
    report: ImportReport = blocker.args[0]
    assert dialog.progress_bar.value() == PROGRESS_STEPS
    n = len(store.conversations())
    assert f"{n} conversations" in dialog.heading.text()
    view = dialog.report_view
    tops = [view.topLevelItem(i) for i in range(view.topLevelItemCount())]
    assert tops[0].text(0) == f"Conversations ({n})" and tops[0].childCount() == n
    skipped = next(t for t in tops if t.text(0).startswith("Skipped files"))
    assert "README.md" in skipped.child(0).text(0)
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Close) is not None
    chosen: list[int] = []
    dialog.conversationChosen.connect(chosen.append)
    first = tops[0].child(0)
    dialog.report_view.itemDoubleClicked.emit(first, 0)
    assert chosen == [report.conversations[0].conversation_id]
    assert not dialog.is_running()
    assert [t for t in dialog.findChildren(QTimer) if t.isActive()] == []


def test_cancel_in_the_dialog_keeps_it_open_until_the_report(
    qtbot: QtBot, gated: GatedStore, corpus_dir: Path
) -> None:
    dialog = ImportDialog(gated, [corpus_dir / "exports"])
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.importFinished, timeout=FINISH_TIMEOUT_MS):
        dialog.start()
        qtbot.waitUntil(gated.holding.is_set, timeout=FINISH_TIMEOUT_MS)
        dialog.reject()  # Escape / Cancel while importing
        assert dialog.isVisible() and not dialog.cancel_button.isEnabled()
        gated.gate.set()
    assert dialog.isVisible() and "cancelled" in dialog.heading.text().lower()
    dialog.reject()
    assert not dialog.isVisible()


def test_the_outline_lists_repairs_skips_and_errors() -> None:
    outcome = ImportOutcome(7, "Broken session", "claude_code", 3, 2,
                            notes=["line 4: not JSON; skipped"],
                            ignored_records={"progress": 5}, incomplete=True)
    report = ImportReport([outcome], errors=["x.json: damaged"],
                          skipped_files=["notes.txt: not a transcript; skipped"])
    sections = report_outline(report)
    assert [s.text for s in sections] == ["Conversations (1)", "Errors (1)", "Skipped files (1)"]
    conv = sections[0].children[0]
    assert conv.conversation_id == 7 and conv.text.startswith("Broken session — 3 added, 2 already")
    assert [c.text for c in conv.children] == [
        "repaired/skipped: line 4: not JSON; skipped", "not messages: progress ×5",
        "ends mid-turn: the last clean boundary is marked"]
    assert sections[1].children[0].text == "x.json: damaged"
    assert report_summary(report).startswith("1 conversation: 3 messages added, 2 already")


def drag_events(
    mime: QMimeData, paths: list[str], urls: list[QUrl]
) -> tuple[QDragEnterEvent, QDropEvent]:
    """The events only point at ``mime``: the caller keeps it alive."""
    mime.setUrls([QUrl.fromLocalFile(p) for p in paths] + urls)
    action = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(QPoint(5, 5), action, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    drop = QDropEvent(QPointF(5, 5), action, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    return enter, drop


def test_dropping_files_folders_and_zips_starts_an_import(qtbot: QtBot, tmp_path: Path) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    calls: list[list[Path]] = []
    install_drop_import(widget, calls.append)
    assert widget.acceptDrops()
    wanted = [tmp_path / "a.jsonl", tmp_path / "export", tmp_path / "chatgpt.zip"]
    mime = QMimeData()
    enter, drop = drag_events(mime, [str(p) for p in wanted], [QUrl("https://example.com/x.json")])
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(widget, drop)
    assert drop.isAccepted() and calls == [wanted]


def test_a_drag_without_local_files_is_refused(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    calls: list[list[Path]] = []
    install_drop_import(widget, calls.append)
    mime = QMimeData()
    enter, drop = drag_events(mime, [], [QUrl("https://example.com/x.json")])
    enter.setAccepted(False)
    QApplication.sendEvent(widget, enter)
    assert not enter.isAccepted()
    QApplication.sendEvent(widget, drop)
    assert calls == []


@pytest.fixture(scope="module")
def one_big_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A single Claude Code session file of a few megabytes (one conversation)."""
    from benchmarks.scale_data import one_session

    return one_session(tmp_path_factory.mktemp("session"), 1200, seed=3)


def test_progress_moves_by_bytes_inside_a_single_file(
    qtbot: QtBot, store: Store, one_big_session: Path
) -> None:
    size = one_big_session.stat().st_size
    assert size > 8 * REPORT_EVERY_BYTES
    job = ImportJob(store, [one_big_session])
    seen: list[ImportProgress] = []
    job.progressed.connect(seen.append)
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    report: ImportReport = blocker.args[0]
    assert report.errors == [] and len(report.conversations) == 1
    reading = [p.bytes_done for p in seen if p.conversations_done == 0 and 0 < p.bytes_done < size]
    assert len(reading) >= 5, "the bar moves while the one file is read, before it is stored"
    assert reading == sorted(reading)
    assert seen[-1].bytes_done == size


def test_cancel_stops_reading_a_big_file_midway_and_stores_nothing_of_it(
    qtbot: QtBot, store: Store, one_big_session: Path
) -> None:
    size = one_big_session.stat().st_size
    job = ImportJob(store, [one_big_session])
    seen: list[ImportProgress] = []

    def on_progress(p: ImportProgress) -> None:
        seen.append(p)
        if p.bytes_done > 0:
            job.cancel()

    job.progressed.connect(on_progress)
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    report: ImportReport = blocker.args[0]
    assert report.cancelled and report.errors == []
    assert store.conversations() == [], "a conversation is stored whole or not at all"
    assert max(p.bytes_done for p in seen) < size, "the reader stopped before the end"


def test_V2_the_collector_is_paused_while_importing_and_back_after() -> None:
    assert gc.isenabled()
    before = sys.getswitchinterval()
    with collector_paused():
        assert not gc.isenabled()
        assert sys.getswitchinterval() == min(before, IMPORT_SWITCH_S)
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "an import still running keeps it paused"
        assert sys.getswitchinterval() == min(before, IMPORT_SWITCH_S)
    assert gc.isenabled()
    assert sys.getswitchinterval() == before, "the GIL's turns are as long as before"


def test_V2_the_window_import_runs_with_the_collector_paused_and_restores_it(
    qtbot: QtBot, store: Store, one_big_session: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read on the import's own thread, at each progress report it makes."""
    before = sys.getswitchinterval()
    seen: list[tuple[bool, float]] = []
    real = import_worker.import_in_child

    def watched(*args: Any, progress: Callable[[ImportProgress], None], **kw: Any) -> Any:
        def hook(p: ImportProgress) -> None:
            seen.append((gc.isenabled(), sys.getswitchinterval()))
            progress(p)
        return real(*args, progress=hook, **kw)

    monkeypatch.setattr(import_worker, "import_in_child", watched)
    job = ImportJob(store, [one_big_session])
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    assert blocker.args[0].conversations, "the session was imported"
    assert len(seen) > 2 and set(seen) == {(False, min(before, IMPORT_SWITCH_S))}
    assert gc.isenabled() and sys.getswitchinterval() == before


def test_rate_gives_speed_and_time_left() -> None:
    now = [0.0]
    rate = Rate(lambda: now[0])
    assert rate.text() == ""
    rate.add(ImportProgress(0, 10_000_000, 0, 0, "f"))
    now[0] = 2.0
    rate.add(ImportProgress(2_000_000, 10_000_000, 0, 0, "f"))
    assert rate.text() == "1.0 MB/s · about 8 s left"
    now[0] = 4.0
    rate.add(ImportProgress(4_000_000, 10_000_000, 30_000, 1, "f"))
    assert rate.text() == "7,500 messages/s · about 6 s left"


def test_the_progress_of_a_huge_import_fits_the_dialog(qtbot: QtBot, tmp_path: Path) -> None:
    """The counts, sizes, speed and time left of a 100,000-message session were one line
    wider than the dialog: its end ("about 3 s left") was cut off."""
    from explorer.ui.importing.dialog import ImportDialog

    now = [0.0]
    with Store(tmp_path / "x.db") as store:
        dialog = ImportDialog(store, [tmp_path / "big-session-100000.jsonl"])
        qtbot.addWidget(dialog)
        dialog.rate = Rate(lambda: now[0])
        dialog.show()
        for second, done, messages in ((0.0, 1 << 20, 0), (4.0, 119 << 20, 18_000)):
            now[0] = second
            dialog._show_progress(ImportProgress(done, 202_000_000, messages, 0, "f"))
        lines = dialog.count_label.text().split("\n")
        assert lines == ["18,000 messages so far · 124.8 MB of 202.0 MB",
                         "4,500 messages/s · about 2 s left"]
        metrics = dialog.count_label.fontMetrics()
        assert max(metrics.horizontalAdvance(line) for line in lines) <= \
            dialog.count_label.width()
        dialog._show_progress(ImportProgress(150 << 20, 202_000_000, 31_000, 2, "f"))
        assert dialog.count_label.text().startswith("31,000 messages in 2 conversations · ")
        now[0] = 9.0  # every byte read: the views are prepared, no time left is guessed
        dialog._show_progress(ImportProgress(202_000_000, 202_000_000, 100_000, 3, "Preparing"))
        assert dialog.count_label.text() == "100,000 messages in 3 conversations · " \
            "202.0 MB of 202.0 MB"
        dialog._show_report(ImportReport())
        assert dialog.count_label.isHidden(), "no time left is shown once it is over"


def test_V2_a_window_import_prepares_the_views_of_a_big_conversation(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``convo import`` does: the graph, figure and path of a conversation big enough
    for the graph's child are kept once the import ends, by a child process, so its first
    open reads them; the dialog says what it is doing meanwhile. That child was started
    while the file was read, and is handed the paths the import knew."""
    from explorer.app.graph import turn_process, view_children
    from explorer.app.graph.turn_process import CHILD_MIN_MESSAGES
    from explorer.app.kept import paths as kept_paths
    from explorer.app.kept import prepared
    from explorer.app.kept import turns as kept_turns
    from explorer.app.kept.codec import code_key
    from explorer.cli.main import main
    from explorer.formats.base import ImportedConversation as Conv
    from explorer.tree.model import text_message

    n = CHILD_MIN_MESSAGES + 2
    with Store(tmp_path / "source.db") as source:
        source.import_conversation(Conv(title="big", source_format="test", tip=n, messages=[
            text_message(i, i - 1 or None, "user" if i % 2 else "assistant", f"message {i}")
            for i in range(1, n + 1)]))
    exported = tmp_path / "big.jsonl"
    assert main(["--db", str(tmp_path / "source.db"), "export", "1", "--format", "native",
                 "-o", str(exported)]) == 0
    monkeypatch.setattr(prepared, "SPARE_BYTES", 0)
    taken, sent = [], []
    take, prepare = turn_process.take_spare, import_worker.prepare_in_child
    monkeypatch.setattr(turn_process, "take_spare", lambda: taken.append(take()) or taken[-1])
    monkeypatch.setattr(import_worker, "prepare_in_child",
                        lambda *a: sent.append(a[3]) or prepare(*a))
    with Store(tmp_path / "window.db") as store:
        job = ImportJob(store, [exported])
        said: list[str] = []
        job.progressed.connect(lambda p: said.append(p.current_file))
        with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
            job.start()
        report: ImportReport = blocker.args[0]
        assert report.errors == [] and report.added_messages == n
        conv = report.conversations[0].conversation_id
        assert said[-1] == "Preparing 1 big conversation for a fast first open…"
        assert len(taken) == 1 and taken[0] is not None  # the child started while reading
        assert not view_children._spare
        tip_path = store.path_ids(store.conversation(conv).tip_id or 0)
        assert [list(ids) for ids in sent[0]] == [tip_path]  # (its tip is its clean boundary)
        assert kept_turns.is_kept(store, conv)
        at, tip = store.revision(conv), store.conversation(conv).tip_id
        assert at is not None and tip is not None
        assert store.kept_view(conv, kept_paths.KIND, at, f"{code_key()}:{tip}") is not None
        assert store.has_kept_view(conv, "context figure", at, None)


def test_V2_a_small_window_import_starts_no_preparing(
        qtbot: QtBot, store: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    monkeypatch.setattr(import_worker, "prepare_in_child", lambda *a: started.append(a))
    job = ImportJob(store, [corpus_dir / "exports"])
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS):
        job.start()
    assert job.report is not None and job.report.added_messages > 0 and started == []
