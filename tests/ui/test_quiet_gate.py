"""The gate that holds background work back until the window is painted and quiet."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui.background import quiet_gate
from explorer.ui.background.quiet_gate import QuietGate


def test_V2_only_the_newest_offer_runs_once_painted_and_quiet(qtbot: QtBot) -> None:
    ran: list[str] = []
    busy = [True]
    gate: QuietGate[str] = QuietGate(ran.append, painted=False)
    gate.wait_for(lambda: busy[0])
    gate.offer("old")
    gate.offer("new")
    qtbot.wait(50)
    assert ran == [] and gate.holding, "not before the first frame"
    gate.painted()
    qtbot.wait(250)
    assert ran == [], "not while busy"
    busy[0] = False
    qtbot.waitUntil(lambda: ran == ["new"], timeout=2_000)
    assert not gate.holding
    gate.offer("next")
    assert ran == ["new", "next"], "a quiet, painted gate runs at once"


def test_V2_a_load_that_never_settles_holds_work_only_so_long(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(quiet_gate, "MAX_HOLD_MS", 300)
    ran: list[int] = []
    gate: QuietGate[int] = QuietGate(ran.append)
    gate.wait_for(lambda: True)
    gate.offer(1)
    assert ran == []
    qtbot.waitUntil(lambda: ran == [1], timeout=3_000)


def test_dropped_work_never_runs(qtbot: QtBot) -> None:
    ran: list[int] = []
    gate: QuietGate[int] = QuietGate(ran.append)
    gate.wait_for(lambda: True)
    gate.offer(1)
    gate.drop()
    qtbot.wait(250)
    assert ran == [] and not gate.holding
