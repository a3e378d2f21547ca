"""``convo sources``, ``convo sync`` and ``convo handoff``: the agents' own session folders."""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType

from explorer.app.importing import sync
from explorer.app.importing.note_summary import summarized
from explorer.app.importing.sources import TOOL_NAMES, find_sources, iso
from explorer.app.sharing.handoff_targets import AGENTS
from explorer.cli.command_spec import Command, add_redact_arg, open_store
from explorer.cli.output import emit, visible
from explorer.cli.progress_line import ProgressLine, interrupt_stops
from explorer.store import Store


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _tools(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = sorted(set(names) - set(TOOL_NAMES))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown tool {', '.join(unknown)} (known: {', '.join(TOOL_NAMES)})")
    return names


def _only(args: argparse.Namespace) -> set[str] | None:
    return {n for names in (args.tool or []) for n in names} or None


def _tool_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tool", action="append", metavar="NAME", type=_tools,
                   help=f"only these tools (repeat or comma-separate): {', '.join(TOOL_NAMES)}")


def run_sources(args: argparse.Namespace) -> int:
    found = find_sources(only=_only(args))
    lines = []
    for f in found:
        if not f.exists:
            lines.append(f"{f.tool:12} not found        {f.path}")
            continue
        newest = (iso(f.newest) or "-")[:16].replace("T", " ")
        lines.append(f"{f.tool:12} {f.sessions:6} sessions {_human(f.size):>9}  newest {newest}"
                     f"  {f.path}")
        lines.extend(f"{'':12} ! {p}" for p in f.problems)
    emit(args, [f.to_dict() for f in found], lines)
    return 0


def _sync_args(p: argparse.ArgumentParser) -> None:
    _tool_arg(p)
    p.add_argument("--watch", action="store_true",
                   help="keep following the sessions as the agents write them (Ctrl+C stops)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                   help="with --watch: how often to look (default 1)")


def _report_lines(r: sync.SyncReport) -> list[str]:
    lines = [f"{r.added_messages:,} new messages in {len(r.conversations):,} conversations "
             f"({r.appended:,} sessions read from where they stopped, {r.reread:,} read whole, "
             f"{r.unchanged:,} unchanged)"]
    lines.extend(f"! {e}" for e in r.errors)
    if r.cancelled:
        lines.append("stopped before the end: what was read is stored; "
                     "`convo sync` again goes on from there")
    return lines


def _told(args: argparse.Namespace, r: sync.SyncReport) -> None:
    """The report on stdout; every repair and skip on stderr, as ``convo import`` names them
    (each kind once when there are many; ``--json`` has every one under ``notes``)."""
    emit(args, r.to_dict(), _report_lines(r))
    for note in summarized(r.notes):  # many sessions: once per kind of note
        print(f"convo: note: {visible(note)}", file=sys.stderr)


def _synced_with_progress(store: Store, only: set[str] | None) -> sync.SyncReport:
    """A sync showing how far it is on the terminal; Ctrl+C stops it after the session
    being read, keeping what was stored."""
    line = ProgressLine("syncing: session")
    with interrupt_stops() as stopping:
        report = sync.sync_sources(
            store, only=only, cancel=lambda: bool(stopping),
            progress=lambda p: line.show(p.done, p.total, p.bytes_done, p.bytes_total))
    line.end()
    if stopping:
        report.cancelled = True
    return report


def run_sync(args: argparse.Namespace) -> int:
    only = _only(args)
    with open_store(args) as store:
        if not args.watch:
            report = _synced_with_progress(store, only)
            if report.conversations:  # as convo import: the big ones' views worked out now
                from explorer.app.kept.prepared import prepare_big

                prepare_big(store, sorted(report.conversations), turns_beside=True)
            _told(args, report)
            return 0
        stopping = []

        def stop(_sig: int, _frame: FrameType | None) -> None:
            stopping.append(True)

        previous = signal.signal(signal.SIGINT, stop)
        try:
            print(f"following sessions every {args.interval:g}s; Ctrl+C stops", file=sys.stderr)
            sync.watch(store, None, only, max(0.1, args.interval),
                       lambda r: _told(args, r),
                       lambda: bool(stopping))
        finally:
            signal.signal(signal.SIGINT, previous)
    return 0


def _handoff_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("conversation", type=int, metavar="CONV", help="conversation id")
    p.add_argument("--at", type=int, metavar="MSG", help="hand back the branch ending at MSG")
    p.add_argument("--agent", required=True, choices=AGENTS)
    p.add_argument("--cwd", help="the project folder the agent works in "
                   "(default: the session's own, else this folder)")
    add_redact_arg(p)


def run_handoff(args: argparse.Namespace) -> int:
    from explorer.app.sharing import handoff  # the exporters: only a hand-back pays for them

    with open_store(args) as store:
        done = handoff.handoff(store, args.conversation, args.agent, args.at, cwd=args.cwd,
                               redact=not args.no_redact)
    lines = [f"wrote {done.path} ({done.lines} lines)", f"resume it with: {done.command}"]
    hint = handoff.resume_hint(done.agent)
    lines += [f"note: {hint}"] if hint else []
    lines += [f"note: {n}" for n in done.notes]
    lines += [f"warning: read back differently: {d}" for d in done.differences]
    emit(args, done.to_dict(), lines)
    return 0


COMMANDS = [
    Command("sources", "list where your agents keep sessions (tool, sessions, size, newest)",
            _tool_arg, run_sources, json=True),
    Command("sync", "import what changed in the agents' session folders since the last sync",
            _sync_args, run_sync, json=True, creates_db=True),
    Command("handoff", "write a branch as a new session the agent resumes (never overwrites)",
            _handoff_args, run_handoff, json=True),
]
