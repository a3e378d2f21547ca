"""``convo --screenshot FILE`` writes only FILE, through a renamed temporary copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.app import run_app
from explorer.ui.main_window import MainWindow


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
