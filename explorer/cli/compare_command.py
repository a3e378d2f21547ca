"""``convo compare``: the compare window's columns and differences, printed.

It calls the same ``explorer.app.comparing.columns`` the window does, so what a script
sees is what a person sees.
"""

from __future__ import annotations

import argparse

from explorer.app.comparing.columns import MODES, CompareError, compare, siblings_to_compare
from explorer.app.comparing.text import text_lines, to_json
from explorer.cli.commands import Command, open_store
from explorer.cli.output import emit
from explorer.store import StoreError


def run_compare(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        try:
            ids = list(args.messages)
            if len(ids) == 1:
                ids = siblings_to_compare(s, ids[0])
                if len(ids) > 4:
                    raise CompareError(f"message {args.messages[0]} has {len(ids)} siblings: "
                                       "name 2 to 4 of them")
            result = compare(s, ids, base=args.base, mode=args.mode,
                             changes_only=args.changes_only)
        except CompareError as e:
            raise StoreError(f"cannot compare: {e}") from None
        emit(args, to_json(result), text_lines(result))
    return 0


def _compare_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("messages", type=int, nargs="+", metavar="MSG",
                   help="2 to 4 messages on different branches (one message: it and its "
                        "siblings)")
    p.add_argument("--base", type=int, metavar="MSG",
                   help="diff against the branch through MSG (default: the active branch)")
    p.add_argument("--mode", choices=MODES, default="words",
                   help="mark differing words (default), whole lines, or nothing")
    p.add_argument("--changes-only", action="store_true",
                   help="leave out unchanged text away from the differences")


COMMANDS: list[Command] = [
    Command("compare", "compare 2–4 branches turn by turn, differences marked", _compare_args,
            run_compare, json=True),
]
