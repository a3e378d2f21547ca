"""A command line that names a subcommand imports only the module that defines it: the table
that says which module that is must name every subcommand, each where it is defined."""

from __future__ import annotations

import importlib

import pytest

from explorer.cli import main


def test_every_subcommand_is_found_in_the_module_the_table_names() -> None:
    defined = {spec.name: module for module in main.MODULES
               for spec in importlib.import_module(f"explorer.cli.{module}").COMMANDS}
    assert defined == main.COMMAND_MODULES


@pytest.mark.parametrize("words, named", [
    (["sync", "--tool", "pi"], "sync"),
    (["--db", "x.db", "search", "hello"], "search"),
    (["--db", "sync"], None),  # "sync" is the database's name here, not a command
    (["--help"], None),
    (["frobnicate"], None),
])
def test_the_named_command_is_the_first_word_that_is_not_an_option(
        words: list[str], named: str | None) -> None:
    assert main.named_command(words) == named


def test_a_named_command_parses_as_the_full_parser_does() -> None:
    words = ["--db", "x.db", "search", "role:user hello", "--limit", "5", "--json"]
    alone = vars(main.build_parser("search").parse_args(words))
    full = vars(main.build_parser().parse_args(words))
    assert alone.pop("handler").__name__ == full.pop("handler").__name__
    assert alone == full
