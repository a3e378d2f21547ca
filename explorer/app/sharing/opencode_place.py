"""Which model an OpenCode hand-back names: the one the person's own OpenCode runs with.

OpenCode continues a session with the model its last prompt names; a provider the
person has not configured would stop it ("model not found"). So the export names the
``model`` (``provider/model``) of the person's global config —
``$OPENCODE_CONFIG``, else ``opencode.json``/``opencode.jsonc`` in
``$XDG_CONFIG_HOME/opencode`` (else ``~/.config/opencode``) — and, where none is set,
the stored model under OpenCode's own provider name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from explorer.app.importing.agent_homes import Environment

_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r",(\s*[}\]])")


def config_files(e: Environment) -> list[Path]:
    own = e.var("OPENCODE_CONFIG")
    folder = (e.var("XDG_CONFIG_HOME") or e.home / ".config") / "opencode"
    return [p for p in (own, folder / "opencode.json", folder / "opencode.jsonc")
            if p is not None]


def configured_model(e: Environment) -> str | None:
    """``provider/model`` from the person's OpenCode config, or None."""
    for path in config_files(e):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            config = json.loads(_jsonc(text))
        except ValueError:
            continue  # OpenCode refuses a broken config itself
        model = config.get("model") if isinstance(config, dict) else None
        if isinstance(model, str) and "/" in model:
            return model
    return None


def _jsonc(text: str) -> str:
    """JSON with comments and trailing commas (OpenCode's config dialect) as plain JSON."""
    plain = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    return _TRAILING_COMMAS.sub(r"\1", plain)
