"""llm: an OpenAI-compatible model in ``extra-openai-models.yaml`` at the fake model.

The first conversation answers, is continued with ``-c`` and later, after a second
conversation with a system prompt has started, resumed by id with ``--cid``. A third runs
two tools from a ``--functions`` file (bash and read_file, executed by llm itself) and is
continued with ``-c``. llm 0.36 keeps everything in one ``logs.db``, in its message store
(``threads``, ``turns``, ``messages``, ``parts``; the classic ``responses`` table stays
empty); its write-ahead log is folded into the file before it is copied.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from tests.corpus.recipe import Recipe, Run

TOOLS = '''\
import subprocess


def bash(command: str) -> str:
    """Run a shell command in the current folder and return what it printed."""
    done = subprocess.run(command, shell=True, capture_output=True, text=True)
    return done.stdout + done.stderr


def read_file(path: str) -> str:
    """Return the text of a file."""
    with open(path) as f:
        return f.read()
'''


def _user_dir(run: Run) -> Path:
    return run.home / ".config" / "io.datasette.llm"


def _env(run: Run) -> dict[str, str]:
    return {"LLM_USER_PATH": str(_user_dir(run)), "LLM_FAKE_KEY": "fake-key-not-secret"}


def _setup(run: Run) -> None:
    user = _user_dir(run)
    user.mkdir(parents=True)
    (user / "extra-openai-models.yaml").write_text(
        "- model_id: fake-model\n  model_name: fake-model\n"
        f"  api_base: {run.model_url}/v1\n  api_key_name: fake\n  supports_tools: true\n")
    (run.home / "tools.py").write_text(TOOLS)


def _newest_conversation(run: Run) -> str:
    with closing(sqlite3.connect(_user_dir(run) / "logs.db")) as conn:
        row = conn.execute("SELECT id FROM threads "
                           "ORDER BY datetime_utc DESC, rowid DESC LIMIT 1").fetchone()
    return str(row[0])


def _checkpoint(run: Run) -> None:
    with closing(sqlite3.connect(_user_dir(run) / "logs.db")) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


def _drive(run: Run) -> None:
    run.call(["keys", "set", "fake", "--value", "fake-key-not-secret"])
    model = ["-m", "fake-model"]
    run.call([*model, run.prompt("Say hello and tell me what this folder is for.")])
    first = _newest_conversation(run)
    run.call(["-c", run.prompt("And what would you keep in it?")])
    run.call([*model, "-s", "Answer in one short sentence.",
              run.prompt("A second conversation: name a colour.")])
    run.call(["--cid", first, run.prompt("Back to the first conversation: thanks.")])
    tools = ["--functions", str(run.home / "tools.py")]
    run.call([*model, *tools, run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt")])
    run.call(["-c", *tools, run.prompt("Count the lines.\nTOOL:bash:wc -l notes.txt")])
    _checkpoint(run)


RECIPE = Recipe(
    name="llm", tool="llm", format="llm", package="pypi:llm", version="0.36", bin="llm",
    python="/root/.pyenv/versions/3.12.1/bin/python",
    drive=_drive, env=_env, setup=_setup, collect=(".config/io.datasette.llm/logs.db",),
    exercises="three conversations in one logs.db; continued with -c and resumed by id with "
              "--cid after another conversation; a system prompt; bash and read_file tools "
              "from --functions run by llm, their results sent back and answered",
)
