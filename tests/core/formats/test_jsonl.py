"""The tolerant JSONL reader: every good object comes out, every bad line is named."""

from __future__ import annotations

from pathlib import Path

from explorer.formats.jsonl import JsonlReader, SkippedLine, peek_objects, skipped_notes


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return path


def test_yields_objects_with_their_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{"a": 1}\n\n{"b": 2}\n')
    reader = JsonlReader(path)
    assert list(reader) == [(1, {"a": 1}), (3, {"b": 2})]
    assert reader.skipped == []


def test_skips_non_objects_and_invalid_json_with_reasons(tmp_path: Path) -> None:
    path = _write(tmp_path, b'[1, 2]\n"text"\n{"ok": true}\n{broken\nnull\n')
    reader = JsonlReader(path)
    assert [n for n, _ in reader] == [3]
    reasons = {s.line_number: s.reason for s in reader.skipped}
    assert reasons[1] == "not a JSON object (a list)"
    assert reasons[2] == "not a JSON object (a string)"
    assert reasons[4].startswith("invalid JSON")
    assert reasons[5] == "not a JSON object (a null)"


def test_truncated_last_line_is_named_as_such(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{"a": 1}\n{"b": 2, "c"')
    reader = JsonlReader(path)
    assert list(reader) == [(1, {"a": 1})]
    assert [(s.line_number, s.reason) for s in reader.skipped] == [
        (2, "truncated last line (no newline and not valid JSON)")
    ]


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    reader = JsonlReader(_write(tmp_path, b'{"a": 1}\n{"b": 2}'))
    assert [obj for _, obj in reader] == [{"a": 1}, {"b": 2}]


def test_bad_utf8_bom_and_deep_nesting_do_not_raise(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    path = _write(tmp_path, b'\xef\xbb\xbf{"a": 1}\n{"b": "\xff"}\n' + deep + b"\n")
    reader = JsonlReader(path)
    assert list(reader) == [(1, {"a": 1})]
    assert [s.line_number for s in reader.skipped] == [2, 3]
    assert reader.skipped[0].reason.startswith("not valid UTF-8")


def test_skipped_notes_group_lines_by_reason() -> None:
    path_lines = [(3, "x"), (5, "x"), (9, "y")]
    notes = skipped_notes([SkippedLine(n, r) for n, r in path_lines])
    assert notes == ["skipped lines 3, 5: x", "skipped line 9: y"]
    many = skipped_notes([SkippedLine(n, "z") for n in range(1, 31)], limit=2)
    assert many == ["skipped lines 1, 2 and 28 more: z"]


def test_peek_objects_reads_only_complete_lines_within_the_limit(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{"a": 1}\n{"b": 2}\n{"c": 3}\n')
    assert peek_objects(path, max_bytes=12) == [{"a": 1}]
    assert peek_objects(path, max_objects=2) == [{"a": 1}, {"b": 2}]
