"""Which messages are the tools' own records rather than something a person or model said.

Agents write notices into a session beside the conversation: Claude Code's ``isMeta``
text (skill expansions, the local-command caveat), a local command's output, the
"[Request interrupted by user]" line, its compaction marker and the summary it
continues from; Codex's injected context (environment, AGENTS.md); pi's extension
messages. The importers keep them (nothing is lost), and mark them; this module says
what each one is, in words for the transcript, so they can be shown apart and muted
instead of as prompts. No Qt here: the window and tests share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.tree.model import Message

PREVIEW_LINES = 4
"""Lines of a meta record shown before the rest is folded behind "show all"."""


@dataclass(frozen=True)
class MetaRecord:
    kind: str
    label: str  # what the card's header says instead of the role
    explain: str  # the header's tooltip: where it came from and why it is muted


_CLAUDE = {
    "meta": ("Claude Code note", "Text Claude Code added to the session (isMeta): the person "
             "did not type it"),
    "caveat": ("Local-command caveat", "Claude Code's note that the messages after it came "
               "from local commands"),
    "command_output": ("Command output", "What a local slash command printed (not sent as a "
                       "prompt)"),
    "interrupted": ("Interrupted", "The person stopped the response here"),
    "notice": ("Claude Code notice", "A notice Claude Code wrote into the session (a turn's "
               "duration, a hook summary, a local command...); never sent to a model"),
    "file_snapshot": ("File history snapshot", "The files Claude Code backed up before this "
                      "prompt, to undo its edits; never sent to a model"),
}

NOT_SENT = frozenset({"notice", "file_snapshot"})
"""Records a tool kept for itself: shown, exported back to it, never sent to a model."""


def sent_to_models(message: Message) -> bool:
    """False for the records in :data:`NOT_SENT` (they never reached a model either)."""
    return message.source_meta.get("meta_record") not in NOT_SENT


def meta_record(message: Message) -> MetaRecord | None:
    """What kind of tool record ``message`` is, or None for a real prompt or answer."""
    meta = message.source_meta
    kind = meta.get("meta_record")
    if isinstance(kind, str):
        label, explain = _CLAUDE.get(kind, (f"Agent record ({kind})", "A record the agent "
                                            "wrote, not a prompt"))
        notice = meta.get("notice")
        if kind == "notice" and isinstance(notice, str) and notice:
            label = f"{label} ({notice.replace('_', ' ')})"
        return MetaRecord(kind, label, explain)
    if meta.get("isCompactSummary") is True:
        return MetaRecord("compact_summary", "Compaction summary",
                          "Claude Code's summary of the turns before it compacted the session; "
                          "the model saw this instead of them")
    if message.role == "system" and "compactMetadata" in meta:
        return MetaRecord("compact_boundary", "Compaction marker" + _compaction(meta),
                          "Claude Code compacted the session here")
    if message.role == "system" and meta.get("codex_role") in ("user", "developer"):
        return MetaRecord("injected_context", "Context Codex added",
                          "Environment, instructions or AGENTS.md that Codex sent as a message; "
                          "the person did not type it")
    custom = meta.get("customType")
    if isinstance(custom, str) and meta.get("pi_role") in ("custom", "hookMessage"):
        return MetaRecord("extension", f"pi extension message ({custom})",
                          "A message a pi extension added to the session")
    return None


def _compaction(meta: dict[str, Any]) -> str:
    info = meta.get("compactMetadata")
    if not isinstance(info, dict):
        return ""
    bits = []
    if isinstance(info.get("trigger"), str):
        bits.append(str(info["trigger"]))
    tokens = info.get("preTokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        bits.append(f"{tokens:,} tokens before")
    return f" ({', '.join(bits)})" if bits else ""


def folded_preview(text: str, lines: int = PREVIEW_LINES) -> tuple[str, int]:
    """The first ``lines`` lines of ``text`` and how many more there are."""
    rows = text.strip("\n").splitlines()
    return "\n".join(rows[:lines]), max(0, len(rows) - lines)
