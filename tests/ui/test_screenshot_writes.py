"""``convo --screenshot FILE`` writes only FILE, through a renamed temporary copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from explorer.ui.app import run_app
from explorer.ui.background.lane import OPEN_LANE, OPEN_ORDER
from explorer.ui.window.main_window import MainWindow


def test_screenshot_leaves_a_same_named_ini_file_alone(tmp_path: Path) -> None:
    mine = tmp_path / "shot.ini"
    mine.write_text("[mine]\nkeep=1\n", encoding="utf-8")
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"old")
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert mine.read_text(encoding="utf-8") == "[mine]\nkeep=1\n"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("s.db")) == [
        "shot.ini", "shot.png"]


def test_screenshot_onto_the_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run_app(db, screenshot=str(db)) == 1
    assert db.read_bytes().startswith(b"SQLite format 3")


def test_V2_the_screenshot_waits_for_the_views_to_load_however_long_they_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fixed deadline a big archive can miss: the picture is taken once the graph and
    the transcript say they are done, and not before."""
    from explorer.ui.graph.widget import TreeGraphWidget

    asked: list[bool] = []
    real = TreeGraphWidget.is_loading

    def slow(widget: TreeGraphWidget) -> bool:
        asked.append(real.fget(widget) if real.fget else False)
        return len(asked) <= 60 or asked[-1]  # "still loading" for the first 60 looks

    monkeypatch.setattr(TreeGraphWidget, "is_loading", property(slow))
    grabbed: list[int] = []
    original = MainWindow.grab
    monkeypatch.setattr(MainWindow, "grab", lambda w, *a: grabbed.append(len(asked))
                        or original(w, *a))
    shot = tmp_path / "shot.png"
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert grabbed and grabbed[0] > 60  # taken after the graph said it was done
    assert not asked[grabbed[0] - 1]


def test_V2_the_screenshot_waits_for_the_context_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The context panel is a view too: while its figure is being computed the picture is
    not taken, even when the graph and the transcript are done."""
    import threading

    from explorer.app.context.figure import ContextFigure
    from explorer.compaction.context import ContextUsage

    held = threading.Event()
    real = ContextFigure.usage

    def gated(figure: ContextFigure, *args: object, **kwargs: object) -> ContextUsage:
        held.wait()
        return real(figure, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ContextFigure, "usage", gated)
    shot = tmp_path / "shot.png"
    seen: list[tuple[bool, bool]] = []  # (picture taken, figure shown) while views were done
    original = MainWindow.grab

    def grab(window: MainWindow, *a: object) -> object:
        seen.append((True, window.context_panel.bar.usage is not None))
        held.set()  # a picture taken too early must not leave the figure's worker waiting
        return original(window, *a)  # type: ignore[arg-type]

    idle_ticks: list[int] = []

    def release_when_the_others_are_done() -> None:
        """Hold the figure for 50 ticks after the graph and transcript are done: longer than
        any settling pause, so a screenshot that did not wait for it would be taken now."""
        for window in QApplication.topLevelWidgets():
            if (isinstance(window, MainWindow) and window.isVisible()
                    and not window.graph.is_loading
                    and not window.transcript.is_loading and not held.is_set()):
                idle_ticks.append(1)
                if len(idle_ticks) >= 50:
                    seen.append((shot.exists(), window.context_panel.bar.usage is not None))
                    held.set()

    monkeypatch.setattr(MainWindow, "grab", grab)
    poll = QTimer(interval=20)
    poll.timeout.connect(release_when_the_others_are_done)
    poll.start()
    try:
        assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    finally:
        poll.stop()
        held.set()
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert seen == [(False, False), (True, True)], "held figure: no picture; then one with it"


def test_V2_the_screenshot_computes_the_context_figure_beside_the_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no person's frames to keep smooth, the figure does not queue behind the graph
    (neither in the open's lane nor behind the panel's gate): the graph's load here cannot
    finish until the figure has started, and the picture still shows both. A person's
    window opened afterwards in the same process has its lane back."""
    import threading

    from explorer.app.context.figure import ContextFigure
    from explorer.ui.background import quiet_gate
    from explorer.ui.graph import worker

    monkeypatch.setattr(quiet_gate, "MAX_HOLD_MS", 600_000)  # no release by the clock
    figure_started = threading.Event()
    real_usage, real_graph = ContextFigure.usage, worker.build_turn_graph

    def usage(figure: ContextFigure, *args: object, **kwargs: object) -> object:
        figure_started.set()
        return real_usage(figure, *args, **kwargs)  # type: ignore[arg-type]

    waited: list[bool] = []

    def graph(*args: object, **kwargs: object) -> object:
        waited.append(figure_started.wait(30))  # False: the figure waited for the graph
        return real_graph(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ContextFigure, "usage", usage)
    monkeypatch.setattr(worker, "build_turn_graph", graph)
    shown: list[tuple[bool, bool]] = []
    original = MainWindow.grab

    def grab(window: MainWindow, *a: object) -> object:
        shown.append((window.graph.view.model is not None,
                      window.context_panel.bar.usage is not None))
        return original(window, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(MainWindow, "grab", grab)
    shot = tmp_path / "shot.png"
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert waited == [True], "the figure started while the graph was still loading"
    assert shown == [(True, True)]
    assert OPEN_LANE.order == OPEN_ORDER


def test_V2_the_screenshot_shows_the_conversation_it_opened_settled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the picture is taken of: the opened conversation's graph, its transcript down
    to the tip with the tip's card built (not a placeholder) and the context figure."""
    seen: list[dict[str, object]] = []
    original = MainWindow.grab

    def grab(window: MainWindow, *a: object) -> object:
        conv = window.conversation_id
        assert conv is not None
        tip = window.store.conversation(conv, boundary=False).tip_id
        ids = window.transcript.message_ids()
        seen.append({
            "graph": window.graph.view.model is not None and not window.graph.is_loading,
            "path ends at the tip": bool(ids) and ids[-1] == tip,
            "tip card built": tip is not None and window.transcript.card_for(tip) is not None,
            "figure": window.context_panel.bar.usage is not None,
        })
        return original(window, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(MainWindow, "grab", grab)
    shot = tmp_path / "shot.png"
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert seen == [{"graph": True, "path ends at the tip": True, "tip card built": True,
                     "figure": True}]
    assert shot.read_bytes().startswith(b"\x89PNG")
