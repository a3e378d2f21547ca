"""``convo probe CONV --text Q [--rungs full,shake,snapshot,summary] [--quiz N]``: the same
next prompt after each rung's context, answers kept as archived probe branches, scored."""

from __future__ import annotations

import argparse

from explorer.app.calls import probe
from explorer.app.calls.model_setup import SetupError, prepare
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.model_commands import _model_args, choice_from
from explorer.cli.output import emit, visible
from explorer.store import StoreError


def _probe_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--text", help="the next prompt to send after each context")
    p.add_argument("--rungs", default="full,snapshot",
                   help=f"comma-separated, from {','.join(probe.PROBE_RUNGS)} "
                        "(default: full,snapshot)")
    p.add_argument("--quiz", "--recall", type=int, default=0, metavar="N", dest="quiz",
                   help="also ask N recall questions about the exact strings and decisions of "
                        "the middle, and score each context: exact, wrong (counted against "
                        "it) or not visible")
    _model_args(p)


def run_probe(args: argparse.Namespace) -> int:
    if not args.text and args.quiz <= 0:
        raise StoreError("give --text, --quiz N, or both")
    rungs = probe.parse_rungs(args.rungs)
    try:
        prepared = prepare(choice_from(args))
    except SetupError as e:
        raise StoreError(str(e)) from e
    with open_store(args) as s:
        result = probe.probe(s, args.conversation, args.text, prepared.provider,
                             prepared.options, rungs, quiz_size=args.quiz)
    emit(args, result.to_dict(), probe_lines(result))
    return 0


def probe_lines(result: probe.ProbeResult) -> list[str]:
    t = result.target
    lines = [f"probes for {t.kind} {t.model} (window {t.window:,}, tier {t.tier}), "
             f"beside message {result.parent}; each is an archived branch labelled 'probe'"]
    for r in result.runs:
        head = f"{r.kind:<6} {r.rung:<9}"
        if r.skipped:
            lines.append(f"{head} skipped: {r.skipped}")
            continue
        used = r.usage.get("input_tokens")
        cost = (f"context {r.context_tokens:,} est., {used:,} measured" if used is not None
                else f"context {r.context_tokens:,} est.")
        out = r.usage.get("output_tokens")
        score = (f"; recall {len(r.score.right)}/{r.score.asked} ({r.score.outcome_line}; "
                 f"{r.score.kinds_line})" if r.score else "")
        lines.append(f"{head} {cost}, answer {out if out is not None else '?'} tokens, "
                     f"{r.pages} page(s){score} → message {r.answer_id}")
        if r.kind == "prompt":
            text = " ".join(r.answer.split())
            lines.append(f"         {text[:110] + ('…' if len(text) > 110 else '')}")
    ids = result.answer_ids()
    if len(ids) >= 2:
        lines.append(f"compare them: convo compare {' '.join(map(str, ids[:4]))}")
    lines += [f"note: {n}" for n in result.notes]
    return [visible(line) for line in lines]


COMMANDS: list[Command] = [
    Command("probe", "send the same prompt after the full context and after each rung's; "
            "answers kept as archived probe branches, with a recall quiz", _probe_args,
            run_probe, json=True),
]
