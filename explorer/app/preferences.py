"""The app's own preferences, kept in an ``"app"`` section of the shared settings file.

Theme, compaction threshold and snapshot tier per provider: the desktop app and
the command line read the same values. ``redact_secrets`` is the window's default for its
redaction switch, written only when the person turns it off in Settings; the command line
always redacts unless it is given ``--no-redact``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.compaction.kinds import PROVIDER_KINDS
from explorer.providers.settings import read_sections, settings_path, write_sections

APP_SECTION = "app"
THEMES: tuple[str, ...] = ("system", "light", "dark")
DEFAULT_THRESHOLD = 0.8
THRESHOLD_MIN, THRESHOLD_MAX = 0.5, 0.95


@dataclass
class AppPrefs:
    """What the app adds to the shared settings file: theme, threshold, tier per provider."""

    theme: str = "system"
    threshold: float = DEFAULT_THRESHOLD
    tiers: dict[str, str] = field(default_factory=lambda: dict.fromkeys(PROVIDER_KINDS, "dense"))
    purge_after_days: int | None = None  # deleted branches older than this go for good
    redact: bool = True  # the window redacts secrets in sends, previews and exports
    ocr_images: bool = False  # read images with Tesseract to black out secrets drawn in them
    notes: list[str] = field(default_factory=list)

    def tier(self, kind: str) -> str:
        return self.tiers.get(kind, "dense")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"theme": self.theme, "compaction_threshold": self.threshold,
                               "snapshot_tiers": dict(self.tiers)}
        if self.purge_after_days is not None:
            out["purge_deleted_after_days"] = self.purge_after_days
        if not self.redact:
            out["redact_secrets"] = False
        if self.ocr_images:
            out["ocr_images"] = True
        return out


def load_app_prefs(path: Path | None = None) -> AppPrefs:
    """The ``"app"`` section over the defaults; a bad value keeps its default and adds a note."""
    raw = read_sections(path or settings_path()).get(APP_SECTION)
    prefs = AppPrefs()
    if not isinstance(raw, dict):
        return prefs
    theme = raw.get("theme", prefs.theme)
    if theme in THEMES:
        prefs.theme = theme
    else:
        prefs.notes.append(f"theme {theme!r} is not one of {', '.join(THEMES)}; system used")
    threshold = raw.get("compaction_threshold", prefs.threshold)
    if isinstance(threshold, int | float) and not isinstance(threshold, bool) \
            and THRESHOLD_MIN <= threshold <= THRESHOLD_MAX:
        prefs.threshold = float(threshold)
    else:
        prefs.notes.append(f"compaction threshold {threshold!r} is outside "
                           f"{THRESHOLD_MIN}–{THRESHOLD_MAX}; {DEFAULT_THRESHOLD} used")
    tiers = raw.get("snapshot_tiers")
    from explorer.compaction.page_geometry import TIERS  # here: the window's start needs none

    for kind, tier in (tiers.items() if isinstance(tiers, dict) else ()):
        if kind in PROVIDER_KINDS and tier in TIERS:
            prefs.tiers[kind] = tier
        else:
            prefs.notes.append(f"snapshot tier {kind}={tier!r} ignored")
    days = raw.get("purge_deleted_after_days")
    if isinstance(days, int) and not isinstance(days, bool) and days >= 0:
        prefs.purge_after_days = days
    elif days is not None:
        prefs.notes.append(f"purge_deleted_after_days {days!r} is not a whole number of days; "
                           "deleted branches are kept until purged")
    ocr = raw.get("ocr_images", False)
    if isinstance(ocr, bool):
        prefs.ocr_images = ocr
    else:
        prefs.notes.append(f"ocr_images {ocr!r} is not true or false; images are not read")
    redact = raw.get("redact_secrets", True)
    if isinstance(redact, bool):
        prefs.redact = redact
    else:
        prefs.notes.append(f"redact_secrets {redact!r} is not true or false; secrets are "
                           "redacted")
    return prefs


def save_app_prefs(prefs: AppPrefs, path: Path | None = None) -> Path:
    """Write the ``"app"`` section into the file, keeping every other section as it is."""
    return write_sections({APP_SECTION: prefs.to_dict()}, path)
