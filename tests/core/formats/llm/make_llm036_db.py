"""Writes fixtures/llm036_logs.db by running llm 0.36 itself with a scripted model.

The importer must read what llm really writes, not a schema copied by hand, so
this script logs through llm's own code: a tiny in-process model plugin that
answers from a script, calls tools (with and without a call id) and is given a
fragment (``llm -f``). Run it with llm 0.36 installed (not a dependency of the
project; the .db it writes is committed):

    python -m venv /tmp/llm036 && /tmp/llm036/bin/pip install llm==0.36
    /tmp/llm036/bin/python tests/core/formats/llm/make_llm036_db.py
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "fixtures" / "llm036_logs.db"
FRAGMENT = "The harbour opens at six.\nBoats leave at seven.\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["LLM_USER_PATH"] = home
        import llm
        from click.testing import CliRunner
        from llm.cli import cli
        from llm.plugins import pm

        assert llm.__version__ if hasattr(llm, "__version__") else True

        class Scripted(llm.Model):
            model_id = "scripted"
            supports_tools = True
            can_stream = False

            def execute(self, prompt: Any, stream: bool, response: Any,
                        conversation: Any) -> Iterator[str]:
                text = prompt.prompt or ""
                if prompt.tool_results:
                    outs = ", ".join(r.output for r in prompt.tool_results)
                    yield f"The tools said: {outs}."
                elif "twice" in text and prompt.tools:
                    # A provider that gives no call ids: llm makes its own.
                    response.add_tool_call(llm.ToolCall(name="add", arguments={"a": 1, "b": 1}))
                    response.add_tool_call(llm.ToolCall(name="add", arguments={"a": 4, "b": 5}))
                    yield ""
                elif "add" in text and prompt.tools:
                    response.add_tool_call(llm.ToolCall(
                        name="add", arguments={"a": 2, "b": 3}, tool_call_id="call_add_1"))
                    yield "Let me add those."
                elif "fail" in text and prompt.tools:
                    response.add_tool_call(llm.ToolCall(
                        name="boom", arguments={}, tool_call_id="call_boom"))
                    yield ""
                else:
                    yield f"Echo: {text[-40:]}"
                response.set_usage(input=len(text.split()), output=5)

        class Plugin:
            @llm.hookimpl
            def register_models(self, register: Any) -> None:
                register(Scripted())

            @llm.hookimpl
            def register_tools(self, register: Any) -> None:
                def add(a: int, b: int) -> int:
                    """Add two numbers."""
                    return a + b

                def boom() -> str:
                    """Always fails."""
                    raise ValueError("the boom tool failed on purpose")

                register(add)
                register(boom)

        pm.register(Plugin(), name="scripted-test-model")
        fragment = Path(home) / "notes.txt"
        fragment.write_text(FRAGMENT, encoding="utf-8")
        runner = CliRunner()
        runs = [
            ["prompt", "-m", "scripted", "Hello there"],
            ["prompt", "-m", "scripted", "-c", "Say it again"],
            ["prompt", "-m", "scripted", "-T", "add", "Please add 2 and 3"],
            ["prompt", "-m", "scripted", "-T", "add", "Please add twice"],
            ["prompt", "-m", "scripted", "-T", "boom", "Please fail"],
            ["prompt", "-m", "scripted", "-f", str(fragment), "When do boats leave?"],
        ]
        for args in runs:
            result = runner.invoke(cli, args, catch_exceptions=False)
            if result.exit_code != 0:
                sys.exit(f"llm {' '.join(args)} failed: {result.output}")
        db = Path(home) / "logs.db"
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.unlink(missing_ok=True)
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA page_size=1024")  # small pages: a small file to commit
        conn.execute("VACUUM")
        conn.close()
        shutil.copyfile(db, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
