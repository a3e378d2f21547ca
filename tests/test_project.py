"""The project's own contracts: CI runs the README's test command; ruff and mypy pass; a
clone alone (without the shared sample transcripts) passes it too."""

from __future__ import annotations

import os
import re
import shutil
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


def _sample_test_run(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "tests/core/test_import_all_samples.py"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=600,
    )


def test_a_lone_clone_skips_the_sample_tests_and_says_why(tmp_path: Path) -> None:
    """No ``shared/samples`` beside the checkout and no $CONVO_SAMPLES: the tests that read
    real transcripts are skipped with the reason; nothing fails, no other path is tried."""
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "tests", clone / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", "benchmarks"))
    shutil.copy(REPO / "pyproject.toml", clone)
    env = {k: v for k, v in os.environ.items() if k != "CONVO_SAMPLES"}
    res = _sample_test_run(clone, env)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "skipped" in res.stdout and " passed" not in res.stdout
    assert f"sample transcripts not found at {tmp_path / 'shared' / 'samples'}" in res.stdout
    assert "set CONVO_SAMPLES" in res.stdout


def test_convo_samples_names_the_folder(tmp_path: Path) -> None:
    env = {**os.environ, "CONVO_SAMPLES": str(tmp_path / "nowhere")}
    res = _sample_test_run(REPO, env)
    assert res.returncode == 0 and "skipped" in res.stdout
    assert str(tmp_path / "nowhere") in res.stdout
