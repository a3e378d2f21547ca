"""The ChatGPT exports of the corpus: a branching conversation as ``conversations.json``
holds it (an array) and one recent conversation object with an image, thoughts and a code
interpreter call, written the way ChatGPT writes them (one line, ASCII escapes)."""

from __future__ import annotations

import struct
import uuid
import zlib
from typing import Any

NAMESPACE = uuid.UUID("0b5e8c1e-6a0d-4c39-9a57-3f2f0c7d1e42")
IMAGE_ID = "file-K4tR8wQm2ZpXy7"
IMAGE_NAME = f"{IMAGE_ID}-despensa.png"


def node_id(name: str) -> str:
    """A stable UUID for a node named ``name`` (ids in real exports are UUIDs too)."""
    return str(uuid.uuid5(NAMESPACE, name))


def png(width: int = 2, height: int = 1) -> bytes:
    """A small valid PNG: the picture a person uploaded."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + b"\xd0\x80\x20" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def message(key: str, role: str, parts: list[Any] | None, t: float | None, *,
            model: str | None = None, content: dict[str, Any] | None = None,
            status: str = "finished_successfully", hidden: bool = False,
            recipient: str = "all", name: str | None = None,
            metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = dict(metadata or {})
    if hidden:
        meta["is_visually_hidden_from_conversation"] = True
    if model:
        meta.update({"model_slug": model, "default_model_slug": model})
    if role == "assistant" and status == "finished_successfully" and recipient == "all":
        meta.setdefault("finish_details", {"type": "stop", "stop_tokens": [200002]})
    return {
        "id": node_id(key), "author": {"role": role, "name": name, "metadata": {}},
        "create_time": t, "update_time": None,
        "content": content or {"content_type": "text", "parts": parts},
        "status": status, "end_turn": True if role == "assistant" else None,
        "weight": 0.0 if hidden and role == "system" else 1.0,
        "metadata": meta, "recipient": recipient, "channel": None,
    }


def mapping(nodes: list[tuple[str, str | None, dict[str, Any] | None]]) -> dict[str, Any]:
    """``(key, parent key, message)`` in order → the export's ``mapping`` with children."""
    out: dict[str, Any] = {}
    for key, parent, msg in nodes:
        out[node_id(key)] = {"id": node_id(key), "message": msg,
                             "parent": node_id(parent) if parent else None, "children": []}
    for key, parent, _ in nodes:
        if parent:
            out[node_id(parent)]["children"].append(node_id(key))
    return out


T0 = 1718012400.125  # 2024-06-10, morning in Europe


def branching() -> dict[str, Any]:
    """An edited prompt (the first branch runs one turn longer), a regenerated answer
    (the same words twice; the second is the tip), a hidden system root and an answer
    still in progress on the branch that was left."""
    gpt = "gpt-4o"
    nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [
        ("root", None, None),
        ("system", "root", message("system", "system", [""], None, hidden=True)),
        ("hello", "system", message("hello", "user", ["hi! are you there?"], T0)),
        ("hello-a", "hello", message("hello-a", "assistant",
                                     ["Yes, I'm here. What shall we talk about?"], T0 + 1.5,
                                     model=gpt)),
        ("bergen", "hello-a", message("bergen", "user", ["tell me about the rain in Bergen"],
                                      T0 + 20.25)),
        ("bergen-a", "bergen", message(
            "bergen-a", "assistant",
            ["Bergen is one of the rainiest cities in Europe: it rains on more than 200 days "
             "a year, so people there rarely leave home without a jacket."], T0 + 22.0,
            model=gpt)),
        ("poem", "bergen-a", message("poem", "user", ["write me a poem about rain"], T0 + 40.5)),
        ("poem-a", "poem", message(
            "poem-a", "assistant",
            ["**Rain on the Fjord**\n\nGrey threads stitch the mountain to the sea,\n"
             "roofs hum a tune that only gulls can read."], T0 + 43.0, model=gpt)),
        ("norsk", "poem-a", message("norsk", "user", ["now translate it into Norwegian"],
                                    T0 + 60.0)),
        ("norsk-a", "norsk", message(
            "norsk-a", "assistant", ["**Regn over fjorden**\n\nGr\u00e5e tr\u00e5der syr "
                                     "fjellet til havet,"], T0 + 61.75, model=gpt,
            status="in_progress")),
        ("french", "hello-a", message("french", "user", ["parlons fran\u00e7ais, d'accord ?"],
                                      T0 + 300.5)),
        ("french-a", "french", message(
            "french-a", "assistant", ["Avec plaisir ! De quoi voulez-vous parler ?"],
            T0 + 302.0, model=gpt)),
        ("joke", "french-a", message("joke", "user", ["raconte-moi une blague"], T0 + 320.0)),
    ]
    joke = ("Bien s\u00fbr, en voici une :\n\nPourquoi les plongeurs plongent-ils toujours "
            "en arri\u00e8re ?\n\nParce que sinon, ils tombent dans le bateau !")
    nodes += [
        ("joke-a", "joke", message("joke-a", "assistant", [joke], T0 + 321.5, model=gpt)),
        ("joke-b", "joke", message("joke-b", "assistant", [joke], T0 + 330.25, model=gpt)),
    ]
    return {
        "title": "Rain, a poem and a French joke", "create_time": T0,
        "update_time": T0 + 331.0, "mapping": mapping(nodes), "moderation_results": [],
        "current_node": node_id("joke-b"), "plugin_ids": None,
        "conversation_id": node_id("conversation-branching"),
        "conversation_template_id": None, "gizmo_id": None, "is_archived": False,
        "safe_urls": [], "default_model_slug": gpt, "id": node_id("conversation-branching"),
    }


T1 = 1760520000.5  # 2025-10-15


def recent() -> dict[str, Any]:
    """One conversation object as a recent export writes it alone: the person's profile
    as context, hidden system messages, an uploaded photo, an empty answer, thoughts, a
    reasoning recap, a code interpreter call and its output, and Spanish throughout."""
    o3 = "o3"
    profile = ("The user provided the following information about themselves.\n"
               "User profile:\n```Preferred name: Marta\nRole: home cook in Valencia\n```")
    context = {"content_type": "user_editable_context", "user_profile": profile,
               "user_instructions": "The user provided the additional info about how they "
                                    "would like you to respond:\n```Responde en espa\u00f1ol."
                                    "```"}
    photo = {"content_type": "image_asset_pointer",
             "asset_pointer": f"file-service://{IMAGE_ID}", "size_bytes": len(png()),
             "width": 2, "height": 1, "fovea": None, "metadata": None}
    ask = "\u00bfQu\u00e9 puedo cocinar con esto? Tengo arroz, huevos y pimientos."
    upload = {"content_type": "multimodal_text", "parts": [photo, ask]}
    attachment = {"id": IMAGE_ID, "size": len(png()), "name": "despensa.png",
                  "mime_type": "image/png", "width": 2, "height": 1}
    thoughts = {"content_type": "thoughts", "thoughts": [
        {"summary": "Ingredientes", "content": "Arroz, huevos y pimientos: un arroz "
                                               "salteado encaja, para dos personas."}],
        "source_analysis_msg_id": node_id("empty")}
    code = {"content_type": "code", "language": "unknown",
            "text": "arroz = 200  # gramos\nhuevos = 3\n"
                    "print(f'{arroz / huevos:.1f} g de arroz por huevo')"}
    output = {"content_type": "execution_output", "text": "66.7 g de arroz por huevo\n"}
    answer = ("## Arroz salteado con huevo\n\n1. Cuece 200 g de arroz y d\u00e9jalo enfriar.\n"
              "2. Sofr\u00ede los pimientos en tiras.\n3. A\u00f1ade el arroz y los tres huevos "
              "batidos.\n\nPara m\u00e1s personas:\n\n```python\nporciones = 4\n"
              "print(porciones * 50, 'g de arroz')\n```")
    nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [
        ("client-created-root", None, None),
        ("sys", "client-created-root", message("sys", "system", [""], None, hidden=True)),
        ("profile", "sys", message("profile", "user", None, T1 - 0.5, content=context,
                                   hidden=True)),
        ("sys-context", "profile", message(
            "sys-context", "system", [""], None, hidden=True,
            metadata={"is_contextual_answers_system_message": True,
                      "contextual_answers_message_type": "identity_prompt"})),
        ("photo", "sys-context", message("photo", "user", None, T1, content=upload,
                                         metadata={"attachments": [attachment]})),
        ("empty", "photo", message("empty", "assistant", [""], T1 + 0.75, model=o3,
                                   metadata={"message_type": "next"})),
        ("thoughts", "empty", message("thoughts", "assistant", None, T1 + 2.0, model=o3,
                                      content=thoughts)),
        ("recap", "thoughts", message("recap", "assistant", None, T1 + 4.5, model=o3,
                                      content={"content_type": "reasoning_recap",
                                               "content": "Pens\u00f3 durante 4 segundos"})),
        ("code", "recap", message("code", "assistant", None, T1 + 5.0, model=o3,
                                  content=code, recipient="python")),
        ("output", "code", message("output", "tool", None, T1 + 6.25, content=output,
                                   name="python")),
        ("answer", "output", message("answer", "assistant", [answer], T1 + 9.5, model=o3)),
    ]
    nodes[-1][2]["update_time"] = T1 + 12.0  # type: ignore[index]
    return {
        "title": "Receta con lo que hay en la despensa", "create_time": T1 - 0.5,
        "update_time": T1 + 12.0, "mapping": mapping(nodes), "moderation_results": [],
        "current_node": node_id("answer"), "plugin_ids": None,
        "conversation_id": node_id("conversation-recent"), "conversation_template_id": None,
        "gizmo_id": None, "gizmo_type": None, "is_archived": False, "is_starred": None,
        "safe_urls": [], "blocked_urls": [], "default_model_slug": o3,
        "conversation_origin": None, "voice": None, "async_status": None,
        "disabled_tool_ids": [], "is_do_not_remember": False, "memory_scope": "global_enabled",
        "is_study_mode": False, "owner": None, "id": node_id("conversation-recent"),
    }
