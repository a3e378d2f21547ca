"""Mutated recorded pi sessions: whatever the damage, reading ends in records or a FormatError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_home import pi_session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import pi
from explorer.formats.base import FormatError

ODD_VALUES = (None, 0, -1, 1e300, "", "x", [], {}, [1, "a"], {"type": "text"}, True)


def mutate_value(data: st.DataObject, value: Any) -> Any:
    """Delete a key or change the type of a value somewhere inside ``value``."""
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["delete", "replace", "descend"]))
        out = dict(value)
        if action == "delete":
            del out[key]
        elif action == "replace":
            out[key] = data.draw(st.sampled_from(ODD_VALUES))
        else:
            out[key] = mutate_value(data, value[key])
        return out
    if isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        return [*value[:i], mutate_value(data, value[i]), *value[i + 1 :]]
    return data.draw(st.sampled_from(ODD_VALUES))


def mutate_lines(data: st.DataObject, lines: list[str]) -> list[str]:
    """Drop, duplicate, truncate or edit lines of a JSONL file."""
    out = list(lines)
    for _ in range(data.draw(st.integers(1, 4))):
        if not out:
            break
        i = data.draw(st.integers(0, len(out) - 1))
        action = data.draw(st.sampled_from(["drop", "dup", "truncate", "edit", "swap"]))
        if action == "drop":
            del out[i]
        elif action == "dup":
            out.insert(i, out[i])
        elif action == "truncate":
            out[i] = out[i][: data.draw(st.integers(0, max(0, len(out[i]) - 1)))]
        elif action == "swap":
            j = data.draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]
        else:
            try:
                value = json.loads(out[i])
            except ValueError:
                continue
            out[i] = json.dumps(mutate_value(data, value))
    return out


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_sample_reads_or_raises_format_error(
    data: st.DataObject, tmp_path: Path
) -> None:
    lines = pi_session().read_text().splitlines()  # the recorded session with two branches
    path = tmp_path / "mutated.jsonl"
    path.write_text("\n".join(mutate_lines(data, lines)))
    try:
        convs = list(pi.read(path))
    except FormatError:
        return
    for conv in convs:
        ids = {m.id for m in conv.messages}
        assert conv.tip is None or conv.tip in ids
        assert all(m.parent_id is None or m.parent_id in ids for m in conv.messages)
