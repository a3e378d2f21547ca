"""Cline CLI 3: an OpenAI-compatible provider at the fake model, set with ``cline auth``,
driven with one-shot ``cline --json "<prompt>"`` runs.

Cline 3 keeps each session as ``~/.cline/data/sessions/<id>/<id>.json`` (its manifest)
and ``<id>.messages.json``; it has no task folders (those are the editor extension's).
Resuming (``--id``) needs a terminal, so each prompt is a session of its own. A run
starts Cline's hub daemon, which is stopped once the recording is done.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.corpus.recipe import Recipe, Run


def _stop_hub(run: Run) -> None:
    """End the hub daemon this recording's runs started (found by its working folder)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in argv and str(run.work).encode() in argv:
            os.kill(int(proc.name), signal.SIGTERM)


def _drive(run: Run) -> None:
    run.call(["auth", "-p", "openai", "-k", "fake-key-not-secret", "-b",
              f"{run.model_url}/v1", "-m", "fake-model"])
    try:
        run.call(["--json", run.prompt("Say hello and tell me what this folder is for.")])
        run.call(["--json", run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:bash:cat notes.txt")])
    finally:
        _stop_hub(run)


RECIPE = Recipe(
    name="cline", tool="cline", format="cline", package="npm:cline", version="3.0.65",
    bin="cline", drive=_drive, collect=(".cline/data/sessions/*/*.json",),
    exercises="two sessions; a text answer; run_commands calls with their output",
)
