"""What tells siblings apart, for the ◀ ▶ tooltip and the graph's branch points.

Sibling answers usually start alike ("Sure, here's one for you: …"), so
showing each one's first words makes them look the same; each is shown from
the first word where it parts ways with the sibling closest to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.app.comparing.labels import first_differing_words
from explorer.store import Store
from explorer.tree.model import Message

TOOLTIP_WORDS = 10


def _kind(m: Message) -> str:
    if m.is_prompt:
        return "prompt"
    return "tool result" if m.is_tool_result_only else m.role


def sibling_lines(store: Store, ids: Sequence[int], current: int | None = None,
                  active: int | None = None) -> list[str]:
    """One line per sibling: its place, kind and model, and its first differing words."""
    messages = [store.message(mid) for mid in ids]
    texts = [" ".join(p.text for p in m.parts if p.text) for m in messages]
    words = first_differing_words(texts, TOOLTIP_WORDS)
    out = []
    for k, (mid, m, w) in enumerate(zip(ids, messages, words, strict=True), 1):
        notes = [n for n, on in (("shown", mid == current), ("active", mid == active)) if on]
        model = f" · {m.model}" if m.model else ""
        extra = f" ({', '.join(notes)})" if notes else ""
        out.append(f"{k}. {_kind(m)}{model} #{mid}{extra}: “{w}”")
    return out
