"""Two or more branches' file effects side by side.

Each branch's effects are rebuilt on their own; a file is then changed in one branch only,
or in several: where the texts they end with differ, the diff between them is given (from
the first branch named to each other one), where they are the same that is said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.app.effects.apply import Effects, FileEffect, effects
from explorer.app.effects.calls import path_calls
from explorer.app.effects.diffs import unified
from explorer.store import Store


def path_effects(store: Store, conv_id: int, at: int) -> Effects:
    """The effects of the path from the root to ``at`` (its subagents' calls included)."""
    return effects(path_calls(store, conv_id, at))


@dataclass
class FileComparison:
    path: str
    by_branch: list[FileEffect | None]  # one per branch, in the order they were named
    diffs: list[str | None]  # each branch's end text against the first's (None: not both known)

    @property
    def where(self) -> str:
        have = [i for i, f in enumerate(self.by_branch) if f is not None]
        if len(have) == 1:
            return f"only in {have[0] + 1}"
        ends = [f.after if f is not None else None for f in self.by_branch]
        if len(have) == len(ends) and None not in ends and len(set(ends)) == 1:
            return "the same in all"
        return "in " + ", ".join(str(i + 1) for i in have)

    def to_dict(self, ats: Sequence[int]) -> dict[str, Any]:
        return {"path": self.path, "where": self.where,
                "in": [at for at, f in zip(ats, self.by_branch, strict=True) if f is not None],
                "status": {str(at): f.status if f is not None else None
                           for at, f in zip(ats, self.by_branch, strict=True)},
                "diffs": {str(at): d for at, d in zip(ats[1:], self.diffs[1:], strict=True)}}


def compare_effects(store: Store, conv_id: int, ats: Sequence[int]
                    ) -> tuple[list[Effects], list[FileComparison]]:
    each = [path_effects(store, conv_id, at) for at in ats]
    paths: list[str] = []
    for e in each:
        paths += [f.path for f in e.files if f.path not in paths]
    out: list[FileComparison] = []
    for path in paths:
        files = [e.file(path) for e in each]
        first = files[0]
        diffs = [None if first is None or f is None or first.after is None or f.after is None
                 else unified(first.after, f.after, f"{ats[0]}:{path}", f"{at}:{path}")
                 for f, at in zip(files, ats, strict=True)]
        out.append(FileComparison(path, files, diffs))
    return each, out
