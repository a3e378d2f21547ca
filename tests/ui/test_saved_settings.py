"""Opening the remembered conversation rewrites no settings file (V2: no disk flush on the
main thread while the views fill in); opening another one remembers it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from explorer.ui.saved_settings import keep_setting


def _file_written(path: Path, settings: QSettings) -> tuple[int, int]:
    settings.sync()
    info = path.stat()
    return info.st_ino, info.st_mtime_ns


def test_V2_an_unchanged_value_is_not_written_again(tmp_path: Path) -> None:
    path = tmp_path / "s.ini"
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    assert keep_setting(settings, "window/conversation", 5)
    before = _file_written(path, settings)
    again = QSettings(str(path), QSettings.Format.IniFormat)  # another object on the file
    assert not keep_setting(again, "window/conversation", 5)
    assert not keep_setting(settings, "window/conversation", 5)
    assert _file_written(path, again) == before and _file_written(path, settings) == before
    assert keep_setting(settings, "window/conversation", 6)
    assert _file_written(path, settings) != before
    assert int(QSettings(str(path), QSettings.Format.IniFormat).value("window/conversation")) == 6


def test_V2_reopening_the_open_conversation_leaves_the_settings_file_alone(
        window: Any, tmp_path: Path) -> None:
    path = tmp_path / "ui.ini"
    before = _file_written(path, window.settings)
    window.open_conversation(1)  # the one open, remembered when it was opened
    assert _file_written(path, window.settings) == before
    window.open_conversation(2)
    assert _file_written(path, window.settings) != before
    assert int(window.settings.value("window/conversation")) == 2
