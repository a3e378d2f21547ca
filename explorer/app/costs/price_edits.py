"""The settings file's own prices, as rows a person edits (Settings → Prices) (C5).

The bundled table is dated and read-only; a row here adds a model or replaces a model's
input and output price under ``"prices"`` in settings.json, in the table's own shape, and
keeps its provider's cache multipliers. Every other section of the file is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.app.costs.prices import SETTINGS_KEY
from explorer.providers.settings import read_sections, settings_path, write_sections


@dataclass(frozen=True)
class PriceRow:
    provider: str
    model: str
    input: float  # US dollars per million uncached input tokens
    output: float  # and per million output tokens

    def problem(self) -> str:
        """Why the row cannot be saved, in one line ("" when it can)."""
        if not self.provider.strip() or not self.model.strip():
            return "a price needs a provider and a model name"
        if self.input < 0 or self.output < 0:
            return f"{self.model}: a price cannot be negative"
        return ""


def read_rows(path: Path | None = None) -> list[PriceRow]:
    """The rows the settings file holds (none when it holds no prices, or is unreadable)."""
    section = read_sections(path or settings_path()).get(SETTINGS_KEY)
    rows: list[PriceRow] = []
    for provider, body in (section.items() if isinstance(section, dict) else ()):
        models = body.get("models") if isinstance(body, dict) else None
        for model, price in (models.items() if isinstance(models, dict) else ()):
            try:
                rows.append(PriceRow(str(provider), str(model), float(price["input"]),
                                     float(price["output"])))
            except (KeyError, TypeError, ValueError):
                continue  # load_prices names a broken row; the editor leaves it out
    return rows


def save_rows(rows: list[PriceRow], path: Path | None = None) -> Path:
    """Write ``rows`` as the file's ``"prices"``, atomically; the other sections stay."""
    section: dict[str, Any] = {}
    for row in rows:
        models = section.setdefault(row.provider.strip(), {}).setdefault("models", {})
        models[row.model.strip()] = {"input": row.input, "output": row.output}
    if section:
        return write_sections({SETTINGS_KEY: section}, path)
    return write_sections({}, path, drop=(SETTINGS_KEY,))
