"""Mistral Vibe 3 sessions: a folder per session, read as Vibe shows it (its projection).

``<VIBE_HOME>/logs/session/unified/<session id>/`` holds ``meta.json`` (working folder,
model, title, start), ``CURRENT`` (naming the store format and the newest snapshot, a
``generations/<n>/manifest.json``) and ``journal/<first sequence>.jsonl`` segments of
records appended as the session runs. A snapshot's ``projection_state`` (stored in
``chunks/``) lists the session's entries so far; journal segments older than it are
deleted. So the entries are the snapshot's, then those appended (``append_entry``) or
rewritten (``replace_entry``) by journal records after it: ``message`` entries of role
``user`` and ``assistant``, and ``effect`` entries (a tool's input and output), each
becoming a call on the answer before it and a result. Usage comes from the journal's
completion results where they are still there. The rest of the journal (commands,
intents, hooks, receipts) is the harness's own bookkeeping.

A session is one folder, read whole by a sync and merged by its entry ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.jsonl import JsonlReader, skipped_notes
from explorer.tree.model import Message, Part, Usage

FORMAT = "mistral_vibe"
STORE = b"mistral.vibe.unified-session-store"
BOOKKEEPING = frozenset({"command_reserved", "core_input", "action_intent",
                         "receipt_succeeded", "receipt_failed"})


def session_folder(path: Path) -> Path | None:
    """The session folder ``path`` is, or is a file of (``meta.json``, a journal segment)."""
    for folder in (path, path.parent, path.parent.parent):
        current = folder / "CURRENT"
        try:
            if current.is_file() and STORE in current.read_bytes()[:4096] \
                    and (folder / "journal").is_dir():
                return folder
        except OSError:
            return None
    return None


def sniff(path: Path) -> bool:
    return session_folder(path) is not None


def read(path: Path) -> Iterator[ImportedConversation]:
    folder = session_folder(path)
    if folder is None:
        raise FormatError(f"{path}: not a Mistral Vibe session folder (no CURRENT naming "
                          "its session store, or no journal)")
    meta = _meta(folder)
    sid = as_text(meta.get("session_id")) or folder.name
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                source_path=str(folder), source_id=sid)
    conv.created_at = parse_time(meta.get("start_time"))
    env = meta.get("environment")
    if isinstance(env, dict) and isinstance(env.get("working_directory"), str):
        conv.meta["cwd"] = env["working_directory"]
    config = meta.get("config")
    model = as_text(config.get("model_name")) or None if isinstance(config, dict) else None
    for key in ("parent_session_id", "git_branch", "git_commit"):
        if meta.get(key):
            conv.meta[key] = meta[key]
    conv.meta["agent"] = FORMAT
    builder = _Builder(conv, model)
    since = _snapshot(folder, builder)
    for segment in sorted((folder / "journal").glob("*.jsonl")):
        reader = JsonlReader(segment)
        for lineno, record in reader:
            seq = record.get("sequence")
            if isinstance(seq, int) and seq <= since and record.get("type") != "action_result":
                continue  # the snapshot holds its entries; results still give usage
            builder.record(record, f"{segment.name} line {lineno}")
        conv.notes.extend(f"{segment.name}: {n}" for n in skipped_notes(reader.skipped))
    builder.build()
    if not conv.messages:
        raise FormatError(f"{folder.name}: a Mistral Vibe session without any message")
    title = meta.get("title")
    conv.title = title.strip() if isinstance(title, str) and title.strip() else \
        preview_title(conv.messages, sid)
    yield finish(conv, conv.messages[-1].id)


def _meta(folder: Path) -> dict[str, Any]:
    data = _json(folder / "meta.json")
    return data if isinstance(data, dict) else {}


def _json(path: Path) -> Any:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data


def _snapshot(folder: Path, builder: _Builder) -> int:
    """The newest snapshot's entries into ``builder``; the last journal sequence it holds."""
    current = _json(folder / "CURRENT")
    generation = current.get("generation") if isinstance(current, dict) else None
    if not isinstance(generation, str):
        return 0
    manifest = _json(folder / "generations" / generation / "manifest.json")
    state = manifest.get("projection_state") if isinstance(manifest, dict) else None
    chunks = state.get("chunks") if isinstance(state, dict) else None
    whole = True
    for chunk in chunks or ():
        entries = _json(folder / "chunks" / f"{chunk}.json")
        if not isinstance(entries, list):
            builder.conv.notes.append(f"snapshot {generation}: chunk {chunk} is missing or "
                                      "unreadable; read what the journal still holds instead")
            whole = False
            continue
        for entry in entries:
            builder.entry(entry)
    seq = manifest.get("snapshot_sequence") if isinstance(manifest, dict) else None
    return seq if isinstance(seq, int) and whole else 0


class _Builder:
    """Entries by id in the order Vibe listed them; messages made from them at the end."""

    def __init__(self, conv: ImportedConversation, model: str | None) -> None:
        self.conv = conv
        self.model = model
        self.entries: dict[str, dict[str, Any]] = {}
        self.usage: dict[str, Usage | None] = {}

    def record(self, record: dict[str, Any], where: str) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict) or not isinstance(kind, str):
            self.conv.ignored_records["<record without type or payload>"] += 1
            self.conv.notes.append(f"{where}: a record without type or payload; skipped")
            return
        if kind == "projection_delta":
            for delta in payload.get("delta") or ():
                if isinstance(delta, dict) and delta.get("op") in ("append_entry",
                                                                   "replace_entry"):
                    self.entry(delta.get("entry"))
        elif kind == "action_result":
            outer = payload.get("result")
            inner = outer.get("result") if isinstance(outer, dict) else None
            if isinstance(outer, dict) and outer.get("type") == "completion_succeeded" \
                    and isinstance(inner, dict):
                self.usage[as_text(outer.get("action_id"))] = _usage(inner.get("usage"))
        elif kind not in BOOKKEEPING:
            self.conv.ignored_records[kind] += 1

    def entry(self, entry: object) -> None:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            self.entries[entry["id"]] = entry  # a replaced entry keeps its first place

    def build(self) -> None:
        answer: Message | None = None
        for eid, entry in self.entries.items():
            kind, when = entry.get("type"), parse_time(entry.get("createdAt"))
            role = entry.get("role")
            if kind == "message" and role == "user":
                self._add(eid, "user", _content(entry.get("content")), when,
                          {"turn": entry.get("turnId")})
                answer = None
            elif kind == "message" and role == "assistant":
                key = eid.removeprefix("assistant-")
                answer = self._add(key, "assistant", _content(entry.get("content")), when,
                                   {"outcome": (entry.get("outcome") or {}).get("type")})
                answer.model, answer.usage = self.model, self.usage.get(key)
            elif kind == "effect" and (entry.get("detail") or {}).get("kind") == "tool":
                answer = self._tool(eid, entry, when, answer)
            else:
                self.conv.ignored_records[f"entry:{kind}:{role or ''}"] += 1

    def _tool(self, eid: str, entry: dict[str, Any], when: float | None,
              answer: Message | None) -> Message | None:
        detail, state = entry.get("detail") or {}, entry.get("state") or {}
        if answer is None:  # a tool Vibe ran with no answer before it in the turn
            answer = self._add(f"{eid}-call", "assistant", [], when, {})
            answer.model = self.model
        answer.parts.append(Part("tool_use", json.dumps(detail.get("input") or {}),
                                 tool_name=as_text(detail.get("toolName")), tool_use_id=eid))
        if state.get("status") not in ("completed", "failed", "cancelled", "rejected"):
            return answer  # still running: its result comes in a later record
        raw = state.get("output")
        output: dict[str, Any] = raw if isinstance(raw, dict) else {}
        text = "\n".join(p.text for p in _content(output.get("content")) if p.text) \
            or as_text(output.get("structured_content") or state.get("outputText")
                       or output.get("message"))
        failed = state.get("status") != "completed" or output.get("type") not in (None, "success")
        self._add(eid.removeprefix("effect-"), "tool",
                  [Part("tool_result", text, tool_use_id=eid, is_error=failed)], when,
                  {"status": state.get("status")})
        return answer

    def _add(self, key: str, role: str, parts: list[Part], when: float | None,
             meta: dict[str, Any]) -> Message:
        parent = self.conv.messages[-1].id if self.conv.messages else None
        message = Message(key, parent, role, parts, created_at=when,  # type: ignore[arg-type]
                          source_id=key, source_meta={k: v for k, v in meta.items() if v})
        self.conv.messages.append(message)
        return message


def _content(content: object) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    out = [Part("text", as_text(b.get("text"))) for b in content or ()  # type: ignore[attr-defined]
           if isinstance(b, dict) and b.get("type") == "text"]
    return out or [Part("text", "")]


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    counts = {"input_tokens": raw.get("input_tokens"), "output_tokens": raw.get("output_tokens"),
              "cache_read_tokens": raw.get("cached_input_tokens")}
    kept = {k: int(v) for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    return Usage(**kept) if kept else None
