"""The project's own contracts: CI runs the README's test command; ruff and mypy pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(python3 -m venv .+?)\n```", text)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    run_cmd, test_cmd = _readme_commands()
    assert "pytest" in test_cmd and "convo" in run_cmd
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_cmd in ci


def test_top_level_is_the_design_card() -> None:
    allowed = {"pyproject.toml", "README.md", "explorer", "resources", "tests", "packaging",
               "installer.iss"}
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if tracked.returncode != 0:  # not a git checkout (e.g. an sdist): check the folder instead
        names = {p.name for p in REPO.iterdir()}
    else:
        names = {line.split("/")[0] for line in tracked.stdout.splitlines()}
    assert {n for n in names if not n.startswith(".")} <= allowed


def test_ruff_is_clean() -> None:
    res = subprocess.run([str(BIN / "ruff"), "check", "explorer", "tests"], cwd=REPO,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_strict_on_the_core_is_clean() -> None:
    res = subprocess.run([str(BIN / "mypy")], cwd=REPO, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_core_tests_pass_with_pyside6_blocked() -> None:
    env = {**os.environ, "EXPLORER_BLOCK_QT": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:pytest-qt", "-p", "no:cacheprovider",
         "tests/core"],
        cwd=REPO, capture_output=True, text=True, env=env,
    )
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert " passed" in res.stdout
