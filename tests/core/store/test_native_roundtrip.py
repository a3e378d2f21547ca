"""The native export is lossless: import(export(x)) reproduces x, and re-import adds nothing."""

from __future__ import annotations

from pathlib import Path

from helpers import new_store

from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.app.sharing.exporting import export_lines, export_to_file
from explorer.store import Store


def _shape(s: Store, conv: int) -> list[tuple[object, ...]]:
    """Everything but the ids: role, parts, parent's position, in tree order."""
    from explorer.store.reads_all import conversation_messages

    msgs = conversation_messages(s.reader, conv)
    pos = {m.id: i for i, m in enumerate(msgs)}
    return [(m.role, pos.get(m.parent_id), m.model, m.created_at, m.usage,
             [(p.kind, p.text, p.tool_name, p.tool_use_id, p.is_error, p.data, p.media_type)
              for p in m.parts]) for m in msgs]


def test_native_export_imports_back_to_the_same_conversation(tmp_path: Path) -> None:
    with new_store(tmp_path, "a.db") as a:
        conv = load_demo(a)
        out = tmp_path / "demo.jsonl"
        export_to_file(a, conv, out)
        first = out.read_text(encoding="utf-8")
        with new_store(tmp_path, "b.db") as b:
            report = import_paths(b, [out])
            [outcome] = report.conversations
            copy = outcome.conversation_id
            assert _shape(a, conv) == _shape(b, copy)
            assert set(b.checkpoints(copy)) == set(a.checkpoints(conv))
            assert len(b.rewinds(copy)) == len(a.rewinds(conv)) == 1
            assert b.message(b.conversation(copy).tip_id or 0).text == \
                a.message(a.conversation(conv).tip_id or 0).text
            again = "".join(line + "\n" for line in export_lines(b, copy))
            assert again == first


def test_importing_the_same_export_again_adds_nothing(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = load_demo(s)
        out = tmp_path / "x.jsonl"
        export_to_file(s, conv, out)
        with new_store(tmp_path, "other.db") as o:
            first = import_paths(o, [out])
            second = import_paths(o, [out])
            assert first.added_messages == s.conversation(conv).message_count
            assert second.added_messages == 0
            assert len(o.conversations()) == 1


def test_branch_export_holds_only_the_path(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = load_demo(s)
        tip = s.conversation(conv).tip_id or 0
        lines = list(export_lines(s, conv, at=tip))
        assert len(lines) - 1 >= len(s.path(conv))
        assert sum('"type":"message"' in ln for ln in lines) == len(s.path(conv))


def test_a_damaged_line_is_skipped_and_named(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = load_demo(s)
        out = tmp_path / "x.jsonl"
        export_to_file(s, conv, out)
        lines = out.read_text(encoding="utf-8").splitlines()
        lines[3] = lines[3][: len(lines[3]) // 2]
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with new_store(tmp_path, "b.db") as b:
            [outcome] = import_paths(b, [out]).conversations
            assert any(n.startswith("line 4: skipped") for n in outcome.notes)
            assert outcome.added == s.conversation(conv).message_count - 1
