"""``convo context``, ``convo compact`` and ``convo shake`` (the ``/context``, ``/compact``
and ``/shake`` commands)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from explorer.app import compacting
from explorer.app.compacting import Shape
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.output import emit
from explorer.compaction.ladder import LadderError
from explorer.compaction.page_geometry import TIERS
from explorer.store import StoreError


def _shape_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--provider", choices=compacting.PROVIDERS, default="anthropic")
    p.add_argument("--model", help="model name (selects the image pricing rule)")
    p.add_argument("--window", type=int, help="context window in tokens")
    p.add_argument("--tier", choices=TIERS, help="snapshot page tier (default: the settings')")


def _shape(args: argparse.Namespace) -> Shape:
    return Shape(args.provider, args.model, args.window,
                 args.tier or compacting.preferred_shape().tier)


def run_context(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        use = compacting.usage(s, args.conversation, _shape(args))
        data = use.to_dict()
        lines = compacting.usage_lines(use)
        emit(args, data, lines)
    return 0


def run_compact(args: argparse.Namespace) -> int:
    shape = _shape(args)
    with open_store(args) as s:
        try:
            plan = compacting.plan(s, args.conversation, shape, args.rung)
        except (LadderError, ValueError) as e:
            raise StoreError(str(e)) from e
        payload: dict[str, Any] = {"plan": plan.to_record()}
        lines = compacting.plan_lines(plan)
        if args.preview:
            files = compacting.write_preview(plan, shape, Path(args.preview), s.db_path)
            payload["files"] = [str(f) for f in files]
            lines.append(f"wrote {len(files)} file(s) to {args.preview} (pages, request.json)")
        else:
            payload["record"] = compacting.record(s, args.conversation, plan, shape)
            lines.append(f"recorded compaction {payload['record']} on the tip")
        emit(args, payload, lines)
    return 0


def _compact_args(p: argparse.ArgumentParser) -> None:
    _shape_args(p)
    p.add_argument("--rung", choices=compacting.RUNGS, help="run the ladder up to this rung")
    p.add_argument("--preview", metavar="DIR",
                   help="write the exact pages and request JSON here instead of recording")


def run_shake(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        plan = compacting.plan_shake(s, args.conversation, _shape(args))
        emit(args, plan.to_record(), compacting.plan_lines(plan))
    return 0


COMMANDS: list[Command] = [
    Command("context", "what fills the context window, by part (as /context)", _shape_args,
            run_context, json=True),
    Command("compact", "run the compaction ladder or one rung (as /compact)", _compact_args,
            run_compact, json=True),
    Command("shake", "the free rungs only: elision and image dropping (as /shake)",
            _shape_args, run_shake, json=True),
]
