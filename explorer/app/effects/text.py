"""File effects as text: what ``convo effects`` prints and the window's Files tab shows."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.app.effects.apply import Effects
from explorer.app.effects.compare import FileComparison


def effect_lines(e: Effects) -> list[str]:
    if not e.files and not e.skipped:
        return ["no file was created, edited or deleted on this path"]
    lines: list[str] = []
    for f in e.files:
        by = ", ".join(sorted({c.agent for c in f.calls if c.agent}))
        lines.append(f"{f.status}: {f.path} ({len(f.calls)} call(s)"
                     + (f"; by subagent {by}" if by else "") + ")")
        lines += [f"  could not apply: {p.call.tool} {p.call.use_id or ''} in message "
                  f"{p.call.message_id}: {p.reason}" for p in f.could_not_apply]
        lines += [f"  a read in message {c.message_id} showed other text: that text wins"
                  for c, ok in f.checks if not ok]
        lines += f.diff().rstrip("\n").split("\n")
    for call, path, why in e.skipped:
        lines.append(f"changed nothing: {call.tool} {call.use_id or ''} on {path} in message "
                     f"{call.message_id}: {why}")
    return lines


def comparison_lines(ats: Sequence[int], files: Sequence[FileComparison]) -> list[str]:
    """Branches compared by their file effects: where each file changed, and between the
    first branch and each other one, the diff of what they end with."""
    if not files:
        return ["no branch changed a file"]
    lines = [f"branches: {', '.join(f'{i + 1} = path to {at}' for i, at in enumerate(ats))}"]
    for f in files:
        lines.append(f"{f.path}: {f.where}")
        for at, diff in zip(ats[1:], f.diffs[1:], strict=True):
            if diff:
                lines.append(f"  {ats[0]} → {at}:")
                lines += ["  " + d for d in diff.rstrip("\n").split("\n")]
    return lines
