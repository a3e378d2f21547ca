"""Mistral Vibe: an OpenAI-compatible provider pointed at the fake model, driven with ``-p``."""

from __future__ import annotations

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"VIBE_HOME": str(run.home / ".vibe"), "FAKE_KEY": "fake-key-not-secret"}


def _setup(run: Run) -> None:
    home = run.home / ".vibe"
    home.mkdir()
    (home / "config.toml").write_text(
        'active_model = "fake"\n\n[[providers]]\nname = "localfake"\n'
        f'api_base = "{run.model_url}/v1"\napi_key_env_var = "FAKE_KEY"\n'
        'api_style = "openai"\nbackend = "generic"\n\n'
        '[[models]]\nname = "fake-model"\nprovider = "localfake"\nalias = "fake"\n')


def _drive(run: Run) -> None:
    flags = ["--trust", "--auto-approve"]
    run.call([*flags, "-p", run.prompt("Say hello and tell me what this folder is for.")])
    look = run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt")
    run.call([*flags, "--continue", "-p", look])
    count = run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt")
    run.call([*flags, "-p", count])


RECIPE = Recipe(
    name="mistral_vibe", tool="mistral-vibe", format="mistral_vibe", package="pypi:mistral-vibe",
    version="3.0.2", bin="vibe", python="/root/.pyenv/versions/3.13.0/bin/python",
    drive=_drive, env=_env, setup=_setup,
    collect=(".vibe/logs/session/unified/*/CURRENT", ".vibe/logs/session/unified/*/meta.json",
             ".vibe/logs/session/unified/*/generations/*/manifest.json",
             ".vibe/logs/session/unified/*/chunks/*.json",
             ".vibe/logs/session/unified/*/journal/*.jsonl"),
    exercises="two sessions; text answers; bash and read_file calls with their output; "
              "the first continued with --continue",
)
