"""Kimi CLI: an ``openai_legacy`` provider in ``~/.kimi/config.toml`` at the fake model, driven
with ``kimi --print -p``.

1.50.0 is pinned: it is the last release that runs (1.51 and later only print that the
package is no longer maintained). The config names no key (``OPENAI_API_KEY`` gives it), so
it is kept with the sessions: the session files never name the model, and the importer reads
it from there. One session answers in text, runs Shell, ReadFile, WriteFile and
StrReplaceFile when continued with ``--continue``, and is resumed by id; a last prompt starts
a second session.
"""

from __future__ import annotations

import re

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"OPENAI_API_KEY": "fake-key-not-secret"}


def _setup(run: Run) -> None:
    share = run.home / ".kimi"
    share.mkdir()
    (share / "config.toml").write_text(
        'default_model = "fake"\ntelemetry = false\n\n'
        f'[providers.localfake]\ntype = "openai_legacy"\nbase_url = "{run.model_url}/v1"\n'
        'api_key = ""\n\n'
        '[models.fake]\nprovider = "localfake"\nmodel = "fake-model"\n'
        "max_context_size = 128000\n")


def _ask(run: Run, text: str, *more: str) -> str:
    proc = run.call(["--print", *more, "-p", text])
    found = re.findall(r"kimi -r ([0-9a-f-]{36})", proc.stdout + proc.stderr)
    if not found:
        raise RuntimeError("kimi printed no session id")
    return str(found[-1])


def _drive(run: Run) -> None:
    notes = run.work / "notes.txt"
    session = _ask(run, run.prompt("Say hello and tell me what this folder is for."))
    _ask(run, run.prompt(f"Look around.\nTOOL:bash:ls -1\nTOOL:read:{notes}\n"
                         f"TOOL:write:{run.work / 'todo.txt'}:buy milk\\nwalk dog\n"
                         f"TOOL:edit:{notes}:second line=>2nd line"), "--continue")
    _ask(run, run.prompt("Thanks, that is all."), "--session", session)
    _ask(run, run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt"))


RECIPE = Recipe(
    name="kimi_cli", tool="kimi-cli", format="kimi_cli", package="pypi:kimi-cli",
    version="1.50.0", bin="kimi", python="/root/.pyenv/versions/3.13.0/bin/python",
    drive=_drive, env=_env, setup=_setup,
    collect=(".kimi/sessions/*/*/wire.jsonl", ".kimi/sessions/*/*/state.json",
             ".kimi/config.toml", ".kimi/kimi.json"),
    exercises="text answers; Shell, ReadFile, WriteFile and StrReplaceFile calls with their "
              "results; continued with --continue and resumed by id; a second session",
)
