"""Imported text cannot drive the terminal: ``convo show``/``list``/``tree``/``search``
show control and bidi characters as visible symbols; ``--json`` keeps the exact text."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.store import Store

NASTY = "red \x1b[31mALERT\x1b[0m nul\x00 bell\x07 osc\x1b]0;pwned\x07 cr\rover del\x7f " \
        "csi\x9b2J rtl\u202eevil"
TITLE = "title \x1b]2;owned\x07\x1b[2J"


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "t.db"
    assert main(["--db", str(path), "demo"]) == 0
    with Store(path) as s:
        s.edit_prompt(1, 8, NASTY)
        s.rename(1, TITLE)
    capsys.readouterr()
    return path


def no_raw_controls(text: str) -> None:
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0
           or c == "\u202e"]
    assert not bad, f"raw control characters reach the terminal: {bad!r}"


@pytest.mark.parametrize("command", [["show", "1"], ["show", "1", "--full"], ["list"],
                                     ["tree", "1"], ["search", "pwned"]])
def test_text_output_shows_control_characters_as_symbols(
    db: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    assert main(["--db", str(db), *command]) == 0
    out = capsys.readouterr().out
    no_raw_controls(out)
    assert "␛" in out


def test_show_makes_each_kind_visible(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(db), "show", "1", "--full"]) == 0
    out = capsys.readouterr().out
    assert "red ␛[31mALERT␛[0m nul␀ bell␇ osc␛]0;pwned␇ cr␍over del␡ csi\\x9b2J " \
           "rtl\\u202eevil" in out
    assert "title ␛]2;owned␇␛[2J" in out


def test_json_keeps_the_exact_text(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(db), "show", "1", "--json"]) == 0
    out = capsys.readouterr().out
    no_raw_controls(out)  # escaped as \\u sequences, which JSON readers decode exactly
    data = json.loads(out)
    assert data["conversation"]["title"] == TITLE
    assert data["path"][-1]["parts"][0]["text"] == NASTY


def test_show_on_a_real_terminal(db: Path) -> None:
    """Through the installed command, with a pseudo-terminal as its output."""
    leader, follower = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "explorer.cli.main", "--db", str(db), "show", "1", "--full"],
        stdout=follower, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
        check=False)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    out = b"".join(chunks).decode("utf-8")
    assert proc.returncode == 0, proc.stderr
    assert "␛[31mALERT" in out
    no_raw_controls(out.replace("\r\n", "\n"))


def test_export_to_a_file_is_exact(db: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "e.md"
    assert main(["--db", str(db), "export", "1", "--format", "markdown", "-o", str(out)]) == 0
    assert "\x1b[31mALERT" in out.read_text(encoding="utf-8")
