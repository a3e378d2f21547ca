"""Claude Code's own records (system notices, file-history snapshots) are kept as muted
records: in the tree where Claude Code wrote them, never sent to a model, and written back
by the Claude Code export as Claude Code wrote them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from helpers import new_store

from explorer.app.context.compacting import active_context
from explorer.app.importing.run import import_paths
from explorer.app.sharing.exporting import export_lines
from explorer.app.views.meta_records import meta_record, sent_to_models
from explorer.formats import claude_code
from explorer.formats.claude_code.tree import path_to
from tests.corpus import claude_code_sessions as cc

# the recorded session: /model and /cost each leave a notice (a system local_command
# record) and each prompt a file-history snapshot
SNAPSHOTS = sum(e.get("type") == "file-history-snapshot" for e in cc.records(cc.original()))
NOTICES = sum(e.get("subtype") == "local_command" for e in cc.records(cc.original()))


def test_notices_and_snapshots_are_kept_as_muted_records() -> None:
    conv = next(claude_code.read(cc.original())).materialize()
    kinds = Counter(m.source_meta.get("meta_record") for m in conv.messages)
    assert (NOTICES, SNAPSHOTS) == (2, 7)
    assert kinds["notice"] == NOTICES and kinds["file_snapshot"] == SNAPSHOTS
    assert "system:local_command" not in conv.ignored_records
    assert "file-history-snapshot" not in conv.ignored_records
    notice = next(m for m in conv.messages if m.source_meta.get("meta_record") == "notice")
    assert notice.role == "system"
    assert notice.text.startswith("<local-command-stdout>Current model:")  # /model's answer
    by_id = {m.id: m for m in conv.messages}
    assert "<command-name>/model" in by_id[notice.parent_id].text  # under its command
    record = meta_record(notice)
    assert record is not None and record.label == "Claude Code notice (local command)"
    snapshots = [m for m in conv.messages if m.source_meta.get("meta_record") == "file_snapshot"]
    for i, snapshot in enumerate(snapshots):
        (prompt,) = [m for m in conv.messages if m.parent_id == snapshot.id]
        assert snapshot.id == f"snapshot:{prompt.id}" and prompt.is_prompt
        if i == 0:  # the first prompt's snapshot: it opens the session
            assert snapshot.parent_id is None and prompt.source_meta["reparented_from"] is None
        else:
            assert isinstance(prompt.source_meta["reparented_from"], str)  # written parent


def test_the_records_are_never_sent_to_a_model(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        import_paths(store, [cc.fork()])
        (conv,) = store.conversations()
        path = store.path(conv.id)
        assert any(not sent_to_models(m) for m in path)
        context = active_context(store, conv.id)
        assert context and all(sent_to_models(m) for m in context)
        kept = {m.id for m in path if sent_to_models(m)}
        assert {m.id for m in context} <= kept < {m.id for m in path}


def test_S1_the_claude_code_export_writes_them_back(tmp_path: Path) -> None:
    source = cc.original()
    with new_store(tmp_path) as store:
        import_paths(store, [source])
        (conv,) = store.conversations()
        lines = [json.loads(x) for x in export_lines(store, conv.id, "claude-code", None, [])]
    kinds = Counter((x["type"], x.get("subtype")) for x in lines)
    assert kinds[("system", "local_command")] == NOTICES
    assert kinds[("file-history-snapshot", None)] == SNAPSHOTS
    by_uuid = {x["uuid"]: x for x in lines if "uuid" in x}
    for snap_at in (i for i, x in enumerate(lines) if x["type"] == "file-history-snapshot"):
        named = lines[snap_at]["messageId"]
        assert lines[snap_at + 1]["uuid"] == named == lines[snap_at]["snapshot"]["messageId"]
    for x in lines:
        if x.get("parentUuid") is not None:
            assert x["parentUuid"] in by_uuid  # one chain through the notices
    out = tmp_path / "back.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    back = next(claude_code.read(out))
    again = Counter(m.source_meta.get("meta_record") for m in back.messages)
    assert again["notice"] == NOTICES and again["file_snapshot"] == SNAPSHOTS
    original = next(claude_code.read(source)).materialize()
    # the compaction's boundary is not a record of these kinds: the export leaves it out
    boundary = original.compactions[0].message_key
    assert [m.text for m in path_to(back.messages, back.tip) if m.role == "system"] == [
        m.text for m in path_to(original.messages, original.tip)
        if m.role == "system" and m.id != boundary]
