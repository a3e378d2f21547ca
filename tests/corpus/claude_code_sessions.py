"""The Claude Code recording (``tests/corpus/claude_code``) by role, and the shapes Claude Code
writes only by accident or over several runs, built from it.

The recording holds two session files: the original (resumed by id, with its subagents in
``<session>/subagents/``) and the fork ``--fork-session`` made of it. A damaged or odd file
(a person's rewind in one file, a loop of parents, a reply without its prompt, a cut line) is
made by rewriting these records, so a test of it stays tied to the format the real client
writes rather than to a file written by hand.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.corpus import CORPUS, manifests

HOME = CORPUS / "claude_code" / "home"
PROJECTS = HOME / ".claude" / "projects"
MANIFEST: dict[str, Any] = manifests()["claude_code"]
FORK_PROMPT: str = MANIFEST["prompts"][3]  # the one prompt only the fork holds
# what the importer keeps as messages; every other record type is counted as ignored
MESSAGE_TYPES = ("user", "assistant", "system", "file-history-snapshot")

Record = dict[str, Any]


def sessions() -> list[Path]:
    """The session files, subagents' transcripts left out."""
    return sorted(PROJECTS.glob("*/*.jsonl"))


def original() -> Path:
    """The session that was resumed and went on: the one with a subagents folder."""
    [path] = [p for p in sessions() if (p.with_suffix("") / "subagents").is_dir()]
    return path


def fork() -> Path:
    [path] = [p for p in sessions() if p != original()]
    return path


def subagents() -> list[Path]:
    """The original's subagent transcripts (``agent-<id>.jsonl``)."""
    return sorted((original().with_suffix("") / "subagents").glob("agent-*.jsonl"))


def records(path: Path) -> list[Record]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, entries: list[Record]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def ignored(entries: list[Record]) -> Counter[str]:
    """The bookkeeping records by type: what the importer counts and leaves out."""
    return Counter(str(e.get("type")) for e in entries if e.get("type") not in MESSAGE_TYPES)


def last_uuid(entries: list[Record], kind: str = "assistant") -> str:
    return str([e for e in entries if e.get("type") == kind][-1]["uuid"])


def rewound() -> list[Record]:
    """The original with the fork's own records written after it, as a person's rewind (a
    new prompt under an earlier answer) lands in one file: two prompts below one answer."""
    entries = records(original())
    known = {e.get("uuid") or e.get("messageId") for e in entries}
    own = [e for e in records(fork()) if e.get("type") in (*MESSAGE_TYPES, "attachment")
           and (e.get("uuid") or e.get("messageId")) not in known]
    return entries + own


def fork_in_one_file(dest: Path) -> Path:
    """:func:`rewound`, written as the original's file under ``dest``."""
    return write(dest / f"{original().stem}.jsonl", rewound())


def looped(dest: Path) -> Path:
    """The fork with its first prompt's parent pointed at its last answer: a loop."""
    entries = records(fork())
    first = next(e for e in entries if e.get("type") == "user")
    first["parentUuid"] = last_uuid(entries)
    return write(dest / f"{fork().stem}.jsonl", entries)


def reply_alone(dest: Path) -> Path:
    """One line: a subagent's last answer, its parent gone (a session cut to its end)."""
    answer = records(subagents()[0])
    line = [e for e in answer if e.get("type") == "assistant"][-1]
    return write(dest / f"{line['sessionId']}.jsonl", [{**line, "parentUuid": None}])


USAGE_NAMES = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
               "cache_read_input_tokens": "cache_read_tokens",
               "cache_creation_input_tokens": "cache_write_tokens"}
"""Claude Code's usage fields, by the names the costs give them."""


def responses(paths: list[Path]) -> dict[str, Record]:
    """Each API response's ``message`` by its id: Claude Code writes a response over several
    lines (one content block each), every line with the response's usage."""
    out: dict[str, Record] = {}
    for path in paths:
        for r in records(path):
            if r.get("type") == "assistant":
                out[r["message"]["id"]] = r["message"]
    return out


def written_usage(paths: list[Path]) -> dict[str, int]:
    """The usage of ``paths``' responses summed, each response once, by the costs' names."""
    found = responses(paths).values()
    return {ours: sum(m["usage"].get(theirs) or 0 for m in found)
            for theirs, ours in USAGE_NAMES.items()}


def agent_calls(path: Path) -> list[str]:
    """The descriptions of the subagents the session's Agent (or Task) calls started."""
    return [b["input"]["description"] for r in records(path) if r.get("type") == "assistant"
            for b in r["message"]["content"]
            if b.get("type") == "tool_use" and b["name"] in ("Agent", "Task")]
