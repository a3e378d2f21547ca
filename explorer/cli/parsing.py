"""Argument parsing with the command line's one rule for mistakes: one line on stderr.

A usage mistake (unknown option, missing or malformed argument) prints
``convo COMMAND: error: …`` and exits with status 2, the usual status for a wrong
invocation; every other refusal exits with 1. Numbers are checked against what the
database can hold, so an absurd id is a usage mistake, not an overflow deep inside.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

EXIT_USAGE = 2
INT64 = 1 << 63


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (its subcommands inherit it)."""

    def error(self, message: str) -> NoReturn:
        first = message.splitlines()[0] if message else "invalid arguments"
        sys.stderr.write(f"{self.prog}: error: {first} (see: {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)


def integer(text: str) -> int:
    """A whole number that fits SQLite's 64-bit integers."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not -INT64 <= value < INT64:
        raise argparse.ArgumentTypeError(f"{text} is out of range")
    return value


def bounded_ints(parser: argparse.ArgumentParser) -> None:
    """Give every ``type=int`` argument, in every subcommand, the range check of ``integer``."""
    for action in parser._actions:
        if action.type is int:
            action.type = integer
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                bounded_ints(sub)
