"""Hand a branch to each agent and resume it with the real client: ``python -m
tests.corpus.handoff_check [--agent NAME]``.

The branch is the recorded Claude Code session (a text answer, then Bash, Read, Write and
Edit calls with their results). For each agent it is handed back into a fresh fake home,
the agent's real client (the recipe's pinned version) resumes it against the fake model
with one more prompt, and the first request that carries that prompt is checked: every
prompt of the branch in order, then the new one, and every call answered by its result
before the next prompt. Then ``convo sync`` reads the agent's folder back: the
continued session must land under the branch's end, not as a copy (H1). Not part of
the test run (it installs and runs the clients); run it before a release and quote its
table.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.app.sharing.handoff import Handoff, handoff
from explorer.store import Store
from explorer.store.reads_all import conversation_messages
from tests.corpus import claude_code_sessions
from tests.corpus.agents import RECIPES
from tests.corpus.fake_model.server import FakeModel
from tests.corpus.handoff_bodies import Event, events
from tests.corpus.recipe import Run

LOGS = Path(tempfile.gettempdir()) / "convo-handoff-check"
NEXT = "Go on from here: what did we change?"
Resume = Callable[[Run, Handoff], None]

RESUMES: dict[str, tuple[str, Resume]] = {
    "claude-code": ("claude_code", lambda run, h: run.call(
        ["-p", "--model", "claude-sonnet-4-5", "--resume", h.session_id, "--", NEXT])),
    "pi": ("pi", lambda run, h: run.call(
        ["--provider", "localfake", "--model", "fake-model", "--no-extensions",
         "--session", str(h.path), "-p", NEXT])),
    "codex": ("codex", lambda run, h: run.call(
        ["exec", "--skip-git-repo-check", "resume", h.session_id, NEXT])),
    "gemini-cli": ("gemini_cli", lambda run, h: run.call(
        ["-m", "gemini-2.5-flash", "--approval-mode", "yolo", "--resume", h.session_id,
         "-p", NEXT])),
    "opencode": ("opencode", lambda run, h: (
        run.call(["import", str(h.path)]),
        run.call(["run", "--session", h.session_id, NEXT]))[-1]),
}


def branch_file() -> Path:
    """The recorded Claude Code session: thinking, three calls at once (one reading a
    picture), failing calls, two subagents, a compaction."""
    return claude_code_sessions.original()


def check(agent: str) -> dict[str, Any]:
    recipe_name, resume = RESUMES[agent]
    recipe = RECIPES[recipe_name]
    exe = recipe.install()
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / f"{agent}.requests.jsonl").unlink(missing_ok=True)  # this run's requests only
    with FakeModel(LOGS / f"{agent}.requests.jsonl") as fake, \
            tempfile.TemporaryDirectory() as scratch:
        run = recipe.fresh_run(exe, fake.url, Path(scratch) / "agents")
        env = Environment(run.home, run.env)
        with Store(Path(scratch) / "check.db") as store:
            cid = import_paths(store, [branch_file()]).conversations[0].conversation_id
            branch = store.path(cid)
            prompts = [m.text.strip() for m in branch if m.role == "user" and m.text.strip()]
            calls = sum(len(m.tool_uses()) for m in branch)
            done = handoff(store, cid, agent, env=env, cwd=str(run.work))
            try:
                resume(run, done)
            finally:
                (LOGS / f"{agent}.log").write_text("\n".join(run.log))
            bodies = [r for r in fake.requests if r.get("method") == "POST"]
            back = _synced_back(store, env, agent, cid, branch[-1].id)
    first = next((events(r["path"], r["body"]) for r in bodies
                  if any(NEXT in e.text for e in events(r["path"], r["body"]))), None)
    problems = done.differences + _problems(first, prompts, calls)
    return {"agent": agent, "client": f"{recipe.package.split(':', 1)[1]}@{recipe.version}",
            "file": str(done.path), "calls": calls, "problems": problems, "back": back}


def _synced_back(store: Store, env: Environment, agent: str, cid: int, end: int) -> str:
    """What ``convo sync`` makes of the continued session: under the branch (H1), or not."""
    before = {c.id for c in store.conversations()}
    report = sync_sources(store, env, {agent})
    if report.errors:
        return "sync failed: " + "; ".join(report.errors)[:200]
    added = {c.id for c in store.conversations()} - before
    asked = [m for m in conversation_messages(store.reader, cid)
             if m.role == "user" and NEXT in m.text]
    if not asked:
        return f"not linked: {len(added)} new conversation(s)"
    under = end in store.path_ids(asked[0].id)
    copies = f", {len(added)} new conversation(s)" if added else ""
    return ("linked under the branch" if under else "in the conversation, off the branch") \
        + copies


def _problems(sent: list[Event] | None, prompts: list[str], calls: int) -> list[str]:
    if sent is None:
        return ["no request carried the new prompt"]
    said = [e.text for e in sent if e.kind == "user"]
    at, offset = 0, 0  # prompts sent together (OpenCode joins them) follow in one message
    for prompt in [*prompts, NEXT]:
        found = None
        for i in range(at, len(said)):
            where = said[i].find(prompt, offset if i == at else 0)
            if where >= 0:
                found = (i, where + len(prompt))
                break
        if found is None:
            return [f"prompt missing or out of order: {prompt[:60]!r}"]
        at, offset = found
    open_calls: list[str] = []
    seen = 0
    for e in sent:
        if e.kind == "call":
            open_calls.append(e.text)
            seen += 1
        elif e.kind == "result" and e.text in open_calls:
            open_calls.remove(e.text)
        elif e.kind == "user" and open_calls:
            return [f"calls {open_calls} not answered before the next prompt"]
    if seen < calls:
        return [f"{seen} of the branch's {calls} calls were sent"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.corpus.handoff_check")
    parser.add_argument("--agent", action="append", choices=sorted(RESUMES))
    args = parser.parse_args(argv)
    failed = 0
    print("| agent | client | calls sent | resumed by the real client | synced back |\n"
          "|---|---|---|---|---|")
    for agent in args.agent or list(RESUMES):
        try:
            row = check(agent)
        except Exception as exc:  # one agent failing never hides the others
            row = {"agent": agent, "client": "?", "calls": "?", "problems": [str(exc)[:300]],
                   "back": "?"}
        failed += bool(row["problems"])
        verdict = "yes, branch in order, calls paired" if not row["problems"] else \
            "NO: " + "; ".join(row["problems"])
        failed += not str(row["back"]).startswith("linked under the branch")
        print(f"| {agent} | {row['client']} | {row['calls']} | {verdict} | {row['back']} |",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
