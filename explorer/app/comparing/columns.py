"""Branches side by side: columns from a shared ancestor, aligned by turn, differences marked.

What a person wants to see after editing a prompt or regenerating an answer is
what changed, so every column starts right after the point the branches share
and runs to its newest leaf, turn k of each column sits in row k, and each
cell is diffed against the base column's cell in the same row (by default the
column holding the active answer). The window and ``convo compare`` both show
this one result.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.app.comparing.diff import (
    CONTEXT_LINES,
    CONTEXT_WORDS,
    MODES,
    Mode,
    PairDiff,
    Span,
    SpanKind,
    Token,
    build_spans,
    diff_pair,
    near,
    same,
    tokens,
    words,
)
from explorer.app.comparing.labels import column_labels
from explorer.app.comparing.model import (
    Cell,
    CellMessage,
    CellPart,
    Column,
    CompareError,
    Comparison,
)
from explorer.app.tending.message_actions import branch_target, turn_branch_point
from explorer.store import NotFound, Store
from explorer.store.rows import db_id
from explorer.tree.model import Message
from explorer.tree.turns import split_turns

__all__ = ["MODES", "Cell", "CellMessage", "CellPart", "Column", "CompareError", "Comparison",
           "Mode", "Span", "SpanKind", "words"]
MAX_COLUMNS = 4
MIN_COLUMNS = 2


def compare(store: Store, message_ids: Sequence[int], conv_id: int | None = None, *,
            base: int | None = None, mode: Mode = "words",
            changes_only: bool = False) -> Comparison:
    """Compare the branches through ``message_ids`` (2–4 messages of one conversation).

    ``base`` is a message of the column the others are diffed against (default:
    the column holding the tip, else the first); ``changes_only`` leaves out
    unchanged text away from the differences.
    """
    if mode not in MODES:
        raise CompareError(f"unknown diff mode {mode!r}: choose one of {', '.join(MODES)}")
    ids = list(message_ids)
    conv = _check_ids(store, ids, conv_id)
    paths = [store.path(conv, branch_target(store, mid)) for mid in ids]
    heads = [_head(p, mid) for p, mid in zip(paths, ids, strict=True)]
    _check_branches(heads)
    depth = _shared_depth(heads)
    ancestor = heads[0][depth - 1] if depth else None
    turns = [_turns_below(p, depth) for p in paths]
    n_rows = max(len(t) for t in turns)
    plain = [[t[k] if k < len(t) else [] for k in range(n_rows)] for t in turns]
    below = [p[depth:] for p in paths]
    active = _active_index(store, conv, below)
    b = _base_index(below, ids, base, active)
    built = [_diff_row([col[k] for col in plain], b, mode, changes_only and mode != "off")
             for k in range(n_rows)]
    rows = tuple(r[0] for r in built)
    same_rows = tuple(r[1] for r in built)
    changes = [sum(r[2][j] for r in built) for j in range(len(ids))]
    subjects = _subjects(store, below, ids)
    labels = column_labels(subjects, [_models(p) for p in below], _ranks(store, subjects),
                           [body_text(m) for m in subjects])
    same_cols = [all(r[3][j] for r in built) for j in range(len(ids))]
    columns = tuple(
        _column(mid, p, depth, len(t), ancestor, labels[j], same_cols[j], changes[j])
        for j, (mid, p, t) in enumerate(zip(ids, paths, turns, strict=True))
    )
    return Comparison(conv, _id(ancestor) if ancestor else None, columns, rows, b, mode,
                      changes_only and mode != "off", same_rows, active)


def siblings_to_compare(store: Store, mid: int) -> list[int]:
    """What "compare with siblings" on ``mid`` shows, or the reason there is nothing.

    A message without siblings of its own stands for its turn (a turn node of the
    turn view is named by its last message): then the branch point inside that
    turn, nearest above the message, gives the siblings.
    """
    found = store.siblings(mid)
    if len(found) >= MIN_COLUMNS:
        return found
    point = turn_branch_point(store, mid)
    if point is not None:
        return store.siblings(point)
    raise CompareError(
        f"message {mid} has no siblings: nothing branches off here. Mark messages on "
        "other branches and use Compare marked instead")


def active_among(store: Store, conv_id: int, candidates: Sequence[int]) -> int | None:
    """The candidate that lies on the conversation's active path, if any."""
    tip = store.conversation(conv_id).tip_id
    if tip is None:
        return None
    on_path = set(store.path_ids(tip))
    return next((c for c in candidates if c in on_path), None)


def default_choice(candidates: Sequence[int], clicked: int | None = None,
                   active: int | None = None, limit: int = MAX_COLUMNS) -> list[int]:
    """Which of many siblings to show first: the clicked one, the active one, then the newest."""
    first = [c for c in (clicked, active) if c is not None and c in candidates]
    rest = [c for c in sorted(candidates, reverse=True) if c not in first]
    chosen = set(dict.fromkeys([*first, *rest][:limit]))
    return [c for c in candidates if c in chosen]


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


def _column(mid: int, path: list[Message], depth: int, turns: int, ancestor: Message | None,
            label: str, same_as_base: bool, changes: int) -> Column:
    below = path[depth:]
    counted = [m.usage.output_tokens for m in below
               if m.usage is not None and m.usage.output_tokens is not None]
    return Column(
        chosen_id=mid, leaf_id=_id(path[-1]), message_ids=tuple(_id(m) for m in below),
        models=_models(below), started_at=below[0].created_at if below else None,
        output_tokens=sum(counted) if counted else None, turns=turns,
        description=_describe(below[0], ancestor, turns), label=label,
        same_as_base=same_as_base, changes=changes,
    )


def _models(below: list[Message]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.model for m in below if m.model))


def _subjects(store: Store, below: list[list[Message]], ids: list[int]) -> list[Message]:
    """What a column is named after: where it starts, or the chosen message when two
    columns start at the same message (two answers below one shared prompt)."""
    starts = [_id(p[0]) for p in below]
    return [p[0] if starts.count(_id(p[0])) == 1 else store.message(mid)
            for p, mid in zip(below, ids, strict=True)]


def _ranks(store: Store, starts: list[Message]) -> list[tuple[int, int]]:
    out = []
    for m in starts:
        sibs = store.siblings(_id(m))
        out.append((sibs.index(_id(m)) + 1, len(sibs)))
    return out


def _active_index(store: Store, conv: int, below: list[list[Message]]) -> int | None:
    tip = store.conversation(conv).tip_id
    return next((j for j, p in enumerate(below) if tip in {_id(m) for m in p}), None)


def _base_index(below: list[list[Message]], ids: list[int], base: int | None,
                active: int | None) -> int:
    if base is None:
        return active if active is not None else 0
    for j, (mid, p) in enumerate(zip(ids, below, strict=True)):
        if base == mid or base in {_id(m) for m in p}:
            return j
    raise CompareError(f"message {base} is not on any of the compared branches: "
                       "the base must be one of them")


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
    """Everything a message says, as text (previews and labels)."""
    return "\n".join(p.text for p in m.parts if p.text)


# -- differences ---------------------------------------------------------------------------

RowResult = tuple[tuple[Cell, ...], bool, list[int], list[bool]]


def _diff_row(cells: list[list[Message]], b: int, mode: Mode, changes_only: bool) -> RowResult:
    """Each cell against the base's cell: the cells, whether all agree, changes, sameness."""
    toks = [tokens(ms, mode) for ms in cells]
    base = toks[b]
    roles = [[m.role for m in ms] for ms in cells]
    diffs = [PairDiff(["equal"] * len(t)) if j == b
             else diff_pair(base, t, mode, roles[b], roles[j])
             for j, t in enumerate(toks)]
    keeps = _keeps(toks, diffs, b, mode) if changes_only else [None] * len(toks)
    built = tuple(_build_cell(ms, t, d, k, mode)
                  for ms, t, d, k in zip(cells, toks, diffs, keeps, strict=True))
    same_each = [bool(cells[j]) == bool(cells[b]) and same(base, t) for j, t in enumerate(toks)]
    changes = [0 if j == b else (d.changed or (len(t) if not base else 0))
               for j, (d, t) in enumerate(zip(diffs, toks, strict=True))]
    return built, all(same_each), changes, same_each


def _keeps(toks: list[list[Token]], diffs: list[PairDiff], b: int,
           mode: Mode) -> list[list[bool] | None]:
    context = CONTEXT_LINES if mode == "lines" else CONTEXT_WORDS
    out: list[list[bool] | None] = []
    touched: set[int] = set().union(*(d.touched for d in diffs))
    for j, (t, d) in enumerate(zip(toks, diffs, strict=True)):
        if j == b:
            out.append(near([i in touched for i in range(len(t))], context))
        elif not toks[b]:  # nothing to compare with: all of it is new
            out.append(None)
        else:
            out.append(near([d.changed_at(i) for i in range(len(t))], context))
    return out


def _build_cell(messages: list[Message], toks: list[Token], diff: PairDiff,
                keep: list[bool] | None, mode: Mode) -> Cell:
    spans = build_spans(toks, diff, len(messages), [len(m.parts) for m in messages], keep, mode)
    return Cell(tuple(
        CellMessage(_id(m), m.role, heading(m), tuple(
            CellPart(p.kind, p.tool_name, p.is_error, tuple(s),
                     p.data if p.kind == "image" else None)
            for p, s in zip(m.parts, per_part, strict=True)))
        for m, per_part in zip(messages, spans, strict=True)))

