"""The fast JSON parser answers exactly as ``json.loads`` does, line by line.

An import parses each line with ``msgspec`` and hands what it refuses to ``json``; the
values kept (every prompt, number and id) and the lines skipped must not depend on which
of the two took a line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.formats import fast_json
from explorer.formats.jsonl import JsonlReader

EDGES = [
    b'{"big": 123456789012345678901234567890, "neg": -18446744073709551617}',  # past 64 bits
    b'{"lone": "\\ud83d cut"}',  # a lone surrogate escape: JavaScript cut inside an emoji
    b'{"\\ud800": 1}',
    b'{"pair": "\\ud83d\\ude00", "e": "\\u00e9", "raw": "\xc3\xa9"}',
    b'{"nan": NaN, "inf": Infinity, "huge": 1e400}',
    b'{"a": 1, "a": 2}',
    b'{"f": 1.0, "g": 1E5, "h": -0, "tiny": 1.5e-320, "x": 0.1}',
    b"[" * 3000 + b"]" * 3000,
    b'{"a": 1,}',
    b'{"tab": "x\ty"}',
    b'\xef\xbb\xbf{"bom": 1}',
    b'{"bad": "\xff"}',
    b"",
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _outcome(fn: Any, raw: bytes) -> tuple[str, Any]:
    try:
        return "value", fn(raw)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        return "error", type(e)


@pytest.mark.parametrize("raw", EDGES)
def test_loads_gives_json_loads_value_or_error(raw: bytes) -> None:
    kind, expected = _outcome(lambda r: json.loads(r.decode("utf-8")), raw)
    got_kind, got = _outcome(fast_json.loads, raw)
    assert got_kind == kind
    assert _same(expected, got) if kind == "value" else got is expected


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30))
def test_any_json_value_round_trips_as_json_reads_it(value: Any) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    kind, expected = _outcome(lambda r: json.loads(r.decode("utf-8", "surrogatepass")), raw)
    if kind == "value":
        assert _same(fast_json.loads(raw.decode("utf-8", "surrogatepass")), expected)


def test_reader_keeps_and_skips_the_same_lines_as_with_json(tmp_path: Path) -> None:
    path = tmp_path / "edges.jsonl"
    path.write_bytes(b"\n".join(EDGES) + b'\n{"last": "cut')
    kept = [value for _, value in JsonlReader(path)]
    reader = JsonlReader(path)
    list(reader)
    assert _same(kept[0], {"big": 123456789012345678901234567890,
                           "neg": -18446744073709551617})
    assert isinstance(kept[0]["big"], int)
    assert kept[1] == {"lone": "\ud83d cut"}  # kept as json reads it; repaired before storing
    assert math.isnan(kept[4]["nan"]) and kept[4]["huge"] == math.inf
    assert kept[5] == {"a": 2}
    reasons = {s.line_number: s.reason for s in reader.skipped}
    assert reasons == {
        8: "invalid JSON (nested too deeply)", 9: "invalid JSON (Expecting property name enclosed "
        "in double quotes)", 10: "invalid JSON (Invalid control character at)",
        11: "invalid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))",
        12: "not valid UTF-8 (invalid start byte at byte 9)",
        14: "truncated last line (no newline and not valid JSON)",
    }


@pytest.mark.parametrize("raw", [
    b'"\\ud800"', b'"\\udc00"', b'"a\\ud83dx"', b'"\\ude00\\ud83d"', b'{"k\\ud800": 1}',
    b'["\\uDBFF"]',
])
def test_the_fast_parser_refuses_every_lone_surrogate_escape(raw: bytes) -> None:
    """Readers search only the lines the fast parser refused for a lone surrogate escape
    (``jsonl.SURROGATE_ESCAPE``): a parser that took one would let it through unrepaired."""
    with pytest.raises(ValueError):
        fast_json.loads_fast(raw)
    assert fast_json.loads_fast(b'"\\ud83d\\ude00"') == "\U0001f600"
