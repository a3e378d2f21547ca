"""Qt tests run offscreen: the machines that run them have no display."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[2] / "resources" / "screenshots"


@pytest.fixture
def screenshot_dir(tmp_path: Path) -> Path:
    """Where panel screenshots go: the repository's folder with CONVO_UPDATE_SCREENSHOTS=1
    (to refresh the pictures the README shows), else a temporary folder, so a test run
    never changes the checkout."""
    if os.environ.get("CONVO_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return SCREENSHOTS
    return tmp_path
