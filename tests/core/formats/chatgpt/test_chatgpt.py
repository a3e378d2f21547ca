"""ChatGPT exports: the real samples and every way the export reaches a person."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

import pytest

from explorer.formats import chatgpt
from explorer.formats.base import FormatError, ImportedConversation
from explorer.tree.model import Message

FIXTURES = Path(__file__).parent / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 "
TREE_TIP = "f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"


def read_all(path: Path) -> list[ImportedConversation]:
    return list(chatgpt.read(path))


def branch_points(messages: list[Message]) -> list[str]:
    counts = Counter(m.parent_id for m in messages if m.parent_id is not None)
    return sorted(str(k) for k, n in counts.items() if n > 1)


def path_to(messages: list[Message], tip: Hashable) -> list[Message]:
    by_id = {m.id: m for m in messages}
    out = [by_id[tip]]
    while out[-1].parent_id is not None:
        out.append(by_id[out[-1].parent_id])
    return out[::-1]


def test_tree_sample_counts(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "chatgpt-tree.json")
    assert conv.title == "Assist user with summary"
    assert conv.source_format == "chatgpt"
    assert len(conv.messages) == 12  # 13 nodes, the message-less root left out
    assert branch_points(conv.messages) == [
        "aaa20127-b9e3-44f6-afbe-a2475838625a",  # a regenerate: two answers
        "bda8a275-886d-4f59-b38c-d7037144f0d5",  # an edit: two prompts
    ]
    assert conv.tip == TREE_TIP
    assert conv.notes == []


def test_tree_sample_tip_is_a_non_first_child(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "chatgpt-tree.json")
    siblings = [
        m.id for m in conv.messages if m.parent_id == "aaa20127-b9e3-44f6-afbe-a2475838625a"
    ]
    assert siblings.index(TREE_TIP) == 1
    path = path_to(conv.messages, TREE_TIP)
    assert [m.text for m in path if m.role == "user"] == ["hi there", "hi again", "tell me a joke"]


def test_tree_sample_hidden_system_root_and_in_progress_reply(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "chatgpt-tree.json")
    roots = [m for m in conv.messages if m.parent_id is None]
    assert len(roots) == 1
    assert roots[0].role == "system" and roots[0].source_meta["hidden"] is True
    (busy,) = [m for m in conv.messages if m.source_meta.get("in_progress")]
    assert busy.source_id == "ada93f81-f59e-4b31-933d-1357efd68bfc"
    assert busy.source_meta["status"] == "in_progress"
    assert busy.text.startswith("Sure! Here's a short story")
    assert conv.incomplete is False  # the unfinished reply is on another branch


def test_tree_sample_models_and_times(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "chatgpt-tree.json")
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"text-davinci-002-render-sha"}
    assert all(m.model is None for m in conv.messages if m.role == "user")
    assert all(isinstance(m.created_at, float) for m in conv.messages if m.role != "system")
    assert conv.created_at is not None


def test_single_conversation_object(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "single-conversation.json")
    assert conv.title == "Indigenous DNA in Mexico"
    assert len(conv.messages) == 7
    assert conv.tip == "f7df9d33-b98c-47ca-964a-2b1bdb9808f3"
    assert branch_points(conv.messages) == []
    context = [m for m in conv.messages if m.source_meta["content_type"] == "user_editable_context"]
    assert len(context) == 1 and context[0].role == "system"
    assert "Preferred name: Tecolote" in context[0].text
    assert sum(1 for m in conv.messages if m.source_meta.get("hidden")) == 4
    assert path_to(conv.messages, conv.tip)[-1].model == "gpt-4o"


def test_source_ids_are_kept(samples_dir: Path) -> None:
    (conv,) = read_all(samples_dir / "chatgpt" / "single-conversation.json")
    assert all(m.source_id == m.id for m in conv.messages)
    assert conv.source_id is not None


def test_sniff_accepts_samples(samples_dir: Path) -> None:
    assert chatgpt.sniff(samples_dir / "chatgpt" / "chatgpt-tree.json")
    assert chatgpt.sniff(samples_dir / "chatgpt" / "single-conversation.json")


def test_sniff_rejects_other_formats(samples_dir: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.json"
    text.write_text("Just some words about a mapping and current_node.\n" * 20)
    assert not chatgpt.sniff(samples_dir / "claude_code" / "short.jsonl")
    assert not chatgpt.sniff(samples_dir / "openwebui" / "openwebui-export.json")
    assert not chatgpt.sniff(text)
    assert not chatgpt.sniff(tmp_path / "absent.json")


def test_sniff_ignores_the_file_name(samples_dir: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "export.txt"
    shutil.copyfile(samples_dir / "chatgpt" / "chatgpt-tree.json", renamed)
    fake = tmp_path / "conversations.json"
    fake.write_text('{"type": "user", "message": {}}\n')
    assert chatgpt.sniff(renamed)
    assert not chatgpt.sniff(fake)


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def tools_bytes() -> bytes:
    return (FIXTURES / "tools.json").read_bytes()


def images_of(conv: ImportedConversation) -> dict[str, tuple[bytes | None, str | None]]:
    return {
        p.meta["asset_pointer"]: (p.data, p.media_type)
        for m in conv.messages
        for p in m.parts
        if p.kind == "image"
    }


def test_zip_as_downloaded_resolves_images(tmp_path: Path) -> None:
    path = write_zip(
        tmp_path / "export.zip",
        {
            "conversations.json": tools_bytes(),
            "file-Abc123-dot.png": PNG,
            "dalle-generations/file-Cat999-cat.webp": WEBP,
            "chat.html": b"<html></html>",
        },
    )
    assert chatgpt.sniff(path)
    (conv,) = read_all(path)
    assert images_of(conv) == {
        "file-service://file-Abc123": (PNG, "image/png"),
        "file-service://file-Cat999": (WEBP, "image/webp"),
    }
    assert conv.meta["member"] == "conversations.json"


def test_image_missing_from_the_export_leaves_a_marker(tmp_path: Path) -> None:
    (conv,) = read_all(write_zip(tmp_path / "e.zip", {"conversations.json": tools_bytes()}))
    markers = [p for m in conv.messages for p in m.parts if p.meta.get("missing_image")]
    assert {p.meta["asset_pointer"] for p in markers} == {
        "file-service://file-Abc123",
        "sediment://file_00missing",
    }
    assert all(p.kind == "text" and "not in the export" in p.text for p in markers)
    assert images_of(conv) == {}


def split(conversations: list[dict[str, object]]) -> dict[str, bytes]:
    return {
        f"conversations-{i:03d}.json": json.dumps([c]).encode() for i, c in enumerate(conversations)
    }


def two_conversations(samples_dir: Path) -> list[dict[str, object]]:
    tree = json.loads((samples_dir / "chatgpt" / "chatgpt-tree.json").read_text())
    single = json.loads((samples_dir / "chatgpt" / "single-conversation.json").read_text())
    return [tree[0], single]


def test_split_files_in_a_zip_are_read_in_order(samples_dir: Path, tmp_path: Path) -> None:
    members = split(two_conversations(samples_dir))
    path = write_zip(tmp_path / "export.zip", dict(reversed(members.items())))
    titles = [c.title for c in read_all(path)]
    assert titles == ["Assist user with summary", "Indigenous DNA in Mexico"]


def test_unpacked_folder_with_split_files_and_images(samples_dir: Path, tmp_path: Path) -> None:
    for name, data in split(two_conversations(samples_dir)).items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "conversations-002.json").write_bytes(tools_bytes())
    (tmp_path / "user-xyz").mkdir()
    (tmp_path / "user-xyz" / "file-Abc123-dot.png").write_bytes(PNG)
    (tmp_path / "unrelated.json").write_text("[1, 2]")
    assert chatgpt.sniff(tmp_path)
    convs = read_all(tmp_path)
    assert [len(c.messages) for c in convs] == [12, 7, 14]
    assert images_of(convs[2]) == {"file-service://file-Abc123": (PNG, "image/png")}


def test_conversations_json_next_to_its_images(tmp_path: Path) -> None:
    (tmp_path / "conversations.json").write_bytes(tools_bytes())
    (tmp_path / "file-Cat999-cat.webp").write_bytes(WEBP)
    (conv,) = read_all(tmp_path / "conversations.json")
    assert images_of(conv) == {"file-service://file-Cat999": (WEBP, "image/webp")}


def test_zip_without_conversations_is_refused(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "photos.zip", {"a.png": PNG})
    assert not chatgpt.sniff(path)
    with pytest.raises(FormatError, match=r"no conversations\.json"):
        read_all(path)


def test_zip_slip_entry_is_refused_and_noted(tmp_path: Path) -> None:
    path = write_zip(
        tmp_path / "e.zip", {"conversations.json": tools_bytes(), "../file-Abc123.png": PNG}
    )
    (conv,) = read_all(path)
    assert any("'../file-Abc123.png' refused" in n for n in conv.notes)
    assert images_of(conv) == {}


def test_zip_bomb_conversations_stop_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open("conversations.json", "w") as f,
    ):
        f.write(b"[")
        for _ in range(64):
            f.write(b" " * (1 << 20))
    assert chatgpt.sniff(path)  # so that reading it can say why it is refused
    with pytest.raises(FormatError, match="zip bomb"):
        read_all(path)
