"""``convo ops``: every operation with its id, menu text, shortcut, command-bar word and
command-line verb, or why a place does not offer it (O1)."""

from __future__ import annotations

import argparse

from explorer.app.ops import OPERATIONS, OpSpec
from explorer.cli.commands import Command
from explorer.cli.output import emit


def _where(op: OpSpec) -> str:
    places = [p for p, on in (("menu", op.menu is not None), ("right-click", op.context),
                              (f"/{op.slash}", op.slash is not None),
                              (op.elsewhere, bool(op.elsewhere))) if on]
    return ", ".join(places) if places else f"not in the window: {op.window_absent}"


def op_lines() -> list[str]:
    lines = [f"{'id':<11} {'convo':<11} {'shortcut':<13} window", "-" * 72]
    for op in OPERATIONS:
        verb = op.cli or f"(none: {op.cli_absent})"
        lines.append(f"{op.id:<11} {verb:<11} {op.shortcut or '-':<13} {op.title} · {_where(op)}")
    return lines


def run_ops(args: argparse.Namespace) -> int:
    emit(args, [op.to_dict() for op in OPERATIONS], op_lines())
    return 0


def _no_args(_: argparse.ArgumentParser) -> None:
    """``convo ops`` takes no arguments but ``--json``."""


COMMANDS: list[Command] = [
    Command("ops", "every operation: id, menu text, shortcut, command-bar word, convo verb",
            _no_args, run_ops, json=True),
]
