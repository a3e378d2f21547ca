"""How each coding agent is told to start ``convo mcp``: the one line that adds it, and the
entry its own settings file takes (what ``convo mcp --print-config AGENT`` prints).

The formats are the agents' own, as their documentation gives them: Claude Code's
``claude mcp add`` and ``.mcp.json``, Codex's ``[mcp_servers.NAME]`` in
``~/.codex/config.toml``, Gemini CLI's ``mcpServers`` in ``~/.gemini/settings.json``,
OpenCode's ``mcp`` entries of type ``local``. pi has no MCP client of its own; its
pi-mcp-adapter extension reads ``mcpServers`` from ``~/.pi/agent/mcp.json``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Sequence

NAME = "convo"


def _servers(command: Sequence[str]) -> str:
    entry = {"command": command[0], "args": list(command[1:])}
    return json.dumps({"mcpServers": {NAME: entry}}, indent=2)


def _claude(command: Sequence[str]) -> str:
    return "\n".join([
        "# Claude Code: once, for every project (--scope project writes .mcp.json instead)",
        f"claude mcp add --scope user {NAME} -- {shlex.join(command)}",
        "# or, for one project, in .mcp.json at its root:",
        _servers(command)])


def _codex(command: Sequence[str]) -> str:
    args = ", ".join(json.dumps(a) for a in command[1:])
    return "\n".join([
        "# Codex CLI: once (it writes ~/.codex/config.toml)",
        f"codex mcp add {NAME} -- {shlex.join(command)}",
        "# or, in ~/.codex/config.toml:",
        f"[mcp_servers.{NAME}]", f"command = {json.dumps(command[0])}", f"args = [{args}]"])


def _gemini(command: Sequence[str]) -> str:
    return "\n".join([
        "# Gemini CLI: once, for every project (without --scope user: this project only)",
        f"gemini mcp add --scope user {NAME} {shlex.join(command)}",
        "# or, in ~/.gemini/settings.json:",
        _servers(command)])


def _opencode(command: Sequence[str]) -> str:
    entry = {"type": "local", "command": list(command)}
    return "\n".join([
        "# OpenCode: once, for every project",
        f"opencode mcp add {NAME} --global -- {shlex.join(command)}",
        "# or, in ~/.config/opencode/opencode.json (OpenCode 1.x):",
        json.dumps({"$schema": "https://opencode.ai/config.json",
                    "mcp": {NAME: {**entry, "enabled": True}}}, indent=2),
        "# (OpenCode 2 keeps servers one level down, under \"mcp\": {\"servers\": {...}})"])


def _pi(command: Sequence[str]) -> str:
    return "\n".join([
        "# pi has no MCP client of its own; its pi-mcp-adapter extension adds one:",
        "pi install npm:pi-mcp-adapter",
        "# then, in ~/.pi/agent/mcp.json (or .pi/mcp.json in a project):",
        _servers(command)])


AGENTS: dict[str, Callable[[Sequence[str]], str]] = {
    "claude-code": _claude, "codex": _codex, "gemini-cli": _gemini, "opencode": _opencode,
    "pi": _pi,
}


def config_text(agent: str, command: Sequence[str]) -> str:
    """The set-up for ``agent`` of the server started by ``command``."""
    return AGENTS[agent](command)
