"""The native importer on mutated exports: it reads what it can or says why, never crashes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from helpers import new_store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.app.importing.demo import load_demo
from explorer.app.sharing.exporting import export_lines
from explorer.formats import native
from explorer.formats.base import FormatError

with tempfile.TemporaryDirectory() as _d, new_store(Path(_d)) as _s:
    LINES = list(export_lines(_s, load_demo(_s)))


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "truncate", "flip", "swap", "junk"]))
        if op == "drop" and len(lines) > 1:
            lines.pop(i)
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "flip" and lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.sampled_from(['"', "{", "]", "0", "x"])) + \
                lines[i][j + 1:]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, draw(st.sampled_from(["[]", "42", "null", '{"type": 7}', "\x00"])))
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated())
def test_mutated_native_exports_import_or_raise_format_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.jsonl"
        path.write_text(text, encoding="utf-8")
        try:
            convs = list(native.read(path))
        except FormatError:
            return
        with new_store(Path(d), "s.db") as s:
            for ic in convs:
                outcome = s.import_conversation(ic)
                conv = s.conversation(outcome.conversation_id)
                assert conv.message_count == outcome.added
                if conv.tip_id is not None:
                    assert s.path(conv.id)[-1].id == conv.tip_id
