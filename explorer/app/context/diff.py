"""How the context at one node differs from the context at another ("why did it forget X?").

Each stored message a context stands for is in one state there: sent verbatim, elided (its
old tool results or images replaced by markers), folded into snapshot pages, summarized, or
absent. Comparing the two states of every message says what entered, what left, what was
folded into pages or a summary and what was elided between the two nodes, in tokens and text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.app.context.at import NodeContext
from explorer.compaction.elision import jsonable_id
from explorer.tree.model import Message

ABSENT = "absent"
CHANGES = ("entered", "left", "folded into pages", "summarized", "elided", "restored",
           "same")


@dataclass(frozen=True)
class MessageState:
    """One stored message as one context carries it."""

    state: str  # verbatim, elided, paged, summarized, redacted, absent
    tokens: int  # what it costs there (for a paged or summarized one: its source text's)
    text: str  # as sent (the marker for an elided result; the source for a paged one)


@dataclass(frozen=True)
class Row:
    message_id: Any
    role: str
    change: str
    a: MessageState
    b: MessageState

    def to_dict(self) -> dict[str, Any]:
        return {"message_id": jsonable_id(self.message_id), "role": self.role,
                "change": self.change,
                "a": {"state": self.a.state, "tokens": self.a.tokens, "text": self.a.text},
                "b": {"state": self.b.state, "tokens": self.b.tokens, "text": self.b.text}}


@dataclass
class ContextDiff:
    a: NodeContext
    b: NodeContext
    rows: list[Row]

    def changed(self) -> list[Row]:
        return [r for r in self.rows if r.change != "same"]

    def totals(self) -> dict[str, dict[str, int]]:
        """Per change: how many messages, and the tokens they cost in A and in B."""
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            t = out.setdefault(r.change, {"messages": 0, "tokens_a": 0, "tokens_b": 0})
            t["messages"] += 1
            t["tokens_a"] += r.a.tokens
            t["tokens_b"] += r.b.tokens
        return out

    def to_dict(self) -> dict[str, Any]:
        def side(c: NodeContext) -> dict[str, Any]:
            return {"at": c.at, "tokens": c.tokens, "rungs": list(c.plan.rungs),
                    "pages": len(c.plan.pages), "summary": c.plan.summary is not None}
        return {"a": side(self.a), "b": side(self.b), "totals": self.totals(),
                "rows": [r.to_dict() for r in self.changed()]}


def states(ctx: NodeContext) -> dict[Any, MessageState]:
    """Every stored message the context stands for, and how it carries it."""
    est = ctx.plan.estimator
    out: dict[Any, MessageState] = {}
    split = ctx.plan.split
    folded = "summarized" if ctx.plan.summary is not None else "paged"
    for m in split.middle if split is not None else ():
        out[m.id] = MessageState(folded, est.estimate([m], with_overhead=False), _text(m))
    by_id: dict[Any, list[str]] = {}
    for p in ctx.parts():
        if isinstance(p.message_id, str) and p.message_id.startswith("compaction:"):
            continue
        by_id.setdefault(p.message_id, []).append(p.state)
    for m in ctx.sent:
        if m.id in by_id:
            marks = by_id[m.id]
            state = next((s for s in ("elided", "image dropped", "redacted") if s in marks),
                         "verbatim")
            state = "elided" if state == "image dropped" else state
            out[m.id] = MessageState(state, est.estimate([m], with_overhead=False), _text(m))
    return out


def diff(a: NodeContext, b: NodeContext) -> ContextDiff:
    """The rows of every message either context stands for, in path order (A's, then B's)."""
    sa, sb = states(a), states(b)
    roles = {m.id: m.role for c in (a, b) for m in (*c.plan.path, *c.sent)}
    order = list(dict.fromkeys([*a.path_ids, *b.path_ids]))
    none = MessageState(ABSENT, 0, "")
    rows = []
    for mid in order:
        if mid not in sa and mid not in sb:
            continue
        x, y = sa.get(mid, none), sb.get(mid, none)
        rows.append(Row(mid, roles.get(mid, "?"), _change(x.state, y.state), x, y))
    return ContextDiff(a, b, rows)


def _change(x: str, y: str) -> str:
    if x == y:
        return "same"
    if x == ABSENT:
        return "entered"
    if y == ABSENT:
        return "left"
    if y == "paged":
        return "folded into pages"
    if y == "summarized":
        return "summarized"
    if y == "elided":
        return "elided"
    return "restored" if x in ("paged", "summarized", "elided") else "same"


def _text(m: Message) -> str:
    return "\n".join(p.text for p in m.parts if p.text)


def diff_lines(d: ContextDiff, width: int = 70) -> list[str]:
    """The difference as text: totals per change, then each changed message."""
    def side(name: str, c: NodeContext) -> str:
        rungs = ", ".join(c.plan.rungs) or "no compaction"
        return f"{name}: message {c.at}, {c.tokens:,} tokens ({rungs})"

    lines = [f"{side('A', d.a)} · {side('B', d.b)}"]
    for change, t in d.totals().items():
        if change != "same":
            lines.append(f"  {change:<18} {t['messages']:>5} message(s)  A {t['tokens_a']:>9,}"
                         f"  B {t['tokens_b']:>9,} tokens")
    if d.b.plan.pages:
        lines.append(f"  B carries {len(d.b.plan.pages)} snapshot page(s)")
    for r in d.changed():
        shown = " ".join((r.b.text or r.a.text).split())
        if len(shown) > width:
            shown = shown[: width - 1] + "…"
        lines.append(f"{r.change:<18} {r.message_id!s:>8} {r.role:<9} "
                     f"{r.a.state:>10} → {r.b.state:<10} {shown}")
    return lines
