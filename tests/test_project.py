"""The project's own contracts: CI runs the README's test command; ruff and mypy pass; a
copy of the tests alone, with nothing beside it, runs the import tests without a skip."""

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


# Import tests that read real transcripts: every one reads the recordings kept in tests/.
LONE_RUN = ("tests/core/test_import_all_samples.py", "tests/core/test_corpus.py",
            "tests/core/test_sync.py")


def test_a_lone_copy_of_the_tests_runs_the_import_tests_with_none_skipped(
        tmp_path: Path) -> None:
    """``tests/`` and ``pyproject.toml`` alone, no folder of transcripts beside them: the
    tests that import real sessions read the recordings in ``tests/corpus`` and all pass."""
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "tests", clone / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", "benchmarks"))
    shutil.copy(REPO / "pyproject.toml", clone)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clone"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONVO_")}
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *LONE_RUN],
        cwd=clone, capture_output=True, text=True, env=env, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    summary = res.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed in [\d.]+s(?: \(.*\))?", summary), summary
    assert int(summary.split()[0]) >= 20 and "skip" not in res.stdout.lower()


def test_no_test_reads_transcripts_from_outside_the_repository() -> None:
    """The fixture that pointed at a folder beside the checkout is gone, and nothing names
    that folder: the tests read only what the repository holds."""
    needles = ("samples" + "_dir", "shared" + "/samples", "CONVO" + "_SAMPLES")
    found = [f"{path.relative_to(REPO)}: {needle}"
             for path in sorted((REPO / "tests").rglob("*.py"))
             for needle in needles if needle in path.read_text(encoding="utf-8")]
    assert found == []
