"""``convo``: with no arguments it opens the desktop app; with a subcommand it works headless.

A person's mistake prints one line on stderr: a usage mistake (unknown option,
malformed argument) exits with 2, a refusal (unknown id, bad label, unreadable
file) with 1; tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from explorer import __version__
from explorer.app import bytecode, error_log, heap
from explorer.cli import display
from explorer.cli.output import visible
from explorer.cli.parsing import OneLineParser, bounded_ints
from explorer.tree.errors import ExplorerError, error_line

EXIT_USER_ERROR = 1


def _window_options(p: argparse.ArgumentParser) -> None:
    """The options of ``convo`` itself (the window), before any subcommand."""
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--verbose", action="store_true",
                   help="with --version: also where the log, database and settings are")
    p.add_argument("--db", help="database file (default: explorer.db in your data folder)")
    p.add_argument("--screenshot", metavar="FILE",
                   help="open the window offscreen, save a PNG of it, and exit")
    p.add_argument("--conversation", type=int, metavar="ID", help="conversation to open first")
    p.add_argument("--smoke-test", action="store_true",
                   help="check this installation headless (demo, graph, a snapshot page, keyring)")


MODULES = ("agent_commands", "commands", "compact_commands", "compare_command", "cost_command",
           "effects_command", "mcp_command", "model_commands", "ops_command", "probe_command",
           "replay_commands", "share_command", "tend_commands")
COMMAND_MODULES = {
    "sources": "agent_commands", "sync": "agent_commands", "handoff": "agent_commands",
    **dict.fromkeys(("demo", "list", "show", "tree", "branch", "fork", "checkpoint", "rewind",
                     "trim", "export", "import", "search"), "commands"),
    **dict.fromkeys(("context", "compact", "shake"), "compact_commands"),
    "compare": "compare_command", "cost": "cost_command", "effects": "effects_command",
    "mcp": "mcp_command", "ops": "ops_command", "probe": "probe_command",
    "share": "share_command",
    **dict.fromkeys(("edit", "send", "rerun", "regenerate", "keys"), "model_commands"),
    **dict.fromkeys(("replay", "fanout"), "replay_commands"),
    **dict.fromkeys(("archive", "unarchive", "delete", "undo", "redo", "purge", "star", "label",
                     "note", "merge", "history"), "tend_commands"),
}
"""Which module defines each subcommand: a command line that names one imports only that
module (``convo sync`` in a quarter of a second less); anything else reads every one."""
_VALUED = {"--db", "--screenshot", "--conversation"}


def named_command(words: Sequence[str]) -> str | None:
    """The subcommand ``words`` name, if it is one (the first word that is not an option
    of ``convo`` itself or its value)."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif not word.startswith("-"):
            return word if word in COMMAND_MODULES else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the one named ``only``: the subcommands import
    most of the app, and only a command line that names one pays for it."""
    import importlib

    names = [COMMAND_MODULES[only]] if only in COMMAND_MODULES else list(MODULES)
    modules = [importlib.import_module(f"explorer.cli.{name}") for name in names]
    p = OneLineParser(prog="convo", description="Conversation Explorer")
    _window_options(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for spec in [spec for module in modules for spec in module.COMMANDS]:
        cmd = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        cmd.add_argument("--db", help=argparse.SUPPRESS, default=argparse.SUPPRESS)
        if spec.json:
            cmd.add_argument("--json", action="store_true", help="print JSON")
        spec.arguments(cmd)
        cmd.set_defaults(handler=spec.run, creates_db=spec.creates_db)
    bounded_ints(p)
    return p


class _NotWindowOnly(Exception):
    """The command line is more than the window's options (a subcommand, help, a mistake)."""


class _WindowParser(OneLineParser):
    def error(self, message: str) -> NoReturn:
        raise _NotWindowOnly(message)


def window_arguments(argv: Sequence[str]) -> argparse.Namespace | None:
    """The parsed options when ``argv`` only opens the window, else None (then the full
    parser, with every subcommand, reads it and reports any mistake)."""
    p = _WindowParser(prog="convo", add_help=False)
    _window_options(p)
    bounded_ints(p)
    try:
        args, rest = p.parse_known_args(list(argv))
    except _NotWindowOnly:
        return None
    if rest:
        return None
    args.command = None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    bytecode.use_user_cache()  # before the window's few hundred modules are imported
    heap.share_one_heap()  # before the store's writer and the window's workers start
    words = list(sys.argv[1:] if argv is None else argv)
    args = window_arguments(words) or build_parser(named_command(words)).parse_args(words)
    if args.version:
        print(_version(args.verbose))
        return 0
    error_log.install("convo" if args.command is None else f"convo {args.command}",
                      window=args.command is None and not args.screenshot)
    if args.smoke_test:
        return _smoke_test()
    if args.command is None:
        return _launch_app(args)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        return 0
    except (ExplorerError, OSError, sqlite3.DatabaseError) as e:
        print(f"convo: error: {visible(error_line(e))}", file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception as e:  # a bug: one line here, the whole traceback in the log (E1)
        failure = error_log.report(
            f"convo {args.command} failed: {type(e).__name__}: {error_log.one_line(e)}", e,
            show=False)
        print(f"convo: error: {visible(failure.summary)} (a bug: the traceback is in "
              f"{error_log.log_path()})", file=sys.stderr)
        return EXIT_USER_ERROR


def _version(verbose: bool) -> str:
    lines = [f"convo {__version__}"]
    if verbose:
        from explorer.app.locations import default_db_path
        from explorer.providers.settings import settings_path

        lines += [f"log: {error_log.log_path()}", f"database: {default_db_path()}",
                  f"settings: {settings_path()}",
                  f"python: {sys.version.split()[0]} ({sys.executable})"]
    return "\n".join(lines)


def _smoke_test() -> int:
    if not display.available():
        display.use_offscreen()
    try:
        from explorer.ui.smoke import run_smoke_test
    except ImportError as e:
        print(f"convo: error: the smoke test needs PySide6 ({e})", file=sys.stderr)
        return EXIT_USER_ERROR
    return run_smoke_test()


def _launch_app(args: argparse.Namespace) -> int:
    from explorer.app.sharing import safe_write
    from explorer.cli.db_location import check_db_location

    args.creates_db = True  # the window loads the demo into a new database
    try:
        path = check_db_location(args)
        if args.screenshot:
            safe_write.guard(Path(args.screenshot), path)
    except ExplorerError as e:
        print(f"convo: error: {visible(error_line(e))}", file=sys.stderr)
        return EXIT_USER_ERROR
    if not display.available():
        if not args.screenshot:
            print(f"convo: error: {display.NEEDED}", file=sys.stderr)
            return EXIT_USER_ERROR
        display.use_offscreen()
    try:
        from explorer.ui.app import run_app
    except ImportError as e:  # the core can be installed without Qt
        print(f"convo: error: the desktop app needs PySide6 ({e})", file=sys.stderr)
        return EXIT_USER_ERROR
    return run_app(path, screenshot=args.screenshot,
                   conversation=args.conversation)


if __name__ == "__main__":
    sys.exit(main())
