"""``convo replay`` (redo a branch after an edit) and ``convo fanout`` (ask several models).

Both run through the app's send use-cases, so what they store is what ``send`` would;
progress goes to stderr, ``--json`` names what changed.
"""

from __future__ import annotations

import argparse
import sys

from explorer.app.calls import fanout, replay
from explorer.app.calls.model_setup import ModelChoice, SetupError, prepare
from explorer.cli.commands import Command, add_conv_arg, open_store, read_text
from explorer.cli.output import emit
from explorer.providers import PROVIDER_KINDS
from explorer.store import StoreError


def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("tip", type=int, metavar="TIP", help="the end of the old branch")
    p.add_argument("--onto", type=int, metavar="PROMPT",
                   help="the edited prompt (a sibling of a prompt on the way to TIP); "
                   "default, when TIP is a stale answer: the edit it waits for")
    p.add_argument("--dry-run", action="store_true",
                   help="print the steps with estimated tokens and cost; send nothing")
    p.add_argument("--provider", choices=PROVIDER_KINDS, help="default: the settings file")
    p.add_argument("--base-url", metavar="URL")
    p.add_argument("--model", metavar="M")
    p.add_argument("--window", type=int, metavar="TOKENS")


def _choice(args: argparse.Namespace, kind: str | None = None, model: str | None = None
            ) -> ModelChoice:
    return ModelChoice(kind=kind or args.provider, model=model or args.model,
                       base_url=args.base_url, window=getattr(args, "window", None))


def run_replay(args: argparse.Namespace) -> int:
    try:
        prepared = prepare(_choice(args))
    except SetupError as e:
        if not args.dry_run:
            raise StoreError(f"{e} (nothing was sent)") from e
        prepared = None
    try:
        target = prepared.options.target if prepared else _choice(args).target()
    except ValueError as e:
        raise StoreError(str(e)) from e
    model = target.model
    estimator = target.estimator()
    with open_store(args) as s:
        onto = args.onto if args.onto is not None else replay.stale_edit(s, args.tip)
        plan = replay.plan_replay(s, args.tip, onto, estimator, model)
        if args.dry_run or prepared is None:
            emit(args, plan.to_dict(), _plan_lines(plan, model))
            return 0
        outcome = replay.replay(s, plan, prepared.provider, prepared.options, _progress)
    payload = {**(outcome.change.to_dict() if outcome.change else {}),
               "finished_steps": outcome.finished, "steps": len(plan.steps),
               "error": outcome.error}
    lines = [outcome.change.summary] if outcome.change else []
    emit(args, payload, lines)
    if outcome.error:
        print(f"convo: error: {outcome.error} (finished turns are kept)", file=sys.stderr)
        return 1
    return 0


def _plan_lines(plan: replay.ReplayPlan, model: str | None) -> list[str]:
    lines = [f"replay of the branch to {plan.tip} onto {plan.onto} "
             f"({len(plan.steps)} step(s), model {model or '?'}):"]
    for i, step in enumerate(plan.steps, start=1):
        cost = f"${step.cost:.4f}" if step.cost is not None else "cost unknown"
        text = " ".join(step.text.split())[:60]
        lines.append(f"  {i}. ~{step.input_tokens:,} in, ~{step.output_tokens:,} out, {cost}: "
                     f"{text}")
    total = plan.to_dict()
    cost = f"${total['cost_usd']:.4f}" if total["cost_usd"] is not None else "cost unknown"
    lines.append(f"total ~{total['input_tokens']:,} input tokens, {cost}")
    return lines


def _progress(i: int, n: int, step: replay.ReplayStep) -> None:
    print(f"step {i + 1}/{n}: {' '.join(step.text.split())[:60]}", file=sys.stderr)


def _fanout_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--text", required=True, help="the prompt ('-' reads standard input)")
    p.add_argument("--model", action="append", required=True, metavar="PROVIDER:MODEL",
                   dest="models", help="a model to ask (repeat for several)")
    p.add_argument("-n", type=int, default=1, metavar="K", dest="samples",
                   help="answers per model (default 1)")
    p.add_argument("--base-url", metavar="URL", help="API base URL for every model named")
    p.add_argument("--provider", help=argparse.SUPPRESS)


def _targets(args: argparse.Namespace) -> list[fanout.Target]:
    targets = []
    for spec in args.models:
        kind, _, model = spec.partition(":")
        if kind not in PROVIDER_KINDS or not model:
            raise StoreError(f"--model {spec!r}: expected PROVIDER:MODEL with PROVIDER one of "
                             f"{', '.join(PROVIDER_KINDS)}")
        try:
            prepared = prepare(_choice(args, kind, model))
        except SetupError as e:
            raise StoreError(f"{spec}: {e}") from e
        targets.append(fanout.Target(spec, prepared.provider, prepared.options))
    return targets


def run_fanout(args: argparse.Namespace) -> int:
    targets = _targets(args)
    with open_store(args) as s:
        result = fanout.fanout(s, args.conversation, read_text(args), targets, args.samples,
                               _fanout_progress)
    payload = {**result.change.to_dict(),
               "runs": [{"model": a.label, "sample": a.sample, "answer": a.answer_id,
                         "error": a.error} for a in result.answers]}
    lines = [result.change.summary] + [
        f"  {a.label} #{a.sample + 1}: " + (f"message {a.answer_id}" if a.answer_id else
                                            f"failed: {a.error}") for a in result.answers]
    emit(args, payload, lines)
    return 0


def _fanout_progress(answer: fanout.FanoutAnswer) -> None:
    state = f"answered (message {answer.answer_id})" if answer.answer_id else (
        f"failed: {answer.error}")
    print(f"{answer.label} #{answer.sample + 1}: {state}", file=sys.stderr)


COMMANDS: list[Command] = [
    Command("replay", "after an edit, re-run the old branch's later prompts on the edited one",
            _replay_args, run_replay, json=True),
    Command("fanout", "one prompt, answers from several models (or K samples) as siblings",
            _fanout_args, run_fanout, json=True),
]
