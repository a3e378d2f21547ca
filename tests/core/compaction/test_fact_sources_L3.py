"""Line numbers in a tool's output travel on the fact sheet with their file (``file:N``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from coding_session import Builder, args

from explorer.app.importing.run import import_paths
from explorer.compaction import fact_sources
from explorer.compaction.fact_layout import expand, layout
from explorer.compaction.facts import Fact, fact_sheet
from explorer.store import Store
from explorer.tree.model import Message, Part
from tests.corpus import CORPUS
from tests.corpus import claude_code_sessions as cc

SOURCE = "/home/dev/proj/src/app/store.py"


def _read_output(first: int, last: int) -> str:
    """What Claude Code's Read prints: each line numbered, an arrow before its text."""
    return "\n".join(f"{n:>6}→    value_{n} = compute({n})" for n in range(first, last + 1))


def _session() -> list[Message]:
    b = Builder()
    b.add("user", Part("text", "Why does the store lose the last row?"))
    b.call("Read", args(file_path=SOURCE, offset="120", limit="40"), _read_output(120, 159))
    b.call("Grep", args(pattern="flush", path="/home/dev/proj"),
           "Found 3 matches\n/home/dev/proj/src/app/writer.py:\n  Line 40: self.flush()\n"
           "  Line 88: # flush before close\n\n/home/dev/proj/docs/notes.md:\n"
           "  Line 7: flush on every turn boundary")
    b.call("Bash", args(command="pytest -q"), "error at line 12 of the generated file")
    b.add("assistant", Part("text", "The writer flushes too late; see line 88."))
    return b.path


def test_L3_a_reads_numbered_lines_travel_as_its_file_and_span() -> None:
    sheet = fact_sheet(_session())
    assert f"{SOURCE}:120-159" in sheet.values
    assert f"{SOURCE}:120-159" in expand(sheet.text)
    assert f"{SOURCE}:140" in expand(sheet.text)  # a line inside the span reads back


def test_L3_a_searchs_line_hits_are_tied_to_the_file_above_them() -> None:
    sheet = fact_sheet(_session())
    carried = expand(sheet.text)
    for tied in ("/home/dev/proj/src/app/writer.py:40", "/home/dev/proj/src/app/writer.py:88",
                 "/home/dev/proj/docs/notes.md:7"):
        assert tied in sheet.values and tied in carried, tied
    assert not {"Line 40", "Line 88", "Line 7"} & set(sheet.values)  # no line without its file


def test_L3_a_line_with_no_file_to_tie_to_stays_as_it_was() -> None:
    values = fact_sheet(_session()).values
    assert "line 12" in values  # a shell command's output names no file
    assert "line 88" in values  # the narrative's own words are kept as written


def test_the_file_a_call_read_is_a_file_not_a_directory_or_a_command() -> None:
    assert fact_sources.read_file(args(file_path="/a/b/c.py")) == "/a/b/c.py"
    assert fact_sources.read_file(args(filePath="C:\\x\\y.ts")) == "C:\\x\\y.ts"
    assert fact_sources.read_file(args(path="/home/dev/proj")) is None
    assert fact_sources.read_file(args(command="cat a.py")) is None
    assert fact_sources.read_file("not json") is None
    assert fact_sources.read_file("[1, 2]") is None


def test_numbered_spans_of_each_tools_numbering() -> None:
    assert fact_sources.numbered_spans(_read_output(1, 3)) == ["1-3"]
    assert fact_sources.numbered_spans("<content>1: a\n2: b\n3: c\n</content>") == ["1-3"]
    assert fact_sources.numbered_spans("     5\tx\n     6\ty\n     9\tz") == ["5-6", "9"]
    assert fact_sources.numbered_spans("no numbers here") == []
    assert fact_sources.numbered_spans("42: the answer") == []  # one line that is not line 1
    scattered = "\n".join(f"{n}: row" for n in range(0, 100, 3))
    assert fact_sources.numbered_spans(scattered) == []  # a table, not a file's lines


def test_a_span_and_lines_inside_it_are_written_once() -> None:
    facts = [Fact("location", "a/b.py:10-20"), Fact("location", "a/b.py:15"),
             Fact("location", "a/b.py:30"), Fact("location", "a/b.py:31"),
             Fact("location", "a/b.py:32")]
    text = layout(facts)
    assert "a/b.py:10-20,30-32" in text
    assert {"a/b.py:10-20", "a/b.py:15", "a/b.py:31"} <= set(expand(text))


def _numbered_reads(sample: Path) -> dict[str, tuple[int, int]]:
    """file -> (first, last) line of each Read in a Claude Code session, from its raw JSONL."""
    files: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    for line in sample.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") not in ("user", "assistant"):
            continue  # a request's copy (api-request-blob) holds what the model was sent
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Read":
                files[block["id"]] = block["input"]["file_path"]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in files:
                text = block["content"]
                text = text if isinstance(text, str) else "".join(b.get("text", "") for b in text)
                numbers = [int(n) for n in re.findall(r"^\s*(\d+)(?:→|\t)", text, re.M)]
                if numbers:
                    spans[files[block["tool_use_id"]]] = (numbers[0], numbers[-1])
    return spans


def test_L3_a_real_claude_code_read_is_carried_as_file_and_span(tmp_path: Path) -> None:
    sample = cc.original()
    reads = _numbered_reads(sample)
    work = "/tmp/convo-corpus/claude_code/work"  # the session read both with numbered lines
    assert reads == {f"{work}/notes.txt": (1, 3), f"{work}/todo.txt": (1, 2)}
    store = Store(tmp_path / "s.db")
    try:
        import_paths(store, [sample])
        carried: set[str] = set()
        for conv in store.conversations():
            carried |= set(expand(fact_sheet(store.path(conv.id)).text))
    finally:
        store.close()
    for file, (first, last) in reads.items():
        span = f"{file}:{first}-{last}" if last > first else f"{file}:{first}"
        assert span in carried, span


def _grep_instead_of_read(export: Path, dest: Path, pattern: str) -> tuple[str, list[str]]:
    """The recorded ``opencode export`` with its read of the notes made a ``grep`` of them,
    written as OpenCode's grep writes its hits ("<file>:" then "  Line N: <text>"), from the
    lines the read showed. Answers the file and the numbers of the lines that matched."""
    data = json.loads(export.read_text(encoding="utf-8"))
    tools = [p for m in data["messages"] for p in m["parts"] if p.get("type") == "tool"]
    read = next(p for p in tools if p["tool"] == "read")
    file = read["state"]["input"]["filePath"]
    lines = re.findall(r"^(\d+): (.*)$", read["state"]["output"], re.M)
    hits = [(n, text) for n, text in lines if pattern in text]
    read["tool"] = "grep"
    read["state"]["input"] = {"pattern": pattern, "path": file.rsplit("/", 1)[0]}
    read["state"]["output"] = f"Found {len(hits)} matches\n{file}:\n" + "\n".join(
        f"  Line {n}: {text}" for n, text in hits)
    dest.write_text(json.dumps(data), encoding="utf-8")
    return file, [n for n, _ in hits]


def test_L3_a_real_opencode_search_carries_its_hits_with_their_files(tmp_path: Path) -> None:
    [export] = (CORPUS / "opencode" / "home" / "exports").glob("*.json")
    sample = tmp_path / export.name
    file, hits = _grep_instead_of_read(export, sample, "second")
    assert hits == ["2"]  # the notes' second line only
    store = Store(tmp_path / "s.db")
    try:
        import_paths(store, [sample])
        (conv,) = store.conversations()
        sheet = fact_sheet(store.path(conv.id))
    finally:
        store.close()
    carried = expand(sheet.text)
    assert f"{file}:2" in carried and f"{file}:1" not in carried
    assert not any(re.fullmatch(r"Line \d+", v) for v in sheet.values)
