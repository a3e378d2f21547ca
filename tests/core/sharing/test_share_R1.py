"""Sharing a branch as one HTML page (R1): reviewed first, no planted key or remote load in
the file, what was redacted said in it; --yes takes the defaults, a terminal is asked, and
without either nothing is written."""

from __future__ import annotations

import base64
import builtins
import io
import re
import sys
from pathlib import Path

import pytest
import system_tools
from helpers import assistant, tool_call, tool_result, user
from PIL import Image, ImageDraw, ImageFont

from explorer.app.costs.words import short_money
from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.app.sharing.image_ocr import OcrReader, tesseract
from explorer.app.sharing.share_html import write_share
from explorer.app.sharing.share_review import review_branch
from explorer.app.sharing.share_scan import DEFAULTS
from explorer.cli import main
from explorer.store import Store
from explorer.tree.model import Message, Part
from tests.corpus import claude_code_sessions as cc

KEY = "sk-ant-api03-" + "Q7vR2xWm9Lp4Kd8Ns6Tf1Hy3Jb5Gc0Ze7Ua2Xo4Wi6Vq8"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
HOME = "/home/alice/work/shop"
# what would make a browser fetch something when the page opens (or run something)
REMOTE = re.compile(r"""(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//|"""
                    r"""url\(\s*["']?\s*(?:https?:)?//|@import|<script|<iframe|<link|"""
                    r"""<object|<embed|<base|http-equiv=["']?refresh""", re.IGNORECASE)


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, int, int]:
    """A conversation with a key in a prompt, a token in tool output, a home path, another
    absolute path, an e-mail address and a web link."""
    db = tmp_path / "planted.db"
    with Store(db) as store:
        conv = store.create_conversation(f"Deploy from {HOME}")
        ids = store.append_turn(conv, [
            user(f"Use ANTHROPIC_API_KEY={KEY} and mail ops@example.com when done."),
            tool_call("Bash", "call-1", {"command": f"cd {HOME} && cat /etc/nginx/nginx.conf"}),
            tool_result("call-1", f"token: {GITHUB}\nserver_name shop.example.com;"),
            assistant(f"Done in {HOME}/deploy. See [the docs](https://example.com/deploy) and "
                      "https://example.com/status."),
        ])
    return db, conv, ids[-1]


def share(db: Path, conv: int, out: Path, *extra: str) -> int:
    return main.main(["share", str(conv), "--db", str(db), "-o", str(out), *extra])


def test_R1_share_yes_redacts_secrets_and_home_paths_and_says_so(
        planted: tuple[Path, int, int], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, _ = planted
    out = tmp_path / "shared.html"
    assert share(db, conv, out, "--yes") == 0
    said = capsys.readouterr().out
    assert "secrets: 2" in said and "anthropic-key" in said and "github-token" in said
    assert "/home/alice ×3" in said and "ops@example.com ×1" in said
    assert KEY not in said and GITHUB not in said  # the review names kinds, never values
    page = out.read_text(encoding="utf-8")
    assert KEY not in page and GITHUB not in page and KEY[:20] not in page
    assert "/home/alice" not in page and "~/work/shop/deploy" in page
    assert "/etc/nginx/nginx.conf" in page and "ops@example.com" in page  # kept by default
    assert REMOTE.search(page) is None and "href=" not in page
    assert "redacted: secrets (2), home-folder paths (3)" in page
    assert "anthropic-key ×1" in page and "github-token ×1" in page
    assert "kept as they are, as chosen: other absolute paths (1), e-mail addresses (1)" in page
    assert 'http-equiv="Content-Security-Policy"' in page and "script-src &#x27;none&#x27;" in page
    assert "What this branch cost" in page and '<svg class="map"' in page


def test_R1_share_without_a_terminal_or_yes_writes_nothing(
        planted: tuple[Path, int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, _ = planted
    out = tmp_path / "never.html"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert share(db, conv, out) == 1
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith("convo: error: share needs a terminal") and "--yes" in line
    assert "2 secrets" in line and captured.out == ""
    assert not out.exists() and list(tmp_path.glob(".never.html*")) == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_R1_share_in_a_terminal_asks_once_per_category(
        planted: tuple[Path, int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, _ = planted
    out = tmp_path / "asked.html"
    asked: list[str] = []
    answers = iter(["", "n", "y", "y"])  # secrets: default (redact), home: keep, rest: redact

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr(sys, "stdin", _Terminal(""))
    monkeypatch.setattr(builtins, "input", answer)
    assert share(db, conv, out) == 0
    assert [a.split("?")[0] for a in asked] == [
        "redact the 2 secrets", "redact the 3 home-folder paths",
        "redact the 1 other absolute paths", "redact the 1 e-mail addresses"]
    page = out.read_text(encoding="utf-8")
    assert KEY not in page and GITHUB not in page
    assert HOME in page  # kept, as answered
    assert "/etc/nginx" not in page and "[redacted: path]" in page
    assert "ops@example.com" not in page and "[redacted: e-mail]" in page
    assert "redact" in capsys.readouterr().out


def test_R1_share_links_are_text_and_the_page_fetches_nothing(
        planted: tuple[Path, int, int], tmp_path: Path) -> None:
    db, conv, tip = planted
    out = tmp_path / "links.html"
    with Store(db) as store:
        review = review_branch(store, conv, tip)
        done = write_share(store, conv, tip, out, review, DEFAULTS)
    page = out.read_text(encoding="utf-8")
    assert done.messages == 4 and done.redacted["secrets"] == {
        "anthropic-key": 1, "github-token": 1}
    assert "<a " not in page and "href=" not in page
    assert '<span class="link">the docs</span>' in page
    assert "&lt;https://example.com/deploy&gt;" in page


def test_R1_sharing_the_demo_and_a_real_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "both.db"
    with Store(db) as store:
        demo = load_demo(store)
        [outcome] = import_paths(store, [cc.original()]).conversations
        session = outcome.conversation_id
        store.append_turn(session, [user(f"my key is {KEY}"), assistant("noted")])
    for conv in (demo, session):
        out = tmp_path / f"{conv}.html"
        assert share(db, conv, out, "--yes") == 0
        page = out.read_text(encoding="utf-8")
        assert KEY not in page and REMOTE.search(page) is None and "redacted: " in page
    said = capsys.readouterr().out
    assert "wrote " in said and "the branch cost $" in said
    demo_page = (tmp_path / f"{demo}.html").read_text(encoding="utf-8")
    assert 'src="data:image/png;base64,' in demo_page  # the screenshot, inline
    session_page = (tmp_path / f"{session}.html").read_text(encoding="utf-8")
    assert "redacted: secrets (1)" in session_page
    # its cost with the two subagents rolled in, from the files (Sonnet 4.5: $3 / $15 per
    # million, no cache in the recording); the appended answer has no usage and no price
    files = [cc.original(), *cc.subagents()]
    used = cc.written_usage(files)
    assert used["cache_read_tokens"] == used["cache_write_tokens"] == 0
    usd = (used["input_tokens"] * 3 + used["output_tokens"] * 15) / 1e6
    assert f"{short_money(usd)} ({len(cc.responses(files)) + 1} answers)" in session_page


def test_R1_share_refuses_to_write_over_the_database(
        planted: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, _ = planted
    assert share(db, conv, db, "--yes") == 1
    captured = capsys.readouterr()
    assert "refusing to write" in captured.err and captured.out == ""  # refused before review
    with Store(db) as store:
        assert store.conversation(conv).title == f"Deploy from {HOME}"
        assert store.reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _screenshot(text: str) -> bytes:
    im = Image.new("RGB", (900, 110), "white")
    draw = ImageDraw.Draw(im)
    font = ImageFont.load_default(size=22)
    draw.text((10, 10), text, fill="black", font=font)
    draw.text((10, 60), "and then run the deploy script", fill="black", font=font)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def test_R1_share_reads_images_with_ocr_and_blacks_out_a_drawn_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    system_tools.tesseract("eng")
    openai = "sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ"  # as test_R1_image_ocr draws
    db = tmp_path / "shots.db"
    with Store(db) as store:
        conv = store.create_conversation("shots")
        shot = Message(None, None, "user", [
            Part("text", "this is what the terminal shows"),
            Part("image", data=_screenshot(f"export OPENAI_API_KEY={openai}"),
                 media_type="image/png")])
        store.append_turn(conv, [shot, assistant("rotate that key")])
    out = tmp_path / "shots.html"
    assert share(db, conv, out, "--yes", "--ocr-images") == 0
    said = capsys.readouterr().out
    assert "openai-key ×1 (image pixels (OCR)" in said and "not scanned" not in said
    page = out.read_text(encoding="utf-8")
    [data] = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    program = tesseract()
    assert program is not None
    again = OcrReader(program)(base64.b64decode(data))
    assert again is not None and again[1] == []  # the key's words are black in the page
    assert "redacted: secrets (1)" in page
