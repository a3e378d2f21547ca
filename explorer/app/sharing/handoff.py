"""Handing a branch back to a coding agent: a new session file where the agent looks for it.

The branch (root to ``at``, or to the tip) is exported in the agent's own format
and written as a *new* session in the agent's folder for the working directory
(Claude Code: ``~/.claude/projects/<cwd encoded>/<id>.jsonl``; pi: its sessions
folder; Codex: a new rollout under ``sessions/YYYY/MM/DD``; Gemini CLI: the project's
``chats`` folder; OpenCode: an export its ``import`` command takes — see
:mod:`handoff_targets`). An existing file is never replaced: the agent may have
continued that session since. The written file is then read back with this program's
own importer and its path compared with the branch, so a session the agent would
misread is reported, not assumed.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.app.importing.agent_homes import Environment
from explorer.app.sharing import codex_place, opencode_place
from explorer.app.sharing.exporting import export_lines
from explorer.app.sharing.handoff_links import compared, record_origins
from explorer.app.sharing.handoff_targets import AGENTS, TARGETS
from explorer.formats.base import ImportedConversation
from explorer.formats.common import finish
from explorer.formats.exporters.codex import VERSION as CODEX_VERSION
from explorer.formats.exporters.steps import Step, answered_steps
from explorer.store import Store, StoreError
from explorer.store.import_match import identity
from explorer.tree import secrets
from explorer.tree.model import Message, Part
from explorer.tree.paths import message_path


@dataclass
class Handoff:
    agent: str
    path: Path
    session_id: str
    cwd: str
    command: str
    lines: int
    notes: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "path": str(self.path), "session_id": self.session_id,
                "cwd": self.cwd, "command": self.command, "lines": self.lines,
                "notes": self.notes, "differences": self.differences,
                "hint": resume_hint(self.agent)}


def handoff(store: Store, conv_id: int, agent: str, at: int | None = None,
            env: Environment | None = None, cwd: str | None = None,
            redact: bool = True) -> Handoff:
    """Write the branch as a new session for ``agent``; never replaces a file.

    The agent sends the session to its model: secrets are replaced and listed in the notes
    unless ``redact`` is False (SPEC R1)."""
    done, lines = _plan(store, conv_id, agent, at, env, cwd, redact)
    _refuse_a_second_copy(agent, done.path, done.session_id)
    TARGETS[agent].prepare(env or Environment.current(), done.cwd)
    _write_new(done.path, lines)
    done.differences = _compare(store, conv_id, at, agent, done.path, redact, done.notes)
    return done


def _remember(store: Store, conv_id: int, agent: str, read: ImportedConversation,
              back: Sequence[Message], steps: Sequence[Step], branch: Sequence[Message],
              differences: list[str], notes: list[str]) -> None:
    """Record which message each record of the file is, so the session the agent continues
    comes back under its branch instead of as a copy (H1); not when it read back otherwise."""
    if differences or not branch or not isinstance(branch[0].id, int):
        return
    keys = record_origins(back, steps, agent, branch[0].id)
    try:
        store.remember_handoff(TARGETS[agent].source, identity(read), conv_id, keys)
    except StoreError as exc:  # a read-only database: the file is written all the same
        notes.append(f"not recorded in the database ({exc}): what the agent adds will sync "
                     "back as a new conversation")


def planned(store: Store, conv_id: int, agent: str, at: int | None = None,
            env: Environment | None = None) -> Handoff:
    """Where a hand-back to ``agent`` would write the branch, and the command, writing nothing.

    The export dialog proposes this path for an agent's format, so an export lands
    where the agent lists its sessions for that project instead of in the current folder.
    """
    return _plan(store, conv_id, agent, at, env, None, True)[0]


def _plan(store: Store, conv_id: int, agent: str, at: int | None, env: Environment | None,
          cwd: str | None, redact: bool) -> tuple[Handoff, list[str]]:
    if agent not in AGENTS:
        raise StoreError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
    e = env or Environment.current()
    where = cwd or store.conversation(conv_id).meta.get("cwd") or os.getcwd()
    notes: list[str] = []
    lines = list(export_lines(store, conv_id, agent, at, notes,
                              place=place_for(store, conv_id, agent, where, e),
                              redact=redact))
    session = TARGETS[agent].session_of(lines)
    if session is None:
        raise StoreError("the export names no session")
    dest = TARGETS[agent].destination(e, where, session)
    return Handoff(agent, dest, session, where, resume_command(agent, session, where, dest),
                   len(lines), notes), lines


def place_for(store: Store, conv_id: int, agent: str, cwd: str,
              env: Environment | None = None) -> dict[str, Any]:
    """The header fields the agent files the session by: the folder, and the meta it keeps
    (for Codex: the provider and version of the person's own Codex, see :mod:`codex_place`)."""
    conv = store.conversation(conv_id)
    meta = dict(conv.meta)
    own = conv.source_format == TARGETS[agent].source
    if not own:
        meta.pop("version", None)  # another agent's version means nothing to this one
    place: dict[str, Any] = {"cwd": cwd, "meta": meta}
    if agent == "codex":
        e = env or Environment.current()
        provider = codex_place.configured_provider(e)
        if provider is not None:
            meta["model_provider"] = provider
        elif not own:
            meta.pop("model_provider", None)  # none named: Codex resumes it under any
        model = codex_place.configured_model(e)
        if model is not None:
            meta["codex_model"] = model
        # the person's newest rollout's, else no older than this session's own or the default
        version = codex_place.latest_cli_version(e) or codex_place.newest(
            CODEX_VERSION, conv.meta.get("version") if own else None)
        if version is not None:
            place["agent_version"] = version
    if agent == "opencode":
        model = opencode_place.configured_model(env or Environment.current())
        if model is not None:
            meta["opencode_model"] = model
    return place


def _refuse_a_second_copy(agent: str, dest: Path, session: str) -> None:
    """The same branch must not land twice (pi, Codex and Gemini CLI put the time in the
    file name, so a second hand-back would otherwise make a second copy)."""
    found = next(TARGETS[agent].twins(dest, session), None)
    if found is not None:
        raise StoreError(f"{found} already holds this branch (the agent may have continued it); "
                         "nothing was written")


def resume_command(agent: str, session: str, cwd: str, path: Path) -> str:
    return TARGETS[agent].resume(session, cwd, path)


def resume_hint(agent: str) -> str | None:
    """What the person needs to know besides the command (Codex lists a session it did not
    start itself only once it has been resumed by id; OpenCode imports the file first)."""
    return TARGETS[agent].hint if agent in TARGETS else None


def _write_new(dest: Path, lines: Sequence[str]) -> None:
    """Write beside ``dest``, then link into place: fails, changing nothing, if it exists."""
    if dest.exists():
        raise StoreError(f"{dest} already exists (the agent may have continued that session); "
                         "nothing was written")
    _private_folders(dest.parent)
    temp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.chmod(temp, 0o600)  # the agents keep their sessions private, whatever the umask
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(line + "\n" for line in lines)
        try:
            os.link(temp, dest)
        except FileExistsError as exc:
            raise StoreError(f"{dest} already exists; nothing was written") from exc
    finally:
        temp.unlink(missing_ok=True)


def _private_folders(folder: Path) -> None:
    """Create the folders the agent has not made yet 0700, as it would; leave existing ones."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by someone else: theirs to keep as it is
        os.chmod(made, 0o700)


def _compare(store: Store, conv_id: int, at: int | None, agent: str, dest: Path,
             redact: bool, notes: list[str]) -> list[str]:
    """Differences between the branch and what the agent's file says, read back."""
    module = importlib.import_module(f"explorer.formats.{TARGETS[agent].source}")
    read = next(iter(module.read(dest))).materialize()  # every part, even of a huge file
    if read.tip is None and read.messages:
        read = finish(read, read.messages[-1].id)
    back = message_path({m.id: m for m in read.messages}, read.tip) if read.tip else []
    tip = at if at is not None else store.conversation(conv_id).tip_id
    branch = store.path(conv_id, tip) if tip is not None else []
    if redact:
        branch = secrets.redact_messages(branch)[0]
    steps = answered_steps(branch, [])
    sent = [Message(i, None, "user" if s.role == "user" else s.role, s.parts)
            for i, s in enumerate(steps)]
    differences = _differences(_signature(sent, agent), _signature(back, agent))
    _remember(store, conv_id, agent, read, back, steps, branch, differences, notes)
    return differences


def _differences(want: list[tuple[str, str, str]],
                 got: list[tuple[str, str, str]]) -> list[str]:
    if want == got:
        return []
    for n, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return [f"part {n}: the branch has {a[:2]}, the file read back has {b[:2]}"]
    return [f"the branch has {len(want)} parts, the file read back has {len(got)}"]


def _signature(path: Sequence[Message], agent: str) -> list[tuple[str, str, str]]:
    """What must survive the trip: text, calls and results, in order (thinking may not)."""
    out: list[tuple[str, str, str]] = []
    for m in path:
        if m.role == "system" and not TARGETS[agent].keeps_system:
            continue  # the others bring their own system prompt
        for p in compared(m.parts):  # id-less calls become text
            out.append((m.role if m.role != "tool" else "user", p.kind, _normal(p)))
    return out


def _normal(p: Part) -> str:
    if p.kind == "tool_use":  # arguments that are not JSON travel as {"input": text}
        try:
            value = json.loads(p.text or "{}")
        except ValueError:
            value = {"input": p.text}
        return json.dumps(value if isinstance(value, dict) else {"input": value}, sort_keys=True)
    return p.text.strip()
