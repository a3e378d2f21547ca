"""Settings: per provider its base URL, model, window, snapshot tier, API key and the one other
URL its key may go to; theme; threshold.

The provider fields go through :mod:`explorer.providers.settings`, so the command
line reads what is saved here. Theme, tiers and threshold have no place in that
API yet and are kept in an ``"app"`` section of the same JSON file. Keys go to
the keyring at once (never to the file) and no widget ever shows one: the dialog
only says where a key comes from.
"""

from __future__ import annotations

from dataclasses import replace

import keyring
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.app.calls.model_setup import KEY_SENT_TO_FIELD, OWN_HOSTS
from explorer.app.costs.price_edits import save_rows
from explorer.app.preferences import (
    THEMES,
    THRESHOLD_MAX,
    THRESHOLD_MIN,
    AppPrefs,
    load_app_prefs,
    save_app_prefs,
)
from explorer.app.sharing.image_ocr import tesseract
from explorer.compaction.page_geometry import TIERS
from explorer.providers.base import PROVIDER_KINDS, ProviderKind
from explorer.providers.keys import (
    ENV_VARS,
    KeyStatus,
    KeyStoreError,
    backend_state,
    delete_key,
    key_status,
    set_key,
)
from explorer.providers.settings import (
    ProviderSettings,
    Settings,
    load_settings,
    save_settings,
    settings_path,
)
from explorer.ui.price_editor import PriceEditor
from explorer.ui.sharing.redaction_switch import REDACT_OFF_WARNING
from explorer.ui.theme import apply_theme

ERROR_COLOUR = "#d64541"
MAX_WINDOW = 100_000_000


# --- keys ---------------------------------------------------------------------------------------


def _backend_name() -> str:
    try:
        return str(keyring.get_keyring().name)
    except Exception:  # a backend that cannot even name itself
        return backend_state()[1]


def key_status_text(status: KeyStatus) -> str:
    """"stored in <backend>", "from $ENV" or "none", plus why the keyring was not read."""
    if status.source == "keyring":
        text = f"stored in {_backend_name()}"
    elif status.source == "environment":
        text = f"from ${status.env_var}"
    elif status.source == "file":
        text = "in the encrypted key file"
    else:
        text = "none"
    if status.note and status.keyring_available:
        text += f" — {status.note}"
    return text


def no_keyring_text(note: str) -> str:
    env = ", ".join(f"${v}" for v in ENV_VARS.values())
    detail = "" if note.startswith("no system keyring") else f" ({note})"
    return (f"No system keyring is available{detail}, so keys cannot be stored here. "
            f"Set the key in an environment variable before starting the app instead: {env}.")


def key_sent_to_edit(kind: str, value: str, parent: QWidget) -> QLineEdit:
    """The ``key_sent_to`` field: the one URL besides the provider's own host its key may
    go to (a proxy or gateway the person trusts with it)."""
    edit = QLineEdit(value, parent)
    home = OWN_HOSTS.get(ProviderKind(kind))
    if home is None:  # an OpenAI-compatible key goes to the server it is for
        edit.setEnabled(False)
        edit.setPlaceholderText("its key goes to the base URL above")
        edit.setToolTip("An OpenAI-compatible key is sent to the server named in Base URL: "
                        "there is no other host to keep it from.")
        return edit
    edit.setPlaceholderText(f"nowhere but {home}")
    edit.setToolTip(f"The {kind} API key is only ever sent to {home}, the provider's own host. "
                    "To send it through another server (a proxy, a gateway), put that "
                    "server's base URL here, exactly as in Base URL: the key then goes there "
                    "too, and still nowhere else. Saved as \"key_sent_to\" in settings.json.")
    return edit


class ProviderPage(QWidget):
    """One provider: where to send, which model, how big its window, its tier and its key."""

    def __init__(self, kind: str, chosen: ProviderSettings, tier: str,
                 keyring_usable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.chosen = chosen
        self.base_url_edit = QLineEdit(chosen.base_url, self)
        self.key_sent_to_edit = key_sent_to_edit(kind, chosen.key_sent_to, self)
        self.model_edit = QLineEdit(chosen.model, self)
        self.window_box = QSpinBox(self)
        self.window_box.setRange(1, MAX_WINDOW)
        self.window_box.setGroupSeparatorShown(True)
        self.window_box.setSuffix(" tokens")
        self.window_box.setValue(chosen.window)
        self.tier_box = QComboBox(self)
        self.tier_box.addItems(list(TIERS))
        self.tier_box.setCurrentText(tier)
        self.key_status = QLabel(self)
        self.key_status.setWordWrap(True)
        self.key_status.setTextFormat(Qt.TextFormat.PlainText)
        self.key_edit = QLineEdit(self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("paste a new key")
        self.key_edit.setMinimumWidth(280)
        self.store_button = QPushButton("Store key", self)
        self.delete_button = QPushButton("Delete key", self)
        self.key_message = QLabel(self)
        self.key_message.setWordWrap(True)
        self.key_message.setTextFormat(Qt.TextFormat.PlainText)
        self._lay_out()
        self._enable_keys(keyring_usable)
        self.store_button.clicked.connect(self.store_key)
        self.delete_button.clicked.connect(self.delete_key)
        self.key_edit.returnPressed.connect(self.store_key)
        self.refresh_key_status()

    def _lay_out(self) -> None:
        form = QFormLayout(self)
        form.addRow("Base URL", self.base_url_edit)
        form.addRow(KEY_SENT_TO_FIELD, self.key_sent_to_edit)
        form.addRow("Model", self.model_edit)
        form.addRow("Context window", self.window_box)
        form.addRow("Snapshot tier", self.tier_box)
        form.addRow("API key", self.key_status)
        row = QHBoxLayout()
        row.addWidget(self.key_edit, 1)
        row.addWidget(self.store_button)
        row.addWidget(self.delete_button)
        form.addRow("", row)
        form.addRow("", self.key_message)

    def _enable_keys(self, usable: bool) -> None:
        for widget in (self.key_edit, self.store_button, self.delete_button):
            widget.setEnabled(usable)
        if not usable:
            self.key_edit.setPlaceholderText(f"no keyring: use ${ENV_VARS[self.kind]}")

    def refresh_key_status(self) -> None:
        try:
            text = key_status_text(key_status(self.kind))
        except Exception as e:  # whatever a broken backend raises, the dialog stays up
            text = f"unknown — the keyring failed ({type(e).__name__})"
        self.key_status.setText(text)

    def _say(self, text: str, error: bool) -> None:
        self.key_message.setStyleSheet(f"color: {ERROR_COLOUR};" if error else "")
        self.key_message.setText(text)

    def store_key(self) -> None:
        """Put the typed key in the keyring, then forget it (the field is cleared either way)."""
        key = self.key_edit.text()
        self.key_edit.clear()
        if not key.strip():
            self._say("Paste a key first.", error=True)
            return
        try:
            set_key(self.kind, key)
            self._say("Key stored.", error=False)
        except KeyStoreError as e:
            self._say(f"Not stored: {e}", error=True)
        except Exception as e:  # keyring backends raise their own types
            self._say(f"Not stored: the keyring failed ({type(e).__name__})", error=True)
        self.refresh_key_status()

    def delete_key(self) -> None:
        try:
            delete_key(self.kind)
            self._say("Key deleted from the keyring.", error=False)
        except KeyStoreError as e:
            self._say(f"Not deleted: {e}", error=True)
        except Exception as e:
            self._say(f"Not deleted: the keyring failed ({type(e).__name__})", error=True)
        self.refresh_key_status()

    def problem(self) -> str:
        """Why these fields cannot be saved, or ""."""
        url = self.base_url_edit.text().strip()
        if not url.startswith(("http://", "https://")):
            return f"{self.kind}: the base URL must start with http:// or https://"
        if not self.model_edit.text().strip():
            return f"{self.kind}: the model name is empty"
        trusted = self.key_sent_to_edit.text().strip()
        if trusted and not trusted.startswith(("http://", "https://")):
            return (f"{self.kind}: \"{KEY_SENT_TO_FIELD}\" must be a base URL starting with "
                    "http:// or https:// (or empty)")
        return ""

    def settings(self) -> ProviderSettings:
        return replace(self.chosen, base_url=self.base_url_edit.text().strip(),
                       model=self.model_edit.text().strip(), window=self.window_box.value(),
                       key_sent_to=self.key_sent_to_edit.text().strip())


class SettingsDialog(QDialog):
    """Edit the settings file the command line reads, and the keyring's API keys."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.path = settings_path()
        self.loaded: Settings = load_settings(self.path)
        self.prefs = load_app_prefs(self.path)
        usable, _, note = backend_state()
        self.keyring_label = QLabel(self._keyring_text(usable, note), self)
        self.keyring_label.setWordWrap(True)
        self.provider = QComboBox(self)
        self.provider.addItems(list(PROVIDER_KINDS))
        self.provider.setCurrentText(self.loaded.provider)
        self.tabs = QTabWidget(self)
        self.pages: dict[str, ProviderPage] = {}
        for kind in PROVIDER_KINDS:
            page = ProviderPage(kind, self.loaded.for_provider(kind), self.prefs.tier(kind),
                                usable, self)
            self.pages[kind] = page
            self.tabs.addTab(page, kind)
        self.prices = PriceEditor(self)
        self.tabs.addTab(self.prices, "Prices")
        self.theme = QComboBox(self)
        for theme in THEMES:
            self.theme.addItem(theme.capitalize(), theme)
        self.theme.setCurrentIndex(THEMES.index(self.prefs.theme))
        self.threshold = self._threshold_box()
        self.redact = QCheckBox("Redact secrets in sends, previews and exports "
                                "(recommended)", self)
        self.redact.setChecked(self.prefs.redact)
        self.redact.setToolTip("API keys, tokens, private keys and passwords are replaced by "
                               "[redacted: kind] before anything leaves this program; the "
                               "stored conversation and the native export stay exact.")
        self.redact_warning = QLabel(REDACT_OFF_WARNING, self)
        self.redact_warning.setWordWrap(True)
        self.redact_warning.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.redact_warning.setVisible(not self.prefs.redact)
        self.redact.toggled.connect(lambda on: self.redact_warning.setVisible(not on))
        self.ocr = QCheckBox("Read images with OCR to black out secrets drawn in them "
                             "(slower)", self)
        self.ocr.setChecked(self.prefs.ocr_images)
        found = tesseract()
        self.ocr.setEnabled(found is not None or self.prefs.ocr_images)
        self.ocr.setToolTip(f"Screenshots are read with {found} before they are sent or "
                            "shared; about half a second of CPU per new image" if found else
                            "Needs the tesseract program, which is not installed; without it "
                            "the notes name the images whose pixels were not scanned")
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self._show_notes()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._lay_out()

    @staticmethod
    def _keyring_text(usable: bool, note: str) -> str:
        if not usable:
            return no_keyring_text(note)
        return (f"API keys are kept in {_backend_name()} and take effect at once; "
                "the rest is saved with Save.")

    def _threshold_box(self) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(THRESHOLD_MIN, THRESHOLD_MAX)
        box.setSingleStep(0.05)
        box.setDecimals(2)
        box.setValue(self.prefs.threshold)
        box.setToolTip("Compaction starts when the context passes this share of the window.")
        return box

    def _show_notes(self) -> None:
        notes = self.loaded.notes + self.prefs.notes
        self.message.setText("\n".join(f"Settings file: {n}" for n in notes))

    def _lay_out(self) -> None:
        general = QGroupBox("General", self)
        form = QFormLayout(general)
        form.addRow("Send with", self.provider)
        form.addRow("Theme", self.theme)
        form.addRow("Compaction threshold", self.threshold)
        form.addRow("Secrets", self.redact)
        form.addRow("", self.redact_warning)
        form.addRow("", self.ocr)
        box = QVBoxLayout(self)
        box.addWidget(self.keyring_label)
        box.addWidget(self.tabs)
        box.addWidget(general)
        box.addWidget(self.message)
        box.addWidget(self.buttons)

    def chosen_theme(self) -> str:
        return str(self.theme.currentData())

    def save(self) -> bool:
        """Write the settings file and apply the theme; on a bad field say why and stay open."""
        price_rows, price_problem = self.prices.rows()
        problems = [p for p in (page.problem() for page in self.pages.values()) if p]
        problems += [price_problem] if price_problem else []
        if problems:
            self.message.setText(problems[0])
            return False
        settings = Settings(provider=self.loaded.provider,
                            providers={k: page.settings() for k, page in self.pages.items()})
        kind = self.provider.currentText()
        if kind in PROVIDER_KINDS:
            settings.provider = ProviderKind(kind)
        prefs = AppPrefs(theme=self.chosen_theme(), threshold=round(self.threshold.value(), 2),
                         tiers={k: page.tier_box.currentText() for k, page in self.pages.items()},
                         purge_after_days=self.prefs.purge_after_days,
                         redact=self.redact.isChecked(), ocr_images=self.ocr.isChecked())
        try:
            save_settings(settings, self.path)
            save_app_prefs(prefs, self.path)
            save_rows(price_rows, self.path)
        except OSError as e:
            self.message.setText(f"Could not save {self.path}: {e.strerror or e}")
            return False
        apply_theme(prefs.theme)
        self.prefs = prefs
        self.accept()
        return True
