"""simonw/llm ``logs.db`` (SQLite), opened read-only and never modified.

Two schemas are read; every column is optional (each query names only the
columns ``PRAGMA table_info`` reports), and missing tables are skipped.

Classic tables, one conversation per ``conversation_id``:

- ``conversations(id, name, model)``
- ``responses(id, model, prompt, system, prompt_json, options_json, response,
  response_json, conversation_id, duration_ms, datetime_utc, input_tokens,
  output_tokens, token_details, resolved_model)``: each row is a prompt and its
  answer, chained in ``(datetime_utc, rowid)`` order. A system prompt becomes a
  system message when it differs from the previous one in the conversation.
- optional ``tool_calls(response_id, name, arguments, tool_call_id)`` and
  ``tool_results(response_id, name, output, tool_call_id, exception)``: calls
  join the answer, results join the prompt they were sent with.

Message-store tables, one conversation per connected tree of messages:

- ``messages(hash, parent_hash, role, content, datetime_utc)``: ``content`` is a
  JSON string or a JSON list of parts; without it parts come from
- ``parts(message_hash, position, type, text, fragment_id, name, arguments,
  tool_call_id, output, exception)`` (``fragments(id, content)`` holds text
  stored by reference); part types are text, reasoning, tool_call,
  tool_result, attachment.
- ``threads(id, name, tip_message_hash, datetime_utc)``: named tips; the newest
  thread in a tree gives the conversation's tip and title.
- optional ``turns(thread_id, parent_message_hash, tip_message_hash, model,
  input_tokens, output_tokens, datetime_utc)``: model, usage and time of the
  messages a call produced.

Classic conversations whose id is also a thread id are read from the store only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.tree.model import Message, Part, Role, Usage

FORMAT = "llm"
SQLITE_MAGIC = b"SQLite format 3\x00"
Row = dict[str, Any]


def sniff(path: Path) -> bool:
    """An SQLite file with llm's ``responses`` table or its message store."""
    try:
        with path.open("rb") as f:
            if f.read(16) != SQLITE_MAGIC:
                return False
        with _connect(path) as conn:
            return "responses" in _tables(conn) or _has_store(conn)
    except (OSError, sqlite3.Error):
        return False


def read(path: Path) -> Iterator[ImportedConversation]:
    """Conversations from the message store first, then the classic tables."""
    try:
        conn = _connect(path)
    except sqlite3.Error as e:
        raise FormatError(f"{path.name}: cannot open as SQLite ({e})") from e
    try:
        tables = _tables(conn)
        if "responses" not in tables and not _has_store(conn):
            raise FormatError(f"{path.name}: no llm tables (responses, or messages by hash)")
        thread_ids: set[str] = set()
        if _has_store(conn):
            for conv in _store_conversations(conn, tables, path):
                thread_ids.update(t["id"] for t in conv.meta.get("threads", []))
                yield conv
        if "responses" in tables:
            yield from _classic_conversations(conn, tables, thread_ids, path)
    except sqlite3.Error as e:
        raise FormatError(f"{path.name}: unreadable llm database ({e})") from e
    finally:
        conn.close()


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _has_store(conn: sqlite3.Connection) -> bool:
    """llm's message store: messages keyed by content hash with parent hashes."""
    return {"hash", "parent_hash"} <= _columns(conn, "messages")


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def _select(
    conn: sqlite3.Connection, table: str, wanted: tuple[str, ...], tail: str = "",
    args: tuple[Any, ...] = (),
) -> list[Row]:
    """Rows with every wanted column; ones the table lacks read as None."""
    have = _columns(conn, table)
    cols = ", ".join(f'"{c}"' if c in have or c == "rowid" else f'NULL AS "{c}"' for c in wanted)
    return [dict(r) for r in conn.execute(f'SELECT {cols} FROM "{table}" {tail}', args)]


# -- classic tables -------------------------------------------------------------

RESPONSE_COLUMNS = (
    "rowid", "id", "model", "prompt", "system", "response", "conversation_id", "duration_ms",
    "datetime_utc", "input_tokens", "output_tokens", "resolved_model", "options_json",
)


def _classic_conversations(
    conn: sqlite3.Connection, tables: set[str], skip: set[str], path: Path
) -> Iterator[ImportedConversation]:
    names: dict[str, Row] = {}
    if "conversations" in tables:
        names = {str(r["id"]): r for r in _select(conn, "conversations", ("id", "name", "model"))}
    order = "ORDER BY datetime_utc, rowid" if "datetime_utc" in _columns(conn, "responses") else (
        "ORDER BY rowid"
    )
    groups: dict[str, list[Row]] = {}
    for row in _select(conn, "responses", RESPONSE_COLUMNS, order):
        cid = row["conversation_id"]
        alone = f"response:{as_text(row['id']) or row['rowid']}"
        groups.setdefault(as_text(cid) if cid is not None else alone, []).append(row)
    for cid, rows in groups.items():
        if cid in skip:
            continue
        conv = ImportedConversation(
            title="", source_format=FORMAT, messages=[], source_id=cid, source_path=str(path)
        )
        _classic_messages(conn, tables, conv, rows)
        named = names.get(cid, {})
        conv.title = as_text(named.get("name")) or preview_title(conv.messages, cid)
        if named.get("model"):
            conv.meta["model"] = named["model"]
        conv.created_at = parse_time(rows[0]["datetime_utc"])
        yield finish(conv, conv.messages[-1].id if conv.messages else None)


def _classic_messages(
    conn: sqlite3.Connection, tables: set[str], conv: ImportedConversation, rows: list[Row]
) -> None:
    calls = _by_response(conn, tables, "tool_calls", ("name", "arguments", "tool_call_id"), rows)
    results = _by_response(
        conn, tables, "tool_results", ("name", "output", "tool_call_id", "exception"), rows
    )
    parent: Hashable | None = None
    system: str | None = None
    for row in rows:
        rid = as_text(row["id"]) or f"rowid{row['rowid']}"
        when = parse_time(row["datetime_utc"])
        if row["system"] and row["system"] != system:
            system = as_text(row["system"])
            parent = _add(conv, f"{rid}:system", parent, "system", [Part("text", system)], when)
        prompt = [_result_part(r) for r in results.get(rid, [])]
        if row["prompt"]:
            prompt.append(Part("text", as_text(row["prompt"])))
        role: Role = "user" if row["prompt"] or not prompt else "tool"
        parent = _add(conv, f"{rid}:prompt", parent, role, prompt, when)
        answer = [Part("text", as_text(row["response"]))] if row["response"] else []
        answer += [_call_part(c) for c in calls.get(rid, [])]
        parent = _add(conv, f"{rid}:response", parent, "assistant", answer, when)
        last = conv.messages[-1]
        last.model = as_text(row["resolved_model"] or row["model"]) or None
        last.usage = _usage(row["input_tokens"], row["output_tokens"])
        meta = {"duration_ms": row["duration_ms"], "options_json": row["options_json"]}
        last.source_meta.update({k: v for k, v in meta.items() if v is not None})


def _add(
    conv: ImportedConversation, key: str, parent: Hashable | None, role: Role,
    parts: list[Part], when: float | None,
) -> str:
    source = key.rsplit(":", 1)[0]
    conv.messages.append(
        Message(key, parent, role, parts, created_at=when, source_id=source,
                source_meta={"llm_row": key.rsplit(":", 1)[1]})
    )
    return key


def _by_response(
    conn: sqlite3.Connection, tables: set[str], table: str, cols: tuple[str, ...],
    rows: list[Row],
) -> dict[str, list[Row]]:
    if table not in tables or "response_id" not in _columns(conn, table):
        return {}
    ids = [as_text(r["id"]) for r in rows]
    out: dict[str, list[Row]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        found = _select(conn, table, ("response_id", *cols), f"WHERE response_id IN ({marks})",
                        tuple(chunk))
        for r in found:
            out.setdefault(as_text(r["response_id"]), []).append(r)
    return out


def _usage(input_tokens: object, output_tokens: object) -> Usage | None:
    """Token counts, ignoring anything that is not a whole number."""
    counts = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    known = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    return Usage(**known) if known else None


def _call_part(row: Row) -> Part:
    return Part("tool_use", as_text(row.get("arguments")) or "{}",
                tool_name=as_text(row.get("name")) or None,
                tool_use_id=as_text(row.get("tool_call_id")) or None)


def _result_part(row: Row) -> Part:
    error = row.get("exception")
    return Part("tool_result", as_text(row.get("output")) or as_text(error),
                tool_name=as_text(row.get("name")) or None,
                tool_use_id=as_text(row.get("tool_call_id")) or None, is_error=bool(error))


# -- message store ----------------------------------------------------------------

MESSAGE_COLUMNS = ("rowid", "hash", "parent_hash", "role", "content", "datetime_utc")
PART_COLUMNS = (
    "message_hash", "position", "type", "text", "fragment_id", "name", "arguments",
    "tool_call_id", "output", "exception",
)
TURN_COLUMNS = (
    "parent_message_hash", "tip_message_hash", "model", "input_tokens", "output_tokens",
    "datetime_utc",
)
ROLE_NAMES: dict[str, Role] = {
    "user": "user", "assistant": "assistant", "system": "system", "developer": "system",
    "tool": "tool",
}


def _store_conversations(
    conn: sqlite3.Connection, tables: set[str], path: Path
) -> Iterator[ImportedConversation]:
    rows = _select(conn, "messages", MESSAGE_COLUMNS, "ORDER BY rowid")
    for r in rows:
        r["key"] = as_text(r["hash"]) or f"rowid:{r['rowid']}"
    threads = _select(
        conn, "threads", ("rowid", "id", "name", "tip_message_hash", "datetime_utc"),
        "ORDER BY rowid",
    ) if "threads" in tables else []
    turns = _select(conn, "turns", TURN_COLUMNS, "ORDER BY rowid") if "turns" in tables else []
    for group in _components(rows):
        keys = {r["key"] for r in group}
        conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                    source_path=str(path))
        parts = _stored_parts(conn, tables, group, conv)
        for r in group:
            conv.messages.append(_store_message(r, parts.get(r["key"]), conv))
        _apply_turns(conv, [t for t in turns if t["tip_message_hash"] in keys])
        mine = [t for t in threads if t["tip_message_hash"] in keys]
        conv.meta["threads"] = [
            {"id": as_text(t["id"]), "name": t["name"], "tip": t["tip_message_hash"]} for t in mine
        ]
        newest = max(mine, key=lambda t: (parse_time(t["datetime_utc"]) or 0.0, t["rowid"]),
                     default=None)
        tip = newest["tip_message_hash"] if newest else None
        conv.source_id = as_text(newest["id"]) if newest else group[0]["key"]
        conv.title = (as_text(newest["name"]) if newest else "") or preview_title(
            conv.messages, conv.source_id or path.stem
        )
        conv.created_at = min((m.created_at for m in conv.messages if m.created_at), default=None)
        yield finish(conv, tip)


def _components(rows: list[Row]) -> list[list[Row]]:
    """Messages grouped into connected trees (cycles and dangling parents included)."""
    up: dict[str, str] = {}

    def find(key: str) -> str:
        while up.get(key, key) != key:
            up[key] = up.get(up[key], up[key])
            key = up[key]
        return key

    known = {r["key"] for r in rows}
    for r in rows:
        parent = as_text(r["parent_hash"])
        if parent in known:
            a, b = find(r["key"]), find(parent)
            if a != b:
                up[a] = b
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(find(r["key"]), []).append(r)
    return list(groups.values())


def _store_message(row: Row, parts: list[Part] | None, conv: ImportedConversation) -> Message:
    role_name = as_text(row["role"])
    role = ROLE_NAMES.get(role_name)
    meta: dict[str, Any] = {}
    if role is None:
        conv.notes.append(f"message {row['key']}: role {role_name!r} unknown; imported as user")
        role, meta["llm_role"] = "user", role_name
    if parts is None:
        parts = _content_parts(row["content"], row["key"], conv)
    return Message(row["key"], as_text(row["parent_hash"]) or None, role, parts,
                   created_at=parse_time(row["datetime_utc"]), source_id=row["key"],
                   source_meta=meta)


def _content_parts(content: object, key: str, conv: ImportedConversation) -> list[Part]:
    if content is None:
        return []
    try:
        value = json.loads(content) if isinstance(content, str | bytes) else content
    except (ValueError, RecursionError):
        conv.notes.append(f"message {key}: content is not JSON; kept it as text")
        return [Part("text", as_text(content))]
    if isinstance(value, str):
        return [Part("text", value)]
    items = value if isinstance(value, list) else [value]
    return [p for p in (_part(item, key, conv) for item in items) if p is not None]


def _part(item: object, key: str, conv: ImportedConversation) -> Part | None:
    if not isinstance(item, dict):
        conv.notes.append(f"message {key}: part {item!r:.40} is not an object; skipped")
        return None
    kind = as_text(item.get("type"))
    name = as_text(item.get("name")) or None
    call_id = as_text(item.get("tool_call_id")) or None
    if kind == "text":
        return Part("text", as_text(item.get("text")))
    if kind == "reasoning":
        return Part("thinking", as_text(item.get("text")))
    if kind == "tool_call":
        args = item.get("arguments")
        text = args if isinstance(args, str) else json.dumps(args, default=str)
        return Part("tool_use", text, tool_name=name, tool_use_id=call_id)
    if kind == "tool_result":
        error = item.get("exception")
        return Part("tool_result", as_text(item.get("output")) or as_text(error), tool_name=name,
                    tool_use_id=call_id, is_error=bool(error))
    if kind == "attachment":
        return Part("text", "[attachment]", meta={"llm_part": "attachment"})
    conv.ignored_records[f"part:{kind}"] += 1
    return None


def _stored_parts(
    conn: sqlite3.Connection, tables: set[str], group: list[Row], conv: ImportedConversation
) -> dict[str, list[Part]]:
    """Parts from the ``parts`` table for messages without a ``content`` column value."""
    if "parts" not in tables:
        return {}
    keys = [r["key"] for r in group if r["content"] is None]
    rows: list[Row] = []
    for start in range(0, len(keys), 500):
        chunk = tuple(keys[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        rows += _select(conn, "parts", PART_COLUMNS,
                        f"WHERE message_hash IN ({marks}) ORDER BY message_hash, position", chunk)
    fragments = _fragments(conn, tables, {r["fragment_id"] for r in rows if r["fragment_id"]})
    out: dict[str, list[Part]] = {}
    for r in rows:
        if r["text"] is None and r["fragment_id"] in fragments:
            r["text"] = fragments[r["fragment_id"]]
        part = _part(r, as_text(r["message_hash"]), conv)
        if part is not None:
            out.setdefault(as_text(r["message_hash"]), []).append(part)
    return out


def _fragments(conn: sqlite3.Connection, tables: set[str], ids: set[Any]) -> dict[Any, str]:
    if "fragments" not in tables or not ids:
        return {}
    rows = _select(conn, "fragments", ("id", "content"))
    return {r["id"]: as_text(r["content"]) for r in rows if r["id"] in ids}


def _apply_turns(conv: ImportedConversation, turns: list[Row]) -> None:
    """Model, usage and time of each call go on the messages it produced."""
    by_id = {m.id: m for m in conv.messages}
    for turn in turns:
        node: Hashable | None = turn["tip_message_hash"]
        first = True
        for _ in range(len(by_id)):
            if node is None or node == turn["parent_message_hash"] or node not in by_id:
                break
            m = by_id[node]
            if m.role == "assistant" and turn["model"]:
                m.model = as_text(turn["model"])
            if first:
                m.usage = _usage(turn["input_tokens"], turn["output_tokens"])
                first = False
            m.created_at = m.created_at or parse_time(turn["datetime_utc"])
            node = m.parent_id
