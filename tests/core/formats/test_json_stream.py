"""The streaming array reader: same values as json.loads, one element at a time."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.formats.base import FormatError
from explorer.formats.json_stream import Element, carry_notes, duplicate_keys, iter_elements

TRICKY = [
    {"text": 'brackets ] } [ { inside, and an escaped quote \\" here'},
    {"path": "C:\\\\dir\\\\", "nested": [[{"a": "]"}], {"b": "}"}]},
    {"unicode": "héllo → 世界 🎉", "escape": "\\u00e9"},
    {"empty": {}, "list": [], "n": -1.5e3, "t": True, "f": False, "z": None},
]


def elements(text: str | bytes, chunk_size: int = 1 << 16) -> list[Element]:
    raw = text.encode() if isinstance(text, str) else text
    return list(iter_elements(io.BytesIO(raw), chunk_size))


def values(text: str | bytes, chunk_size: int = 1 << 16) -> list[Any]:
    out = elements(text, chunk_size)
    assert [e.error for e in out] == [None] * len(out)
    return [e.value for e in out]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 64, 1 << 16])
def test_tricky_strings_survive_any_chunk_boundary(chunk_size: int) -> None:
    text = json.dumps(TRICKY, ensure_ascii=False, indent=1)
    assert values(text, chunk_size) == json.loads(text)


def test_escaped_backslash_before_closing_quote_split_across_chunks() -> None:
    text = '[{"a": "ends with a backslash \\\\"}, {"b": "x\\"]"}]'
    for size in range(1, len(text) + 1):
        assert values(text, size) == json.loads(text)


def test_lone_object_is_one_element() -> None:
    assert values('  {"mapping": {}} \n') == [{"mapping": {}}]


def test_empty_array_yields_nothing() -> None:
    assert values(" [ ] ") == []


def test_empty_file_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="empty"):
        elements("  \n")


def test_text_that_is_not_json_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="expected a JSON array or object"):
        elements("hello world")


def test_invalid_utf8_is_replaced_and_noted_with_its_byte_offset() -> None:
    [first, second] = elements(b'[{"a": 1}, {"a": "x\xff\xfe"}]', chunk_size=4)
    assert first.value == {"a": 1} and first.note is None
    assert second.value == {"a": "x\ufffd\ufffd"}
    assert second.note == ("bytes from byte offset 19 on are not UTF-8 (invalid start byte); "
                           "they are shown as \ufffd")


def test_byte_order_mark_is_ignored() -> None:
    assert values(b'\xef\xbb\xbf[{"a": 1}]') == [{"a": 1}]


def test_truncated_last_element_is_reported_after_the_good_ones() -> None:
    out = elements('[{"a": 1}, {"b": [1, 2', chunk_size=4)
    assert out[0].value == {"a": 1}
    assert out[1].value is None
    assert out[1].error is not None and "truncated" in out[1].error
    assert out[1].index == 1
    assert len(out) == 2


def test_broken_element_is_skipped_and_reading_goes_on() -> None:
    out = elements('[{"a": 1}, {"b" 2}, {"c": 3}]')
    assert [e.value for e in out] == [{"a": 1}, None, {"c": 3}]
    assert out[1].error is not None and "invalid JSON" in out[1].error
    assert out[1].offset == 11


def test_missing_comma_is_reported_but_both_elements_are_read() -> None:
    out = elements('[{"a": 1} {"b": 2}]')
    assert [e.value for e in out if e.error is None] == [{"a": 1}, {"b": 2}]
    assert [e.error for e in out if e.error] == ["missing ',' before this element"]


def test_garbage_between_elements_stops_with_a_report() -> None:
    out = elements('[{"a": 1} ; {"b": 2}]')
    assert out[0].value == {"a": 1}
    assert out[-1].error is not None and "stopped reading" in out[-1].error
    assert len(out) == 2


def test_missing_closing_bracket_is_reported() -> None:
    out = elements('[{"a": 1}')
    assert out[0].value == {"a": 1}
    assert out[1].error == "the file ends without the closing ']'"


def test_trailing_data_after_the_array_is_reported() -> None:
    out = elements('[{"a": 1}] extra')
    assert out[-1].error is not None and "after the array" in out[-1].error


def test_duplicate_keys_keep_the_first_value_and_are_listed() -> None:
    (value,) = values('[{"m": {"x": 1, "y": 2, "x": 3}}]')
    assert value["m"] == {"x": 1, "y": 2}
    assert duplicate_keys(value["m"]) == ["x"]
    assert duplicate_keys(value) == []


def test_large_element_spanning_many_chunks() -> None:
    big = {"s": "x" * 300_000 + ']}\\"{[', "list": list(range(5000))}
    assert values(json.dumps([big, {"after": True}]), chunk_size=1024) == [big, {"after": True}]


@dataclass
class CountingReader:
    """A file that records how many bytes were asked of it."""

    data: bytes
    pos: int = 0
    reads: list[int] = field(default_factory=list)

    def read(self, size: int = -1, /) -> bytes:
        end = len(self.data) if size < 0 else self.pos + size
        chunk = self.data[self.pos : end]
        self.pos += len(chunk)
        self.reads.append(len(chunk))
        return chunk


def test_first_element_arrives_before_the_file_is_read_whole() -> None:
    items = [{"i": i, "pad": "p" * 1000} for i in range(1000)]
    reader = CountingReader(json.dumps(items).encode())
    stream = iter_elements(reader, chunk_size=4096)
    first = next(stream)
    assert first.value == items[0]
    assert reader.pos < len(reader.data) // 50
    assert [e.value for e in stream] == items[1:]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=5), max_size=6),
    st.integers(min_value=1, max_value=40),
    st.booleans(),
)
def test_any_array_of_objects_reads_back_equal(
    items: list[dict[str, Any]], chunk_size: int, ascii_only: bool
) -> None:
    text = json.dumps(items, ensure_ascii=ascii_only)
    assert values(text, chunk_size) == items


@dataclass
class Record:
    name: str
    notes: list[str] = field(default_factory=list)


def test_carry_notes_attaches_to_the_next_record_and_trailing_ones_to_the_last() -> None:
    items: list[Record | str] = ["n1", Record("a"), Record("b"), "n2", Record("c"), "n3"]
    out = list(carry_notes(items, "f"))
    assert [(r.name, r.notes) for r in out] == [("a", ["n1"]), ("b", []), ("c", ["n2", "n3"])]


def test_carry_notes_with_notes_and_no_record_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="nothing could be read: bad one"):
        list(carry_notes(["bad one"], "f.json"))


def test_carry_notes_with_nothing_at_all_yields_nothing() -> None:
    assert list(carry_notes([], "f.json")) == []


def test_absurdly_deep_nesting_is_reported_not_raised() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    out = elements(f'[{{"a": 1}}, {deep}, {{"b": 2}}]')
    assert [e.value for e in out] == [{"a": 1}, None, {"b": 2}]
    assert out[1].error == "nested too deeply to read"
