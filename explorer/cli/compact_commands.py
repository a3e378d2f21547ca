"""``convo context``, ``convo compact`` and ``convo shake`` (the ``/context``, ``/compact``
and ``/shake`` commands)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from explorer.app.context import compacting, loss, loss_applied
from explorer.app.targets import build_target
from explorer.cli import context_commands
from explorer.cli.commands import Command, add_conv_arg, add_redact_arg, open_store
from explorer.cli.output import emit
from explorer.compaction.ladder import LadderError
from explorer.compaction.page_geometry import TIERS
from explorer.compaction.target import PROVIDER_KINDS, Target
from explorer.store import StoreError


def _target_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--provider", choices=PROVIDER_KINDS, help="default: the settings file")
    p.add_argument("--model", help="model name (selects the image pricing rule)")
    p.add_argument("--window", type=int, help="context window in tokens")
    p.add_argument("--max-tokens", type=int, metavar="N",
                   help="room kept for the answer (default: the settings')")
    p.add_argument("--tier", choices=TIERS, help="snapshot page tier (default: the settings')")
    add_redact_arg(p)


def _target(args: argparse.Namespace) -> Target:
    """The same target ``convo send`` builds from these flags over the settings."""
    try:
        return build_target(args.provider, model=args.model, window=args.window,
                            tier=args.tier, max_tokens=args.max_tokens,
                            redact=not args.no_redact)
    except ValueError as e:
        raise StoreError(str(e)) from e


def _context_args(p: argparse.ArgumentParser) -> None:
    _target_args(p)
    p.add_argument("--at", type=int, metavar="MSG",
                   help="the request as it was (or would be) sent at message MSG, part by part")
    p.add_argument("--diff", type=int, metavar="B",
                   help="with --at A: what entered, left, was folded or elided between A and B")
    p.add_argument("--out", metavar="DIR",
                   help="with --at: write the request body and its page PNGs here")


def run_context(args: argparse.Namespace) -> int:
    if args.diff is not None and args.at is None:
        raise StoreError("--diff B compares with --at A: give both")
    if args.at is not None:
        return context_commands.run_context_at(args, _target(args))
    with open_store(args) as s:
        use = compacting.usage(s, args.conversation, _target(args))
        data = use.to_dict()
        lines = compacting.usage_lines(use) + compacting.measured_cache_lines(
            s, args.conversation)
        emit(args, data, lines)
    return 0


def run_compact(args: argparse.Namespace) -> int:
    target = _target(args)
    if args.pin or args.unpin:
        _pins(args)
        if not args.loss_report:
            return 0
    if args.loss_report:
        return _loss_report(args, target)
    with open_store(args) as s:
        try:
            plan = compacting.plan(s, args.conversation, target, args.rung)
        except (LadderError, ValueError) as e:
            raise StoreError(str(e)) from e
        payload: dict[str, Any] = {"plan": plan.to_record(),
                                   "page_price": compacting.page_price(plan, target)}
        lines = (compacting.plan_lines(plan) + compacting.price_lines(plan, target)
                 + compacting.cache_lines(plan, target))
        if args.preview:
            files = compacting.write_preview(plan, target, Path(args.preview), s.db_path)
            payload["files"] = [str(f) for f in files]
            lines.append(f"wrote {len(files)} file(s) to {args.preview} (pages, request.json)")
        else:
            payload["record"] = compacting.record(s, args.conversation, plan, target)
            lines.append(f"recorded compaction {payload['record']} on the tip; the next send "
                         "with this target carries it")
        emit(args, payload, lines)
    return 0


def _pins(args: argparse.Namespace) -> None:
    """Pin and unpin exact strings of the conversation (L8); they survive restarts."""
    with open_store(args) as s:
        lines = []
        for text in args.pin or ():
            new = s.pin(args.conversation, text)
            lines.append(f"pinned {text!r}" if new else f"{text!r} was pinned already")
        for text in args.unpin or ():
            s.unpin(args.conversation, text)
            lines.append(f"unpinned {text!r}")
        pinned = s.pins(args.conversation)
        lines.append(f"{len(pinned)} pinned string(s): the fact sheet carries them as text")
        if not args.loss_report:
            emit(args, {"pins": pinned}, lines)
        else:
            for line in lines:
                print(line, file=sys.stderr)


def _loss_report(args: argparse.Namespace, target: Target) -> int:
    """What the compaction would discard and where each exact string goes; nothing is
    recorded (L8)."""
    if args.applied:
        return _applied_reports(args)
    with open_store(args) as s:
        try:
            result = loss.report(s, args.conversation, target, args.rung)
        except (LadderError, ValueError) as e:
            raise StoreError(str(e)) from e
        emit(args, result.report.to_dict(), loss.report_lines(result.report, limit=200))
    return 0


def _applied_reports(args: argparse.Namespace) -> int:
    """The loss report of the compactions already made on the path (their summaries)."""
    with open_store(args) as s:
        reports = loss_applied.applied_reports(s, args.conversation)
        lines = [] if reports else [
            f"conversation {args.conversation} has no compaction with a summary on its path"]
        for r in reports:
            a = r.about
            lines.append(f"compaction {a['compaction']} at message {a['message']} "
                         f"({a['origin'] or 'convo'}): a {a['summary_chars']:,}-char summary "
                         f"of {a['replaced_messages']} message(s)")
            lines += loss.report_lines(r, limit=100)[1:]
        emit(args, {"applied": [r.to_dict() for r in reports]}, lines)
    return 0


def _compact_args(p: argparse.ArgumentParser) -> None:
    _target_args(p)
    p.add_argument("--rung", choices=compacting.RUNGS, help="run the ladder up to this rung")
    p.add_argument("--preview", metavar="DIR",
                   help="write the exact pages and request JSON here instead of recording")
    p.add_argument("--loss-report", action="store_true",
                   help="list every exact string the compaction discards and where it goes "
                        "(verbatim, fact sheet, page and line, summary, nowhere); records nothing")
    p.add_argument("--applied", action="store_true",
                   help="with --loss-report: for the compactions already made on the path "
                        "(applied, or imported with the agent's summary), what each summary kept")
    p.add_argument("--pin", action="append", metavar="TEXT",
                   help="keep this exact string as text on the fact sheet (repeatable)")
    p.add_argument("--unpin", action="append", metavar="TEXT", help="remove a pin (repeatable)")


def run_shake(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        plan = compacting.plan_shake(s, args.conversation, _target(args))
        emit(args, plan.to_record(), compacting.plan_lines(plan))
    return 0


COMMANDS: list[Command] = [
    Command("context", "what fills the context window, by part (as /context); --at MSG: what "
            "the model saw there; --diff B: how two contexts differ", _context_args,
            run_context, json=True),
    Command("compact", "run the compaction ladder or one rung (as /compact); --loss-report: "
            "what it discards and where each exact string goes; --pin TEXT keeps a string",
            _compact_args,
            run_compact, json=True),
    Command("shake", "the free rungs only: elision and image dropping (as /shake)",
            _target_args, run_shake, json=True),
]
