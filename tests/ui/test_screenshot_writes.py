"""``convo --screenshot FILE`` writes only FILE, through a renamed temporary copy."""

from __future__ import annotations

from pathlib import Path

from explorer.ui.app import run_app


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
