"""The recall quiz asks about decisions too, not only exact strings: what was chosen in the
middle ("decided to use X", "went with X", "use X, not Y", an answer to an agent's question)
is asked as a cloze with a known short answer, scored fairly, and reported per kind. The
probe sends the quiz through the one pipeline that ``send`` uses (X1)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from helpers import assistant, tool_call, tool_result, user
from provider_seed import seen_and_asked
from provider_server import ProviderServer, ServerState
from test_X1_preview_is_sent import base_url

from explorer.app.calls.quiz_decisions import decision_matches, find_decisions
from explorer.app.calls.recall_quiz import INSTRUCTIONS, build_quiz
from explorer.store import Store

QUESTION = re.compile(r'^(\d+): "…(.*) ____ (.*)…"$')
ASKED = ('User has answered your questions: "Which store should the cache use?"="SQLite '
         'WAL". You can now continue with the answers in mind.')


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def prose(seed: int, chars: int) -> str:
    """Filler of about ``chars`` characters, different per ``seed``, with no decisions."""
    words = ("the", "report", "loader", "ran", "again", "and", "printed", "rows", "slowly",
             "while", "we", "watched", "its", "memory", "grow", "over", "night")
    out = [words[(i * 5 + seed) % len(words)] for i in range(chars // 6)]
    return " ".join(out)


def answers(texts: list[str]) -> list[str]:
    return [d.answer for d in find_decisions([user(t) for t in texts])]


def test_X1_decisions_are_found_where_a_choice_is_stated() -> None:
    assert answers([
        "After the benchmark we decided to use DuckDB for the reports, it is faster.",
        "Please use httpx, not requests.",
        "I'll use the `orjson` encoder instead of json in the hot path.",
        "We went with the FTS5 index because LIKE was too slow.",
        "Fine, settled on port 8443.",
        "We switched from unittest to pytest last week.",
        "Decision: use Caddy for TLS.",
        "ok, let's go with Redis streams.",
    ]) == ["DuckDB", "httpx", "orjson encoder", "FTS5 index", "port 8443", "pytest", "Caddy",
           "Redis streams"]
    answered = find_decisions([tool_result("q1", ASKED)])
    assert [d.answer for d in answered] == ["SQLite WAL"]
    assert "Which store should the cache use?" in answered[0].before


def test_X1_plain_uses_and_vague_choices_are_not_decisions() -> None:
    assert answers([
        "use the Read tool to open the file",  # no alternative turned down
        "I chose it because it was there",  # nothing to name
        "we use tabs in this file",
        "decided to use this instead of that",
        "the selected profile wins over the default",  # a participle, not a choice
        "changes to the file are picked up.",
        "class Route(BaseModel):\n    decision: Literal['A', 'B']",  # code
        "Prefer unknown over any",  # an answer the quiz could not tell from 'unknown'
    ]) == []
    assert answers(["We picked Postgres for the ledger."]) == ["Postgres"]


@pytest.mark.parametrize(("given", "right"), [
    ("FTS5 index", True), ("the fts5 index.", True), ("`FTS5` index", True),
    ("an FTS5 index on the title column", True),  # a little more than the option
    ("FTS5", False),  # half the option
    ("LIKE", False),  # the one turned down
    ("unknown", False), ("", False),
    ("FTS5 index or LIKE or trigram or regex or a full table scan or sqlite", False),  # a list
])
def test_X1_a_decision_answer_is_scored_fairly(given: str, right: bool) -> None:
    assert decision_matches("FTS5 index", given) is right


def decided_middle() -> list[Any]:
    return [
        user("the importer writes to src/store/import_run.py and the run id is "
             "run-7f3a9c21; we keep commit 4be1d09fa in mind"),
        assistant("After reading the profile we decided to use DuckDB for the monthly "
                  "reports, since pandas ran out of memory on the 2025 data."),
        user("ok. For the HTTP client please use httpx, not requests, we need HTTP/2."),
        tool_call("AskUserQuestion", "q1", {"questions": [{"question": "Which store?"}]}),
        tool_result("q1", ASKED),
        assistant("noted, the cache gets SQLite WAL; version 3.46.1 is enough"),
    ]


def test_X1_the_quiz_mixes_decisions_with_exact_strings_and_scores_each_kind() -> None:
    quiz = build_quiz(decided_middle(), 6)
    kinds = [q.kind for q in quiz.questions]
    assert kinds.count("decision") == 2 and len(kinds) == 6  # a third are decisions
    assert kinds[-2:] == ["decision", "decision"]  # numbered after the strings
    by_answer = {q.answer: q for q in quiz.questions}
    assert "DuckDB" in by_answer and "httpx" in by_answer
    assert all(q.answer.lower() not in q.text.lower() for q in quiz.questions)
    reply = "\n".join(
        f"{q.number}: " + ("duckdb." if q.answer == "DuckDB" else
                           "requests" if q.answer == "httpx" else q.answer)
        for q in quiz.questions)
    score = quiz.score(reply)
    assert score.by_kind["decision"] == (1, 2)  # DuckDB fairly right, requests wrong
    assert len(score.right) == 5 and score.asked == 6
    assert sum(n for _, n in score.by_kind.values()) == 6
    assert "decision 1/2" in score.kinds_line
    assert score.to_dict()["by_kind"]["decision"] == {"right": 1, "asked": 2}


def test_X1_with_no_exact_strings_decisions_fill_the_quiz() -> None:
    quiz = build_quiz([assistant("we decided to use DuckDB for it"),
                       assistant("and we went with Parquet files because they compress")], 4)
    assert [q.answer for q in quiz.questions] == ["DuckDB", "Parquet files"]


def read_the_words(body: dict[str, Any], anthropic: bool) -> str:
    """A text-only model: fills each blank with the words between the quoted passage and
    what follows it, when the passage is in the text it was sent."""
    seen, asked = seen_and_asked(body)
    text = " ".join(" ".join(seen).replace('"', "'").split())
    if not asked.startswith(INSTRUCTIONS):
        return "ok"
    lines = []
    for q in asked.splitlines():
        m = QUESTION.match(q)
        if m is None:
            continue
        n, left, right = m.groups()
        at = text.find(left + " ")
        rest = text[at + len(left) + 1:] if at >= 0 else ""
        stop = rest.find(" " + right.split(" ")[0]) if right else -1
        word = (rest[:stop] if stop > 0 else rest.split(" ", 1)[0]).rstrip(".,;:)'")
        lines.append(f"{n}: {word or 'unknown'}")
    return "\n".join(lines)


def test_X1_probe_reports_decision_recall_per_rung_and_kind(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    state.responder = read_the_words
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = s.create_conversation("decisions")
        for n in range(8):
            s.append_turn(conv, [user(f"turn {n} " + prose(n, 1100)),
                                 assistant(f"reply {n} " + prose(n + 40, 1100))])
        s.append_turn(conv, decided_middle())
        for n in range(8, 16):
            s.append_turn(conv, [user(f"turn {n} " + prose(n, 1100)),
                                 assistant(f"reply {n} " + prose(n + 40, 1100))])
    argv = ["--db", str(db), "probe", str(conv), "--quiz", "6", "--rungs", "full,snapshot",
            "--provider", "anthropic", "--window", "200000", "--max-tokens", "1000",
            "--base-url", base_url("anthropic", server), "--no-summary"]
    capsys.readouterr()
    assert run_cli(monkeypatch, [*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sum(q["kind"] == "decision" for q in out["quiz"]) == 2
    scores = {r["rung"]: r["score"] for r in out["runs"]}
    assert scores["full"]["by_kind"]["decision"] == {"right": 2, "asked": 2}
    assert scores["full"]["right"] == 6
    assert scores["snapshot"]["by_kind"]["decision"]["right"] < 2  # folded into pixels
    assert run_cli(monkeypatch, argv) == 0
    text = capsys.readouterr().out
    assert re.search(r"full .*recall 6/6 \(.*decision 2/2\)", text)
