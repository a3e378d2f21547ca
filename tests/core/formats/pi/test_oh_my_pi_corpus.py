"""The oh-my-pi 18.2.3 sessions the real client recorded (``tests/corpus/oh_my_pi``).

``omp -p`` answered, was resumed with ``--resume`` and ``--continue`` to run bash, read
and write; a ``/rewind`` extension command moved the leaf back to the first answer, so
the next prompt opened a second branch in the same file. A second session was named by
an extension command: omp wrote the name into the fixed-width ``title`` slot line that
opens each of its files (before the version 3 ``session`` header) and appended a
``title_change`` entry.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.formats import pi
from explorer.formats.base import ImportedConversation
from explorer.formats.registry import detect
from explorer.formats.tailing import Cursor
from explorer.tree.paths import children_map, message_path
from tests.corpus import CORPUS, manifests
from tests.corpus.fake_model.wire import USAGE_IN, USAGE_OUT

SESSIONS = CORPUS / "oh_my_pi" / "home" / ".omp" / "agent" / "sessions"
PROMPTS: list[str] = manifests()["oh_my_pi"]["prompts"]
NAME = "Notes, named by hand"


def _files() -> tuple[Path, Path]:
    """The branched session and the named one."""
    files = sorted(SESSIONS.glob("*/*.jsonl"))
    assert len(files) == 2
    [named] = [p for p in files if NAME in p.read_text().split("\n")[0]]
    [branched] = [p for p in files if p != named]
    return branched, named


def _one(path: Path) -> ImportedConversation:
    [conv] = list(pi.read(path))
    return conv


def _prompt(conv: ImportedConversation, text: str) -> object:
    [found] = [m.id for m in conv.messages if m.role == "user" and m.text == text]
    return found


def test_each_file_opens_with_the_title_slot_and_is_still_a_pi_session() -> None:
    for path in _files():
        slot, header = (json.loads(line) for line in path.read_text().split("\n")[:2])
        assert slot["type"] == "title" and "pad" in slot
        assert header["type"] == "session" and header["version"] == 3
        assert pi.sniff(path) and detect(path) is pi
        conv = _one(path)
        assert conv.source_id == header["id"] and conv.meta["version"] == 3
        assert conv.notes == []


def test_the_name_omp_gave_is_the_title_and_an_unnamed_session_shows_its_prompt() -> None:
    branched, named = (_one(p) for p in _files())
    assert named.title == NAME
    assert branched.title == PROMPTS[0]
    assert named.meta["model_changes"] == [{"model": "localfake/fake-model"}]


def test_the_rewound_prompt_branches_from_the_first_answer() -> None:
    conv = _one(_files()[0])
    [answer] = [m for m in conv.messages if m.parent_id == _prompt(conv, PROMPTS[0])]
    below = set(children_map(conv.messages)[answer.id])
    assert below == {_prompt(conv, PROMPTS[1]), _prompt(conv, PROMPTS[3])}
    path = [m.id for m in message_path({m.id: m for m in conv.messages}, conv.tip)]
    assert _prompt(conv, PROMPTS[3]) in path and _prompt(conv, PROMPTS[2]) not in path


def test_every_tool_omp_ran_is_paired_with_what_it_returned() -> None:
    conv = _one(_files()[0])
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    ran: dict[str, list[str]] = {}
    for m in conv.messages:
        for p in m.tool_uses():
            ran.setdefault(p.tool_name or "", []).append(results[p.tool_use_id].text)
    assert set(ran) == {"bash", "read", "write"}
    assert ran["bash"][0].startswith("notes.txt\n") and ran["bash"][1].startswith("2 notes.txt")
    assert "1:first line of the notes" in ran["read"][0]  # omp numbers the lines it reads
    assert "Successfully wrote 17 bytes to todo.txt" in ran["write"][0]
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert answers and all(m.model == "fake-model" for m in answers)
    assert all(m.usage and (m.usage.input_tokens, m.usage.output_tokens) == (USAGE_IN, USAGE_OUT)
               for m in answers)


def test_S1_a_sync_reads_on_after_omp_rewrote_the_title_slot_in_place(tmp_path: Path) -> None:
    """The slot keeps its byte length when a name is written, so a cursor taken before
    the rename still points at the first line appended after it."""
    lines = _files()[1].read_bytes().splitlines(keepends=True)
    blank = _empty_slot(json.loads(lines[0])["updatedAt"], len(lines[0]))
    renamed = next(i for i, line in enumerate(lines) if b'"title_change"' in line)
    path = tmp_path / "session.jsonl"
    path.write_bytes(blank + b"".join(lines[1:renamed]))
    first = pi.read_tail(path, None)
    assert first.conversation.title == "A second session, named by hand."
    path.write_bytes(b"".join(lines))
    after = pi.read_tail(path, Cursor.from_json(first.cursor.to_json()))
    assert after.conversation.notes == [] and after.conversation.messages == []
    assert after.cursor.offset == path.stat().st_size
    assert _one(path).title == NAME


def _empty_slot(updated: str, size: int) -> bytes:
    """A slot line of ``size`` bytes holding no title yet, as omp writes a new session."""
    def line(pad: str) -> bytes:
        slot = {"type": "title", "v": 1, "title": "", "updatedAt": updated, "pad": pad}
        return json.dumps(slot, separators=(",", ":")).encode() + b"\n"
    return line(" " * (size - len(line(""))))
