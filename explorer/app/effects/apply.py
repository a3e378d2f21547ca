"""The files a path's tool calls created, edited or deleted, rebuilt from the calls' inputs.

Each file's text is followed call by call: a write sets it, an edit or a patch changes it, a
delete removes it, and a read shows it (where a later read shows the text, that wins, and the
rebuilt text is checked against it). An edit whose old text is not in the rebuilt file is
listed as "could not apply" with its call, never skipped; an edit to a file never seen whole
is kept as a fragment (its old and new text). A call that failed, was rejected or has no
result on the path changed nothing, and is listed as skipped with the reason.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.effects.calls import ToolCall
from explorer.app.effects.diffs import fragment, unified
from explorer.app.effects.patch import PatchError, apply_hunks
from explorer.app.effects.readers import Edit, FileOp, file_ops, outcome
from explorer.app.effects.seen import same_text


@dataclass
class Problem:
    call: ToolCall
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.call.ref(), "reason": self.reason}


@dataclass
class FileEffect:
    path: str
    before: str | None = None  # the text before this path's first change (None: not seen)
    after: str | None = None  # the text it ends with (None: deleted, or never seen whole)
    created: bool | None = None  # the first change made it (None: not known)
    deleted: bool = False
    changed: bool = False
    calls: list[ToolCall] = field(default_factory=list)
    could_not_apply: list[Problem] = field(default_factory=list)
    checks: list[tuple[ToolCall, bool]] = field(default_factory=list)  # a read vs the rebuilt
    fragments: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.deleted:
            return "deleted"
        if self.created:
            return "created"
        return "written" if self.before is None and not self.fragments else "edited"

    def diff(self) -> str:
        a, b = f"a/{self.path.lstrip('/')}", f"b/{self.path.lstrip('/')}"
        if self.fragments and self.before is None and not self.deleted:
            return f"--- {a} (never seen whole)\n+++ {b}\n" + "".join(self.fragments)
        if self.before is None and not self.created:
            a = f"{a} (not seen before the first change)"
        before = self.before or ""
        if self.created and self.before is None:
            a = "/dev/null"
        if self.deleted:
            return unified(before, "", a, "/dev/null") if self.before else (
                f"--- {a}\n+++ /dev/null\n(deleted; its text was not seen)\n")
        return unified(before, self.after or "", a, b)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "diff": self.diff(),
                "content": self.after, "before_seen": self.before is not None,
                "calls": [c.ref() for c in self.calls],
                "could_not_apply": [p.to_dict() for p in self.could_not_apply],
                "reads_checked": [{**c.ref(), "agrees": ok} for c, ok in self.checks]}


@dataclass
class Effects:
    files: list[FileEffect]  # changed files, in the order of their first change
    skipped: list[tuple[ToolCall, str, str]]  # call, path, why it changed nothing

    def file(self, path: str) -> FileEffect | None:
        return next((f for f in self.files if f.path == path), None)

    def to_dict(self) -> dict[str, Any]:
        return {"files": [f.to_dict() for f in self.files],
                "skipped": [{**c.ref(), "path": p, "reason": r} for c, p, r in self.skipped]}


def effects(calls: Sequence[ToolCall]) -> Effects:
    state: dict[str, FileEffect] = {}
    skipped: list[tuple[ToolCall, str, str]] = []
    for call in calls:
        ops = file_ops(call)
        why = outcome(call) if any(op.kind != "read" for op in ops) else None
        for op in ops:
            path = posixpath.normpath(op.path) if op.path else op.path
            f = state.setdefault(path, FileEffect(path))
            if why is not None:
                skipped.append((call, path, why))
            elif op.kind == "read":
                _read(f, call, op.text)
            else:
                _change(f, call, op, state)
    return Effects([f for f in state.values() if f.changed], skipped)


def _read(f: FileEffect, call: ToolCall, seen: str) -> None:
    if f.after is not None and same_text(f.after, seen):
        if f.changed:
            f.checks.append((call, True))
        return
    if f.changed and f.after is not None:
        f.checks.append((call, False))
    f.after = seen
    f.deleted = False


def _change(f: FileEffect, call: ToolCall, op: FileOp, state: dict[str, FileEffect]) -> None:
    if not f.changed:
        f.before, f.changed = f.after, True
        f.created = op.created if op.kind == "write" and f.before is None else None
    f.calls.append(call)
    if op.kind == "write":
        f.after, f.deleted = op.text, False
    elif op.kind == "delete":
        f.after, f.deleted = None, True
    elif op.kind == "edit":
        _edit(f, call, op.edits)
    elif op.patch is not None:
        _patch(f, call, op, state)


def _edit(f: FileEffect, call: ToolCall, edits: Sequence[Edit]) -> None:
    if f.after is None and len(edits) == 1 and edits[0].old == "":
        f.after, f.created = edits[0].new, True  # Claude Code makes a file this way
        return
    if f.after is None:
        f.fragments += [fragment(e.old, e.new, _title(call)) for e in edits]
        return
    text = f.after
    for n, e in enumerate(edits, 1):
        if e.old == "" and text == "":
            text = e.new
        elif e.old and e.old in text:
            text = text.replace(e.old, e.new) if e.replace_all else text.replace(e.old, e.new, 1)
        else:
            which = f"edit {n} of {len(edits)}: " if len(edits) > 1 else ""
            f.could_not_apply.append(Problem(call, f"{which}its old text is not in the file "
                                                   f"as rebuilt ({_excerpt(e.old)})"))
            return  # an edit of several is made whole or not at all
    f.after = text


def _patch(f: FileEffect, call: ToolCall, op: FileOp, state: dict[str, FileEffect]) -> None:
    assert op.patch is not None
    if f.after is None:
        f.fragments += [fragment("\n".join(h.old), "\n".join(h.new), _title(call))
                        for h in op.patch.hunks]
    else:
        try:
            f.after = apply_hunks(f.after, op.patch.hunks)
        except PatchError as e:
            f.could_not_apply.append(Problem(call, str(e)))
            return
    if op.patch.move_to:
        to = state.setdefault(posixpath.normpath(op.patch.move_to),
                              FileEffect(posixpath.normpath(op.patch.move_to)))
        _change(to, call, FileOp("write", to.path, f.after or "", created=True), state)
        to.fragments += f.fragments
        f.after, f.deleted = None, True


def _title(call: ToolCall) -> str:
    return f"{call.tool} {call.use_id or ''} in message {call.message_id}".replace("  ", " ")


def _excerpt(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "(empty)"
    return repr(line if len(line) <= 60 else line[:59] + "…")
