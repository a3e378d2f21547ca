"""oh-my-pi (``omp``, a fork of pi): a custom provider in ``models.yml`` at the fake model,
driven with ``omp -p``.

The pinned 18.3.4 cannot be installed here: the registry holds no 18.3.4 of the
``@oh-my-pi/*`` packages it pins exactly (``omp-stats``, ``pi-ai``, ``pi-utils``, ...), so
the newest version whose whole set it holds, 18.2.3, is used. ``omp`` runs on Bun
(``#!/usr/bin/env bun``), installed beside it from the ``bun`` package.

One session answers in text, is resumed by id (``--resume``) to run bash and read, and
with ``--continue`` to write a file; a ``/rewind`` extension command moves the leaf back
to the first answer the way ``/tree`` does, so the next prompt opens a second branch in
the same file. A second session is named by a ``/name`` extension command (``/rename``
is not run in ``-p`` mode; the command calls the same ``setSessionName``). omp's
session files open with a fixed-width ``title`` slot line before the ``session`` header
(version 3); a name is written into that slot in place and appended as a
``title_change`` entry. omp's ``edit`` takes a line-anchored patch keyed to the hash its
last ``read`` printed, which the fake model does not write, so no edit is recorded.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.corpus.agents.pi import models
from tests.corpus.recipe import Recipe, Run

BUN = "1.4.5"
TITLE = "Notes, named by hand"
COMMANDS = """\
export default function (pi) {
  pi.registerCommand("rewind", {
    description: "Go back to the first answer, as /tree would",
    handler: async (_args, ctx) => {
      const prompts = ctx.sessionManager.getBranch()
        .filter((e) => e.type === "message" && e.message.role === "user");
      await ctx.navigateTree(prompts[1].parentId, { summarize: false });
    },
  });
  pi.registerCommand("name", {
    description: "Name the session, as /rename does",
    handler: async (args) => { await pi.setSessionName(String(args).trim()); },
  });
}
"""


def _agent_dir(run: Run) -> Path:
    return run.home / ".omp" / "agent"


def _env(run: Run) -> dict[str, str]:
    # omp's shebang asks for bun, which the install puts beside omp itself.
    return {"PATH": f"{run.exe.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PI_SKIP_VERSION_CHECK": "1", "PI_OFFLINE": "1"}


def _install_bun(run: Run) -> None:
    """Bun into the same prefix as omp, once (the recipe installs only the named package)."""
    if not (run.exe.parent / "bun").exists():
        prefix = run.exe.parent.parent.parent
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                        f"bun@{BUN}"], check=True)


def _setup(run: Run) -> None:
    _install_bun(run)
    agent = _agent_dir(run)
    agent.mkdir(parents=True)
    (agent / "models.yml").write_text(models(run))  # JSON is YAML: omp reads models.yml
    (run.home / "commands.js").write_text(COMMANDS)


def _session_ids(run: Run) -> list[str]:
    files = sorted((_agent_dir(run) / "sessions").glob("*/*.jsonl"))
    return [p.stem.rsplit("_", 1)[-1] for p in files]


def _ask(run: Run, *texts: str, more: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return run.call(["--model", "localfake/fake-model", "--no-extensions", "--no-lsp", "--no-pty",
                     "--no-title", "-e", str(run.home / "commands.js"), *more, "-p", *texts])


def _drive(run: Run) -> None:
    _ask(run, run.prompt("Say hello and tell me what this folder is for."))
    [session] = _session_ids(run)
    _ask(run, run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt"),
         more=("--resume", session))
    _ask(run, run.prompt("Write a file.\nTOOL:write:todo.txt:buy milk\\nwalk dog"),
         more=("--continue",))
    _ask(run, "/rewind", run.prompt("A different road from the first answer: count the lines."
                                    "\nTOOL:bash:wc -l notes.txt"),
         more=("--resume", session))
    _ask(run, run.prompt("A second session, named by hand."), f"/name {TITLE}")


RECIPE = Recipe(
    name="oh_my_pi", tool="oh-my-pi", format="pi", package="npm:@oh-my-pi/pi-coding-agent",
    version="18.2.3", bin="omp",
    drive=_drive, env=_env, setup=_setup, collect=(".omp/agent/sessions/**/*.jsonl",),
    exercises="text answer; bash, read and write calls with their results; resumed by id "
              "and with --continue; a second branch inside the session file (the leaf moved "
              "back as /tree does); a second session named from an extension command (the title "
              "slot line and a title_change entry)",
)
