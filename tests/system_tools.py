"""Tests that need a program of the system (tesseract, desktop-file-validate, appstreamcli).

Where the program is missing they are skipped with the line that installs it, so a newcomer
who ran the README's test command is told what to add, not that the project is broken.
``.ci/run`` installs every such program and sets ``CONVO_REQUIRE_SYSTEM_TOOLS=1``, which
turns each of those skips into a failure: CI can never skip them silently.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

REQUIRE = "CONVO_REQUIRE_SYSTEM_TOOLS"


def required() -> bool:
    return os.environ.get(REQUIRE) == "1"


def missing(reason: str) -> None:
    """Skip (or, where the tools are required, fail) with ``reason``."""
    if required():
        pytest.fail(f"{reason} ({REQUIRE}=1: this run must have it)")
    pytest.skip(reason)


def tool(name: str, package: str) -> str:
    """The program's path; skipped or failed with the install line where it is missing."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} is not installed: apt-get install {package}")
        raise AssertionError("unreachable")  # pragma: no cover
    return found


def tesseract(*langs: str) -> str:
    """tesseract with the language data ``langs``; skipped or failed where either lacks."""
    exe = tool("tesseract", "tesseract-ocr")
    done = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, check=False)
    have = set(done.stdout.split())
    lacking = [lang for lang in langs if lang not in have]
    if lacking:
        packages = " ".join(f"tesseract-ocr-{lang}" for lang in lacking)
        missing(f"tesseract lacks the language data {', '.join(lacking)}: "
                f"apt-get install {packages}")
    return exe
