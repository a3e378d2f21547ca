"""Run ``convo`` in-process with the model commands registered (once, however main lists them)."""

from __future__ import annotations

import argparse

import pytest

from explorer.cli import commands, main, model_commands


def _has_model_commands() -> bool:
    for action in main.build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return "send" in action.choices
    return False


def run_cli(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> int:
    if not _has_model_commands():
        monkeypatch.setattr(commands, "COMMANDS", [*commands.COMMANDS, *model_commands.COMMANDS])
    return main.main(argv)
