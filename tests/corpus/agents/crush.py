"""Crush: an OpenAI-compatible provider in ``~/.config/crush/crush.json`` pointed at the fake
model, driven with ``crush run`` (which approves tools by itself) and continued with ``-C``.

The data folder is Crush's global one (``-D``), so the database lands under the fake home
beside ``projects.json``; Crush checkpoints its ``-wal`` when it exits, and a ``-wal``
left behind is collected too.
"""

from __future__ import annotations

import json

from tests.corpus.recipe import Recipe, Run

DATA = ".local/share/crush"


def _env(run: Run) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(run.home / ".config"),
            "XDG_DATA_HOME": str(run.home / ".local" / "share"),
            "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE": "1", "CRUSH_DISABLE_METRICS": "1",
            "DO_NOT_TRACK": "1"}


def _setup(run: Run) -> None:
    folder = run.home / ".config" / "crush"
    folder.mkdir(parents=True)
    model = {"id": "fake-model", "name": "Fake model", "context_window": 128000,
             "default_max_tokens": 4096}
    config = {
        "providers": {"fake": {"name": "Fake", "type": "openai-compat",
                               "base_url": f"{run.model_url}/v1",
                               "api_key": "fake-key-not-secret", "models": [model]}},
        "models": {"large": {"model": "fake-model", "provider": "fake"},
                   "small": {"model": "fake-model", "provider": "fake"}},
        "options": {"disable_provider_auto_update": True},
    }
    (folder / "crush.json").write_text(json.dumps(config, indent=2))


def _drive(run: Run) -> None:
    crush = ["-D", str(run.home / DATA), "run", "-q"]
    run.call([*crush, run.prompt("Say hello and tell me what this folder is for.")])
    look = run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt")
    run.call([*crush, "-C", look])
    change = run.prompt("Write a file and change it.\nTOOL:write:plan.txt:step one\\nstep two\n"
                        "TOOL:read:plan.txt\nTOOL:edit:plan.txt:step two=>step 2")
    run.call([*crush, "-C", change])
    run.call([*crush, run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt")])


RECIPE = Recipe(
    name="crush", tool="crush", format="crush", package="npm:@charmland/crush",
    version="0.96.1", bin="crush",
    drive=_drive, env=_env, setup=_setup,
    collect=(f"{DATA}/crush.db", f"{DATA}/crush.db-wal", f"{DATA}/projects.json"),
    exercises="two sessions; text answers; shell, view, write and edit calls with their "
              "results; continued twice with -C",
)
