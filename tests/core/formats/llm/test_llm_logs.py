"""simonw/llm logs.db: classic responses, the message store with a branch, damaged schemas."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from explorer.formats import llm
from explorer.formats.base import FormatError, ImportedConversation
from explorer.tree.paths import children_map, message_path

CLASSIC_SCHEMA = """
CREATE TABLE conversations (id TEXT PRIMARY KEY, name TEXT, model TEXT);
CREATE TABLE responses (
  id TEXT PRIMARY KEY, model TEXT, prompt TEXT, system TEXT, prompt_json TEXT,
  options_json TEXT, response TEXT, response_json TEXT, conversation_id TEXT,
  duration_ms INTEGER, datetime_utc TEXT, input_tokens INTEGER, output_tokens INTEGER);
"""
RESPONSES = [
    # id, model, prompt, system, response, conversation, datetime, in, out
    ("r1", "gpt-4o", "hi", "Be brief.", "hello", "c1", "2024-05-01T10:00:00", 12, 3),
    ("r2", "gpt-4o", "more", "Be brief.", "sure", "c1", "2024-05-01T10:01:00", 20, 4),
    ("r3", "gpt-4o", "again", None, "ok", "c1", "2024-05-01T10:02:00", 30, 5),
    ("r5", "claude", "second?", None, "yes", "c2", "2024-05-02T09:05:00", None, None),
    ("r4", "claude", "first?", None, "no", "c2", "2024-05-02T09:00:00", 7, 8),
]


def classic_db(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(CLASSIC_SCHEMA)
        conn.executemany("INSERT INTO conversations VALUES (?, ?, ?)",
                         [("c1", "Greetings", "gpt-4o"), ("c2", None, "claude")])
        conn.executemany(
            "INSERT INTO responses (id, model, prompt, system, response, conversation_id,"
            " datetime_utc, input_tokens, output_tokens, duration_ms) VALUES (?,?,?,?,?,?,?,?,?,5)",
            RESPONSES,
        )
    conn.close()
    return path


STORE_SCHEMA = """
CREATE TABLE messages (hash TEXT, parent_hash TEXT, role TEXT, content TEXT);
CREATE TABLE parts (id INTEGER PRIMARY KEY, message_hash TEXT, position INTEGER, type TEXT,
  text TEXT, fragment_id INTEGER, name TEXT, arguments TEXT, tool_call_id TEXT, output TEXT,
  exception TEXT);
CREATE TABLE fragments (id INTEGER PRIMARY KEY, hash TEXT, content TEXT);
CREATE TABLE threads (id TEXT, name TEXT, tip_message_hash TEXT, datetime_utc TEXT);
CREATE TABLE turns (id TEXT, thread_id TEXT, parent_message_hash TEXT, tip_message_hash TEXT,
  model TEXT, input_tokens INTEGER, output_tokens INTEGER, datetime_utc TEXT);
"""


def _content(*parts: dict[str, object]) -> str:
    return json.dumps(list(parts))


def store_db(path: Path) -> Path:
    """m1 > m2 > m3 > m4 (thread t1), and the edited prompt m3b > m5 (thread t2, newer)."""
    text = {"type": "text", "text": "hello"}
    msgs = [
        ("m1", None, "user", _content({"type": "text", "text": "name a pelican"})),
        ("m2", "m1", "assistant", _content({"type": "reasoning", "text": "think"},
                                           {"type": "text", "text": "Percy"})),
        ("m3", "m2", "user", _content({"type": "text", "text": "longer"})),
        ("m4", "m3", "assistant", _content({"type": "tool_call", "name": "lookup",
                                            "arguments": {"q": 1}, "tool_call_id": "t-1"})),
        ("m4r", "m4", "tool", _content({"type": "tool_result", "name": "lookup",
                                        "output": "42", "tool_call_id": "t-1"})),
        ("m3b", "m2", "user", _content(text)),
        ("m5", "m3b", "assistant", None),  # parts come from the parts table
    ]
    with sqlite3.connect(path) as conn:
        conn.executescript(STORE_SCHEMA + CLASSIC_SCHEMA)
        conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?)", msgs)
        conn.execute("INSERT INTO fragments VALUES (1, 'h', 'Pelecanus the Great')")
        conn.execute("INSERT INTO parts (message_hash, position, type, fragment_id)"
                     " VALUES ('m5', 0, 'text', 1)")
        conn.executemany("INSERT INTO threads VALUES (?, ?, ?, ?)", [
            ("t1", "Pelican names", "m4r", "2024-06-01T10:00:00"),
            ("t2", "Pelican names (edit)", "m5", "2024-06-01T11:00:00"),
        ])
        conn.execute("INSERT INTO turns VALUES ('u1','t2','m3b','m5','gpt-x',11,22,"
                     "'2024-06-01T11:00:01')")
        conn.execute("INSERT INTO responses (id, prompt, response, conversation_id) VALUES"
                     " ('old', 'dup of t1', 'x', 't1'), ('solo', 'classic only', 'y', 'c9')")
    conn.close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _by_source(convs: list[ImportedConversation]) -> dict[str | None, ImportedConversation]:
    return {c.source_id: c for c in convs}


# -- classic ----------------------------------------------------------------------


def test_classic_conversations_are_linear_prompt_answer_pairs(tmp_path: Path) -> None:
    convs = _by_source(list(llm.read(classic_db(tmp_path / "logs.db"))))
    assert set(convs) == {"c1", "c2"}
    c1 = convs["c1"]
    assert c1.title == "Greetings"
    path = message_path({m.id: m for m in c1.messages}, c1.tip)
    assert [(m.role, m.text) for m in path] == [
        ("system", "Be brief."), ("user", "hi"), ("assistant", "hello"), ("user", "more"),
        ("assistant", "sure"), ("user", "again"), ("assistant", "ok"),
    ]  # the repeated system prompt is not repeated
    assert len(c1.messages) == 7 and c1.incomplete is False
    answer = path[2]
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (12, 3)
    assert answer.model == "gpt-4o" and answer.source_id == "r1"
    assert answer.source_meta["duration_ms"] == 5


def test_classic_order_follows_datetime_not_rowid(tmp_path: Path) -> None:
    c2 = _by_source(list(llm.read(classic_db(tmp_path / "logs.db"))))["c2"]
    assert [m.text for m in c2.messages] == ["first?", "no", "second?", "yes"]
    assert c2.title == "first?"  # no name: the first prompt
    assert c2.tip == "r5:response"
    assert c2.messages[-1].usage is None  # no counts recorded


def test_the_database_is_never_modified(tmp_path: Path) -> None:
    db = classic_db(tmp_path / "logs.db")
    before = _digest(db)
    list(llm.read(db))
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs.db"]


# -- message store ------------------------------------------------------------------


def test_store_builds_a_tree_with_a_branch(tmp_path: Path) -> None:
    convs = _by_source(list(llm.read(store_db(tmp_path / "logs.db"))))
    assert set(convs) == {"m1", "c9"}  # t1 shares t2's tree; the response in t1 is skipped
    assert [m.text for m in convs["c9"].messages] == ["classic only", "y"]
    tree = convs["m1"]  # a tree is named by its first message: threads come and go
    assert tree.source_aliases == ["t1", "t2"]  # what an earlier import named it
    assert len(tree.messages) == 7
    assert children_map(tree.messages)["m2"] == ["m3", "m3b"]
    assert tree.tip == "m5" and tree.title == "Pelican names (edit)"
    assert [t["id"] for t in tree.meta["threads"]] == ["t1", "t2"]


def test_store_parts_fragments_and_turns(tmp_path: Path) -> None:
    convs = _by_source(list(llm.read(store_db(tmp_path / "logs.db"))))
    msgs = {m.id: m for m in convs["m1"].messages}
    assert [p.kind for p in msgs["m2"].parts] == ["thinking", "text"]
    call = msgs["m4"].parts[0]
    assert (call.kind, call.tool_name, call.tool_use_id, json.loads(call.text)) == (
        "tool_use", "lookup", "t-1", {"q": 1})
    assert msgs["m4r"].role == "tool" and msgs["m4r"].parts[0].text == "42"
    assert msgs["m5"].text == "Pelecanus the Great"
    assert msgs["m5"].model == "gpt-x"
    assert msgs["m5"].usage is not None and msgs["m5"].usage.output_tokens == 22
    assert msgs["m5"].created_at is not None


# -- damage ---------------------------------------------------------------------------


def test_store_repairs_dangling_duplicate_and_cycle(tmp_path: Path) -> None:
    path = tmp_path / "logs.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(STORE_SCHEMA)
        conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?)", [
            ("a", "ghost", "user", '"orphan"'),
            ("a", None, "user", '"duplicate"'),
            ("x", "y", "user", '"loop x"'),
            ("y", "x", "assistant", '"loop y"'),
            ("z", None, "wizard", "not json"),
        ])
    conn.close()
    convs = list(llm.read(path))
    notes = " ".join(n for c in convs for n in c.notes)
    assert "missing" in notes and "duplicate" in notes and "cycle" in notes
    assert "not JSON" in notes and "wizard" in notes
    texts = sorted(m.text for c in convs for m in c.messages)
    assert texts == ["loop x", "loop y", "not json", "orphan"]


@pytest.mark.parametrize("drop", ["model", "prompt", "system", "response", "conversation_id",
                                  "datetime_utc", "input_tokens", "output_tokens", "id"])
def test_classic_tolerates_missing_columns(tmp_path: Path, drop: str) -> None:
    cols = ["id", "model", "prompt", "system", "response", "conversation_id", "datetime_utc",
            "input_tokens", "output_tokens"]
    kept = [c for c in cols if c != drop]
    path = tmp_path / "logs.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE responses ({', '.join(kept)})")
        rows = [[dict(zip(cols, r, strict=True))[c] for c in kept] for r in RESPONSES]
        conn.executemany(f"INSERT INTO responses VALUES ({', '.join('?' * len(kept))})", rows)
    conn.close()
    convs = list(llm.read(path))  # no conversations table at all
    assert sum(len(c.messages) for c in convs) >= 10
    assert all(c.tip is not None for c in convs)


@pytest.mark.parametrize("table", ["parts", "threads", "turns", "fragments"])
def test_store_tolerates_missing_tables(tmp_path: Path, table: str) -> None:
    path = store_db(tmp_path / "logs.db")
    with sqlite3.connect(path) as conn:
        conn.execute(f"DROP TABLE {table}")
    conn.close()
    convs = list(llm.read(path))
    assert sum(len(c.messages) for c in convs) >= 7


def test_not_sqlite_or_no_llm_tables_is_a_format_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(FormatError):
        list(llm.read(junk))
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE messages (id INTEGER, parent_id INTEGER)")
    conn.close()
    assert not llm.sniff(other)
    with pytest.raises(FormatError, match="no llm tables"):
        list(llm.read(other))


def test_sniff(corpus_dir: Path, tmp_path: Path) -> None:
    assert llm.sniff(classic_db(tmp_path / "a.db"))
    assert llm.sniff(store_db(tmp_path / "b.db"))
    others = [p for p in sorted((corpus_dir / "exports").rglob("*")) if p.is_file()]
    others += sorted((corpus_dir / "codex").rglob("*.jsonl"))
    assert len(others) >= 10
    for path in others:
        assert not llm.sniff(path), path
    text = tmp_path / "t.txt"
    text.write_text("hello")
    assert not llm.sniff(text)
