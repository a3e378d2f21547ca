"""Writes fixtures/llm036_grown_{1,2,3}.db: one logs.db as it grows, by llm 0.36 itself.

The same prompt asked twice makes one tree in llm's message store (messages are named by
the hash of their content) with a second, newer thread; a continuation adds a third. A
re-import after each step must find the conversation it made before. Run it with llm 0.36
installed (not a dependency of the project; the files it writes are committed):

    python -m venv /tmp/llm036 && /tmp/llm036/bin/pip install llm==0.36
    /tmp/llm036/bin/python tests/core/formats/llm/make_llm036_grown.py
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["LLM_USER_PATH"] = home
        import llm
        from click.testing import CliRunner
        from llm.cli import cli
        from llm.plugins import pm

        answers = itertools.count(1)

        class Numbered(llm.Model):
            model_id = "numbered"
            can_stream = False

            def execute(self, prompt: Any, stream: bool, response: Any,
                        conversation: Any) -> Iterator[str]:
                yield f"Answer {next(answers)} to: {prompt.prompt}"
                response.set_usage(input=len((prompt.prompt or "").split()), output=4)

        class Plugin:
            @llm.hookimpl
            def register_models(self, register: Any) -> None:
                register(Numbered())

        pm.register(Plugin(), name="numbered-test-model")
        runner = CliRunner()
        steps = [["prompt", "-m", "numbered", "Hi there"],
                 ["prompt", "-m", "numbered", "Hi there"],
                 ["prompt", "-m", "numbered", "-c", "And one more thing"]]
        for n, args in enumerate(steps, 1):
            result = runner.invoke(cli, args, catch_exceptions=False)
            if result.exit_code != 0:
                sys.exit(f"llm {' '.join(args)} failed: {result.output}")
            _copy(Path(home) / "logs.db", FIXTURES / f"llm036_grown_{n}.db")


def _copy(db: Path, out: Path) -> None:
    work = out.with_suffix(".tmp")
    shutil.copyfile(db, work)
    conn = sqlite3.connect(work)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA page_size=1024")  # small pages: a small file to commit
    conn.execute("VACUUM")
    conn.close()
    work.replace(out)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
