"""Exporting for a coding agent: the agent's own session folder is the default place.

For every agent a branch can be handed to, the save dialog proposes where a hand-back
would put the branch (``~/.claude/projects/<project folder>/<session id>.jsonl``, pi's
sessions folder for the project, a new Codex rollout, the Gemini CLI project's chats),
computed off the main thread; the
person may choose elsewhere. After writing, the same window as "Continue in …" shows
the path, with Copy and Open folder, and the command that resumes it; saved outside
the agent's folder, it says that the agent will not find it there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from explorer.app.importing.agent_homes import Environment
from explorer.app.sharing import exporting, handoff
from explorer.app.sharing.handoff import Handoff
from explorer.app.sharing.handoff_targets import AGENTS, TARGETS
from explorer.ui.sharing.handoff_dialog import AGENT_NAMES, HandoffDialog

if TYPE_CHECKING:
    from explorer.ui.sharing.exports import Exports

AGENT_FORMATS = AGENTS


def format_choices() -> list[str]:
    """The format picker's lines: each format with what it is for."""
    return [f"{fmt} — {exporting.purpose(fmt)}" for fmt in exporting.FORMATS]


def chosen_format(answer: str) -> str:
    return answer.split(" — ", 1)[0].strip()


def findable(done: Handoff, plan: Handoff) -> bool:
    """True when the agent finds the file where it was saved (pi opens any path; OpenCode
    imports it from anywhere)."""
    return TARGETS[done.agent].listed_anywhere or done.path.parent == plan.path.parent


def export_for_agent(exports: Exports, conv: int, agent: str, at: int | None) -> None:
    """Propose the agent's folder (planned off-thread), then write where the person chose."""
    store = exports.store

    def ask(plan: Handoff) -> None:
        suffix = exporting.EXPORTERS[agent].suffix
        dest = exports.q.ask_save_path(f"Export for {AGENT_NAMES.get(agent, agent)}",
                                       str(plan.path), f"{agent} (*{suffix});;All files (*)")
        if dest is not None:  # written off the main thread, then shown (O1)
            redact = exports.redact()  # read here, on the main thread
            exports.ops.run("Exporting",
                            lambda: _write(exports, conv, agent, at, plan, dest, redact),
                            lambda done: _shown(exports, done, dest), exports.failed,
                            refresh=lambda _done: False)

    exports.tasks.run(lambda _ticket: handoff.planned(store, conv, agent, at), on_done=ask,
                      on_failed=lambda e: exports.q.fail(str(e)))


def _write(exports: Exports, conv: int, agent: str, at: int | None, plan: Handoff,
           dest: Path, redact: bool) -> Handoff:
    """Write the branch as the agent's session at ``dest`` (on the operation runner)."""
    notes: list[str] = []
    if dest.parent == plan.path.parent:  # the agent's folder for a project it has not seen yet
        TARGETS[agent].prepare(Environment.current(), plan.cwd)
        dest.parent.mkdir(parents=True, exist_ok=True)
    place = handoff.place_for(exports.store, conv, agent, plan.cwd)
    lines = exporting.export_to_file(exports.store, conv, dest, agent, at, notes, place=place,
                                     redact=redact)
    done = Handoff(agent, dest, plan.session_id, plan.cwd,
                   handoff.resume_command(agent, plan.session_id, plan.cwd, dest), lines, notes)
    if not findable(done, plan):
        done.notes.append(f"saved outside {AGENT_NAMES.get(agent, agent)}'s folder for this "
                          f"project ({plan.path.parent}): the agent will not list it there")
    return done


def _shown(exports: Exports, done: Handoff, dest: Path) -> None:
    exports.q.tell("Export", f"wrote {done.lines} lines to {dest}")
    dialog = HandoffDialog(done, exports.parent,
                           title=f"Exported for {AGENT_NAMES.get(done.agent, done.agent)}")
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
