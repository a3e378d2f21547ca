"""The compaction test bench (``convo probe``): the same prompt after each rung's context,
answers kept as archived probe branches, and a recall quiz scored per rung.

The loopback server reads the request it got as a text-only model would: it answers each
quiz question by finding the quoted passage in the text the request carried and giving the
string that follows it there. Pages are pixels it cannot read, so what a rung folds into
pages without its passage in text is what that rung loses, and the score shows it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from helpers import assistant, user
from provider_seed import prose, seen_and_asked
from provider_server import ProviderServer, ServerState
from test_X1_preview_is_sent import base_url

from explorer.app.calls.recall_quiz import INSTRUCTIONS, build_quiz
from explorer.store import Store

QUESTION = re.compile(r'^(\d+): "…(.*) ____ (.*)…"$')


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def read_like_a_text_model(body: dict[str, Any], anthropic: bool) -> str:
    """Answer from what the request contained: quiz blanks from the text before the question,
    anything else by saying how much text and how many images it saw."""
    seen, asked = seen_and_asked(body)
    system = body.get("system")
    if anthropic and isinstance(system, list):
        seen += [b.get("text", "") for b in system]
    if "compress a conversation" in json.dumps(system):  # the summary rung's own request
        return "SUMMARY: the jobs failed and were fixed one by one."
    text = " ".join(" ".join(seen).replace('"', "'").split())
    if not asked.startswith(INSTRUCTIONS):
        images = json.dumps(body).count('"image')
        return f"Answer to: {asked[:30]} (read {len(text)} chars and {images} images)"
    lines = []
    for n, left, _right in (QUESTION.match(q).groups() for q in asked.splitlines()  # type: ignore[union-attr]
                            if QUESTION.match(q)):
        at = text.find(left + " ")
        word = text[at + len(left) + 1:].split(" ", 1)[0].rstrip(".,;:)'") if at >= 0 else ""
        lines.append(f"{n}: {word or 'unknown'}")
    return "\n".join(lines)


def seed(store: Store, turns: int) -> int:
    """Turns that each name an exact path, ticket and commit amid prose."""
    conv = store.create_conversation("bench")
    for n in range(turns):
        store.append_turn(conv, [
            user(f"turn {n}: the failing job lives in src/jobs/import_{n}.py and ticket "
                 f"OPS-{n:03d}x7 tracks it; " + prose(n, 1100)),
            assistant(f"answer {n}: fixed in commit 3f9a{n:03d}c2e after reading the log; "
                      + prose(n + 50, 1100)),
        ])
    return conv


def test_the_quiz_asks_about_exact_strings_of_the_middle_and_scores_exactly() -> None:
    middle = [user("we deploy from src/deploy/run_all.py on host build-07x9 every night "
                   "and the last good commit was 9c0ffee12ab")]
    quiz = build_quiz(middle, 3)
    answers = {q.answer for q in quiz.questions}
    assert "src/deploy/run_all.py" in answers and "9c0ffee12ab" in answers
    assert all(q.answer not in q.text for q in quiz.questions)  # the blank gives nothing away
    reply = "\n".join(f"{q.number}: {q.answer}" for q in quiz.questions[:-1]) + (
        f"\n{quiz.questions[-1].number}: unknown")
    score = quiz.score(reply)
    assert (score.asked, len(score.right)) == (len(quiz.questions), len(quiz.questions) - 1)
    assert score.not_visible == (quiz.questions[-1].number,) and score.wrong == ()


def test_L8_a_wrong_answer_counts_against_the_pages_and_unknown_is_not_visible() -> None:
    """The recall check tells a page that misleads (a wrong id) from one that says it cannot
    be read ("unknown", nothing): exact / wrong / not visible."""
    middle = [user("we deploy from src/deploy/run_all.py on host build-07x9 every night "
                   "and the last good commit was 9c0ffee12ab")]
    quiz = build_quiz(middle, 3)
    [path] = [q for q in quiz.questions if q.answer == "src/deploy/run_all.py"]
    [commit] = [q for q in quiz.questions if q.answer == "9c0ffee12ab"]
    reply = f"{path.number}: 9c0ffee12ab\n{commit.number}: unknown"  # the id in the wrong blank
    score = quiz.score(reply)
    assert (score.wrong, score.not_visible) == ((path.number,), (commit.number,))
    assert score.outcome_line == f"0 exact, 1 wrong, {len(quiz.questions) - 1} not visible"
    assert quiz.score("").not_visible == tuple(q.number for q in quiz.questions)
    assert score.to_dict()["wrong"] == [path.number]


def test_probe_stores_each_rungs_answer_as_an_archived_probe_and_scores_recall(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    state.responder = read_like_a_text_model
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed(s, 24)
        tip = s.conversation(conv).tip_id
        count = s.conversation(conv).message_count
    argv = ["--db", str(db), "probe", str(conv), "--text", "what broke first?",
            "--rungs", "full,shake,snapshot", "--quiz", "6", "--provider", "anthropic",
            "--window", "200000", "--max-tokens", "1000", "--base-url",
            base_url("anthropic", server), "--no-summary", "--json"]
    capsys.readouterr()
    assert run_cli(monkeypatch, argv) == 0
    out = json.loads(capsys.readouterr().out)
    runs = {(r["kind"], r["rung"]): r for r in out["runs"]}
    assert len(state.hits) == 6  # the prompt and the quiz, after three contexts
    assert len(out["quiz"]) == 6
    full, snap = runs[("quiz", "full")], runs[("quiz", "snapshot")]
    assert full["score"]["right"] == 6  # every passage is there as text
    assert snap["pages"] >= 1 and snap["score"]["right"] < full["score"]["right"]
    assert runs[("quiz", "shake")]["score"]["right"] == 6  # no tool output to elide
    assert snap["context_tokens"] < full["context_tokens"]
    prompt_full = runs[("prompt", "full")]
    assert prompt_full["answer"].startswith("Answer to: what broke first?")
    assert "0 images" in prompt_full["answer"] and "0 images" not in runs[
        ("prompt", "snapshot")]["answer"]
    with Store(db) as s:
        conv_now = s.conversation(conv)
        marks = s.marks(conv)
        probes = [r["message_ids"][0] for r in out["runs"]]
        parents = {s.message(p).parent_id for p in probes}
        labels = [marks.labels.get(p) for p in probes]
    assert conv_now.tip_id == tip  # the active path is where it was
    assert conv_now.message_count == count + 12
    assert parents == {tip}  # siblings, beside the path
    assert set(probes) <= set(marks.archived)
    assert labels[:3] == ["probe: full", "probe: shake", "probe: snapshot"]
    assert out["compare"] == [runs[("prompt", r)]["answer_id"]
                              for r in ("full", "shake", "snapshot")]


def test_probe_refuses_an_unknown_rung_and_a_summary_without_a_summarizer(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed(s, 3)
    url = base_url("openai", server)
    assert run_cli(monkeypatch, ["--db", str(db), "probe", str(conv), "--text", "q",
                                 "--rungs", "full,squash", "--provider", "openai",
                                 "--base-url", url]) == 1
    assert "squash" in capsys.readouterr().err and state.hits == []
    assert run_cli(monkeypatch, ["--db", str(db), "probe", str(conv), "--text", "q",
                                 "--rungs", "summary", "--provider", "openai", "--base-url",
                                 url, "--no-summary", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert "summarizer" in run["skipped"] and state.hits == []


def test_probe_the_summary_rung_scores_what_the_summary_kept(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    state.responder = read_like_a_text_model
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed(s, 24)
    capsys.readouterr()
    assert run_cli(monkeypatch, ["--db", str(db), "probe", str(conv), "--quiz", "5",
                                 "--rungs", "full,summary", "--provider", "anthropic",
                                 "--window", "200000", "--max-tokens", "1000", "--base-url",
                                 base_url("anthropic", server), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    scores = {r["rung"]: r["score"]["right"] for r in out["runs"]}
    assert scores == {"full": 5, "summary": 0}  # the summary kept none of the exact strings
    summary = next(r for r in out["runs"] if r["rung"] == "summary")
    assert summary["rungs"][-1] == "summary" and summary["pages"] == 0
