"""SPEC R1 beyond the messages' text: secrets in an image's metadata, in the conversation's
metadata, checkpoint labels, model names, source fields and part metadata are replaced in
every export for sharing; the pixels no one read are named in the notes; the native export
and the stored conversation stay exact."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import assistant, new_store
from PIL import Image
from PIL.PngImagePlugin import PngInfo
from test_R1_secrets import ANTHROPIC, GITHUB, OPENAI

from explorer.app.sharing.exporting import export_lines
from explorer.compaction import planner
from explorer.compaction.target import Target
from explorer.tree.image_secrets import metadata_text, redact_image
from explorer.tree.model import Message, Part
from explorer.tree.secrets import SecretRedactor, redact_messages

SHARING = ["markdown", "html", "anthropic", "openai", "claude-code", "pi", "codex"]


def png_with_text(**chunks: str) -> bytes:
    info = PngInfo()
    for key, value in chunks.items():
        info.add_text(key, value, zip=key.startswith("z"))
    buf = io.BytesIO()
    Image.new("RGB", (8, 6), (200, 30, 30)).save(buf, "PNG", pnginfo=info)
    return buf.getvalue()


def jpeg_with_description(text: str) -> bytes:
    exif = Image.Exif()
    exif[0x010E] = text  # ImageDescription
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (10, 120, 200)).save(buf, "JPEG", exif=exif.tobytes(),
                                                    quality=90)
    return buf.getvalue()


def pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as im:
        return im.convert("RGB").tobytes()


def test_R1_a_png_text_chunk_holding_a_key_is_removed_and_the_pixels_stay_exact() -> None:
    data = png_with_text(Comment=f"deploy key {OPENAI}", Author="Ada",
                         zNotes=f"export GH={GITHUB}")
    assert OPENAI in metadata_text(data) and GITHUB in metadata_text(data)
    clean, kinds = redact_image(data)
    assert sorted(kinds) == ["github-token", "openai-key"]
    assert OPENAI not in metadata_text(clean) and GITHUB not in metadata_text(clean)
    assert "Author: Ada" in metadata_text(clean)  # harmless text stays
    assert pixels(clean) == pixels(data)
    with Image.open(io.BytesIO(clean)) as im:
        im.load()  # still a valid PNG: every kept chunk's checksum holds
        assert im.info.get("Author") == "Ada" and "Comment" not in im.info


def test_R1_a_jpeg_exif_description_holding_a_key_is_overwritten_in_place() -> None:
    data = jpeg_with_description(f"screenshot of the console, key {ANTHROPIC}")
    clean, kinds = redact_image(data)
    assert kinds == ["anthropic-key"]
    assert ANTHROPIC.encode() not in clean and len(clean) == len(data)
    assert pixels(clean) == pixels(data)
    with Image.open(io.BytesIO(clean)) as im:
        assert "screenshot of the console" in str(im.getexif().get(0x010E))


def test_R1_an_image_without_secrets_is_the_same_bytes() -> None:
    data = png_with_text(Software="a screenshot tool 2.1")
    assert redact_image(data) == (data, [])
    jpeg = jpeg_with_description("a cat on a mat")
    assert redact_image(jpeg) == (jpeg, [])


def image_message(data: bytes, media_type: str = "image/png") -> Message:
    return Message(id=None, parent_id=None, role="user", parts=[
        Part("text", "what does this show?"),
        Part("image", data=data, media_type=media_type, meta={"name": f"shot-{OPENAI}.png"})])


def test_R1_requests_carry_the_images_without_their_secret_metadata_and_say_pixels_went_unread(
    tmp_path: Path,
) -> None:
    data = png_with_text(Comment=f"key {OPENAI}")
    context = [image_message(data), assistant("a red square")]
    target = Target.default("anthropic", window=200_000, redactor=SecretRedactor())
    plan = planner.full_plan(context, target)
    sent = planner.request_messages(plan, [])
    (image,) = [p for m in sent for p in m.parts if p.kind == "image"]
    assert image.data is not None and OPENAI not in metadata_text(image.data)
    assert OPENAI not in json.dumps(image.meta)
    assert any("1 image(s) were not scanned for secrets in their pixels" in n
               for n in plan.notes)
    assert any("image metadata" in n and "openai-key" in n for n in plan.notes)


@pytest.mark.parametrize("fmt", SHARING)
def test_R1_exports_redact_the_title_meta_checkpoint_labels_and_source_fields(
    fmt: str, tmp_path: Path,
) -> None:
    store = new_store(tmp_path)
    with store:
        conv = store.create_conversation(
            f"ops with {OPENAI}",
            meta={"cwd": "/srv/app", "system_prompt": f"use GITHUB_TOKEN={GITHUB}",
                  "model_settings": {"api_key": ANTHROPIC, "temperature": 0.2}})
        hello = Message(id=None, parent_id=None, role="user", parts=[Part("text", "hello")],
                        source_meta={"note": f"pasted {GITHUB}", "api": "anthropic-messages"})
        ids = store.append_turn(conv, [hello, assistant("hi there")])
        store.checkpoint(conv, f"before rotating {OPENAI}", ids[-1])
        notes: list[str] = []
        text = "\n".join(export_lines(store, conv, fmt, notes=notes))
        native = "\n".join(export_lines(store, conv, "native"))
        kept = store.conversation(conv).meta
    for secret in (OPENAI, GITHUB, ANTHROPIC):
        assert secret not in text
        assert secret in native or secret in json.dumps(kept)  # the backup stays exact
    assert OPENAI in native and GITHUB in native
    assert any(n.startswith("redacted ") for n in notes)
    assert not any(s in n for n in notes for s in (OPENAI, GITHUB, ANTHROPIC))


def test_R1_the_notes_name_where_outside_the_text_secrets_were_found(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    with store:
        conv = store.create_conversation("plain", meta={"system_prompt": f"key {OPENAI}"})
        ids = store.append_turn(conv, [image_message(png_with_text(Comment=GITHUB)),
                                       assistant("ok")])
        store.checkpoint(conv, f"v1 {ANTHROPIC}", ids[-1])
        notes: list[str] = []
        list(export_lines(store, conv, "pi", notes=notes))
    (line,) = [n for n in notes if n.startswith("redacted ")]
    for place in ("checkpoint labels", "conversation meta", "image metadata",
                  "part metadata"):
        assert place in line
    assert any("1 image(s) were not scanned" in n for n in notes)


def test_R1_opaque_signatures_are_left_exact_for_the_provider_to_verify() -> None:
    signed = Message(id=1, parent_id=None, role="assistant", parts=[
        Part("thinking", "let me think", meta={"signature": f"Eq{OPENAI}"})])
    (out,), found = redact_messages([signed])
    assert out is signed and found == []
