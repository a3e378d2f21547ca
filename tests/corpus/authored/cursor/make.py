"""Write Cursor's two chat stores as Cursor lays them out: ``python -m
tests.corpus.authored.cursor.make``.

Neither the ``cursor-agent`` CLI nor the editor installs from a package registry, so these
are authored: a cursor-agent ``store.db`` (``meta`` row ``"0"`` = hex-encoded JSON,
``blobs`` keyed by SHA-256, messages as JSON, the root a protobuf list of 32-byte child
ids) and an editor ``state.vscdb`` (``cursorDiskKV`` rows ``composerData:<id>`` and
``bubbleId:<id>:<bubble>``), with the manifest that says so.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = "/tmp/convo-corpus/cursor/work"
CHAT = "3f1c2b9e-6a4d-4e0b-9a57-1d2f3c4b5a60"
COMPOSER = "b7e4d1a2-0c3f-4a8e-9d16-5e2f7a8b9c01"
PROMPTS = {
    "agent": ["Look around.\nTOOL:bash:ls -1", "Thanks, that is all."],
    "editor": ["Read the notes.\nTOOL:read:notes.txt", "Now fix the typo."],
}


def _blob(blobs: dict[str, bytes], value: Any) -> str:
    data = json.dumps(value, separators=(",", ":")).encode()
    blob_id = hashlib.sha256(data).hexdigest()
    blobs[blob_id] = data
    return blob_id


def agent_store(path: Path) -> None:
    """A cursor-agent chat: system prompt, two prompts, one shell call with its result."""
    first, second = PROMPTS["agent"]
    blobs: dict[str, bytes] = {}
    ids = [
        _blob(blobs, {"role": "system", "content": "You are a coding agent in the terminal."}),
        _blob(blobs, {"role": "user", "content": [{"type": "text", "text":
              f"<user_info>OS: linux, workspace: {WORK}</user_info>\n"
              f"<user_query>\n{first}\n</user_query>"}]}),
        _blob(blobs, {"role": "assistant", "id": "1", "content": [
            {"type": "reasoning", "text": "The person wants a listing."},
            {"type": "text", "text": "Calling the shell."},
            {"type": "tool-call", "toolCallId": "toolu_01", "toolName": "run_terminal_cmd",
             "args": {"command": "ls -1", "is_background": False}}]}),
        _blob(blobs, {"role": "tool", "id": "1", "content": [
            {"type": "tool-result", "toolCallId": "toolu_01", "toolName": "run_terminal_cmd",
             "result": [{"type": "text", "text": "notes.txt"}]}]}),
        _blob(blobs, {"role": "assistant", "id": "1", "content": [
            {"type": "text", "text": "The folder holds notes.txt."}]}),
        _blob(blobs, {"role": "user", "content": [{"type": "text", "text":
              f"<user_query>\n{second}\n</user_query>"}]}),
        _blob(blobs, {"role": "assistant", "id": "1", "content": [
            {"type": "text", "text": "You are welcome."}]}),
    ]
    middle = b"".join(b"\x0a\x20" + bytes.fromhex(i) for i in ids[3:])
    middle_id = hashlib.sha256(middle).hexdigest()
    blobs[middle_id] = middle
    root = b"".join(b"\x0a\x20" + bytes.fromhex(i) for i in [*ids[:3], middle_id])
    root_id = hashlib.sha256(root).hexdigest()
    blobs[root_id] = root
    meta = {"agentId": CHAT, "latestRootBlobId": root_id, "name": "Look around",
            "mode": "auto-run", "createdAt": 1796400000000, "lastUsedModel": "gpt-5"}
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.executemany("INSERT INTO blobs VALUES (?, ?)", sorted(blobs.items()))
        db.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    db.close()


def editor_state(path: Path) -> None:
    """An editor composer chat: a read_file call and its result, then an edit still to come."""
    first, second = PROMPTS["editor"]
    bubbles = [
        {"_v": 3, "type": 1, "bubbleId": "u1", "text": first,
         "createdAt": "2026-12-04T10:00:00.000Z"},
        {"_v": 3, "type": 2, "bubbleId": "a1", "text": "", "thinking": {"text": "Read it first."},
         "createdAt": "2026-12-04T10:00:02.000Z", "modelInfo": {"modelName": "claude-4-sonnet"},
         "tokenCount": {"inputTokens": 1200, "outputTokens": 40},
         "toolFormerData": {"tool": 5, "toolCallId": "toolu_r1", "name": "read_file",
                            "rawArgs": json.dumps({"target_file": "notes.txt"}), "status":
                            "completed", "result": json.dumps({"contents": "frist line\n"})}},
        {"_v": 3, "type": 2, "bubbleId": "a2", "text": "It says 'frist line'.",
         "createdAt": "2026-12-04T10:00:04.000Z", "modelInfo": {"modelName": "claude-4-sonnet"},
         "tokenCount": {"inputTokens": 0, "outputTokens": 0}},
        {"_v": 3, "type": 1, "bubbleId": "u2", "text": second,
         "createdAt": "2026-12-04T10:01:00.000Z"},
        {"_v": 3, "type": 2, "bubbleId": "a3", "text": "Fixed: 'first line'.",
         "createdAt": "2026-12-04T10:01:03.000Z", "modelInfo": {"modelName": "claude-4-sonnet"}},
    ]
    composer = {"_v": 10, "composerId": COMPOSER, "name": "Read the notes",
                "createdAt": 1796378400000, "lastUpdatedAt": 1796378463000, "status": "completed",
                "unifiedMode": "agent", "modelConfig": {"modelName": "claude-4-sonnet"},
                "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]}
                                                for b in bubbles]}
    empty = {"_v": 10, "composerId": "0d0d0d0d-empty", "createdAt": 1796378300000,
             "fullConversationHeadersOnly": [], "text": ""}
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        for table in ("ItemTable", "cursorDiskKV"):
            db.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        rows = [(f"composerData:{COMPOSER}", json.dumps(composer)),
                (f"composerData:{empty['composerId']}", json.dumps(empty))]
        rows += [(f"bubbleId:{COMPOSER}:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
        db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    db.close()


def main() -> None:
    home = HERE / "home"
    shutil.rmtree(home, ignore_errors=True)
    workspace = hashlib.md5(WORK.encode()).hexdigest()
    store = home / ".cursor" / "chats" / workspace / CHAT / "store.db"
    state = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    agent_store(store)
    editor_state(state)
    manifest = {
        "authored": "written by make.py from the layouts Cursor's stores are observed to have "
                    "(cursor-agent store.db; the editor's state.vscdb, composer schema _v 10, "
                    "bubbles _v 3); not recorded: neither client installs from npm or PyPI",
        "client": "cursor-agent CLI and the Cursor editor (not installable here)",
        "sources": [{"tool": "cursor", "format": "cursor", "prompts": PROMPTS["agent"]},
                    {"tool": "cursor-editor", "format": "cursor", "prompts": PROMPTS["editor"]}],
        "exercises": "a cursor-agent chat with a nested linking blob, a system prompt, "
                     "reasoning, a shell call and its result; an editor chat with split "
                     "bubbles, a read_file call whose result is in the same bubble, and an "
                     "empty chat that imports nothing",
        "files": sorted(str(p.relative_to(HERE)) for p in home.rglob("*") if p.is_file()),
    }
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
