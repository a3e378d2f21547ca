"""GitHub Copilot CLI: its own bring-your-own-key provider (``COPILOT_PROVIDER_*``) pointed
at the fake model's chat completions, offline, driven with ``-p`` and resumed by id."""

from __future__ import annotations

import re

from tests.corpus.recipe import CACHE, Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"COPILOT_OFFLINE": "1", "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_TYPE": "openai", "COPILOT_PROVIDER_BASE_URL": f"{run.model_url}/v1",
            "COPILOT_PROVIDER_API_KEY": "fake-key-not-secret", "COPILOT_MODEL": "fake-model",
            "COPILOT_PKG_CACHE_HOME": str(CACHE / "copilot-pkg")}


def _session_id(out: str) -> str:
    match = re.search(r"--resume=([0-9a-f-]{36})", out)
    if not match:
        raise RuntimeError("copilot printed no session id to resume")
    return match.group(1)


def _drive(run: Run) -> None:
    ask = ["--allow-all-tools", "--no-color", "-p"]
    first = run.call([*ask, run.prompt("Say hello and tell me what this folder is for.")])
    session = _session_id(first.stdout + first.stderr)
    look = run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt\n"
                      "TOOL:write:todo.txt:buy milk\nTOOL:edit:todo.txt:milk=>bread")
    run.call([f"--resume={session}", *ask, look])
    run.call([f"--resume={session}", *ask, run.prompt("Thanks, that is all.")])
    run.call([*ask, run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt")])


RECIPE = Recipe(
    name="copilot", tool="copilot", format="copilot_cli", package="npm:@github/copilot",
    version="1.0.102", bin="copilot",
    drive=_drive, env=_env, collect=(".copilot/session-state/*/events.jsonl",),
    exercises="two sessions; text answers; bash, view, create and edit calls with their "
              "results; resumed twice by id",
)
