"""``convo mcp``: the archive as a Model Context Protocol server over stdin/stdout (A1).

It only reads unless the person adds ``--allow-writes`` (then ``label``, ``note`` and
``checkpoint``, never a deletion): the database is opened read-only, so the server reads
beside the window and ``convo sync`` (WAL readers) and never takes a write lock. A missing
database, another program's file and one a newer version upgraded are refused before the
server starts, in one line. The SDK is imported only by this command.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from explorer.app.archive.agent_config import AGENTS, config_text
from explorer.cli.commands import Command
from explorer.cli.db_location import check_db_location
from explorer.store.errors import StoreError

ONLY_READS = "convo mcp only reads it"


def check_current(path: Path) -> None:
    """Refuse a database an older version wrote: it needs an upgrade, which is a write this
    server does not make (a newer one is refused by the store itself)."""
    from explorer.store import read_only
    from explorer.store.migrations import MIGRATIONS, applied, check_known
    from explorer.store.ownership import check_own_file

    check_own_file(path)  # another program's file is refused before anything opens it
    conn = read_only.connect(path)
    try:
        check_known(conn)
        done = applied(conn)
    finally:
        conn.close()
    if 0 < len(done) < len(MIGRATIONS):
        raise StoreError(f"the database {path} was written by an older version: open it once "
                         f"with this one (convo --db {path} list upgrades it), then start "
                         "convo mcp again")


def server_command(args: argparse.Namespace) -> list[str]:
    """How an agent starts this very server: a release build's own program (on Windows the
    console twin, ``convo-cli.exe``, that runs now), ``convo`` when it is on the PATH, else the
    program that runs now; with the database and the flags given here."""
    if getattr(sys, "frozen", False):
        words = [str(Path(sys.executable).resolve())]
    elif shutil.which("convo"):
        words = ["convo"]
    elif Path(sys.argv[0]).name.startswith("convo") and Path(sys.argv[0]).is_file():
        words = [str(Path(sys.argv[0]).resolve())]
    else:
        words = [sys.executable, "-m", "explorer.cli.main"]
    if getattr(args, "db", None):
        words += ["--db", str(Path(args.db).resolve())]
    words.append("mcp")
    words += ["--allow-writes"] * bool(args.allow_writes) + ["--no-redact"] * bool(
        args.no_redact)
    return words


def run_mcp(args: argparse.Namespace) -> int:
    if args.print_config:
        print(config_text(args.print_config, server_command(args)))
        return 0
    from explorer.app.archive.server import serve
    from explorer.app.archive.session import Archive
    from explorer.store import Store

    path = check_db_location(args)
    if not args.allow_writes:
        check_current(path)
    with Store(path, only_reads=None if args.allow_writes else ONLY_READS) as store:
        mode = ("reads and writes labels, notes, checkpoints" if args.allow_writes
                else "read-only") + (", secrets NOT redacted" if args.no_redact else "")
        print(f"convo mcp: serving {path} ({mode}) on stdin/stdout", file=sys.stderr)
        try:
            serve(Archive(store, redact=not args.no_redact, writes=args.allow_writes))
        except KeyboardInterrupt:
            return 130
    return 0


def _mcp_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-writes", action="store_true",
                   help="also offer label, note and checkpoint (never a deletion)")
    p.add_argument("--no-redact", action="store_true",
                   help="send secrets (API keys, tokens, passwords) as they are; by default "
                        "each is replaced by [redacted: kind], as in exports for sharing")
    p.add_argument("--print-config", metavar="AGENT", choices=sorted(AGENTS),
                   help=f"print how to add this server to an agent ({', '.join(AGENTS)}) "
                        "and exit")


COMMANDS: list[Command] = [
    Command("mcp", "answer agents over MCP (stdio): search, read and compare conversations",
            _mcp_args, run_mcp),
]
