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

Message-store tables (llm 0.36, migration ``m023_message_store``), one
conversation per connected tree of messages:

- ``messages(hash, parent_hash, role, provider_metadata)``; an older layout
  also had a ``content`` JSON list of parts, still read when present.
- ``parts(id, message_hash, position, type, tool_name, text, payload)``: how a
  payload becomes parts (tool calls and results, fragments, attachments) is in
  ``parts``. Calls without an id are given stable ones and paired by order.
- ``threads(id, name, tip_message_hash, datetime_utc)``: named tips; the newest
  thread in a tree gives the conversation's tip and title.
- ``turns(thread_id, parent_message_hash, tip_message_hash, model, input_tokens,
  output_tokens, datetime_utc, ...)``: model, usage and time of the messages a
  call produced; messages carry no time of their own, so the prompt a call was
  sent with takes the call's time too.

A file with SQLite's header whose tables cannot be listed is claimed, so the
import says it is a damaged database rather than an unknown format.

Classic conversations whose id is also a thread id are read from the store only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Hashable, Iterator
from contextlib import closing
from pathlib import Path

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.llm.sql import (
    FORMAT,
    Row,
    columns,
    connect,
    has_store,
    select,
    tables_of,
    usage,
)
from explorer.formats.llm.store import store_conversations
from explorer.formats.tool_pairs import pair_unnamed_calls
from explorer.tree.model import Message, Part, Role

SQLITE_MAGIC = b"SQLite format 3\x00"


def sniff(path: Path) -> bool:
    """An SQLite file with llm's ``responses`` table or its message store, or a damaged
    SQLite file whose tables cannot be listed (``read`` then says it is damaged)."""
    try:
        with path.open("rb") as f:
            if f.read(16) != SQLITE_MAGIC:
                return False
    except OSError:
        return False
    try:
        with closing(connect(path)) as conn:
            return "responses" in tables_of(conn) or has_store(conn)
    except sqlite3.DatabaseError:
        return True
    except sqlite3.Error:
        return False


def read(path: Path) -> Iterator[ImportedConversation]:
    """Conversations from the message store first, then the classic tables."""
    try:
        conn = connect(path)
    except sqlite3.Error as e:
        raise FormatError(f"{path.name}: cannot open as SQLite ({e})") from e
    done = 0
    try:
        tables = tables_of(conn)
        if "responses" not in tables and not has_store(conn):
            raise FormatError(f"{path.name}: no llm tables (responses, or messages by hash)")
        thread_ids: set[str] = set()
        if has_store(conn):
            for conv in store_conversations(conn, tables, path):
                thread_ids.update(t["id"] for t in conv.meta.get("threads", []))
                done += 1
                yield conv
        if "responses" in tables:
            for conv in _classic_conversations(conn, tables, thread_ids, path):
                done += 1
                yield conv
    except sqlite3.DatabaseError as e:
        kept = f"; the {done} conversation(s) read before it are kept" if done else ""
        raise FormatError(f"{path.name}: a damaged SQLite database, not readable as an llm "
                          f"logs.db ({e}){kept}") from e
    except sqlite3.Error as e:
        raise FormatError(f"{path.name}: unreadable llm database ({e})") from e
    finally:
        conn.close()


# -- classic tables -------------------------------------------------------------

RESPONSE_COLUMNS = (
    "rowid", "id", "model", "prompt", "system", "response", "conversation_id", "duration_ms",
    "datetime_utc", "input_tokens", "output_tokens", "resolved_model", "options_json",
)


def _classic_conversations(
    conn: sqlite3.Connection, tables: set[str], skip: set[str], path: Path,
    only: set[str] | None = None,
) -> Iterator[ImportedConversation]:
    """One conversation per ``conversation_id`` (those in ``only`` when given)."""
    names: dict[str, Row] = {}
    if "conversations" in tables:
        names = {str(r["id"]): r for r in select(conn, "conversations", ("id", "name", "model"))}
    order = "ORDER BY datetime_utc, rowid" if "datetime_utc" in columns(conn, "responses") else (
        "ORDER BY rowid"
    )
    groups: dict[str, list[Row]] = {}
    args: tuple[str, ...]
    where, args = "", ()
    if only is not None:
        where = "WHERE conversation_id IN (SELECT value FROM json_each(?)) "
        args = (json.dumps(sorted(only)),)
    for row in select(conn, "responses", RESPONSE_COLUMNS, where + order, args):
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
        pair_unnamed_calls(conv.messages, conv.notes)
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
        last.usage = usage(row["input_tokens"], row["output_tokens"])
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
    if table not in tables or "response_id" not in columns(conn, table):
        return {}
    ids = [as_text(r["id"]) for r in rows]
    out: dict[str, list[Row]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        found = select(conn, table, ("response_id", *cols), f"WHERE response_id IN ({marks})",
                        tuple(chunk))
        for r in found:
            out.setdefault(as_text(r["response_id"]), []).append(r)
    return out


def _call_part(row: Row) -> Part:
    return Part("tool_use", as_text(row.get("arguments")) or "{}",
                tool_name=as_text(row.get("name")) or None,
                tool_use_id=as_text(row.get("tool_call_id")) or None)


def _result_part(row: Row) -> Part:
    error = row.get("exception")
    return Part("tool_result", as_text(row.get("output")) or as_text(error),
                tool_name=as_text(row.get("name")) or None,
                tool_use_id=as_text(row.get("tool_call_id")) or None, is_error=bool(error))

