"""Imported text (titles, file names, errors) is shown as text, never as rich text: a
title holding ``<img src=x>`` shows those characters, not an image."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from explorer.app.importing.unzip import OWNER, PREFIX
from explorer.app.sharing import exporting
from explorer.ui.app import open_store
from explorer.ui.importing.dialog import ImportDialog
from explorer.ui.preview import CompactionPreview
from explorer.ui.settings_dialog import SettingsDialog
from explorer.ui.window.main_window import MainWindow

HOSTILE = '<img src="x"><b>bold</b> & <a href="javascript:alert(1)">t</a>'


def labels_showing(widget: QWidget, needle: str) -> list[QLabel]:
    return [lab for lab in widget.findChildren(QLabel) if needle in lab.text()]


def assert_plain(widget: QWidget, needle: str) -> None:
    found = labels_showing(widget, needle)
    assert found, f"no label shows {needle!r}"
    for label in found:
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName() or label.text()


def test_status_bar_shows_a_title_as_plain_text(qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "ui.db")
    store.rename(1, HOSTILE)
    w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(1)
    assert HOSTILE in w.status_label.text()
    assert_plain(w, "<img")
    w.close()
    store.close()


def test_import_dialog_shows_file_names_and_titles_as_plain_text(
    qtbot: QtBot, tmp_path: Path
) -> None:
    source = open_store(tmp_path / "a.db")
    source.rename(1, HOSTILE)
    hostile_file = tmp_path / "<img src=x> <b>b.jsonl"
    exporting.export_to_file(source, 1, hostile_file)
    source.close()
    target = open_store(tmp_path / "b.db")
    dialog = ImportDialog(target, [hostile_file, tmp_path / "<i>missing.jsonl"])
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.importFinished, timeout=20_000):
        dialog.start()
    for label in dialog.findChildren(QLabel):
        if "<" in label.text():
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()
    dialog.close()
    target.close()


def test_tooltips_show_imported_text_literally(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt as QtNs
    from PySide6.QtGui import QTextDocument

    from explorer.ui.plain_text import tooltip
    from explorer.ui.window.conversations import ConversationList

    doc = QTextDocument()
    doc.setHtml(tooltip(HOSTILE + "\nsecond line"))
    assert doc.toPlainText() == HOSTILE + "\nsecond line"
    assert tooltip("") == ""
    store = open_store(tmp_path / "t.db")
    store.rename(1, HOSTILE)
    convs = ConversationList(store)
    qtbot.addWidget(convs)
    convs.reload()
    model = convs.view.model()
    tips = [model.data(model.index(r, 0), QtNs.ItemDataRole.ToolTipRole)
            for r in range(model.rowCount())]
    shown = [t for t in tips if "img" in t]
    assert shown
    for tip in shown:
        doc.setHtml(tip)
        assert HOSTILE in doc.toPlainText()
    store.close()


def test_preview_and_settings_messages_are_plain_text(qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "ui.db")
    preview = CompactionPreview(store, 1)
    qtbot.addWidget(preview)
    preview.show()
    qtbot.waitUntil(lambda: not preview.busy, timeout=20_000)
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    for label in (preview.status, preview.panes.headline, preview.panes.notes, dialog.message):
        label.setText(HOSTILE)
    assert_plain(preview, "<img")
    assert_plain(dialog, "<img")
    preview.close()
    store.close()


def test_unpack_folders_left_by_killed_imports_go_when_the_app_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    left = tmp_path / f"{PREFIX}killed"
    left.mkdir()
    (left / OWNER).write_text("999999999", encoding="ascii")  # no such process
    (left / "entry.jsonl").write_text("{}", encoding="utf-8")
    open_store(tmp_path / "ui.db").close()
    assert not left.exists()
