"""Export for Claude Code, pi or Codex proposes the agent's own session folder for the
project's working directory, and then shows the path, Copy, Open folder and the resume
command; the format picker says what each format is for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from explorer.app.importing.run import import_paths
from explorer.formats import claude_code, codex
from explorer.store import Store
from explorer.ui.sharing.agent_export import chosen_format, format_choices
from explorer.ui.sharing.handoff_dialog import HandoffDialog
from explorer.ui.window.main_window import MainWindow

FIXTURE = (Path(__file__).parents[1] / "core" / "formats" / "claude_code" / "fixtures"
           / "tool_records.jsonl")


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[MainWindow]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    store = Store(tmp_path / "w.db")
    import_paths(store, [FIXTURE])  # a Claude Code session in /work/shop
    w = MainWindow(store, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.open_conversation(store.conversations()[0].id)
    failures: list[str] = []
    w.questions.fail = failures.append  # type: ignore[method-assign]  # no modal box in tests
    yield w
    assert failures == []
    w.close()
    store.close()


def _export(qtbot: QtBot, w: MainWindow, fmt: str, choose: Path | None = None
            ) -> tuple[str, HandoffDialog]:
    """Pick ``fmt`` in the picker, accept the proposed path (or ``choose``); the dialog."""
    proposed: list[str] = []

    def save_path(title: str, suggested: str, filters: str) -> Path:
        proposed.append(suggested)
        return choose or Path(suggested)

    w.questions.ask_item = lambda title, label, items: next(  # type: ignore[method-assign]
        i for i in items if chosen_format(i) == fmt)
    w.questions.ask_save_path = save_path  # type: ignore[method-assign]
    w.actions_.exports.export_conversation()
    qtbot.waitUntil(lambda: w.findChild(HandoffDialog) is not None, timeout=10_000)
    dialog = w.findChild(HandoffDialog)
    assert dialog is not None and proposed
    return proposed[0], dialog


def test_export_for_claude_code_proposes_its_project_folder(
        qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    proposed, dialog = _export(qtbot, window, "claude-code")
    written = dialog.written
    folder = tmp_path / "home" / ".claude" / "projects" / "-work-shop"
    assert Path(proposed) == written.path == folder / f"{written.session_id}.jsonl"
    assert written.path.is_file()
    assert written.command == f"cd /work/shop && claude --resume {written.session_id}"
    assert dialog.windowTitle() == "Exported for Claude Code"
    assert not any("will not list it" in n for n in written.notes)
    (back,) = list(claude_code.read(written.path))
    assert back.meta["cwd"] == "/work/shop"
    dialog.close()


def test_export_for_codex_elsewhere_says_the_agent_will_not_find_it(
        qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    elsewhere = tmp_path / "out" / "rollout.jsonl"
    elsewhere.parent.mkdir()
    proposed, dialog = _export(qtbot, window, "codex", choose=elsewhere)
    sessions = tmp_path / "home" / ".codex" / "sessions"
    assert Path(proposed).is_relative_to(sessions) and Path(proposed).name.startswith("rollout-")
    assert not sessions.exists()  # nothing written where it was only proposed
    written = dialog.written
    assert written.path == elsewhere and elsewhere.is_file()
    assert any("the agent will not list it there" in n for n in written.notes)
    assert next(codex.read(elsewhere)).meta["cwd"] == "/work/shop"
    dialog.close()


def test_the_format_picker_says_what_each_format_is_for() -> None:
    choices = format_choices()
    assert choices[0].startswith("native — lossless file this program imports again")
    assert any(c.startswith("claude-code — Claude Code session file") for c in choices)
    assert [chosen_format(c) for c in choices][:2] == ["native", "markdown"]
    assert all(" — " in c and c.split(" — ", 1)[1] for c in choices)
