"""The fact sheet's cost beside the pages, on real transcripts (issue #18: ~1,100 tokens beside
two pages, 51 % on top, was too much; and the sheet must carry every exact string).

Each conversation of the recordings kept in the repository (``tests/corpus``: Codex, OpenCode
and Claude Code sessions written by the real clients) is imported into a scratch store and
compacted with a forced snapshot at Anthropic's default target, as ``convo compact --preview``
would. Per conversation: the pages' tokens, the sheet's tokens and their ratio; over all of
them: the sheet's share of the pages and the density with and without it, and how many
conversations' sheets the cap cut.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from explorer.app.context import compacting
from explorer.app.importing.run import import_paths
from explorer.compaction.target import Target
from explorer.store import Store
from tests.benchmarks.harness import Result
from tests.corpus import CORPUS

# each agent's recorded sessions: Codex's rollouts, OpenCode's export, Claude Code's sessions
# with their subagents (read with the session they belong to)
FILES = ("codex/home/.codex/sessions/*/*/*/*.jsonl", "opencode/home/exports/*.json",
         "claude_code/home/.claude/projects/*/*.jsonl")
AREA = "fact sheet cost"


def sample_files() -> list[Path]:
    return sorted(p for pattern in FILES for p in CORPUS.glob(pattern))


def run() -> list[Result]:
    files = sample_files()
    if not files:
        return [Result(AREA, f"not run: no recordings under {CORPUS}", 0, "")]
    out: list[Result] = []
    totals = {"chars": 0.0, "page_tokens": 0.0, "fact_tokens": 0.0}
    cut = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        try:
            import_paths(store, files)
            for conv in store.conversations():
                plan = compacting.plan(store, conv.id, Target.default(), "snapshot")
                d = plan.density()
                if d is None or plan.facts is None:
                    continue
                for key in totals:
                    totals[key] += d[key]
                left = plan.facts.omitted
                cut += bool(left)
                out.append(Result(
                    AREA, f"{conv.title[:40]!r}: {len(plan.pages)} page(s), "
                    f"{d['page_tokens']:,.0f} tokens; sheet ({len(plan.facts.facts)} strings, "
                    f"{left} left out)", d["fact_tokens"], "tokens",
                    f"{100 * d['fact_tokens'] / max(1, d['page_tokens']):.0f} % of the pages"))
        finally:
            store.close()
    pages, facts, chars = totals["page_tokens"], totals["fact_tokens"], totals["chars"]
    n = len(out)
    out += [
        Result(AREA, f"all {n} conversations: sheet tokens per page token",
               100 * facts / max(1.0, pages), "%", "< 51 % (issue #18)", facts < 0.51 * pages),
        Result(AREA, f"all {n}: conversations whose sheet the cap cut", cut, "", "0 where "
               "realistic (a middle of redaction markers may)"),
        Result(AREA, "all: chars per token, pages alone", chars / max(1.0, pages), "chars/token"),
        Result(AREA, "all: chars per token, pages + sheet", chars / max(1.0, pages + facts),
               "chars/token"),
    ]
    return out
