"""The compare view opened on probe answers shows, in each column's header, the rung, the
context's estimated and measured input, the output tokens, the cost and the recall score of
the same rung's quiz, as ``convo probe`` prints them (X1: the probe measures what ``send``
would post)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import assistant, user
from pytestqt.qtbot import QtBot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ProviderServer, ServerState

from explorer.app.calls import probe
from explorer.app.calls.model_setup import ModelChoice, prepare
from explorer.app.calls.replay import cost_usd
from explorer.store import Store
from explorer.ui.compare.window import CompareWindow

MODEL = "claude-sonnet-4-5"
QUESTION = re.compile(r'^(\d+): "…(.*) ____ .*…"$', re.MULTILINE)


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    srv = ProviderServer(ServerState()).start()
    yield srv
    srv.close()


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text"]


def reads_the_text(body: dict[str, Any], anthropic: bool) -> str:
    """A text-only model: fills each blank with the word after the quoted passage, when the
    passage is in the text it was sent (pages are pixels it cannot read)."""
    *before, last = body["messages"]
    text = " ".join(" ".join(t for m in before for t in _texts(m["content"])).split())
    asked = "\n".join(_texts(last["content"]))
    if "Recall quiz" not in asked:
        return "the first failure was the import job"
    lines = []
    for n, left in QUESTION.findall(asked):
        at = text.find(left + " ")
        word = text[at + len(left) + 1:].split(" ", 1)[0].rstrip(".,") if at >= 0 else ""
        lines.append(f"{n}: {word or 'unknown'}")
    return "\n".join(lines)


def test_X1_compare_from_a_probe_shows_each_columns_rung_tokens_cost_and_recall(
    qtbot: QtBot, tmp_path: Path, server: ProviderServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server.state.responder = reads_the_text
    s = Store(tmp_path / "p.db")
    conv = s.create_conversation("bench")
    for n in range(30):
        s.append_turn(conv, [user(f"question {n}: the job src/jobs/run_{n}.py failed with "
                                  f"code E{n:03d}x9 " + "word " * 200),
                             assistant(f"answer {n}: we decided to use retry-{n} "
                                       "instead of failing. " + "text " * 200)])
    prepared = prepare(ModelChoice(kind="anthropic", model=MODEL, window=200_000,
                                   base_url=server.url, max_tokens=500, summary=False,
                                   key_env="ANTHROPIC_API_KEY"))
    result = probe.probe(s, conv, "what failed first?", prepared.provider, prepared.options,
                         ["full", "snapshot"], quiz_size=4)
    ids = result.answer_ids()
    assert len(ids) == 2
    window = CompareWindow(s, conv, ids)
    qtbot.addWidget(window)
    lines = [h.probe_label.text() for h in window.headers]
    assert all(h.probe_label.isVisibleTo(window) for h in window.headers)
    for line, rung in zip(lines, ("full", "snapshot"), strict=True):
        run = next(r for r in result.runs if r.rung == rung and r.kind == "prompt")
        quiz = next(r for r in result.runs if r.rung == rung and r.kind == "quiz")
        assert quiz.score is not None
        tokens_in, tokens_out = run.usage["input_tokens"], run.usage["output_tokens"]
        assert line.startswith(f"{rung} rung")
        assert f"context {run.context_tokens:,} est., {tokens_in:,} in" in line
        assert f"{tokens_out:,} out" in line
        assert f"${cost_usd(MODEL, tokens_in, tokens_out):.4f}" in line
        assert f"recall {len(quiz.score.right)}/{quiz.score.asked}" in line
        assert quiz.score.kinds_line in line
    assert "page(s)" in lines[1] and "page(s)" not in lines[0]
    assert "recall 4/4 (path 3/3, decision 1/1)" in lines[0]  # all there as text
    assert "recall 4/4" not in lines[1]  # the pages hold the passages as pixels
    window.close()
    s.close()


def test_X1_an_ordinary_compare_shows_no_probe_line(qtbot: QtBot, tmp_path: Path) -> None:
    s = Store(tmp_path / "c.db")
    conv = s.create_conversation("plain")
    first = s.append_turn(conv, [user("hello"), assistant("hi")])
    s.branch(conv, first[0])
    second = s.append_turn(conv, [assistant("hey there")], parent_id=first[0])
    window = CompareWindow(s, conv, [first[-1], second[-1]])
    qtbot.addWidget(window)
    assert [h.probe_label.isVisibleTo(window) for h in window.headers] == [False, False]
    window.close()
    s.close()
