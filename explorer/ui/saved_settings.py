"""Writing a setting only when its value changes.

``QSettings`` rewrites its file at the next sync for every ``setValue``, an unchanged
value included, and makes the new file durable with ``fsync``: on the main thread, when
the event loop next runs. Opening a conversation remembers which one is open; opening
the remembered one again must not cost a disk flush while its views fill in.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings


def keep_setting(settings: QSettings, key: str, value: object) -> bool:
    """Store ``value`` under ``key`` unless it is stored already; whether it was written."""
    if settings.contains(key) and _same(settings.value(key), value):
        return False
    settings.setValue(key, value)
    return True


def _same(stored: object, value: object) -> bool:
    # An INI file hands back what it read as text ("5"), the in-memory cache the value.
    return stored == value or str(stored) == str(value)
