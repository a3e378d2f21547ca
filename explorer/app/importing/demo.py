"""Loading the bundled demo by running its script through the real operations.

The script (``resources/demo/demo.json``) is a list of steps — turns, a
checkpoint, a rewind, an edited prompt, a regenerated answer, a fork — so the
demo holds exactly what a person's own use would produce.

Every demo message gets a stable source id (``demo:orders:7``), the same in every
database, so an export of the demo imported into another database that has the
demo merges with it message by message instead of adding a second copy.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from explorer.resources import resource_path
from explorer.store import Store
from explorer.store.rows import db_id
from explorer.tree.model import Message, Part, Usage

DEMO_FORMAT = "demo"
STEP_SECONDS = 41.0


class _Clock:
    def __init__(self, start: str, key: str) -> None:
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp()
        self.key = key
        self.n = 0

    def tick(self) -> float:
        self.t += STEP_SECONDS
        return self.t

    def source_id(self) -> str:
        """The next message's stable id: the script's key and the message's ordinal."""
        self.n += 1
        return f"demo:{self.key}:{self.n}"


def demo_loaded(store: Store) -> int | None:
    """The id of the demo's main conversation if it is already in the store."""
    for c in store.conversations():
        if c.source_format == DEMO_FORMAT and c.source_id == "demo:orders":
            return c.id
    return None


def load_demo(store: Store, script: Path | None = None) -> int:
    """Load the demo (once); returns the main conversation's id."""
    existing = demo_loaded(store)
    if existing is not None:
        return existing
    path = script or resource_path("demo", "demo.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    first = 0
    for conv in data["conversations"]:
        cid = store.create_conversation(
            conv["title"], source_format=DEMO_FORMAT, source_id=f"demo:{conv['key']}",
        )
        first = first or cid
        _run_steps(store, cid, conv["steps"], _Clock(conv["start"], conv["key"]), {},
                   path.parent)
    return first


def _run_steps(
    store: Store, cid: int, steps: list[dict[str, Any]], clock: _Clock,
    refs: dict[str, int], folder: Path,
) -> None:
    for step in steps:
        op = step["op"]
        if op == "turn":
            _turn(store, cid, step["messages"], clock, refs, folder, None)
        elif op == "checkpoint":
            store.checkpoint(cid, step["label"])
        elif op == "rewind":
            store.rewind(cid, step["label"])
        elif op == "edit":
            refs[step["ref"]] = _edit(store, cid, refs[step["ref"]], step["text"], clock)
        elif op == "regenerate":
            _turn(store, cid, step["messages"], clock, refs, folder, refs[step["ref"]])
        elif op == "fork":
            fork_id = store.fork(cid, refs[step["ref"]], step["title"])
            _run_steps(store, fork_id, step.get("steps", []), clock, {}, folder)
        else:
            raise ValueError(f"demo script: unknown step {op!r}")


def _edit(store: Store, cid: int, mid: int, text: str, clock: _Clock) -> int:
    """What ``edit_prompt`` writes (a sibling prompt, made the tip), with a stable id."""
    original = store.message(mid)
    parts = [Part("text", text)] + [p for p in original.parts if p.kind == "image"]
    edited = Message(id=None, parent_id=None, role="user", parts=parts,
                     created_at=clock.tick(), source_meta={"edited_from": mid},
                     source_id=clock.source_id())
    if original.parent_id is None:
        return store.append_turn(cid, [edited], as_root=True)[0]
    return store.append_turn(cid, [edited], parent_id=db_id(original.parent_id))[0]


def _turn(
    store: Store, cid: int, specs: list[dict[str, Any]], clock: _Clock,
    refs: dict[str, int], folder: Path, parent: int | None,
) -> None:
    messages = [_message(s, clock.tick(), folder, clock.source_id()) for s in specs]
    ids = store.append_turn(cid, messages, parent_id=parent)
    for spec, mid in zip(specs, ids, strict=True):
        if "ref" in spec:
            refs[spec["ref"]] = mid


def _message(spec: dict[str, Any], when: float, folder: Path, source_id: str) -> Message:
    parts = [_part(p, folder) for p in spec.get("parts", [])]
    if "text" in spec:
        parts.insert(0, Part("text", spec["text"]))
    usage = Usage.from_dict(spec.get("usage"))
    return Message(id=None, parent_id=None, role=spec["role"], parts=parts, created_at=when,
                   model=spec.get("model"), usage=usage, source_id=source_id)


def _part(spec: dict[str, Any], folder: Path) -> Part:
    kind = spec["kind"]
    if kind == "image":
        return Part("image", data=(folder / spec["file"]).read_bytes(),
                    media_type=spec.get("media_type", "image/png"))
    text = spec.get("text", "")
    if "input" in spec:
        text = json.dumps(spec["input"], ensure_ascii=False)
    return Part(kind, text=text, tool_name=spec.get("tool_name"),
                tool_use_id=spec.get("tool_use_id"), is_error=bool(spec.get("is_error")))
