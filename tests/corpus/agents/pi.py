"""pi: a custom provider in ``models.json`` at the fake model, driven with ``pi -p``.

One session answers in text, runs bash, read, write and edit, and is resumed by id and
with ``--continue``. pi branches inside the session file (entries name their ``parentId``);
its ``/tree`` is interactive, so a small extension command, ``/rewind``, moves the leaf
back to the first answer the way ``/tree`` does, and the next prompt starts a second
branch in the same file. ``--fork`` then copies the session into a file of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.corpus.recipe import Recipe, Run

REWIND = """\
export default function (pi) {
  pi.registerCommand("rewind", {
    description: "Go back to the first answer, as /tree would",
    handler: async (_args, ctx) => {
      const prompts = ctx.sessionManager.getBranch()
        .filter((e) => e.type === "message" && e.message.role === "user");
      await ctx.navigateTree(prompts[1].parentId, { summarize: false });
    },
  });
}
"""


def _agent_dir(run: Run) -> Path:
    return run.home / ".pi" / "agent"


def _env(run: Run) -> dict[str, str]:
    return {"PI_CODING_AGENT_DIR": str(_agent_dir(run)), "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1"}


def models(run: Run) -> str:
    """pi's models file (oh-my-pi reads the same, as YAML): the fake model as a provider."""
    provider = {"baseUrl": f"{run.model_url}/v1", "api": "openai-completions",
                "apiKey": "fake-key-not-secret",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": "fake-model", "name": "Fake model"}]}
    return json.dumps({"providers": {"localfake": provider}})


def _setup(run: Run) -> None:
    agent = _agent_dir(run)
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(models(run))
    (run.home / "rewind.js").write_text(REWIND)


def _session_ids(run: Run) -> set[str]:
    return {p.stem.rsplit("_", 1)[-1] for p in (_agent_dir(run) / "sessions").glob("*/*.jsonl")}


def _ask(run: Run, *texts: str, more: tuple[str, ...] = ()) -> None:
    run.call(["--provider", "localfake", "--model", "fake-model", "--no-extensions",
              "-e", str(run.home / "rewind.js"), *more, "-p", *texts])


def _drive(run: Run) -> None:
    _ask(run, run.prompt("Say hello and tell me what this folder is for."))
    [session] = _session_ids(run)
    _ask(run, run.prompt("Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt"),
         more=("--session", session))
    _ask(run, run.prompt("Write and then edit a file.\nTOOL:write:todo.txt:buy milk\\nwalk dog\n"
                         "TOOL:edit:todo.txt:buy milk=>buy oat milk"), more=("--continue",))
    _ask(run, "/rewind", run.prompt("A different road from the first answer: count the lines."
                                    "\nTOOL:bash:wc -l notes.txt"), more=("--session", session))
    _ask(run, run.prompt("A copy of its own: thanks, that is all."), more=("--fork", session))


RECIPE = Recipe(
    name="pi", tool="pi", format="pi", package="npm:@mariozechner/pi-coding-agent",
    version="0.73.1", bin="pi",
    drive=_drive, env=_env, setup=_setup, collect=(".pi/agent/sessions/**/*.jsonl",),
    exercises="text answer; bash, read, write and edit calls with their results; resumed by "
              "id and with --continue; a second branch inside the session file (the leaf "
              "moved back as /tree does); the session forked into a new file with --fork",
)
