"""Shared fixtures. With EXPLORER_BLOCK_QT=1 any import of PySide6 fails, so the
core's tests prove they run in an environment without Qt."""

from __future__ import annotations

import importlib.abc
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs must not depend on luck: examples are derived from each test's name. Set
# HYPOTHESIS_PROFILE=explore to search with fresh random examples (and keep what fails).
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

REPO = Path(__file__).resolve().parents[1]
SAMPLES = next(
    (p for p in (Path(os.environ.get("CONVO_SAMPLES", "")), REPO.parent / "shared" / "samples",
                 Path("/work/shared/samples")) if str(p) != "." and p.is_dir()),
    REPO.parent / "shared" / "samples",
)


class _BlockQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == "PySide6" or name.startswith("PySide6."):
            raise ImportError(f"{name} is blocked: the core must not need Qt")
        return None


if os.environ.get("EXPLORER_BLOCK_QT") == "1":
    sys.meta_path.insert(0, _BlockQt())


@pytest.fixture(autouse=True)
def _own_settings_file(tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A person's own settings file never reaches a test (tests may set their own)."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("CONVO_CONFIG", str(folder / "settings.json"))


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real transcripts other tools wrote (kept outside the repository)."""
    if not SAMPLES.is_dir():
        raise RuntimeError(f"sample transcripts not found at {SAMPLES}")
    return SAMPLES
