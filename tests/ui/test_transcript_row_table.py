"""The compact row table shows exactly the rows the plain row list would, and holds row
objects only for rows whose content has been read (V2)."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest
from helpers import chat_turn, tool_turn

from explorer.store import Store
from explorer.store import reads_path as rp
from explorer.ui.transcript import row_table as row_table_module
from explorer.ui.transcript import rows as rows_module
from explorer.ui.transcript.row_table import RowTable
from explorer.ui.transcript.rows import (
    ARRAY_FROM,
    Metrics,
    build_rows,
    estimate_height,
    with_content,
)


def _path(tmp_path: Path) -> tuple[Store, list[int]]:
    store = Store(tmp_path / "rows.db")
    conv = store.create_conversation("rows")
    store.append_turn(conv, [m for n in range(30) for m in
                             (tool_turn(n) if n % 2 else chat_turn(n))])
    tip = store.conversation(conv).tip_id
    assert tip is not None
    return store, store.path_ids(tip)


@pytest.mark.parametrize("array_from", [10**9, 1], ids=["per row", "in array steps"])
def test_V2_the_row_table_matches_the_row_list_with_every_marker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, array_from: int) -> None:
    monkeypatch.setattr(row_table_module, "ARRAY_FROM", array_from)
    monkeypatch.setattr(rows_module, "ARRAY_FROM", array_from)
    store, ids = _path(tmp_path)
    with store:
        columns = rp.path_columns(store.reader, ids[-1])
        records = {
            "rewinds": [{"to_message_id": ids[3], "from_tip_id": ids[9], "label": "start",
                         "digest": {}}],
            "compactions": [{"message_id": ids[5], "kind": "snapshot", "summary": "s"}],
            "context_start": ids[4], "clean_tip": ids[-3],
        }
        table = RowTable(columns, **records)  # type: ignore[arg-type]
        plain = build_rows(rp.path_entries(store.reader, ids[-1]), **records)  # type: ignore[arg-type]
        assert list(table) == plain and len(table) == len(plain) == len(ids) + 5
        assert table[-1] == plain[-1] and table[2:5] == plain[2:5]
        assert [table.mid(i) for i in range(len(table))] == [r.mid for r in plain]
        index = table.message_rows()
        assert list(index) == ids
        assert all(table[index[mid]].mid == mid and table[index[mid]].is_message for mid in ids)
        assert 12345678 not in index
        metrics = Metrics()
        assert list(table.estimates(700, metrics)) == [estimate_height(r, 700, metrics)
                                                       for r in plain]


def test_V2_rows_hold_content_only_while_it_is_kept(tmp_path: Path) -> None:
    store, ids = _path(tmp_path)
    with store:
        table = RowTable(rp.path_columns(store.reader, ids[-1]))
        messages = rp.window_messages(store.reader, ids[:3])
        for i, mid in enumerate(ids[:3]):
            table[i] = with_content(table[i], messages[mid])
        assert [table[i].message is not None for i in range(4)] == [True, True, True, False]
        assert table[1].entry is not None and table[1].entry.id == ids[1]
        for i in range(3):
            table[i] = table[i].__class__(table[i].mid, entry=table[i].entry)  # let go
        assert all(table[i].is_pending for i in range(len(table)))
        assert table._filled == {}


def _one_kind_at_a_time(kinds: tuple[str, ...], chars: int, width: int, fm: Metrics) -> int:
    """The height guess as it was written first: a step per part kind."""
    from explorer.ui.transcript.rows import COLLAPSED_LINES

    per_line = int(max(width - 40, 100) / fm.char)
    per_mono = int(max(width - 40, 100) / fm.mono_char)
    kinds = kinds or ("text",)
    share = chars // max(len(kinds), 1)
    height = 48
    for kind in kinds:
        if kind == "text":
            height += (share // max(per_line, 10) + 1) * fm.line + 12
        elif kind == "thinking":
            height += 28
        elif kind == "image":
            height += 140
        elif kind == "tool_use":
            height += 28 + min(share // max(per_mono, 10) + 3, 40) * fm.mono_line
        else:
            height += 56 + min(share // max(per_mono, 10) + 1, COLLAPSED_LINES) * fm.mono_line
    return height


def test_V2_heights_counted_per_kinds_tuple_equal_the_guess_per_part() -> None:
    """Every row's guess, made from its kinds' counts (once per distinct tuple) in array
    steps, is the guess the per-part loop made, at narrow and wide widths and any size."""
    import random

    from explorer.ui.transcript.rows import SizedHeights, estimate_sized

    rng = random.Random(4)
    names = ("text", "thinking", "image", "tool_use", "tool_result", "file")
    kinds = [tuple(rng.choice(names) for _ in range(rng.randrange(0, 5))) for _ in range(400)]
    chars = [rng.choice((0, 1, 79, 5_000, 6_000, 250_000)) for _ in kinds]
    for width in (60, 300, 700, 2400):
        fm = Metrics(line=rng.randrange(12, 30), char=rng.uniform(5, 11),
                     mono_line=rng.randrange(12, 30), mono_char=rng.uniform(5, 11))
        expected = [_one_kind_at_a_time(k, c, width, fm) for k, c in zip(kinds, chars,
                                                                         strict=True)]
        sets = list(dict.fromkeys(kinds))
        at = array("I", map(sets.index, kinds))
        for array_from in (10**9, 1):  # per row, then in numpy's array steps
            rows_module.ARRAY_FROM = array_from
            try:
                assert SizedHeights(width, fm).column(sets, at, array("q", chars)).tolist(
                    ) == expected
            finally:
                rows_module.ARRAY_FROM = ARRAY_FROM
        assert [estimate_sized(k, c, width, fm) for k, c in zip(kinds, chars,
                                                                strict=True)] == expected
