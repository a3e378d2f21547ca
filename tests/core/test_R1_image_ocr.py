"""SPEC R1 for secrets drawn in images: with OCR asked for (Settings or ``--ocr-images``)
the words Tesseract reads are scanned like text and the boxes of a secret are painted black;
without it (the default) or without Tesseract the notes name the images left unread.
Tesseract is optional for a person; the tests need it installed (CI installs it), as the
OCR smoke test does."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
import system_tools
from helpers import assistant, new_store
from PIL import Image, ImageDraw, ImageFont
from test_R1_secrets import OPENAI

from explorer.app.preferences import AppPrefs, load_app_prefs, save_app_prefs
from explorer.app.sharing import image_ocr
from explorer.app.sharing.exporting import export_lines
from explorer.app.sharing.image_ocr import OcrReader, black_out, parse_tsv, secret_boxes
from explorer.providers.settings import settings_path
from explorer.tree.model import Message, Part
from explorer.tree.secrets import SecretRedactor, redact_messages, unscanned_images

HEADER = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight"
          "\tconf\ttext")


def tsv(*words: tuple[int, str, tuple[int, int, int, int]]) -> str:
    rows = [HEADER, "4\t1\t1\t1\t1\t0\t0\t0\t900\t40\t-1\t"]
    rows += [f"5\t1\t1\t1\t{line}\t{n}\t{b[0]}\t{b[1]}\t{b[2]}\t{b[3]}\t91.5\t{text}"
             for n, (line, text, b) in enumerate(words, 1)]
    return "\n".join(rows) + "\n"


def screenshot(text: str) -> bytes:
    im = Image.new("RGB", (900, 110), "white")
    draw = ImageDraw.Draw(im)
    font = ImageFont.load_default(size=22)
    draw.text((10, 10), text, fill="black", font=font)
    draw.text((10, 60), "and then run the deploy script", fill="black", font=font)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def test_R1_the_words_a_secret_spans_give_one_box_with_its_kind() -> None:
    words = parse_tsv(tsv((1, "export", (10, 10, 60, 20)),
                          (1, f"KEY={OPENAI}", (80, 8, 700, 24)),
                          (2, "token", (10, 50, 50, 20)), (2, "is", (70, 50, 20, 20)),
                          (2, "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXyZ", (100, 48, 400, 22))))
    assert [w.text for w in words][:2] == ["export", f"KEY={OPENAI}"]
    found = secret_boxes(words)
    assert found == [((80, 8, 700, 24), "openai-key"), ((100, 48, 400, 22), "github-token")]
    assert secret_boxes(parse_tsv(tsv((1, "nothing", (0, 0, 10, 10)),
                                      (1, "here", (20, 0, 10, 10))))) == []


def test_R1_black_out_paints_the_boxes_and_leaves_the_rest() -> None:
    data = screenshot("an ordinary line")
    out = black_out(data, [(100, 20, 50, 10)])
    with Image.open(io.BytesIO(out)) as im:
        assert im.format == "PNG" and im.size == (900, 110)
        assert im.convert("RGB").getpixel((120, 25)) == (0, 0, 0)
        assert im.convert("RGB").getpixel((600, 100)) == (255, 255, 255)


def image_message(data: bytes) -> Message:
    return Message(id=7, parent_id=None, role="user", parts=[
        Part("text", "see the screenshot"), Part("image", data=data, media_type="image/png")])


def test_R1_a_pixel_reader_blacks_out_and_the_image_counts_as_scanned() -> None:
    data = screenshot("plain")

    def reader(image: bytes) -> tuple[bytes, list[str]] | None:
        return black_out(image, [(0, 0, 40, 40)]), ["openai-key"]

    (out,), found = redact_messages([image_message(data)], reader)
    image = out.parts[1]
    assert image.data is not None and image.data != data
    assert [(f.kind, f.where) for f in found] == [("openai-key", "image pixels (OCR)")]
    assert unscanned_images([out]) == 0 and unscanned_images([image_message(data)]) == 1
    notes: list[str] = []
    SecretRedactor(lambda image: None)([image_message(data)], notes)  # could not read it
    assert any("1 image(s) were not scanned" in n for n in notes)
    clean: list[str] = []
    SecretRedactor(lambda image: (image, []))([image_message(data)], clean)
    assert clean == []  # read, nothing found: nothing to say


def test_R1_ocr_is_off_by_default_and_asking_without_tesseract_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_app_prefs().ocr_images is False
    store = new_store(tmp_path)
    with store:
        conv = store.create_conversation("shots")
        store.append_turn(conv, [image_message(screenshot("hello")), assistant("ok")])
        notes: list[str] = []
        list(export_lines(store, conv, "markdown", notes=notes))
        assert any("1 image(s) were not scanned" in n for n in notes)
        monkeypatch.setattr(image_ocr.shutil, "which", lambda name: None)
        asked: list[str] = []
        list(export_lines(store, conv, "markdown", notes=asked, ocr=True))
    assert any("tesseract program is not installed" in n for n in asked)
    save_app_prefs(AppPrefs(ocr_images=True))
    assert json.loads(settings_path().read_text())["app"]["ocr_images"] is True
    assert load_app_prefs().ocr_images is True


def test_R1_tesseract_finds_a_key_in_a_screenshot_and_the_export_blacks_it_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    system_tools.tesseract("eng")
    data = screenshot(f"export OPENAI_API_KEY={OPENAI}")
    program = image_ocr.tesseract()
    assert program is not None
    read = OcrReader(program)(data)
    assert read is not None
    out, kinds = read
    assert kinds == ["openai-key"]
    with Image.open(io.BytesIO(out)) as im:
        row = [im.convert("RGB").getpixel((x, 28)) for x in range(300, 700, 10)]
    assert row.count((0, 0, 0)) == len(row)  # the key's box is black
    again = OcrReader(program)(out)
    assert again is not None and again[1] == []  # nothing left to read
    store = new_store(tmp_path)
    with store:
        conv = store.create_conversation("shots")
        store.append_turn(conv, [image_message(data), assistant("ok")])
        notes: list[str] = []
        text = "\n".join(export_lines(store, conv, "anthropic", notes=notes, ocr=True))
    assert any("image pixels (OCR)" in n and "openai-key" in n for n in notes)
    assert not any("were not scanned" in n for n in notes)
    body = json.loads(text)
    sent = [b for m in body["messages"] for b in m["content"] if b["type"] == "image"]
    assert len(sent) == 1
    assert base64.b64decode(sent[0]["source"]["data"]) == out  # the blacked-out picture


def test_R1_export_on_the_command_line_names_unread_images_and_takes_ocr_images(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from explorer.cli import main

    store = new_store(tmp_path)
    with store:
        conv = store.create_conversation("shots")
        store.append_turn(conv, [image_message(screenshot(f"KEY={OPENAI}")), assistant("ok")])
    db = str(tmp_path / "t.db")
    assert main.main(["--db", db, "export", str(conv), "--format", "markdown"]) == 0
    assert "1 image(s) were not scanned" in capsys.readouterr().err
    if image_ocr.tesseract() is None:
        assert main.main(["--db", db, "export", str(conv), "--format", "markdown",
                          "--ocr-images"]) == 0
        assert "tesseract program is not installed" in capsys.readouterr().err
        return
    assert main.main(["--db", db, "export", str(conv), "--format", "markdown",
                      "--ocr-images"]) == 0
    err = capsys.readouterr().err
    assert "image pixels (OCR)" in err and "were not scanned" not in err
