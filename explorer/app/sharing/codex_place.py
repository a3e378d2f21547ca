"""What a Codex hand-back takes from the person's own Codex: its provider and its version.

Codex refuses to resume a thread whose ``session_meta.model_provider`` differs from the
provider it runs with ("Cannot change this thread's model provider from 'openai' to …"),
so the rollout names the provider ``config.toml`` chooses (``model_provider``, or the
active ``profile``'s), in ``$CODEX_HOME`` (else ``~/.codex``), and names none when that
says nothing: a thread without a provider resumes under any. The ``cli_version`` is the
one the newest rollout there was written with, so the header does not pin an old CLI.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from explorer.app.importing.agent_homes import Environment, codex_home


def configured_provider(e: Environment) -> str | None:
    """``model_provider`` from the person's ``config.toml`` (its profile's first), or None."""
    return _configured(e, "model_provider")


def configured_model(e: Environment) -> str | None:
    """``model`` from the person's ``config.toml`` (its profile's first), or None."""
    return _configured(e, "model")


def _configured(e: Environment, key: str) -> str | None:
    try:
        config = tomllib.loads((codex_home(e) / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):  # Codex refuses a broken one itself
        return None
    profile = config.get("profile")
    profiles = config.get("profiles")
    if isinstance(profile, str) and isinstance(profiles, dict):
        chosen = profiles.get(profile)
        if isinstance(chosen, dict) and isinstance(chosen.get(key), str):
            return str(chosen[key])
    value = config.get(key)
    return value if isinstance(value, str) and value.strip() else None


def latest_cli_version(e: Environment, look_at: int = 20) -> str | None:
    """The ``cli_version`` of the newest rollouts under ``sessions`` (by name: they hold the
    time), or None where there are none."""
    sessions = codex_home(e) / "sessions"
    if not sessions.is_dir():
        return None
    newest = sorted(sessions.glob("*/*/*/rollout-*.jsonl"), key=lambda p: p.name,
                    reverse=True)
    for path in newest[:look_at]:
        version = _version(path)
        if version:
            return version
    return None


def _version(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            first = f.readline(1 << 20)
        record = json.loads(first)
    except (OSError, ValueError):
        return None
    payload = record.get("payload") if isinstance(record, dict) else None
    if isinstance(payload, dict) and record.get("type") == "session_meta":
        version = payload.get("cli_version")
        return version if isinstance(version, str) and version else None
    return None


def newest(*versions: object) -> str | None:
    """The newest of some Codex versions ("0.125.0", "0.104.0-alpha.1"), by their numbers."""
    named = [v for v in versions if isinstance(v, str) and v]
    return max(named, key=_numbers) if named else None


def _numbers(version: str) -> tuple[int, ...]:
    out: list[int] = []
    for piece in version.split("-")[0].split("."):
        out.append(int(piece) if piece.isdigit() else 0)
    return tuple(out)
