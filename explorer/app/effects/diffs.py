"""Unified diffs as ``diff -u`` and ``git diff`` print them, a missing last line break said."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

NO_NEWLINE = "\\ No newline at end of file"


def unified(before: str, after: str, fromfile: str, tofile: str, context: int = 3) -> str:
    """The diff from ``before`` to ``after`` (empty when they are the same)."""
    lines = difflib.unified_diff(before.splitlines(keepends=True),
                                 after.splitlines(keepends=True), fromfile, tofile, n=context)
    return "".join(_ended(lines))


def _ended(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n" + NO_NEWLINE + "\n"


def fragment(old: str, new: str, title: str) -> str:
    """One edit made to a file never seen whole: its old text against its new (the lines
    both hold are its context), under a header naming the call."""
    a, b = old.splitlines(), new.splitlines()
    out = [f"@@ {title} @@"]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [f" {s}" for s in a[i1:i2]]
            continue
        out += [f"-{s}" for s in a[i1:i2]]
        out += [f"+{s}" for s in b[j1:j2]]
    return "\n".join(out) + "\n"
