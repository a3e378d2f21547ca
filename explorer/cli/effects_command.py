"""``convo effects``: the files the agent created, edited or deleted on a path, as diffs.

With one ``--at`` it prints each changed file's status and unified diff, the edits that could
not be applied and the calls that changed nothing; with two or more it compares them: files
only one branch changed, and where several did, the diff between what they end with.
"""

from __future__ import annotations

import argparse
from typing import Any

from explorer.app.effects.compare import compare_effects, path_effects
from explorer.app.effects.text import comparison_lines, effect_lines
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.output import emit
from explorer.store import StoreError


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
        emit(args, payload, comparison_lines(ats, files))
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
