"""The settings dialog: the file the command line reads, keys that are never shown, no crashes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.errors
import pytest
from helpers import BrokenKeyring, MemoryKeyring
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from explorer.providers.keys import SERVICE, resolve_key
from explorer.providers.settings import load_settings
from explorer.ui.settings_dialog import (
    SettingsDialog,
    apply_theme,
    load_app_prefs,
    save_app_prefs,
)

SECRET = "sk-test-Zq81-never-shown-4471"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "settings.json"
    monkeypatch.setenv("CONVO_CONFIG", str(path))
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return path


def _use(backend: keyring.backend.KeyringBackend) -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    backend = MemoryKeyring()
    for _ in _use(backend):
        yield backend


@pytest.fixture
def broken_keyring() -> Iterator[None]:
    yield from _use(BrokenKeyring())


@pytest.fixture
def no_keyring() -> Iterator[None]:
    yield from _use(fail.Keyring())


def open_dialog(qtbot: QtBot) -> SettingsDialog:
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def widget_texts(root: QWidget) -> list[str]:
    """Every piece of text any widget under ``root`` holds or shows."""
    texts = [root.windowTitle(), root.toolTip()]
    for w in [root, *root.findChildren(QWidget)]:
        texts += [w.toolTip(), w.accessibleName(), w.statusTip(), w.whatsThis()]
        if isinstance(w, QLabel | QAbstractButton):
            texts.append(w.text())
        if isinstance(w, QLineEdit):
            texts += [w.text(), w.displayText(), w.placeholderText()]
        if isinstance(w, QAbstractSpinBox):
            texts.append(w.text())
        if isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QTabWidget):
            texts += [w.tabText(i) for i in range(w.count())]
    return texts


def test_key_status_goes_from_none_to_stored_and_the_key_never_shows(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot)
    page = dialog.pages["anthropic"]
    assert page.key_status.text() == "none"
    assert page.store_button.isEnabled()
    assert page.key_edit.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(page.key_edit, SECRET)
    qtbot.mouseClick(page.store_button, Qt.MouseButton.LeftButton)
    assert page.key_status.text().startswith("stored in ")
    assert memory_keyring.entries[(SERVICE, "anthropic")] == SECRET
    assert page.key_edit.text() == ""
    assert not any(SECRET in t for t in widget_texts(dialog))
    assert not any(SECRET[-8:] in t for t in widget_texts(dialog))
    assert dialog.pages["openai"].key_status.text() == "none"  # only that provider changed


def test_deleting_the_key_returns_to_none_and_a_second_delete_says_why(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password(SERVICE, "openai", SECRET)
    dialog = open_dialog(qtbot)
    page = dialog.pages["openai"]
    assert page.key_status.text().startswith("stored in ")
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert page.key_status.text() == "none"
    assert (SERVICE, "openai") not in memory_keyring.entries
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert "no openai key is stored" in page.key_message.text()


def test_a_key_from_the_environment_says_where_it_comes_from(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    dialog = open_dialog(qtbot)
    assert dialog.pages["openai"].key_status.text() == "from $OPENAI_API_KEY"
    assert not any(SECRET in t for t in widget_texts(dialog))


def test_saving_writes_the_file_the_command_line_reads(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot)
    page = dialog.pages["openai-compatible"]
    page.base_url_edit.setText("http://127.0.0.1:8080/v1")
    page.model_edit.setText("qwen2.5-coder")
    page.window_box.setValue(32_768)
    page.tier_box.setCurrentText("legible")
    dialog.provider.setCurrentText("openai-compatible")
    dialog.threshold.setValue(0.65)
    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save),
                         Qt.MouseButton.LeftButton)
    loaded = load_settings()
    assert loaded.notes == []
    assert loaded.provider == "openai-compatible"
    chosen = loaded.for_provider("openai-compatible")
    assert (chosen.base_url, chosen.model, chosen.window) == (
        "http://127.0.0.1:8080/v1", "qwen2.5-coder", 32_768)
    assert chosen.max_output_tokens == 1024  # fields the dialog does not show are kept
    prefs = load_app_prefs()
    assert prefs.threshold == 0.65 and prefs.tier("openai-compatible") == "legible"
    assert prefs.tier("anthropic") == "dense" and prefs.notes == []
    again = open_dialog(qtbot)  # what was saved is what the next dialog shows
    assert again.threshold.value() == pytest.approx(0.65)
    assert again.pages["openai-compatible"].tier_box.currentText() == "legible"
    assert again.pages["openai-compatible"].model_edit.text() == "qwen2.5-coder"
    assert SECRET not in config.read_text(encoding="utf-8")


def test_a_bad_base_url_is_refused_inline_and_nothing_is_written(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot)
    dialog.pages["anthropic"].base_url_edit.setText("api.anthropic.com")
    assert dialog.save() is False
    assert "anthropic: the base URL must start with http" in dialog.message.text()
    assert dialog.isVisible() and not config.exists()


def _window_lightness() -> int:
    return QApplication.palette().color(QPalette.ColorRole.Window).lightness()


def test_theme_is_saved_and_applied(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    system = QApplication.palette().color(QPalette.ColorRole.Window)
    dialog = open_dialog(qtbot)
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    try:
        assert dialog.save()
        assert load_app_prefs().theme == "dark"
        assert _window_lightness() < 100
        assert apply_theme("light") and _window_lightness() > 180
    finally:
        apply_theme("system")
    assert QApplication.palette().color(QPalette.ColorRole.Window) == system
    assert open_dialog(qtbot).chosen_theme() == "dark"


def test_app_section_survives_and_bad_values_fall_back_with_notes(config: Path) -> None:
    config.write_text(json.dumps({"provider": "openai", "app": {
        "theme": "neon", "compaction_threshold": 3, "snapshot_tiers": {"openai": "tiny"}}}))
    prefs = load_app_prefs()
    assert (prefs.theme, prefs.threshold, prefs.tier("openai")) == ("system", 0.8, "dense")
    assert len(prefs.notes) == 3 and "neon" in prefs.notes[0]
    prefs.theme = "light"
    save_app_prefs(prefs)
    data = json.loads(config.read_text())
    assert data["provider"] == "openai" and data["app"]["theme"] == "light"
    assert load_settings().provider == "openai"  # the shared loader ignores the app section


def test_no_keyring_backend_explains_the_environment_fallback(
    qtbot: QtBot, config: Path, no_keyring: None
) -> None:
    dialog = open_dialog(qtbot)
    text = dialog.keyring_label.text()
    assert "No system keyring is available" in text
    assert "$ANTHROPIC_API_KEY" in text and "$OPENAI_COMPATIBLE_API_KEY" in text
    page = dialog.pages["anthropic"]
    assert page.key_status.text() == "none"
    assert not page.store_button.isEnabled() and not page.key_edit.isEnabled()


def test_a_failing_keyring_backend_shows_a_clear_message_and_does_not_crash(
    qtbot: QtBot, config: Path, broken_keyring: None
) -> None:
    dialog = open_dialog(qtbot)
    page = dialog.pages["anthropic"]
    assert page.key_status.text().startswith("none — the keyring could not be read")
    qtbot.keyClicks(page.key_edit, SECRET)
    qtbot.mouseClick(page.store_button, Qt.MouseButton.LeftButton)
    assert page.key_message.text() == "Not stored: the keyring refused the key (RuntimeError)"
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert "Not deleted: the keyring could not delete the key" in page.key_message.text()
    assert not any(SECRET in t for t in widget_texts(dialog))
    assert resolve_key("anthropic")[0] is None
    assert dialog.save()  # the rest of the settings still save
    assert load_settings().notes == []


def test_the_key_may_also_go_to_the_url_named_in_send_the_key_also_to(
    qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring
) -> None:
    dialog = open_dialog(qtbot)
    page = dialog.pages["anthropic"]
    assert page.key_sent_to_edit.text() == ""
    assert "only ever sent to api.anthropic.com" in page.key_sent_to_edit.toolTip()
    assert "key_sent_to" in page.key_sent_to_edit.toolTip()
    assert not dialog.pages["openai-compatible"].key_sent_to_edit.isEnabled()
    page.key_sent_to_edit.setText("gateway.example")
    assert dialog.save() is False and not config.exists()
    assert dialog.message.text() == ('anthropic: "Send the key also to" must be a base URL '
                                     "starting with http:// or https:// (or empty)")
    page.base_url_edit.setText("https://gateway.example/anthropic")
    page.key_sent_to_edit.setText(" https://gateway.example/anthropic ")
    assert dialog.save()
    saved = json.loads(config.read_text())["providers"]
    assert saved["anthropic"]["key_sent_to"] == "https://gateway.example/anthropic"
    assert saved["openai"]["key_sent_to"] == ""
    assert load_settings().for_provider("anthropic").key_sent_to == (
        "https://gateway.example/anthropic")
    again = open_dialog(qtbot)
    assert again.pages["anthropic"].key_sent_to_edit.text() == "https://gateway.example/anthropic"


@pytest.fixture
def untrusted_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> Iterator[Any]:
    """A loopback Anthropic-like server set as the base URL, its key stored, and the
    server not named in "Send the key also to"."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
    from provider_server import ProviderServer, ServerState

    state = ServerState()
    server = ProviderServer(state).start()
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"provider": "anthropic", "providers": {
        "anthropic": {"base_url": server.url, "model": "claude-test"}}}))
    monkeypatch.setenv("CONVO_CONFIG", str(config))
    memory_keyring.set_password(SERVICE, "anthropic", SECRET)
    yield server
    server.close()


def test_a_call_refused_for_the_keys_host_names_the_setting_in_the_window(
    window: Any, qtbot: QtBot, untrusted_server: Any
) -> None:
    window.actions_.model_calls.send("Is the fallback covered by a test?")
    job = window.model_job
    with qtbot.waitSignal(job.failed, timeout=20_000):
        pass
    job.wait()
    error = window.command_bar.error_text()
    assert error.startswith("nothing was stored: refusing to send the anthropic key to "
                            f"{untrusted_server.url}: it goes only to api.anthropic.com")
    assert 'Settings, anthropic, "Send the key also to"' in error
    assert untrusted_server.state.hits == [] and SECRET not in error


def test_C5_prices_edited_in_settings_price_the_cost_and_a_bad_one_is_refused(
        qtbot: QtBot, config: Path, memory_keyring: MemoryKeyring) -> None:
    """Settings → Prices: a row adds a model the bundled table lacks; saved under "prices"
    in the table's shape, the cost reads it; a negative price keeps the dialog open."""
    from explorer.app.costs.price_edits import PriceRow, read_rows
    from explorer.app.costs.prices import load_prices
    from explorer.ui.settings_dialog import SettingsDialog

    config.write_text(json.dumps({"app": {"theme": "light"}}))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert load_prices(config).lookup("house-model-1") is None
    dialog.prices.add_row(PriceRow("openai-compatible", "house-model-1", 0.5, 2.0))
    assert dialog.save()
    saved = json.loads(config.read_text())
    assert saved["prices"] == {"openai-compatible": {"models": {
        "house-model-1": {"input": 0.5, "output": 2.0}}}}
    assert saved["app"]["theme"] == "light"  # the other sections stay
    price = load_prices(config).lookup("house-model-1")
    assert price is not None and (price.input, price.output) == (0.5, 2.0)
    assert read_rows(config) == [PriceRow("openai-compatible", "house-model-1", 0.5, 2.0)]
    again = SettingsDialog()
    qtbot.addWidget(again)
    assert again.prices.table.rowCount() == 1  # the row is read back
    again.prices.add_row(PriceRow("anthropic", "claude-x", -1.0, 2.0))
    assert not again.save()
    assert "cannot be negative" in again.message.text()
