"""A test that needs a system program skips with the install line where it is missing, and
fails instead wherever ``CONVO_REQUIRE_SYSTEM_TOOLS=1`` (which ``.ci/run`` sets)."""

from __future__ import annotations

from pathlib import Path

import pytest
import system_tools

REPO = Path(__file__).resolve().parents[1]
ABSENT = "convo-no-such-program-7f3a"


def test_a_missing_program_skips_with_its_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(system_tools.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"apt-get install {ABSENT}-pkg"):
        system_tools.tool(ABSENT, f"{ABSENT}-pkg")


def test_where_tools_are_required_a_missing_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(system_tools.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="this run must have it"):
        system_tools.tool(ABSENT, f"{ABSENT}-pkg")


def test_a_present_program_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(system_tools.REQUIRE, "1")
    assert Path(system_tools.tool("sh", "dash")).name == "sh"


def test_ci_requires_the_tools_it_installs_before_the_readme_command() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"export {system_tools.REQUIRE}=1" in script
    command = next(line for line in script.splitlines() if "python -m pytest" in line)
    assert command in readme  # the README's own test command, unchanged
    assert script.index(f"export {system_tools.REQUIRE}=1") < script.index(command)
    for package in ("tesseract-ocr-por", "tesseract-ocr-nor", "desktop-file-utils", "appstream"):
        assert package in script
