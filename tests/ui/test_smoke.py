"""The smoke test an installation runs on itself: every check passes here, failures are reported."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from explorer.ui import smoke

REPO = Path(__file__).resolve().parents[2]
CHECK_NAMES = [name for name, _ in smoke.CHECKS]


def _run() -> tuple[int, list[str]]:
    out = io.StringIO()
    code = smoke.run_smoke_test(out)
    return code, out.getvalue().splitlines()


def test_every_check_passes_on_this_installation(qtbot: QtBot) -> None:
    code, lines = _run()
    assert code == 0, "\n".join(lines)
    assert CHECK_NAMES == ["database", "window", "graph", "snapshot", "keyring", "icon"]
    assert [line.split(":")[0] for line in lines[:-1]] == [f"ok   {n}" for n in CHECK_NAMES]
    assert lines[-1] == f"smoke test passed ({len(CHECK_NAMES)} checks)"


def test_the_keyring_backend_is_reported_by_name(qtbot: QtBot) -> None:
    import keyring

    backend = keyring.get_keyring()
    _, lines = _run()
    line = next(line for line in lines if line.startswith("ok   keyring:"))
    assert f"backend {type(backend).__module__}.{type(backend).__qualname__}" in line


def test_the_graph_and_snapshot_really_ran(qtbot: QtBot) -> None:
    _, lines = _run()
    graph = next(line for line in lines if " graph:" in line)
    snapshot = next(line for line in lines if " snapshot:" in line)
    assert "nodes laid out and painted" in graph
    assert "page(s), first 1568x" in snapshot


def test_a_failing_check_is_printed_and_the_others_still_run(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.compaction import page_geometry

    def broken(*_args: object, **_kw: object) -> None:
        raise ValueError("no geometry today")

    monkeypatch.setattr(page_geometry, "page_geometry", broken)
    code, lines = _run()
    assert code == 1
    assert "FAIL snapshot: ValueError: no geometry today" in lines
    assert any(line.startswith("ok   keyring:") for line in lines)
    assert lines[-1] == "smoke test FAILED: snapshot"


def test_checks_that_need_the_demo_say_so_when_it_is_missing(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.app.importing import demo

    def no_demo(*_args: object, **_kw: object) -> int:
        raise FileNotFoundError("bundled resource not found: demo.json")

    monkeypatch.setattr(demo, "load_demo", no_demo)
    code, lines = _run()
    assert code == 1
    assert lines[0] == "FAIL database: FileNotFoundError: bundled resource not found: demo.json"
    for name in ("window", "graph", "snapshot"):
        assert f"FAIL {name}: skipped: needs the demo database" in lines
    assert lines[-1] == "smoke test FAILED: database, window, graph, snapshot"


def test_a_blank_image_counts_as_one_colour_and_a_painted_one_as_many(qtbot: QtBot) -> None:
    blank = QImage(200, 100, QImage.Format.Format_RGB32)
    blank.fill(QColor("white"))
    assert smoke._distinct_colours(blank) == 1
    gradient = QImage(64, 1, QImage.Format.Format_RGB32)
    for x in range(64):
        gradient.setPixelColor(x, 0, QColor(x * 4, 0, 0))
    assert smoke._distinct_colours(gradient) == 64 >= smoke.MIN_COLOURS
    assert smoke._distinct_colours(QImage()) == 0


def test_it_runs_headless_in_a_fresh_process(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    res = subprocess.run(
        [sys.executable, "-c",
         "from explorer.ui.smoke import run_smoke_test; raise SystemExit(run_smoke_test())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok   keyring: backend " in res.stdout
    assert res.stdout.rstrip().endswith("smoke test passed (6 checks)")


def test_the_app_announces_the_id_of_its_desktop_file(qtbot: QtBot) -> None:
    from explorer.ui.app import APP_ID, make_application

    assert make_application().desktopFileName() == APP_ID
    assert (REPO / "packaging" / "linux" / f"{APP_ID}.desktop").is_file()
