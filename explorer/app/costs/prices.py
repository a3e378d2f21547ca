"""What a model's tokens cost: one dated table in ``resources/prices.json``, overridable.

Prices change and new models appear faster than releases, so the table is data, dated, with
each provider's source page; ``"prices"`` in the settings file adds models or replaces a
price (same shape as the table's ``providers``). A model found in neither has no price: its
tokens are still counted, its money is not guessed (C5).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.providers.settings import settings_path
from explorer.resources import resource_path

SETTINGS_KEY = "prices"
_DATE_SUFFIX = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@\d{8}|@latest)$")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens of one model, cache reads and writes included."""

    provider: str
    model: str  # the table's name for it
    input: float
    output: float
    cache_read: float
    cache_write: float

    def usd(self, input_tokens: int, output_tokens: int, cache_read: int,
            cache_write: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output
                + cache_read * self.cache_read + cache_write * self.cache_write) / 1_000_000

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "input": self.input,
                "output": self.output, "cache_read": self.cache_read,
                "cache_write": self.cache_write}


@dataclass(frozen=True)
class PriceTable:
    date: str
    prices: dict[str, Price]  # by the table's model name
    overridden: tuple[str, ...] = ()  # models the settings file set
    notes: tuple[str, ...] = ()

    def lookup(self, model: str | None) -> Price | None:
        """The price of ``model`` as a source wrote it: a dated snapshot, a provider prefix
        (``anthropic/…``) or a Vertex ``@`` version name the same model."""
        if not model:
            return None
        name = model.strip().lower()
        for candidate in (name, name.rsplit("/", 1)[-1]):
            for form in (candidate, _DATE_SUFFIX.sub("", candidate)):
                if form in self.prices:
                    return self.prices[form]
        return None

    def about(self) -> dict[str, Any]:
        return {"date": self.date, "table": "resources/prices.json",
                "settings_override": list(self.overridden), "notes": list(self.notes)}


def load_prices(settings: Path | None = None) -> PriceTable:
    """The bundled table with the settings file's ``"prices"`` laid over it."""
    table = json.loads(resource_path("prices.json").read_text(encoding="utf-8"))
    prices = _read_providers(table.get("providers", {}))
    notes: list[str] = []
    override = _settings_prices(settings or settings_path(), notes)
    extra = _read_providers(override, base=table.get("providers", {}), notes=notes)
    prices.update(extra)
    return PriceTable(str(table.get("date", "")), prices, tuple(sorted(extra)), tuple(notes))


def _read_providers(providers: Any, base: Any = None,
                    notes: list[str] | None = None) -> dict[str, Price]:
    """Prices by model; a row that is not one (no input or output number) is named in
    ``notes`` when given (the settings file's rows: a person wrote them), never guessed."""
    out: dict[str, Price] = {}
    if not isinstance(providers, dict):
        return out
    for provider, section in providers.items():
        if not isinstance(section, dict):
            continue
        inherited = base.get(provider, {}) if isinstance(base, dict) else {}
        cache = {**_dict(_dict(inherited).get("cache")), **_dict(section.get("cache"))}
        for model, row in _dict(section.get("models")).items():
            price = _price(str(provider), str(model).lower(), _dict(row), cache)
            if price is not None:
                out[price.model] = price
            elif notes is not None:
                notes.append(f"prices.{provider}.models.{model}: not a price (it needs "
                             "\"input\" and \"output\" numbers); ignored")
    return out


def _price(provider: str, model: str, row: dict[str, Any],
           cache: dict[str, Any]) -> Price | None:
    own = {**cache, **_dict(row.get("cache"))}
    try:
        pin, pout = float(row["input"]), float(row["output"])
        read, write = float(own.get("read", 1.0)), float(own.get("write", 1.0))
    except (KeyError, TypeError, ValueError):
        return None
    return Price(provider, model, pin, pout, pin * read, pin * write)


def _settings_prices(path: Path, notes: list[str]) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        notes.append(f"the settings file {path} could not be read for prices ({e})")
        return {}
    section = raw.get(SETTINGS_KEY) if isinstance(raw, dict) else None
    if section is not None and not isinstance(section, dict):
        notes.append(f"\"{SETTINGS_KEY}\" in {path} is not an object; ignored")
        return {}
    return section or {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
