"""The recorded Codex session with the items its recording lacks written in: reasoning, an
``apply_patch`` edit and its output, a web search, and a ``compacted`` record.

Codex writes these when the model answers with them, and the fake model the corpus is
recorded against answers only in text and function calls. Until it does, they are inserted
here with the envelope, turn and timestamps of the recorded lines around them, in the order
Codex writes them (reasoning before the call it leads to, the output after the call, the
compaction between turns).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_home import codex_rollout

PATCH = ("*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n"
         "-    print('hello')\n+    print('hello, notes')\n     return 0\n*** End Patch\n")
SUMMARY = "Looked around: the folder holds notes.txt, two lines of notes."


def _line(ts: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload},
                      separators=(",", ":"))


def with_items(dest: Path) -> Path:
    """Write the rewritten session to ``dest``: 3 reasoning items, 1 patch, 1 search, 1
    compaction (between the second and third turns)."""
    lines = codex_rollout().read_text().splitlines()
    records = [json.loads(line) for line in lines]
    out: list[str] = []
    for line, record in zip(lines, records, strict=True):
        payload, ts = record["payload"], record["timestamp"]
        kind = payload.get("type")
        if kind == "function_call" or (record["type"] == "response_item" and kind == "message"
                                       and payload.get("role") == "assistant"
                                       and payload["content"][0]["text"].startswith("Saw")):
            out.append(_line(ts, "response_item", {
                "type": "reasoning", "summary": [], "content": None,
                "encrypted_content": f"gAAAA-sealed-{len(out)}"}))
        if record["type"] == "response_item" and kind == "message" and str(
                payload["content"][0].get("text", "")).startswith("Saw"):
            call = f"call_patch_{len(out)}"
            out.append(_line(ts, "response_item", {"type": "custom_tool_call",
                                                   "status": "completed", "call_id": call,
                                                   "name": "apply_patch", "input": PATCH}))
            out.append(_line(ts, "response_item", {
                "type": "custom_tool_call_output", "call_id": call,
                "output": "Success. Updated the following files:\nM src/app.py\n"}))
            out.append(_line(ts, "response_item", {
                "type": "web_search_call", "id": "ws_1", "status": "completed",
                "action": {"type": "search", "query": "what is notes.txt"}}))
        if record["type"] == "response_item" and kind == "message" and payload.get(
                "role") == "user" and payload["content"][0]["text"] == "Thanks, that is all.":
            out.append(_line(ts, "compacted", {"message": SUMMARY,
                                               "replacement_history": records[7:9]}))
            out.append(_line(ts, "event_msg", {"type": "context_compacted"}))
        out.append(line)
    dest.write_text("\n".join(out) + "\n")
    return dest
