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

from explorer import __version__
from explorer.app import safe_write
from explorer.cli import (
    agent_commands,
    commands,
    compact_commands,
    compare_command,
    display,
    model_commands,
    probe_command,
    replay_commands,
    tend_commands,
)
from explorer.cli.output import visible
from explorer.cli.parsing import OneLineParser, bounded_ints
from explorer.tree.errors import ExplorerError, error_line

EXIT_USER_ERROR = 1


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="convo", description="Conversation Explorer")
    p.add_argument("--version", action="version", version=f"convo {__version__}")
    p.add_argument("--db", help="database file (default: explorer.db in your data folder)")
    p.add_argument("--screenshot", metavar="FILE",
                   help="open the window offscreen, save a PNG of it, and exit")
    p.add_argument("--conversation", type=int, metavar="ID", help="conversation to open first")
    p.add_argument("--smoke-test", action="store_true",
                   help="check this installation headless (demo, graph, a snapshot page, keyring)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for spec in [*commands.COMMANDS, *compact_commands.COMMANDS, *model_commands.COMMANDS,
                 *tend_commands.COMMANDS, *agent_commands.COMMANDS,
                 *compare_command.COMMANDS, *replay_commands.COMMANDS,
                 *probe_command.COMMANDS]:
        cmd = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        cmd.add_argument("--db", help=argparse.SUPPRESS, default=argparse.SUPPRESS)
        if spec.json:
            cmd.add_argument("--json", action="store_true", help="print JSON")
        spec.arguments(cmd)
        cmd.set_defaults(handler=spec.run, creates_db=spec.creates_db)
    bounded_ints(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
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
    args.creates_db = True  # the window loads the demo into a new database
    try:
        path = commands.check_db_location(args)
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
