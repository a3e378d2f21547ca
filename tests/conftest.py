"""Shared fixtures. With EXPLORER_BLOCK_QT=1 any import of PySide6 fails, so the
core's tests prove they run in an environment without Qt."""

from __future__ import annotations

import importlib.abc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs must not depend on luck: examples are derived from each test's name. Set
# HYPOTHESIS_PROFILE=explore to search with fresh random examples (and keep what fails).
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

REPO = Path(__file__).resolve().parents[1]


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


@pytest.fixture(autouse=True)
def _own_log_folder(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Nothing a test logs reaches a person's own log folder; what a test installed of the
    error log (hooks, handlers) is taken out after it."""
    from explorer.app import error_log

    folder = tmp_path_factory.mktemp("logs")
    monkeypatch.setenv("CONVO_LOG_DIR", str(folder))
    yield folder
    error_log.uninstall()


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The transcripts kept in the repository (``tests/corpus``): agents' sessions recorded by
    their real clients, and chat products' exports under ``exports/``; always there."""
    return REPO / "tests" / "corpus"


# -- the fast loop ------------------------------------------------------------------------
# `pytest -m "not slow"` leaves these out (README, "Run the tests"): whole modules that start
# processes (the crash writer, the import and graph children, fresh interpreters, mypy, ruff,
# lint-imports, tesseract), fuzz and property searches, and the long window sessions. The
# README's full command runs them all.
SLOW_MODULES = (
    "test_crash_safety.py", "test_import_child_V2.py", "test_graph_child_V2.py",
    "test_start_up.py", "test_smoke.py", "test_packaging.py", "test_project.py",
    "test_layers.py", "test_ocr_smoke.py", "test_R1_image_ocr.py", "test_error_contract.py",
    "test_generated_transcripts.py", "test_window_integrity_W1.py", "test_X1_head_stability.py",
    "test_json_stream.py", "test_store_properties.py", "test_tending_undo_T6_T7_T8.py",
    "test_screenshot_writes.py", "test_import_worker.py", "test_import_window_V2.py",
    "test_graph_tending.py", "test_render_snapshot.py", "test_cli.py",
    "test_import_all_samples.py", "test_export_requests.py", "test_tasks.py",
    "test_stream_faults_P2.py", "test_turn_columns_V2.py", "test_layout.py",
    "test_window_scale_V3.py",
    "test_share_large.py",
    "test_mcp_stdio_A1.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES or item.path.name.endswith("_fuzz.py"):
            item.add_marker(pytest.mark.slow)
