"""Branches side by side: columns from a shared ancestor, aligned by turn, word differences marked.

What a person wants to see after editing a prompt or regenerating an answer is
what changed, so every column starts right after the point the branches share
and runs to its newest leaf, turn k of each column sits in row k, and each
cell's words are diffed against the first column's cell in the same row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from explorer.app.message_actions import branch_target
from explorer.store import NotFound, Store
from explorer.store.rows import db_id
from explorer.tree.model import Message, Part
from explorer.tree.turns import split_turns

SpanKind = Literal["equal", "insert", "delete", "replace"]
MAX_COLUMNS = 4
MIN_COLUMNS = 2
TOOL_TEXT_LIMIT = 4000
# Above this many word pairs the exact diff gets slow; difflib's junk heuristic keeps it quick.
EXACT_DIFF_LIMIT = 4_000_000
_WORD = re.compile(r"\s+|\S+\s*")


class CompareError(ValueError):
    """The chosen messages cannot be compared; the text says why."""


@dataclass(frozen=True)
class Span:
    """A run of words of one cell; ``kind`` is how they differ from the first column."""

    kind: SpanKind
    text: str


@dataclass(frozen=True)
class CellMessage:
    """One message of a cell: its heading is shown, its body is diffed."""

    message_id: int
    role: str
    heading: str
    spans: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)


@dataclass(frozen=True)
class Cell:
    """The messages of one turn of one column; empty when that column has fewer turns."""

    messages: tuple[CellMessage, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.messages

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.messages)

    def marked(self) -> list[Span]:
        """The spans that differ from the first column (every kind but equal)."""
        return [s for m in self.messages for s in m.spans if s.kind != "equal"]


@dataclass(frozen=True)
class Column:
    """One branch: the path below the shared ancestor down to that branch's newest leaf."""

    chosen_id: int
    leaf_id: int
    message_ids: tuple[int, ...]
    models: tuple[str, ...]
    started_at: float | None
    output_tokens: int | None
    turns: int
    description: str


@dataclass(frozen=True)
class Comparison:
    """``rows[k][j]`` is turn k of column j; ``ancestor_id`` is None for separate roots."""

    conversation_id: int
    ancestor_id: int | None
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]


def compare(store: Store, message_ids: Sequence[int], conv_id: int | None = None) -> Comparison:
    """Compare the branches through ``message_ids`` (2–4 messages of one conversation)."""
    conv = _check_ids(store, list(message_ids), conv_id)
    paths = [store.path(conv, branch_target(store, mid)) for mid in message_ids]
    heads = [_head(p, mid) for p, mid in zip(paths, message_ids, strict=True)]
    _check_branches(heads)
    depth = _shared_depth(heads)
    ancestor = heads[0][depth - 1] if depth else None
    turns = [_turns_below(p, depth) for p in paths]
    n_rows = max(len(t) for t in turns)
    plain = [[t[k] if k < len(t) else [] for k in range(n_rows)] for t in turns]
    rows = tuple(_diff_row([col[k] for col in plain]) for k in range(n_rows))
    columns = tuple(
        _column(mid, p, depth, len(t), ancestor)
        for mid, p, t in zip(message_ids, paths, turns, strict=True)
    )
    return Comparison(conv, _id(ancestor) if ancestor else None, columns, rows)


def default_choice(candidates: Sequence[int], limit: int = MAX_COLUMNS) -> list[int]:
    """Which of many siblings to show first: the newest ``limit`` of them."""
    return sorted(candidates)[-limit:]


# -- checking the request ------------------------------------------------------------------


def _check_ids(store: Store, ids: list[int], conv_id: int | None) -> int:
    if len(ids) < MIN_COLUMNS:
        raise CompareError(f"compare needs at least {MIN_COLUMNS} messages, got {len(ids)}")
    if len(ids) > MAX_COLUMNS:
        raise CompareError(f"compare shows at most {MAX_COLUMNS} branches, got {len(ids)}")
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise CompareError(f"message {twice[0]} is chosen more than once")
    convs: dict[int, int] = {}
    for mid in ids:
        try:
            convs[mid] = store.message_conversation(mid)
        except NotFound:
            raise CompareError(f"no message {mid}") from None
    expected = conv_id if conv_id is not None else convs[ids[0]]
    stray = [mid for mid in ids if convs[mid] != expected]
    if stray:
        raise CompareError(
            f"message {stray[0]} is in conversation {convs[stray[0]]}, not {expected}: "
            "only branches of one conversation can be compared")
    return expected


def _check_branches(heads: list[list[Message]]) -> None:
    """Refuse a message that lies on another's path: both columns would show one branch."""
    for head in heads:
        above = {_id(m) for m in head[:-1]}
        for other in heads:
            if _id(other[-1]) in above:
                raise CompareError(
                    f"message {_id(other[-1])} is on the path to message {_id(head[-1])}: "
                    "pick messages on different branches")


def _id(m: Message) -> int:
    return db_id(m.id)


def _head(path: list[Message], mid: int) -> list[Message]:
    """The path from the root to the chosen message."""
    ids = [_id(m) for m in path]
    return path[: ids.index(mid) + 1]


def _shared_depth(heads: list[list[Message]]) -> int:
    """How many messages the paths share, kept below every chosen message.

    When one chosen message lies on another's path the shared part stops just
    above it, so every column still starts with (or above) its chosen message.
    """
    shortest = min(len(h) for h in heads) - 1
    depth = 0
    while depth < shortest and len({_id(h[depth]) for h in heads}) == 1:
        depth += 1
    return depth


def _turns_below(path: list[Message], depth: int) -> list[list[Message]]:
    """The path's turns clipped to the part below the ancestor (a cut turn comes first)."""
    out: list[list[Message]] = []
    turns = split_turns(path)
    first_start = turns[0].start if turns else len(path)
    if depth < first_start:
        out.append(path[depth:first_start])
    for turn in turns:
        piece = path[max(turn.start, depth): turn.end]
        if piece:
            out.append(piece)
    return out


# -- the columns ---------------------------------------------------------------------------


def _column(mid: int, path: list[Message], depth: int, turns: int,
            ancestor: Message | None) -> Column:
    below = path[depth:]
    models = tuple(dict.fromkeys(m.model for m in below if m.model))
    counted = [m.usage.output_tokens for m in below
               if m.usage is not None and m.usage.output_tokens is not None]
    return Column(
        chosen_id=mid, leaf_id=_id(path[-1]), message_ids=tuple(_id(m) for m in below),
        models=models, started_at=below[0].created_at if below else None,
        output_tokens=sum(counted) if counted else None, turns=turns,
        description=_describe(below[0], ancestor, turns),
    )


def _describe(start: Message, ancestor: Message | None, turns: int) -> str:
    what = "prompt" if start.is_prompt else f"{start.role} message"
    where = f"after #{_id(ancestor)} {_preview(ancestor)}" if ancestor else "from a separate root"
    return f"{what} #{_id(start)} {where} · {turns} turn{'s' if turns != 1 else ''}"


def _preview(m: Message, limit: int = 48) -> str:
    text = " ".join(body_text(m).split())
    return f"“{text[:limit]}…”" if len(text) > limit else f"“{text}”"


def heading(m: Message) -> str:
    """How a cell names a message: its role, model and id."""
    role = "tool result" if m.is_tool_result_only else m.role
    return " · ".join(x for x in (role, m.model, f"#{_id(m)}") if x)


def body_text(m: Message) -> str:
    """Everything a message says, as text: the part a cell diffs and shows."""
    return "\n".join(t for t in (_part_text(p) for p in m.parts) if t)


def _part_text(p: Part) -> str:
    if p.kind == "text":
        return p.text
    if p.kind == "thinking":
        return f"[thinking] {p.text}" if p.text else ""
    if p.kind == "image":
        return f"[image {p.media_type or ''} {p.size / 1024:.1f} KB]".replace("  ", " ")
    label = f"[{p.tool_name or 'tool'}]" if p.kind == "tool_use" else (
        "[error]" if p.is_error else "[result]")
    text = p.text
    if len(text) > TOOL_TEXT_LIMIT:
        text = f"{text[:TOOL_TEXT_LIMIT]} [… {len(text) - TOOL_TEXT_LIMIT:,} more characters]"
    return f"{label} {text}"


# -- word differences ----------------------------------------------------------------------


def words(text: str) -> list[str]:
    """The text as words with their trailing white space: joined, they give it back exactly."""
    return _WORD.findall(text)


def _diff_row(cells: list[list[Message]]) -> tuple[Cell, ...]:
    """Each cell's words against the first column's; the first column's lost words as deleted."""
    tokens = [_cell_tokens(ms) for ms in cells]
    base_keys = [w.strip() for _, w in tokens[0]]
    base_kinds: list[SpanKind] = ["equal"] * len(base_keys)
    kinds_per_col: list[list[SpanKind]] = [base_kinds]
    for col in tokens[1:]:
        kinds: list[SpanKind] = ["equal"] * len(col)
        if not col or not base_keys:  # a missing turn says enough; nothing to mark word by word
            kinds_per_col.append(kinds)
            continue
        for op, a0, a1, b0, b1 in _opcodes(base_keys, [w.strip() for _, w in col]):
            if op == "equal":
                continue
            for i in range(a0, a1):
                base_kinds[i] = "delete"
            for j in range(b0, b1):
                kinds[j] = "insert" if op == "insert" else "replace"
        kinds_per_col.append(kinds)
    return tuple(_build_cell(ms, tok, kinds)
                 for ms, tok, kinds in zip(cells, tokens, kinds_per_col, strict=True))


def _opcodes(a: list[str], b: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    exact = len(a) * len(b) <= EXACT_DIFF_LIMIT
    return SequenceMatcher(None, a, b, autojunk=not exact).get_opcodes()


def _cell_tokens(messages: list[Message]) -> list[tuple[int, str]]:
    """Each word with the index of the message it belongs to; messages end with a new line."""
    out: list[tuple[int, str]] = []
    for i, m in enumerate(messages):
        out.extend((i, w) for w in words(body_text(m)))
    return out


def _build_cell(messages: list[Message], tokens: list[tuple[int, str]],
                kinds: list[SpanKind]) -> Cell:
    spans: list[list[Span]] = [[] for _ in messages]
    for (i, word), kind in zip(tokens, kinds, strict=True):
        run = spans[i]
        if run and run[-1].kind == kind:
            run[-1] = Span(kind, run[-1].text + word)
        else:
            run.append(Span(kind, word))
    return Cell(tuple(CellMessage(_id(m), m.role, heading(m), tuple(s))
                      for m, s in zip(messages, spans, strict=True)))
