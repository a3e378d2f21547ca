"""The command line's rule for mistakes and damage (README, "The command line"):

- a usage mistake prints one line on stderr and exits 2; a refusal one line and exits 1;
- notes about repaired or skipped data go to stderr; an import exits 0 when anything was
  imported (naming the damage) and 1 when nothing was;
- a read command on a missing database, or a database in a missing folder, creates nothing;
- without a display the window says so in one line; the screenshot and smoke test draw
  offscreen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import display
from explorer.cli.main import build_parser, main
from tests.corpus import claude_code_sessions as cc


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "e.db"
    assert run(capsys, "--db", str(path), "demo")[0] == 0
    return path


@pytest.mark.parametrize("args", [
    ["show", "99999999999999999999999"],
    ["show", "abc"],
    ["export", "1", "--at", "-99999999999999999999999"],
    ["search", "x", "--limit", "1e9"],
    ["shwo", "1"],
    ["show"],
    ["show", "1", "--bogus"],
    ["trim", "1"],
    ["export", "1", "--format", "docx"],
])
def test_usage_mistakes_are_one_line_and_exit_2(
    db: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(capsys, "--db", str(db), *args)
    assert code == 2 and out == ""
    assert one_line(err).startswith("convo")
    assert "--help" in err


def test_a_refusal_is_one_line_and_exits_1(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--db", str(db), "show", "9223372036854775807")
    assert code == 1 and one_line(err).startswith("convo: error:")


@pytest.mark.parametrize("sample", [
    "exports/sillytavern/Ferro - 2023-11-14@22h13m10s.jsonl",
    "a Claude Code reply without its prompt",  # built from the recording
])
def test_shake_and_elide_on_paths_without_a_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], corpus_dir: Path, sample: str
) -> None:
    path = (cc.reply_alone(tmp_path / "alone") if sample.startswith("a Claude Code")
            else corpus_dir / sample)
    db = str(tmp_path / "s.db")
    assert run(capsys, "--db", db, "import", str(path))[0] == 0
    for args in (["shake", "1"], ["compact", "1", "--rung", "elide"],
                 ["compact", "1", "--rung", "elide", "--json"], ["context", "1"]):
        code, out, err = run(capsys, "--db", db, *args)
        assert code == 0, err
        assert "Traceback" not in err and out


def test_a_partial_import_names_the_damage_on_stderr_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "p.db")
    code, out, err = run(capsys, "--db", db, "import", str(cc.original().parent),
                         str(tmp_path / "missing.jsonl"))
    assert code == 0
    assert "repaired/skipped" in err and "missing.jsonl: no such file" in err
    assert "repaired/skipped" not in out and "missing" not in out
    assert out.startswith("conversation ")


def test_an_import_of_nothing_readable_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n", encoding="utf-8")
    db = tmp_path / "n.db"
    code, out, err = run(capsys, "--db", str(db), "import", str(junk))
    assert code == 1 and out == ""
    assert one_line(err).startswith("convo: error: nothing imported: ")


@pytest.mark.parametrize("command", [["list"], ["show", "1"], ["search", "x"], ["tree", "1"],
                                     ["export", "1"], ["shake", "1"], ["branch", "1", "2"]])
def test_commands_on_a_missing_database_create_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    missing = tmp_path / "missing.db"
    code, _, err = run(capsys, "--db", str(missing), *command)
    assert code == 1 and "no database at" in one_line(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["list"], ["demo"], ["import", "x.jsonl"]])
def test_a_database_in_a_missing_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    db = tmp_path / "no" / "such" / "dir" / "x.db"
    code, _, err = run(capsys, "--db", str(db), *command)
    assert code == 1 and "does not exist" in one_line(err)
    assert not (tmp_path / "no").exists()


def _headless() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return env


def test_display_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert not display.available()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert display.available()
    monkeypatch.delenv("WAYLAND_DISPLAY")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert display.available()


def test_the_window_without_a_display_says_so_in_one_line(db: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db)],
                          env=_headless(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1
    assert "needs a display" in one_line(proc.stderr)


@pytest.mark.slow
def test_screenshot_and_smoke_test_without_a_display_draw_offscreen(
    db: Path, tmp_path: Path
) -> None:
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [sys.executable, "-m", "explorer.cli.main", "--db", str(db), "--screenshot", str(shot)],
        env=_headless(), capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert shot.read_bytes().startswith(b"\x89PNG")
    proc = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--smoke-test"],
                          env=_headless(), capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "platform offscreen" in proc.stdout


def test_edit_json_prints_an_object(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--db", str(db), "edit", "1", "8", "--text", "again", "--json")
    data = json.loads(out)
    assert code == 0 and isinstance(data, dict)
    assert data["edited_from"] == 8 and data["message"] == data["tip"] > 8
    code, out, _ = run(capsys, "--db", str(db), "edit", "1", "8", "--text", "plain")
    assert int(out) > data["message"]


def test_readme_lists_every_command() -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    parser = build_parser()
    names = next(a for a in parser._actions if a.dest == "command").choices
    assert names is not None
    missing = [n for n in names if f"`convo {n}" not in readme]
    assert "rerun" not in missing, missing
