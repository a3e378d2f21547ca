"""Which branch message each record of a hand-back file came from, read back (H1).

The file read back with the agent's own importer gives its records as messages, keyed as
a later sync will key them. The branch went out as steps (one per message, tool results
answered), each knowing the message it came from; the read-back and the steps say the
same parts in the same order (that is what the hand-back checks), so walking the two
part streams together names, for each record, the branch message its first part came
from. A record without such a part (thinking, a note) goes with the record before it.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.app.sharing.handoff_targets import TARGETS
from explorer.formats.exporters.steps import Step
from explorer.tree.model import Message, Part


def record_origins(back: Sequence[Message], steps: Sequence[Step], agent: str,
                   first: int) -> dict[str, int]:
    """Record key → branch message id, for every record on the read-back path; ``first``
    (the branch's root) for records before any matched part."""
    sent: list[int | None] = []
    for step in steps:
        if _carried(step.role, agent):
            origin = step.origin.id
            sent.extend(origin if isinstance(origin, int) else None
                        for _ in compared(step.parts))
    out: dict[str, int] = {}
    at, current = 0, first
    for m in back:
        mine = compared(m.parts) if _carried(m.role, agent) else []
        if mine and at < len(sent):
            origin = sent[at]
            current = origin if origin is not None else current
        at += len(mine)
        out[key(m)] = current
    return out


def key(m: Message) -> str:
    """The key an import gives a record (its source id, else its id)."""
    return str(m.source_id if m.source_id is not None else m.id)


def _carried(role: str, agent: str) -> bool:
    return role != "system" or TARGETS[agent].keeps_system  # the others bring their own


def compared(parts: Sequence[Part]) -> list[Part]:
    """The parts the hand-back's read-back check compares (see ``handoff._signature``):
    texts, calls with an id, and results, one per call: a result written as several parts
    (its words, then a picture) is one result to an agent that holds them together."""
    out: list[Part] = []
    for p in parts:
        if p.kind == "tool_result" and out and out[-1].kind == "tool_result" \
                and out[-1].tool_use_id == p.tool_use_id:
            words = "\n".join(t for t in (out[-1].text.strip(), p.text.strip()) if t)
            out[-1] = Part("tool_result", words, tool_use_id=p.tool_use_id)
        elif p.kind == "tool_result" or (p.kind == "tool_use" and p.tool_use_id) or (
                p.kind == "text" and p.text.strip()):
            out.append(p)
    return out
