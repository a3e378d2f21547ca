"""The ``convo`` command line as a black box: output, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli as run


def test_list_and_show_in_text_and_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, db, "list", "--json")
    rows = json.loads(out)
    assert code == 0 and {r["title"] for r in rows} >= {
        "Nightly orders import crashes on some CSV files"}
    main_id = min(r["id"] for r in rows)
    code, out, _ = run(capsys, db, "show", str(main_id), "--json")
    shown = json.loads(out)
    assert shown["path"][-1]["id"] == shown["conversation"]["tip_id"]
    code, out, _ = run(capsys, db, "show", str(main_id))
    assert "UnicodeDecodeError" in out


def test_tree_marks_branches_tip_and_labels(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, db, "tree", "1")
    assert code == 0
    assert "[diagnosed]" in out and "◆" in out and "├─" in out and "(rewound to diagnosed)" in out


def test_branch_edit_fork_checkpoint_rewind_trim_flow(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, db, "branch", "1", "11")[0] == 0
    code, out, _ = run(capsys, db, "show", "1", "--json")
    assert json.loads(out)["conversation"]["tip_id"] == 11
    code, out, _ = run(capsys, db, "edit", "1", "8", "--text", "Try charset-normalizer instead")
    new = int(out)
    code, out, _ = run(capsys, db, "fork", "1", str(new))
    fork_id = int(out)
    assert fork_id > 2
    assert run(capsys, db, "checkpoint", "1", "mine")[0] == 0
    code, out, _ = run(capsys, db, "rewind", "1", "diagnosed", "--json")
    assert json.loads(out)["tip"] == 7
    assert run(capsys, db, "branch", "1", "24")[0] == 0
    code, out, _ = run(capsys, db, "trim", "1", "--keep-turns", "1", "--json")
    assert code == 0 and json.loads(out)["dropped_checkpoints"] == ["diagnosed", "fixed"]


@pytest.mark.parametrize("args, fragment", [
    (["show", "999"], "no conversation 999"),
    (["branch", "1", "99999"], "no message 99999"),
    (["checkpoint", "1", "x", "--at", "5"], "inside a turn"),
    (["rewind", "1", "nope"], "no checkpoint 'nope'"),
    (["edit", "1", "3", "--text", "x"], "not a prompt"),
    (["import", "/definitely/missing.jsonl"], "no such file"),
])
def test_a_mistake_is_one_line_on_stderr_and_a_nonzero_exit(
    db: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    code, _, err = run(capsys, db, *args)
    assert code != 0
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_unknown_file_format_is_a_clear_error(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\n")
    code, _, err = run(capsys, db, "import", str(junk))
    assert code != 0 and "not a transcript format" in err


def test_export_and_import_through_the_command_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "fork.jsonl"
    assert run(capsys, db, "export", "2", "--format", "native", "-o", str(out_file))[0] == 0
    other = tmp_path / "other.db"
    code, out, _ = run(capsys, other, "import", str(out_file), "--json")
    report = json.loads(out)
    assert code == 0 and report["added_messages"] == 15


def test_search(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, db, "search", "chardet", "--json")
    assert code == 0 and len(json.loads(out)) >= 2


def test_console_script_runs_headless(tmp_path: Path) -> None:
    db = tmp_path / "sub.db"
    res = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), "demo"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "demo conversation" in res.stdout
    res = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), "show", "77"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and res.stderr.strip() == "convo: error: no conversation 77"


@pytest.mark.parametrize("fmt", ["markdown", "html", "claude-code", "pi", "anthropic", "openai"])
def test_every_export_format_writes_a_file_and_names_what_it_changed(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out_file = tmp_path / f"out.{fmt}"
    code, _, err = run(capsys, db, "export", "1", "--format", fmt, "-o", str(out_file))
    assert code == 0 and out_file.stat().st_size > 1000
    assert "cp1252" in out_file.read_text(encoding="utf-8")
    if fmt in ("claude-code", "pi"):
        assert "note: message 1: system message left out" in err


def test_a_command_line_that_only_opens_the_window_is_read_without_the_subcommands() -> None:
    from explorer.cli.main import window_arguments

    args = window_arguments(["--db", "x.db", "--conversation", "3"])
    assert args is not None and args.db == "x.db" and args.conversation == 3
    assert args.command is None and not args.smoke_test
    # Anything else goes to the full parser, which knows the subcommands and reports mistakes.
    for words in (["show", "1"], ["--db", "x.db", "tree"], ["-h"], ["--conversation", "abc"],
                  ["--conversation", str(1 << 63)]):
        assert window_arguments(words) is None, words
