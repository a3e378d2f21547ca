"""Model settings kept in a small JSON file in the user's config folder.

The command line and the app's settings dialog read and write the same file: the chosen
provider, and per provider its base URL, model, context window, output cap and timeout. Keys
never go here (they live in the keyring). A damaged file gives the defaults and a note, not a
crash; a timeout that is not a positive number also refuses the calls that would use it.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs

from explorer.compaction.kinds import PROVIDER_KINDS, ProviderKind
from explorer.providers import endpoints
from explorer.tree.errors import ExplorerError

APP_NAME = "conversation-explorer"
FILE_NAME = "settings.json"


@dataclass(frozen=True)
class ProviderSettings:
    base_url: str
    model: str
    window: int
    max_output_tokens: int = 4096
    key_sent_to: str = ""
    """A base URL other than the provider's own that the person trusts with its key (the
    key never goes anywhere else)."""
    timeout: float | None = None
    """Seconds each try waits for the answer's first byte when ``--timeout`` is not given
    (None: the default, 120)."""


class BadSetting(ExplorerError, ValueError):
    """A setting a call needs cannot be used as written; the message names it."""


DEFAULTS: dict[str, ProviderSettings] = {
    "anthropic": ProviderSettings(endpoints.ANTHROPIC_URL, "claude-sonnet-4-5", 200_000),
    "openai": ProviderSettings(endpoints.OPENAI_URL, "gpt-4.1", 1_047_576),
    "openai-compatible": ProviderSettings(endpoints.OPENAI_COMPATIBLE_URL, "llama3.2", 8192, 1024),
    # Gemini 2.5 Flash: 1,048,576 input tokens, 65,536 output
    # (https://ai.google.dev/gemini-api/docs/models#gemini-2.5-flash); 8,192 kept for answers.
    "gemini": ProviderSettings(endpoints.GEMINI_URL, "gemini-2.5-flash", 1_048_576, 8192),
}


@dataclass
class Settings:
    provider: ProviderKind = ProviderKind.ANTHROPIC
    providers: dict[str, ProviderSettings] = field(default_factory=lambda: dict(DEFAULTS))
    notes: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)
    """Settings a call cannot use, by name (``anthropic.timeout``): the call is refused with
    the line, rather than quietly made with the default."""

    def for_provider(self, kind: str | None = None) -> ProviderSettings:
        return self.providers.get(kind or self.provider) or DEFAULTS[kind or self.provider]

    def timeout(self, kind: str | None = None) -> float | None:
        """The provider's ``timeout`` setting (None: not set); a bad one is refused."""
        problem = self.problems.get(f"{kind or self.provider}.timeout")
        if problem is not None:
            raise BadSetting(problem)
        return self.for_provider(kind).timeout

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider,
                "providers": {k: {name: value for name, value in asdict(v).items()
                                  if value is not None}  # an unset timeout is not written
                              for k, v in self.providers.items()}}


def settings_path() -> Path:
    """``$CONVO_CONFIG`` if set, else ``settings.json`` in the platform's config folder."""
    env = os.environ.get("CONVO_CONFIG")
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / FILE_NAME


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings over the defaults; unreadable parts are reported in ``notes``."""
    path = path or settings_path()
    settings = Settings()
    if not path.exists():
        return settings
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        settings.notes.append(f"{path}: unreadable ({type(e).__name__}); using the defaults")
        return settings
    if not isinstance(data, dict):
        settings.notes.append(f"{path}: not a JSON object; using the defaults")
        return settings
    if data.get("provider") in PROVIDER_KINDS:
        settings.provider = ProviderKind(data["provider"])
    elif "provider" in data:
        settings.notes.append(f"{path}: unknown provider {data['provider']!r} ignored")
    for kind, raw in (data.get("providers") or {}).items():
        if kind in PROVIDER_KINDS and isinstance(raw, dict):
            settings.providers[kind] = _merge(DEFAULTS[kind], raw, settings, kind, path)
    return settings


def _merge(base: ProviderSettings, raw: dict[str, Any], settings: Settings, kind: str,
           path: Path) -> ProviderSettings:
    values: dict[str, Any] = {}
    for name, default in asdict(base).items():
        if name not in raw:
            continue
        if name == "timeout":
            values[name] = _timeout(raw[name], settings, kind, path)
        elif isinstance(raw[name], type(default)) and not isinstance(raw[name], bool):
            values[name] = raw[name]
        else:
            settings.notes.append(f"{kind}.{name}: {raw[name]!r} is not a "
                                  f"{type(default).__name__}; default kept")
    return replace(base, **values)


def _timeout(value: object, settings: Settings, kind: str, path: Path) -> float | None:
    """A positive number of seconds, or None (unset); anything else is noted, and kept as
    a problem the calls it would time are refused with."""
    if value is None:
        return None
    if (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0):
        return float(value)
    line = f"the setting {kind}.timeout in {path} is {value!r}, not a positive number of seconds"
    settings.problems[f"{kind}.timeout"] = line
    settings.notes.append(line)
    return None


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically (a temporary file renamed over the old one)."""
    return write_sections(settings.to_dict(), path)


def write_sections(sections: dict[str, Any], path: Path | None = None,
                   drop: tuple[str, ...] = ()) -> Path:
    """Replace ``sections`` of the settings file (and remove ``drop``), atomically: a
    temporary file renamed over the old one. Every other section is kept as it is."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    data = read_sections(path)
    data.update(sections)
    for name in drop:
        data.pop(name, None)
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def read_sections(path: Path) -> dict[str, Any]:
    """The settings file's sections as written ({} when it is missing or not an object;
    ``load_settings`` is what tells a person the file is broken)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
