"""The CLI tests' common ground: a database holding the demo, made the way a person makes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``convo demo`` into a fresh file. In the demo, 8 (chardet) and 12 (utf-8 fallback) are
    siblings under 7 and the tip is 24."""
    path = tmp_path / "cli.db"
    assert run_cli(capsys, path, "demo")[0] == 0
    return path
