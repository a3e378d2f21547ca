"""SPEC R1 in the window: one explicit, visible switch for redacting secrets in what leaves
(sends, the compaction preview and its probes, exports, the context at a node). On by
default; off shows a red warning in the status bar and the preview; turning it off in the
window lasts for the session only, the Settings default is the only way it stays off."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import assistant, user
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from explorer.app.ops.slash import parse
from explorer.app.preferences import load_app_prefs
from explorer.providers.settings import settings_path
from explorer.store import Store
from explorer.ui.app import open_store
from explorer.ui.calls.run_dialogs import FanoutRequest
from explorer.ui.settings_dialog import SettingsDialog
from explorer.ui.window.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ServerState

SECRET = "sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ"


def plant(window: MainWindow) -> None:
    for n in range(12):
        window.store.append_turn(1, [user(f"step {n} " + "word " * 300),
                                     assistant(f"did {n} " + "text " * 300)])
    window.store.append_turn(1, [user(f"deploy with OPENAI key {SECRET} please"),
                                 assistant("done, deployed")])
    window.refresh()


def export_markdown(window: MainWindow, dest: Path) -> str:
    window.questions.ask_save_path = lambda *_: dest  # type: ignore[method-assign]
    window.actions_.exports.export("markdown", None)
    window.ops.settle()  # written off the main thread
    return dest.read_text(encoding="utf-8")


def test_R1_the_window_redacts_by_default_and_warns_while_the_switch_is_off(
    window: MainWindow, tmp_path: Path,
) -> None:
    plant(window)
    action = window.findChild(QAction, "redact_secrets")
    assert isinstance(action, QAction) and action.isCheckable() and action.isChecked()
    assert not window.redaction.banner.isVisible()
    on = export_markdown(window, tmp_path / "on.md")
    assert SECRET not in on and "[redacted: openai-key]" in on
    action.trigger()  # File ▸ Redact secrets…, unticked
    assert not window.redaction.on
    assert window.redaction.banner.isVisible()
    assert "NOT redacted" in window.redaction.banner.text()
    off = export_markdown(window, tmp_path / "off.md")
    assert SECRET in off
    assert "not redacted" in window.statusBar().currentMessage()
    assert window.redaction.banner.isVisible()  # a status message does not hide the warning
    native = tmp_path / "backup.jsonl"
    window.questions.ask_save_path = lambda *_: native  # type: ignore[method-assign]
    window.actions_.exports.export("native", None)
    window.ops.settle()  # written off the main thread
    assert SECRET in native.read_text(encoding="utf-8")


def test_R1_the_preview_checkbox_is_the_windows_switch_and_plans_without_redaction_when_off(
    window: MainWindow, qtbot: QtBot,
) -> None:
    plant(window)
    window.actions_.dialogs.compaction_preview()
    preview = window.actions_.dialogs.preview
    assert preview is not None
    preview.set_options(provider="anthropic", window=8000, rung="snapshot")
    qtbot.waitUntil(lambda: not preview.busy, timeout=30_000)
    assert "deploy with OPENAI key" in preview.panes.tail_text.toPlainText()
    assert preview.redaction.box.isChecked() and not preview.redaction.warning.isVisible()
    assert SECRET not in preview.panes.tail_text.toPlainText()
    assert "redacted 1 secret(s)" in preview.panes.notes.text()
    preview.redaction.box.setChecked(False)
    assert not window.redaction.on  # one state: the window's switch moved with it
    assert preview.redaction.warning.isVisible()
    qtbot.waitUntil(lambda: not preview.busy, timeout=30_000)
    assert preview.result is not None and preview.result.target.redactor is None
    assert SECRET in preview.panes.tail_text.toPlainText()
    assert "redacted" not in preview.panes.notes.text()
    window.redaction.set_on(True)  # and the other way round
    assert preview.redaction.box.isChecked() and not preview.redaction.warning.isVisible()
    qtbot.waitUntil(lambda: not preview.busy, timeout=30_000)
    assert preview.result is not None and preview.result.target.redactor is not None
    preview.shutdown()
    preview.close()


def test_R1_send_follows_the_switch(
    window: MainWindow, qtbot: QtBot, provider: ServerState,
) -> None:
    def send(text: str) -> str:
        window.open_command_bar()
        window.slash.run(parse(f"/send {text}"))
        window.ops.settle()
        job = window.model_job
        assert job is not None
        with qtbot.waitSignal(job.done, timeout=20_000):
            pass
        job.wait()
        return json.dumps(provider.hits[-1].body)

    assert SECRET not in send(f"is {SECRET} still valid?")
    window.redaction.set_on(False)
    assert SECRET in send(f"and is {SECRET} the one in prod?")


def test_R1_turning_the_switch_off_is_for_the_session_and_settings_hold_the_default(
    qtbot: QtBot, tmp_path: Path,
) -> None:
    def open_window(name: str) -> tuple[MainWindow, Store]:
        store = open_store(tmp_path / f"{name}.db")
        w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
        qtbot.addWidget(w)
        w.show()
        return w, store

    first, s1 = open_window("a")
    first.redaction.set_on(False)
    first.close()
    s1.close()
    assert load_app_prefs().redact
    assert not settings_path().exists() or "redact_secrets" not in settings_path().read_text()
    second, s2 = open_window("b")
    assert second.redaction.on and not second.redaction.banner.isVisible()
    dialog = SettingsDialog(second)
    qtbot.addWidget(dialog)
    assert dialog.redact.isChecked() and not dialog.redact_warning.isVisibleTo(dialog)
    dialog.redact.setChecked(False)
    assert dialog.redact_warning.isVisibleTo(dialog)
    assert not dialog.ocr.isChecked()  # reading images with OCR is asked for, never assumed
    dialog.ocr.setChecked(True)
    assert dialog.save()
    saved = json.loads(settings_path().read_text())["app"]
    assert saved["redact_secrets"] is False and saved["ocr_images"] is True
    second.close()
    s2.close()
    third, s3 = open_window("c")
    assert not third.redaction.on and third.redaction.banner.isVisible()
    third.close()
    s3.close()


def test_R1_a_fanout_follows_the_switch(
    provider: ServerState, window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fanout(text: str) -> str:
        monkeypatch.setattr(window.runs, "ask_fanout", lambda models, given="": FanoutRequest(
            text, ("anthropic:claude-a",), 1))
        window.runs.fanout()
        qtbot.waitUntil(lambda: window.runs.task is not None and not window.runs.task.running,
                        timeout=30_000)
        window.tasks.wait()
        if window.compares.window is not None:
            window.compares.window.close()
        return json.dumps(provider.hits[-1].body)

    assert SECRET not in fanout(f"which fix? the key is {SECRET}")
    window.redaction.set_on(False)
    assert SECRET in fanout(f"and now? the key is {SECRET}")
