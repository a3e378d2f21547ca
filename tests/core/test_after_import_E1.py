"""E1: the error log hears an asyncio loop's unhandled errors without importing asyncio
into every command: it waits for asyncio's import (``app.after_import``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.after_import import after_import, forget


@pytest.fixture
def module(tmp_path: Path) -> Iterator[str]:
    name = f"waited_for_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("VALUE = 41\n")
    sys.path.insert(0, str(tmp_path))
    yield name
    sys.path.remove(str(tmp_path))
    sys.modules.pop(name, None)


def test_E1_the_callback_runs_right_after_the_import_and_once(module: str) -> None:
    seen: list[int] = []
    after_import(module, lambda: seen.append(sys.modules[module].VALUE))
    assert seen == [] and module not in sys.modules, "nothing is imported ahead of time"
    imported = __import__(module)
    assert imported.VALUE == 41 and seen == [41], "run after the module's own code"
    del sys.modules[module]
    __import__(module)
    assert seen == [41], "once"


def test_E1_an_imported_module_calls_back_at_once_and_forget_stops_the_wait(
        module: str) -> None:
    seen: list[str] = []
    assert after_import("json", lambda: seen.append("json")) is None and seen == ["json"]
    waiting = after_import(module, lambda: seen.append(module))
    assert forget(waiting) and not forget(waiting)
    __import__(module)
    assert seen == ["json"]


_COMMAND = """
import gc, sys
from explorer.app import error_log
error_log.install("convo")
print("asyncio" in sys.modules)
heard = []
error_log.add_listener(heard.append)
import asyncio

async def fails():
    raise KeyError("lost key")

async def main():
    asyncio.get_running_loop().create_task(fails())
    await asyncio.sleep(0.01)

asyncio.run(main())
gc.collect()
print([f.summary for f in heard])
"""


def test_E1_a_command_imports_no_asyncio_yet_a_loop_made_later_reports(
        tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _COMMAND], capture_output=True, text=True,
                         check=True, env={"CONVO_LOG_DIR": str(tmp_path), "PATH": "/usr/bin",
                                          "HOME": str(tmp_path)}).stdout.splitlines()
    assert out[0] == "False", "installing the log imported asyncio"
    assert "lost key" in out[1], out
    assert "lost key" in (tmp_path / "convo.log").read_text(encoding="utf-8")
