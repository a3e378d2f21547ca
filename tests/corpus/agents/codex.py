"""Codex CLI: a custom Responses provider pointed at the fake model, driven with ``exec``."""

from __future__ import annotations

import json
import re

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"CODEX_HOME": str(run.home / ".codex"), "FAKE_KEY": "fake-key-not-secret"}


def _setup(run: Run) -> None:
    home = run.home / ".codex"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "fake-model"\nmodel_provider = "localfake"\n\n'
        '[model_providers.localfake]\nname = "Local fake"\n'
        f'base_url = "{run.model_url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n')


def _thread_id(out: str) -> str:
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "thread.started":
            return str(event["thread_id"])
    match = re.search(r"session id: ([0-9a-f-]{36})", out)
    if not match:
        raise RuntimeError("codex printed no session id")
    return match.group(1)


def _drive(run: Run) -> None:
    exec_ = ["exec", "--skip-git-repo-check", "--json"]
    first = run.call([*exec_, run.prompt("Say hello and tell me what this folder is for.")])
    thread = _thread_id(first.stdout + first.stderr)
    look = run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:bash:cat notes.txt")
    run.call([*exec_, "resume", thread, look])
    run.call([*exec_, "resume", thread, run.prompt("Thanks, that is all.")])
    count = run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt")
    run.call([*exec_, count])


RECIPE = Recipe(
    name="codex", tool="codex", format="codex", package="npm:@openai/codex", version="0.171.0",
    bin="codex",
    drive=_drive, env=_env, setup=_setup, collect=(".codex/sessions/**/*.jsonl",),
    exercises="two sessions; text answers; shell calls with their output; resumed twice by id",
)
