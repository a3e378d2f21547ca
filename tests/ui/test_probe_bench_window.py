"""The compaction preview's "Probe…": the same prompt after the full context and each rung's,
against a real loopback server; the answers are archived probe branches, opened side by side
in the compare view, with each rung's cost and recall score on the status line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assistant, user
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ProviderServer, ServerState

from explorer.app.calls.model_setup import ModelChoice
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.ui.compare.window import CompareWindow
from explorer.ui.preview.probe_bench import ProbeBench
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    srv = ProviderServer(ServerState()).start()
    yield srv
    srv.close()


def test_probe_from_the_preview_opens_the_answers_in_compare_with_their_costs(
    qtbot: QtBot, tmp_path: Path, server: ProviderServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    url = server.url + "/v1"

    def choice(self: ProbeBench, target: Target) -> ModelChoice:
        return ModelChoice(kind="openai", model=target.model, window=target.window,
                           tier=target.tier, base_url=url, max_tokens=500, summary=False,
                           key_env="OPENAI_API_KEY")  # the key, named for the loopback server

    monkeypatch.setattr(ProbeBench, "choice", choice)
    monkeypatch.setattr(ProbeBench, "ask_text", lambda self: "what failed first?")
    s = Store(tmp_path / "p.db")
    conv = s.create_conversation("bench")
    for n in range(30):
        s.append_turn(conv, [user(f"question {n}: the job src/jobs/run_{n}.py failed with "
                                  f"code E{n:03d}x9 " + "word " * 200),
                             assistant(f"answer {n}: " + "text " * 200)])
    tip = s.conversation(conv).tip_id
    w = MainWindow(s, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(conv)
    w.actions_.dialogs.compaction_preview()
    preview = w.actions_.dialogs.preview
    assert preview is not None
    preview.set_options(provider="openai", window=6000)
    qtbot.waitUntil(lambda: not preview.busy, timeout=30_000)
    assert preview.bench.button.isEnabled()
    assert preview.probe()
    qtbot.waitUntil(lambda: w.compares.window is not None, timeout=60_000)
    result = preview.bench.result
    assert result is not None
    assert isinstance(w.compares.window, CompareWindow)
    assert w.compares.window.ids == result.answer_ids()
    assert len(result.answer_ids()) == 2  # shake and snapshot
    heads = [h.probe_label.text() for h in w.compares.window.headers]
    assert [h.split(" rung")[0] for h in heads] == ["shake", "snapshot"]
    assert all(" out · " in h and "recall " in h for h in heads)  # costs and score per column
    status = preview.status.text()
    assert "full: skipped (the full context" in status  # 30 turns do not fit 6,000 tokens
    assert "snapshot:" in status and "recall" in status
    assert len(server.state.hits) == 4  # the prompt and the quiz after two contexts
    marks = s.marks(conv)
    assert s.conversation(conv).tip_id == tip
    assert all(s.message(a).parent_id in marks.archived for a in result.answer_ids())
    w.compares.window.close()
    preview.close()
    w.close()
    s.close()
