"""E1 on the command line: a bug prints one line that says where the traceback is, the
log has it whole, and ``convo --version --verbose`` says where that log is."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import __version__
from explorer.cli import commands, main


def test_E1_version_verbose_names_the_log(capsys: pytest.CaptureFixture[str],
                                          _own_log_folder: Path) -> None:
    assert main.main(["--version"]) == 0
    assert capsys.readouterr().out == f"convo {__version__}\n"
    assert main.main(["--version", "--verbose"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"convo {__version__}"
    assert f"log: {_own_log_folder / 'convo.log'}" in out
    assert any(line.startswith("database: ") for line in out)


def test_E1_a_bug_in_a_command_is_one_line_and_a_logged_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        _own_log_folder: Path) -> None:
    db = str(tmp_path / "t.db")
    assert main.main(["--db", db, "demo"]) == 0
    capsys.readouterr()

    def broken(*_args: object) -> None:
        raise AttributeError("'NoneType' object has no attribute 'tip_id'")

    monkeypatch.setattr(commands.Store, "conversations", broken)
    assert main.main(["--db", db, "list"]) == 1
    err = capsys.readouterr().err.splitlines()
    log = _own_log_folder / "convo.log"
    assert err == [f"convo: error: convo list failed: AttributeError: 'NoneType' object has no "
                   f"attribute 'tip_id' (a bug: the traceback is in {log})"]
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "in broken" in text


def test_E1_a_command_that_goes_well_leaves_no_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], _own_log_folder: Path) -> None:
    assert main.main(["--db", str(tmp_path / "t.db"), "demo"]) == 0
    assert main.main(["--db", str(tmp_path / "t.db"), "list"]) == 0
    assert not (_own_log_folder / "convo.log").exists()
