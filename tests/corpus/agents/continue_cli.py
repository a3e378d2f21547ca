"""Continue CLI (``cn``): an OpenAI-compatible model in ``~/.continue/config.yaml`` pointed at
the fake model, driven headless with ``-p`` and continued with ``--resume``."""

from __future__ import annotations

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"CONTINUE_GLOBAL_DIR": str(run.home / ".continue")}


def _setup(run: Run) -> None:
    home = run.home / ".continue"
    home.mkdir()
    (home / "config.yaml").write_text(
        "name: Recorded\nversion: 1.0.0\nschema: v1\nmodels:\n"
        "  - name: Fake model\n    provider: openai\n    model: fake-model\n"
        f"    apiBase: {run.model_url}/v1\n    apiKey: fake-key-not-secret\n"
        "    roles: [chat, edit, apply]\n")


def _drive(run: Run) -> None:
    config = ["--config", str(run.home / ".continue" / "config.yaml"), "--auto", "-p"]
    run.call([*config, run.prompt("Say hello and tell me what this folder is for.")])
    look = run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt")
    run.call([*config, "--resume", look])
    change = run.prompt("Write a file and change it.\nTOOL:write:plan.txt:step one\\nstep two\n"
                        "TOOL:read:plan.txt\nTOOL:edit:plan.txt:step two=>step 2")
    run.call([*config, "--resume", change])
    count = run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt")
    run.call([*config, count])


RECIPE = Recipe(
    name="continue_cli", tool="continue", format="continue_cli", package="npm:@continuedev/cli",
    version="1.5.47", bin="cn",
    drive=_drive, env=_env, setup=_setup, collect=(".continue/sessions/*.json",),
    exercises="two sessions; text answers; shell, read, write and edit calls with their "
              "results; resumed twice with --resume",
)
