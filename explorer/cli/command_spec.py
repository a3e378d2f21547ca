"""What a subcommand is (its name, arguments and what runs it), and the store it opens.

Kept apart from the commands themselves so a module of a few commands (``convo sync``)
imports only what it uses, not every command's dependencies.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from explorer.cli.db_location import check_db_location
from explorer.store import Store


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    json: bool = False
    creates_db: bool = False  # only commands that bring data in make a new database


def open_store(args: argparse.Namespace) -> Store:
    return Store(check_db_location(args))


def add_redact_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-redact", action="store_true",
                   help="keep secrets (API keys, tokens, passwords) in what is written or sent; "
                        "by default each is replaced by [redacted: kind] and listed")
