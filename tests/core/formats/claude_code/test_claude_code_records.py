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

IDEAS = "-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"


def test_notices_and_snapshots_are_kept_as_muted_records(samples_dir: Path) -> None:
    conv = next(claude_code.read(samples_dir / "claude_code" / "short.jsonl"))
    kinds = Counter(m.source_meta.get("meta_record") for m in conv.messages)
    assert kinds["notice"] == 2 and kinds["file_snapshot"] == 1
    assert "system:local_command" not in conv.ignored_records
    assert "file-history-snapshot" not in conv.ignored_records
    notice = next(m for m in conv.messages if m.source_meta.get("meta_record") == "notice")
    assert notice.role == "system" and "<command-name>/model" in notice.text
    record = meta_record(notice)
    assert record is not None and record.label == "Claude Code notice (local command)"
    snapshot = next(m for m in conv.messages if m.source_meta.get("meta_record") == "file_snapshot")
    prompt = next(m for m in conv.messages if m.parent_id == snapshot.id)
    assert snapshot.id == f"snapshot:{prompt.id}" and prompt.is_prompt
    assert isinstance(prompt.source_meta["reparented_from"], str)  # the written parent
    assert snapshot.parent_id is None  # the first prompt's snapshot: it opens the session


def test_the_records_are_never_sent_to_a_model(samples_dir: Path, tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        import_paths(store, [samples_dir / "claude_code" / IDEAS])
        (conv,) = store.conversations()
        path = store.path(conv.id)
        assert any(not sent_to_models(m) for m in path)
        context = active_context(store, conv.id)
        assert context and all(sent_to_models(m) for m in context)
        kept = {m.id for m in path if sent_to_models(m)}
        assert {m.id for m in context} <= kept < {m.id for m in path}


def test_S1_the_claude_code_export_writes_them_back(samples_dir: Path, tmp_path: Path) -> None:
    source = samples_dir / "claude_code" / "short.jsonl"
    with new_store(tmp_path) as store:
        import_paths(store, [source])
        (conv,) = store.conversations()
        lines = [json.loads(x) for x in export_lines(store, conv.id, "claude-code", None, [])]
    kinds = Counter((x["type"], x.get("subtype")) for x in lines)
    assert kinds[("system", "local_command")] == 2
    assert kinds[("file-history-snapshot", None)] == 1
    by_uuid = {x["uuid"]: x for x in lines if "uuid" in x}
    snap_at = next(i for i, x in enumerate(lines) if x["type"] == "file-history-snapshot")
    named = lines[snap_at]["messageId"]
    assert lines[snap_at + 1]["uuid"] == named == lines[snap_at]["snapshot"]["messageId"]
    for x in lines:
        if x.get("parentUuid") is not None:
            assert x["parentUuid"] in by_uuid  # one chain through the notices
    out = tmp_path / "back.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    back = next(claude_code.read(out))
    again = Counter(m.source_meta.get("meta_record") for m in back.messages)
    assert again["notice"] == 2 and again["file_snapshot"] == 1
    original = next(claude_code.read(source))
    assert [m.text for m in path_to(back.messages, back.tip) if m.role == "system"] == [
        m.text for m in path_to(original.messages, original.tip) if m.role == "system"]
