"""``convo effects``: the files the agent created, edited or deleted on a path, as diffs.

With one ``--at`` it prints each changed file's status and unified diff, the edits that could
not be applied and the calls that changed nothing; with two or more it compares them: files
only one branch changed, and where several did, the diff between what they end with.
"""

from __future__ import annotations

import argparse
from typing import Any

from explorer.app.effects.apply import Effects
from explorer.app.effects.compare import compare_effects, path_effects
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.output import emit
from explorer.store import StoreError


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


def run_effects(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        ats = args.at or [s.conversation(args.conversation, boundary=False).tip_id]
        if None in ats:
            raise StoreError(f"conversation {args.conversation} has no messages")
        if len(ats) == 1:
            e = path_effects(s, args.conversation, ats[0])
            emit(args, {"conversation": args.conversation, "at": ats[0], **e.to_dict()},
                 effect_lines(e))
            return 0
        each, files = compare_effects(s, args.conversation, ats)
        payload: dict[str, Any] = {
            "conversation": args.conversation, "at": ats,
            "branches": [{"at": at, **e.to_dict()} for at, e in zip(ats, each, strict=True)],
            "files": [f.to_dict(ats) for f in files]}
        lines = [f"branches: {', '.join(f'{i + 1} = path to {at}' for i, at in enumerate(ats))}"]
        for f in files:
            lines.append(f"{f.path}: {f.where}")
            for at, diff in zip(ats[1:], f.diffs[1:], strict=True):
                if diff:
                    lines.append(f"  {ats[0]} → {at}:")
                    lines += ["  " + d for d in diff.rstrip("\n").split("\n")]
        emit(args, payload, lines if files else ["no branch changed a file"])
    return 0


def _effects_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--at", type=int, action="append", metavar="MSG",
                   help="the path from the root to MSG (default: the tip); give it two or more "
                        "times to compare branches")


COMMANDS: list[Command] = [
    Command("effects", "the files the agent created, edited or deleted on a path, as diffs; "
            "two or more --at compare branches", _effects_args, run_effects, json=True),
]
