"""Where each coding agent and chat tool keeps its sessions, honouring its own overrides.

Everything is computed from an :class:`Environment` (home folder, environment
variables, operating system) rather than read from the running process, so the
same rules can be tested for Windows and macOS on any machine, and tests never
look at a real home folder.

The rules follow each tool's own code: Claude Code reads ``$CLAUDE_CONFIG_DIR``
(else ``~/.claude``); pi ``$PI_CODING_AGENT_DIR`` (else ``~/.pi/agent``), and
oh-my-pi ``~/.omp/agent``; Codex ``$CODEX_HOME`` (else ``~/.codex``); Gemini CLI
``~/.gemini``; OpenCode the XDG data folder (``$XDG_DATA_HOME/opencode``, else
``~/.local/share/opencode``, on every OS); llm ``$LLM_USER_PATH``, else click's
per-OS application folder ``io.datasette.llm``; Continue CLI ``$CONTINUE_GLOBAL_DIR``
(else ``~/.continue``); Crush ``$CRUSH_GLOBAL_DATA`` (else its XDG data folder), whose
``projects.json`` names each project's own data folder; Cline CLI ``$CLINE_DATA_DIR``
(else ``$CLINE_DIR/data``, ``~/.cline/data``); Kilo CLI OpenCode's rules under ``kilo``;
the Cline, Roo Code and Kilo Code extensions each editor's ``User/globalStorage``;
Qwen Code ``$QWEN_RUNTIME_DIR`` (else ``$QWEN_HOME``, ``~/.qwen``); Kimi CLI
``$KIMI_SHARE_DIR`` (else ``~/.kimi``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Environment:
    home: Path
    env: Mapping[str, str] = field(default_factory=dict)
    system: str = "linux"  # "linux", "darwin" or "win32", as ``sys.platform`` says

    @classmethod
    def current(cls) -> Environment:
        system = "win32" if sys.platform.startswith("win") else (
            "darwin" if sys.platform == "darwin" else "linux")
        return cls(Path.home(), dict(os.environ), system)

    def var(self, name: str) -> Path | None:
        value = self.env.get(name, "").strip()
        return Path(value).expanduser() if value else None


def claude_home(e: Environment) -> Path:
    return e.var("CLAUDE_CONFIG_DIR") or e.home / ".claude"


def claude_projects(e: Environment) -> Path:
    return claude_home(e) / "projects"


def pi_sessions(e: Environment) -> Path:
    return (e.var("PI_CODING_AGENT_DIR") or e.home / ".pi" / "agent") / "sessions"


def omp_sessions(e: Environment) -> Path:
    return e.home / ".omp" / "agent" / "sessions"


def codex_home(e: Environment) -> Path:
    return e.var("CODEX_HOME") or e.home / ".codex"


def gemini_tmp(e: Environment) -> Path:
    return (e.var("GEMINI_CLI_HOME") or e.home) / ".gemini" / "tmp"


def opencode_data(e: Environment) -> Path:
    return (e.var("XDG_DATA_HOME") or e.home / ".local" / "share") / "opencode"


def config_dir(e: Environment) -> Path:
    """The per-user application data folder where click apps and VS Code editors keep
    theirs: ``%APPDATA%`` on Windows, ``~/Library/Application Support`` on macOS, else
    ``$XDG_CONFIG_HOME`` (``~/.config``)."""
    if e.system == "win32":
        return e.var("APPDATA") or e.home / "AppData" / "Roaming"
    if e.system == "darwin":
        return e.home / "Library" / "Application Support"
    return e.var("XDG_CONFIG_HOME") or e.home / ".config"


def llm_logs(e: Environment) -> Path:
    """``logs.db`` where llm keeps it (click's ``get_app_dir("io.datasette.llm")``)."""
    user = e.var("LLM_USER_PATH")
    if user is not None:
        return user / "logs.db"
    base = config_dir(e)
    return base / "io.datasette.llm" / "logs.db"


def continue_sessions(e: Environment) -> Path:
    """Continue CLI's sessions: ``$CONTINUE_GLOBAL_DIR`` (else ``~/.continue``) ``/sessions``."""
    return (e.var("CONTINUE_GLOBAL_DIR") or e.home / ".continue") / "sessions"


def crush_data(e: Environment) -> Path:
    """Crush's global data folder (``projects.json``): ``$CRUSH_GLOBAL_DATA``, else
    ``$XDG_DATA_HOME/crush``, else ``%LOCALAPPDATA%/crush`` on Windows and
    ``~/.local/share/crush`` elsewhere (``config.GlobalConfigData``)."""
    own = e.var("CRUSH_GLOBAL_DATA")
    if own is not None:
        return own
    xdg = e.var("XDG_DATA_HOME")
    if xdg is not None:
        return xdg / "crush"
    if e.system == "win32":
        return (e.var("LOCALAPPDATA") or e.home / "AppData" / "Local") / "crush"
    return e.home / ".local" / "share" / "crush"


def copilot_sessions(e: Environment) -> Path:
    """GitHub Copilot CLI's ``session-state`` (one folder per session, its ``events.jsonl``)
    in ``$COPILOT_HOME`` (else ``~/.copilot``, on every OS)."""
    return (e.var("COPILOT_HOME") or e.home / ".copilot") / "session-state"


def cline_sessions(e: Environment) -> Path:
    """Cline CLI's sessions: ``$CLINE_DATA_DIR``, else ``$CLINE_DIR/data`` (``~/.cline/data``)."""
    data = e.var("CLINE_DATA_DIR") or (e.var("CLINE_DIR") or e.home / ".cline") / "data"
    return data / "sessions"


def kilo_data(e: Environment) -> Path:
    """Kilo CLI (built on OpenCode): ``kilo.db`` in ``$XDG_DATA_HOME/kilo``, else
    ``~/.local/share/kilo``, on every OS."""
    return (e.var("XDG_DATA_HOME") or e.home / ".local" / "share") / "kilo"


EDITORS = ("Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium")
"""The VS Code family, by the folder each keeps its user data in."""


def editor_tasks(e: Environment, extension: str) -> list[Path]:
    """An extension's ``tasks`` folder in every editor of the VS Code family: under
    ``%APPDATA%`` on Windows, ``~/Library/Application Support`` on macOS, else
    ``$XDG_CONFIG_HOME`` (``~/.config``)."""
    base = config_dir(e)
    return [base / editor / "User" / "globalStorage" / extension / "tasks" for editor in EDITORS]


def cursor_chats(e: Environment) -> Path:
    """The ``cursor-agent`` CLI's chats, ``~/.cursor/chats/<workspace md5>/<chat>/store.db``."""
    return e.home / ".cursor" / "chats"


def cursor_user(e: Environment) -> Path:
    """The Cursor editor's ``User`` folder (VS Code's per-OS application data folder), whose
    ``globalStorage/state.vscdb`` holds the composer chats."""
    return config_dir(e) / "Cursor" / "User"


def goose_sessions(e: Environment) -> Path:
    """Goose's ``sessions`` folder (``<id>.jsonl`` files, or ``sessions.db`` from 1.10):
    ``$GOOSE_PATH_ROOT/data``, else ``%APPDATA%/Block/goose/data`` on Windows and the XDG
    data folder's ``goose`` elsewhere, macOS too."""
    root = e.var("GOOSE_PATH_ROOT")
    if root is not None:
        return root / "data" / "sessions"
    if e.system == "win32":
        base = e.var("APPDATA") or e.home / "AppData" / "Roaming"
        return base / "Block" / "goose" / "data" / "sessions"
    return (e.var("XDG_DATA_HOME") or e.home / ".local" / "share") / "goose" / "sessions"


def qwen_projects(e: Environment) -> Path:
    """Qwen Code's ``projects`` folder (``<cwd with non-alphanumerics as ->/chats/<id>.jsonl``)
    under its runtime folder: ``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, else ``~/.qwen``, on
    every OS (a ``runtimeOutputDir`` in its settings file is not followed)."""
    return (e.var("QWEN_RUNTIME_DIR") or e.var("QWEN_HOME") or e.home / ".qwen") / "projects"


def kimi_sessions(e: Environment) -> Path:
    """Kimi CLI's ``sessions`` folder (``<md5 of the work folder>/<id>/wire.jsonl``) in its
    share folder: ``$KIMI_SHARE_DIR``, else ``~/.kimi``, on every OS."""
    return (e.var("KIMI_SHARE_DIR") or e.home / ".kimi") / "sessions"


def vibe_sessions(e: Environment) -> Path:
    """Mistral Vibe's sessions: ``$VIBE_HOME`` (else ``~/.vibe``) ``/logs/session/unified``."""
    return (e.var("VIBE_HOME") or e.home / ".vibe") / "logs" / "session" / "unified"


def claude_project_folder(cwd: str) -> str:
    """The folder name Claude Code files a working directory's sessions under.

    Claude Code replaces every character that is not a letter, digit or ``-``
    with ``-`` (so ``/home/me/my_app`` becomes ``-home-me-my-app``).
    """
    return "".join(c if c.isascii() and (c.isalnum() or c == "-") else "-" for c in cwd)


def pi_session_folder(cwd: str) -> str:
    """pi's folder for a working directory: ``--`` + the path with separators as ``-`` + ``--``."""
    inner = cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-")
    return f"--{inner}--"
