"""Mutated real sessions (the recording, its subagent and a rewind in one file built from
it) never make the importer fail with anything but FormatError."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import claude_code
from explorer.formats.base import FormatError
from explorer.tree.repair import repair_tree
from tests.corpus import claude_code_sessions as cc

SAMPLES = {
    "session": cc.original().read_bytes(),
    "fork": cc.fork().read_bytes(),
    "subagent": cc.subagents()[0].read_bytes(),
    "fork_in_one_file": "".join(json.dumps(e) + "\n" for e in cc.rewound()).encode(),
}


def _mutate(lines: list[bytes], data: st.DataObject) -> bytes:
    ops = data.draw(
        st.lists(st.sampled_from(["drop", "dup", "cut", "swap", "flip", "retype"]), max_size=6)
    )
    for op in ops:
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(data.draw(st.integers(0, len(lines))), lines[i])
        elif op == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])))]
        elif op == "swap":
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "retype":
            lines[i] = _retype(lines[i], data)
        elif lines[i]:
            k = data.draw(st.integers(0, len(lines[i]) - 1))
            flipped = lines[i][k] ^ data.draw(st.integers(1, 255))
            lines[i] = lines[i][:k] + bytes([flipped]) + lines[i][k + 1 :]
    return b"".join(lines)


ODD_VALUES = [None, 0, -1, 1e300, True, "", "x", [], [1, "a"], {}, {"type": "text"}]


def _retype(line: bytes, data: st.DataObject) -> bytes:
    """Give one field (top level or inside ``message``) a value of the wrong kind."""
    try:
        obj = json.loads(line)
    except ValueError:
        return line
    if not isinstance(obj, dict) or not obj:
        return line
    target = obj
    if isinstance(obj.get("message"), dict) and obj["message"] and data.draw(st.booleans()):
        target = obj["message"]
    key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(st.sampled_from(ODD_VALUES))
    return json.dumps(obj).encode() + b"\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SAMPLES)), data=st.data())
def test_mutated_samples_import_or_raise_format_error(name: str, data: st.DataObject) -> None:
    lines = SAMPLES[name].splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        path.write_bytes(_mutate(lines, data))
        try:
            convs = list(claude_code.read(path))
        except FormatError:
            return
    (conv,) = convs
    ids = [m.id for m in conv.messages]
    assert len(ids) == len(set(ids))
    assert conv.tip in set(ids)
    assert repair_tree(conv.messages).notes == []
    positions = {m.id: i for i, m in enumerate(conv.messages)}
    assert all(
        m.parent_id is None or positions[m.parent_id] < i for i, m in enumerate(conv.messages)
    )
