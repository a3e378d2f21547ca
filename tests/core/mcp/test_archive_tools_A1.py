"""The archive's tools in process (A1): each answers on the demo, results are bounded and say
when they were cut, a planted key never leaves, bad input is refused in one line, and the
reading store never writes a byte."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import settled_conversation
from planted import KEY, Planted, build, leaked

from explorer.app.archive import catalog
from explorer.app.archive.session import Archive
from explorer.store import Store
from explorer.tree.errors import ExplorerError

ONLY_READS = "the archive's tests only read"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Planted]:
    path = tmp_path_factory.mktemp("archive") / "archive.db"
    return path, build(path)


@pytest.fixture
def archive(db: tuple[Path, Planted]) -> Iterator[Archive]:
    with Store(db[0], only_reads=ONLY_READS) as store:
        yield Archive(store)


def call(archive: Archive, tool: str, /, **args: Any) -> dict[str, Any]:
    result = catalog.call(archive, tool, args)
    assert json.loads(json.dumps(result)) == result  # plain JSON, as the SDK sends it
    return result


def chars(result: dict[str, Any]) -> int:
    """Characters of a result as the agent reads it (JSON, text not escaped)."""
    return len(json.dumps(result, ensure_ascii=False))


def refusal(archive: Archive, tool: str, /, **args: Any) -> str:
    with pytest.raises(ExplorerError) as e:
        catalog.call(archive, tool, args)
    line = str(e.value)
    assert line and "\n" not in line and len(line) < 300, line
    return line


def test_A1_every_tool_answers_on_the_demo(archive: Archive, db: tuple[Path, Planted]) -> None:
    demo = db[1].demo
    listed = call(archive, "list_conversations", source="demo")
    assert demo in [c["id"] for c in listed["conversations"]] and not listed["cut"]
    assert all(c["source"] == "demo" for c in listed["conversations"])
    hits = call(archive, "search", query="chardet", limit=3)["results"]
    assert [h["rank"] for h in hits] == [1, 2, 3] and all(h["conversation"] == demo
                                                          for h in hits)
    assert all("chardet" in h["snippet"].lower() for h in hits)
    tip = archive.store.conversation(demo).tip_id
    assert tip is not None
    branch = call(archive, "get_branch", message=tip)
    assert branch["to_turn"] == branch["turns"] and not branch["cut"]
    assert "crashes on some CSV files" in branch["text"] and "→ Bash" in branch["text"]
    points = call(archive, "list_branches", conversation=demo)["points"]
    assert len(points) == 3
    first = points[0]["siblings"]
    assert [s["active"] for s in first].count(True) == 1
    assert any("chardet" in s["words"] for s in first)
    diff = call(archive, "compare", message_a=first[0]["message"],
                message_b=first[1]["message"])
    assert diff["turns"] and not diff["identical"] and len(diff["columns"]) == 2
    assert any("{+" in cell for t in diff["turns"] for cell in t["cells"].values())
    context = call(archive, "context_at", message=tip)
    assert context["tokens"]["total"] > 0 and context["parts"]
    assert sum(p["tokens"] for p in context["parts"]) <= context["tokens"]["total"]
    marks = call(archive, "checkpoints", conversation=demo)["checkpoints"]
    assert [c["label"] for c in marks] == ["diagnosed", "fixed"]


def _every_result(archive: Archive, p: Planted) -> list[dict[str, Any]]:
    store = archive.store
    results = [call(archive, "list_conversations"),
               call(archive, "search", query="rollout deploy key"),
               call(archive, "search", query="sk"), call(archive, "search", query="key"),
               call(archive, "list_branches", conversation=p.conversation),
               call(archive, "compare", message_a=p.answer, message_b=p.other_answer),
               call(archive, "compare", message_a=p.answer, message_b=p.other_answer,
                    mode="lines", changes_only=False),
               call(archive, "context_at", message=p.answer, max_part_chars=20_000),
               call(archive, "checkpoints", conversation=p.conversation)]
    for tool_chars in (0, 40, 300, 290, 20_000):
        results.append(call(archive, "get_branch", message=p.answer, thinking=True,
                            max_tool_chars=tool_chars))
    for mid in (p.prompt, p.answer, p.other_answer, p.tool_output):
        results.append(call(archive, "get_branch", message=mid, max_chars=1000))
    assert store.conversation(p.conversation).tip_id == p.answer
    return results


def test_A1_a_planted_key_never_leaves(archive: Archive, db: tuple[Path, Planted]) -> None:
    results = _every_result(archive, db[1])
    text = json.dumps(results)
    assert leaked(text) == []
    assert "[redacted: anthropic-key]" in text
    branch = call(archive, "get_branch", message=db[1].answer, max_tool_chars=1000)["text"]
    assert branch.count("[redacted: anthropic-key]") >= 4  # prompt, call, output, answer


def test_A1_no_redact_sends_the_key_as_it_is(db: tuple[Path, Planted]) -> None:
    with Store(db[0], only_reads=ONLY_READS) as store:
        branch = catalog.call(Archive(store, redact=False), "get_branch",
                              {"message": db[1].answer})
    assert KEY in branch["text"]


def test_A1_the_reading_store_never_writes_a_byte(db: tuple[Path, Planted]) -> None:
    before = hashlib.sha256(db[0].read_bytes()).hexdigest()
    with Store(db[0], only_reads=ONLY_READS) as store:
        _every_result(Archive(store), db[1])
        assert store.read_only == ONLY_READS
    assert hashlib.sha256(db[0].read_bytes()).hexdigest() == before
    wal = Path(f"{db[0]}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_A1_results_are_bounded_and_say_how_to_read_on(tmp_path: Path) -> None:
    with Store(tmp_path / "long.db") as s:
        conv = settled_conversation(s, 400)
        tip = s.conversation(conv).tip_id
    with Store(tmp_path / "long.db", only_reads=ONLY_READS) as store:
        archive = Archive(store)
        last = call(archive, "get_branch", message=tip, max_chars=1000)
        assert chars(last) <= 1000 and last["cut"]
        assert last["to_turn"] == 400 and "start_turn=1" in last["cut_reason"]
        seen, start = [], 1
        while start is not None:
            page = call(archive, "get_branch", message=tip, start_turn=start, max_chars=4000)
            assert chars(page) <= 4000
            seen += list(range(page["from_turn"], page["to_turn"] + 1))
            start = page["next_start_turn"]
        assert seen == list(range(1, 401))
        hits, offset = [], 0
        while offset is not None:
            page = call(archive, "search", query="prompt", limit=100, offset=offset)
            hits += [h["message"] for h in page["results"]]
            offset = page["next_offset"]
        assert len(hits) == len(set(hits)) == 400
        small = call(archive, "search", query="answer", limit=100, max_chars=1000)
        assert small["cut"] and chars(small) <= 1000
        assert small["next_offset"] == len(small["results"])


def test_A1_bad_input_is_refused_in_one_line(archive: Archive) -> None:
    assert refusal(archive, "get_branch", message=99_999) == "no message 99999"
    assert "no conversation 4242" in refusal(archive, "list_branches", conversation=4242)
    assert "no conversation 4242" in refusal(archive, "checkpoints", conversation=4242)
    assert "no message" in refusal(archive, "compare", message_a=1, message_b=99_999)
    assert "no message" in refusal(archive, "context_at", message=99_999)
    assert "'query'" in refusal(archive, "search", query=5)
    assert "needs the argument 'query'" in refusal(archive, "search")
    assert "'limit' must be from 1 to 100" in refusal(archive, "search", query="x",
                                                         limit=10_000)
    assert "at most 500" in refusal(archive, "search", query="x" * 100_000)
    assert "takes no argument 'sql'" in refusal(archive, "search", query="x", sql="drop")
    assert call(archive, "search", query="\x00 \" * NEAR")["results"] == []  # never syntax
    assert "whole number" in refusal(archive, "get_branch", message="7; drop")
    assert "true or false" in refusal(archive, "get_branch", message=1, thinking="yes")
    assert "one of words, lines" in refusal(archive, "compare", message_a=1, message_b=2,
                                            mode="chars")
    assert "a date" in refusal(archive, "list_conversations", since="last tuesday")
    assert "no tool 'drop_table'" in refusal(archive, "drop_table")
    assert "--allow-writes" in refusal(archive, "label", message=1, name="x")


def test_A1_writes_only_when_allowed_and_never_remove(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    planted = build(path)
    with Store(path) as store:
        archive = Archive(store, writes=True)
        assert {"label", "note", "checkpoint"} <= {t.name for t in catalog.offered(archive)}
        done = call(archive, "label", message=planted.other_answer, name="second try")
        assert "second try" in done["done"]
        assert store.marks(planted.conversation).labels[planted.other_answer] == "second try"
        call(archive, "note", message=planted.answer, text="the one we shipped")
        assert store.marks(planted.conversation).notes[planted.answer] == "the one we shipped"
        call(archive, "checkpoint", message=planted.other_answer, label="other")
        assert store.checkpoints(planted.conversation)["other"] == planted.other_answer
        assert "never removes" in refusal(archive, "note", message=planted.answer, text=" ")
        assert "already has the label" in refusal(archive, "label",
                                                  message=planted.other_answer, name="x")
        inside = refusal(archive, "checkpoint", message=planted.prompt + 1, label="mid")
        assert inside.startswith("Set checkpoint is not possible at message")
    assert {t.name for t in catalog.offered(Archive(Store.__new__(Store)))} == {
        t.name for t in catalog.TOOLS}
