"""ChatGPT exports: the corpus's exports and every way the export reaches a person."""

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
TREE_TIP = "78a4271a-fa15-573b-840d-1c7a312b52c7"


def read_all(path: Path) -> list[ImportedConversation]:
    return list(chatgpt.read(path))


def branch_points(messages: list[Message]) -> list[str]:
    counts = Counter(m.parent_id for m in messages if m.parent_id is not None)
    return sorted(str(k) for k, n in counts.items() if n > 1)


@pytest.fixture
def exports(corpus_dir: Path) -> Path:
    """The ChatGPT exports kept in the repository (tests/corpus/exports/README.md)."""
    return corpus_dir / "exports" / "chatgpt"


def path_to(messages: list[Message], tip: Hashable) -> list[Message]:
    by_id = {m.id: m for m in messages}
    out = [by_id[tip]]
    while out[-1].parent_id is not None:
        out.append(by_id[out[-1].parent_id])
    return out[::-1]


def test_tree_sample_counts(exports: Path) -> None:
    (conv,) = read_all(exports / "branching.json")
    assert conv.title == "Rain, a poem and a French joke"
    assert conv.source_format == "chatgpt"
    assert conv.source_id == "134119ac-1a4b-586a-9f2c-07a2c9fbebcc"
    assert len(conv.messages) == 14  # 15 nodes, the message-less root left out
    assert branch_points(conv.messages) == [
        "2359ff07-5474-5517-9123-5a01e957479b",  # an edit: two prompts
        "8b2542e5-4094-5403-888e-a4d7427b6179",  # a regenerate: two answers
    ]
    assert conv.tip == TREE_TIP
    assert conv.notes == []


def test_tree_sample_tip_is_a_non_first_child(exports: Path) -> None:
    (conv,) = read_all(exports / "branching.json")
    siblings = [
        m.id for m in conv.messages if m.parent_id == "8b2542e5-4094-5403-888e-a4d7427b6179"
    ]
    assert siblings == ["9f3da9c8-1749-58cd-b741-e4c28f8af742", TREE_TIP]
    path = path_to(conv.messages, TREE_TIP)
    assert [m.text for m in path if m.role == "user"] == [
        "hi! are you there?", "parlons français, d'accord ?", "raconte-moi une blague"]
    (left,) = [m for m in conv.messages if m.text == "tell me about the rain in Bergen"]
    assert left.parent_id == path[2].id, "the edit is a sibling of the prompt it replaced"
    assert len(path) == 7 and len(path_to(conv.messages, conv.messages[8].id)) == 9


def test_tree_sample_hidden_system_root_and_in_progress_reply(exports: Path) -> None:
    (conv,) = read_all(exports / "branching.json")
    roots = [m for m in conv.messages if m.parent_id is None]
    assert len(roots) == 1
    assert roots[0].role == "system" and roots[0].source_meta["hidden"] is True
    assert roots[0].parts == [] and roots[0].created_at is None  # an empty part is no part
    (busy,) = [m for m in conv.messages if m.source_meta.get("in_progress")]
    assert busy.source_id == "ae88cf8d-3fc6-58e1-9043-6bf7cf97d01f"
    assert busy.source_meta["status"] == "in_progress"
    assert busy.text.startswith("**Regn over fjorden**\n\nGråe tråder")
    assert conv.incomplete is False  # the unfinished reply is on another branch


def test_tree_sample_models_and_times(exports: Path) -> None:
    (conv,) = read_all(exports / "branching.json")
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert len(answers) == 7 and {m.model for m in answers} == {"gpt-4o"}
    assert all(m.model is None for m in conv.messages if m.role == "user")
    assert all(isinstance(m.created_at, float) for m in conv.messages if m.role != "system")
    assert conv.created_at == 1718012400.125
    a, b = (m for m in answers if m.text.startswith("Bien sûr"))
    assert a.text == b.text and (a.created_at, b.created_at) == (1718012721.625, 1718012730.375)


def test_single_conversation_object(exports: Path) -> None:
    (conv,) = read_all(exports / "single-conversation.json")
    assert conv.title == "Receta con lo que hay en la despensa"
    assert len(conv.messages) == 10  # 11 nodes, client-created-root left out
    assert conv.tip == "8a1e3e3b-3091-5d85-9f82-01cd29f49640"
    assert branch_points(conv.messages) == []
    context = [m for m in conv.messages if m.source_meta["content_type"] == "user_editable_context"]
    assert len(context) == 1 and context[0].role == "system"
    assert "Preferred name: Marta" in context[0].parts[0].text
    assert "Responde en español." in context[0].parts[1].text
    assert sum(1 for m in conv.messages if m.source_meta.get("hidden")) == 3
    path = path_to(conv.messages, conv.tip)
    assert [m.role for m in path] == ["system", "system", "system", "user", "assistant",
                                      "assistant", "assistant", "assistant", "tool", "assistant"]
    assert path[-1].model == "o3" and "```python" in path[-1].text
    assert conv.meta["default_model_slug"] == "o3" and conv.meta["is_archived"] is False


def test_single_conversation_reasoning_code_call_and_empty_answer(exports: Path) -> None:
    (conv,) = read_all(exports / "single-conversation.json")
    path = path_to(conv.messages, conv.tip)
    empty, thoughts, recap, call, output = path[4:9]
    assert empty.parts == [] and empty.source_meta["message_type"] == "next"
    assert [(p.kind, p.meta) for p in thoughts.parts] == [
        ("thinking", {"summary": "Ingredientes"})]
    assert recap.parts[0].kind == "thinking" and recap.parts[0].meta == {"recap": True}
    assert recap.text == "" and recap.parts[0].text == "Pensó durante 4 segundos"
    (use,) = call.parts
    assert (use.kind, use.tool_name, use.meta["language"]) == ("tool_use", "python", "unknown")
    assert json.loads(use.text)["code"].startswith("arroz = 200")
    (result,) = output.parts
    assert (result.kind, result.tool_use_id, result.text) == (
        "tool_result", use.tool_use_id, "66.7 g de arroz por huevo\n")
    assert output.role == "tool" and output.source_meta["author_name"] == "python"


def test_an_upload_finds_its_image_beside_the_export(exports: Path) -> None:
    (conv,) = read_all(exports / "single-conversation.json")
    png = (exports / "file-K4tR8wQm2ZpXy7-despensa.png").read_bytes()
    assert images_of(conv) == {"file-service://file-K4tR8wQm2ZpXy7": (png, "image/png")}
    (photo,) = [m for m in conv.messages if m.source_meta["content_type"] == "multimodal_text"]
    assert [p.kind for p in photo.parts] == ["image", "text"]
    assert photo.parts[1].text.startswith("¿Qué puedo cocinar")
    assert photo.parts[0].meta["file_name"] == "file-K4tR8wQm2ZpXy7-despensa.png"
    assert photo.source_meta["attachments"][0]["name"] == "despensa.png"


def test_source_ids_are_kept(exports: Path) -> None:
    (conv,) = read_all(exports / "single-conversation.json")
    assert all(m.source_id == m.id for m in conv.messages)
    assert conv.source_id == "c24bf5cf-d501-5db8-a1df-56cd061aef91"


def test_sniff_accepts_the_exports(exports: Path) -> None:
    assert chatgpt.sniff(exports / "branching.json")
    assert chatgpt.sniff(exports / "single-conversation.json")


def test_sniff_rejects_other_formats(corpus_dir: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.json"
    text.write_text("Just some words about a mapping and current_node.\n" * 20)
    others = corpus_dir / "exports"
    assert not chatgpt.sniff(others / "openwebui" / "chat-export-1716802100.json")
    assert not chatgpt.sniff(others / "claude_ai" / "conversations.json")
    assert not chatgpt.sniff(others / "librechat" / "librechat-tree.json")
    assert not chatgpt.sniff(others / "chatgpt" / "file-K4tR8wQm2ZpXy7-despensa.png")
    for session in sorted((corpus_dir / "codex").rglob("*.jsonl")):
        assert not chatgpt.sniff(session)
    assert not chatgpt.sniff(text)
    assert not chatgpt.sniff(tmp_path / "absent.json")


def test_sniff_ignores_the_file_name(exports: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "export.txt"
    shutil.copyfile(exports / "branching.json", renamed)
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


def two_conversations(exports: Path) -> list[dict[str, object]]:
    tree = json.loads((exports / "branching.json").read_text())
    single = json.loads((exports / "single-conversation.json").read_text())
    return [tree[0], single]


def test_split_files_in_a_zip_are_read_in_order(exports: Path, tmp_path: Path) -> None:
    members = split(two_conversations(exports))
    path = write_zip(tmp_path / "export.zip", dict(reversed(members.items())))
    titles = [c.title for c in read_all(path)]
    assert titles == ["Rain, a poem and a French joke", "Receta con lo que hay en la despensa"]


def test_unpacked_folder_with_split_files_and_images(exports: Path, tmp_path: Path) -> None:
    for name, data in split(two_conversations(exports)).items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "conversations-002.json").write_bytes(tools_bytes())
    (tmp_path / "user-xyz").mkdir()
    (tmp_path / "user-xyz" / "file-Abc123-dot.png").write_bytes(PNG)
    (tmp_path / "unrelated.json").write_text("[1, 2]")
    assert chatgpt.sniff(tmp_path)
    convs = read_all(tmp_path)
    assert [len(c.messages) for c in convs] == [14, 10, 14]
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
