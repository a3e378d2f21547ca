"""aider: an OpenAI-compatible provider pointed at the fake model, driven with ``--message``.

aider writes its history into the folder it runs in, so the work folder is put under the
fake home (``~/projects/notes``), where ``convo sources`` looks for project folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.corpus.recipe import Recipe, Run

PROJECT = Path("projects") / "notes"


def _setup(run: Run) -> None:
    work = run.home / PROJECT
    work.parent.mkdir(parents=True)
    shutil.move(str(run.work), work)
    run.work = work


def _drive(run: Run) -> None:
    base = ["--openai-api-base", f"{run.model_url}/v1", "--openai-api-key", "fake-key-not-secret",
            "--model", "openai/fake-model", "--edit-format", "diff", "--no-git", "--yes-always",
            "--no-check-update", "--no-show-model-warnings", "--no-analytics", "--no-pretty",
            "--no-show-release-notes"]
    run.call([*base, "--message", run.prompt("Say hello and tell me what this folder is for.")])
    edit = run.prompt("Change the second line.\n"
                      "TOOL:aider-edit:notes.txt:second line=>second line, edited")
    run.call([*base, "notes.txt", "--message", edit])
    again = ["--restore-chat-history", *base]
    run.call([*again, "--message", run.prompt("/run cat notes.txt")])
    run.call([*again, "--message", run.prompt("Thanks, that is all.")])


RECIPE = Recipe(
    name="aider", tool="aider", format="aider", package="pypi:aider-chat", version="0.86.2",
    bin="aider", python="/root/.pyenv/versions/3.12.1/bin/python",
    drive=_drive, setup=_setup, collect=(str(PROJECT / ".aider.chat.history.md"),),
    exercises="four runs in one project's history; a SEARCH/REPLACE edit applied; a /run "
              "command; two runs restoring the history",
)
