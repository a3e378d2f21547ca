"""What Kimi CLI keeps beside a session, in its share folder (``~/.kimi``, or
``$KIMI_SHARE_DIR``): ``sessions/<md5 of the work folder>/<session id>/wire.jsonl``.

The wire log never names the model or the work folder, so they are read from the share
folder: ``kimi.json`` lists each work folder (its md5 names the session folder) and
``config.toml`` the default model. The model is what the config names *now*, which is the
model a session ran with unless it was started with ``--model``; the conversation says so.
A session's ``state.json`` holds the title Kimi shows for it.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Beside:
    """What the share folder says about one session file."""

    session: str
    cwd: str | None = None
    model: str | None = None
    title: str | None = None


def beside(path: Path) -> Beside:
    """The session id (its folder's name) and what the share folder says of it."""
    folder = path.parent
    share = folder.parent.parent.parent if folder.parent.parent.name == "sessions" else None
    if share is None:
        return Beside(folder.name, title=_title(folder))
    return Beside(folder.name, _work_dir(share, folder.parent.name), default_model(share),
                  _title(folder))


def default_model(share: Path) -> str | None:
    """The model of ``default_model`` in the share folder's ``config.toml`` (or the older
    ``config.json``)."""
    config = _load(share / "config.toml") or _load(share / "config.json")
    name = config.get("default_model")
    models = config.get("models")
    entry = models.get(name) if isinstance(models, dict) and isinstance(name, str) else None
    model = entry.get("model") if isinstance(entry, dict) else None
    return model if isinstance(model, str) and model else None


def _work_dir(share: Path, hashed: str) -> str | None:
    work_dirs = _load(share / "kimi.json").get("work_dirs")
    for entry in work_dirs if isinstance(work_dirs, list) else ():
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str):
            continue
        digest = hashlib.md5(path.encode("utf-8"), usedforsecurity=False).hexdigest()
        if hashed in (digest, f"{entry.get('kaos')}_{digest}"):
            return path
    return None


def _title(folder: Path) -> str | None:
    title = _load(folder / "state.json").get("custom_title")
    return title.strip()[:80] if isinstance(title, str) and title.strip() else None


def _load(path: Path) -> dict[str, Any]:
    """A small JSON or TOML file as a dict; missing or unreadable reads as empty."""
    try:
        if path.suffix == ".toml":
            with path.open("rb") as handle:
                return tomllib.load(handle)
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
