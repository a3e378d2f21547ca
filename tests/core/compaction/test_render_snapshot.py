"""Snapshot pages: text in, deterministic PNG pages out (SPEC §5, L3, L4, L5)."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from explorer.compaction import image_cost
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import (
    NEWLINE_MARK,
    SourceEntry,
    normalize,
    render_snapshot,
    to_entries,
)
from explorer.tree.model import Message, Part, text_message

REPO = Path(__file__).resolve().parents[3]


def _conversation() -> list[Message]:
    return [
        text_message(1, None, "user", "Fix the test.\n\tIt fails: 3 != 4\nΕλληνικά Русский 中文"),
        Message(
            2,
            1,
            "assistant",
            [
                Part("thinking", "Read the file first."),
                Part("text", "Reading it."),
                Part("tool_use", json.dumps({"command": "cat t.py"}), tool_name="Bash"),
            ],
        ),
        Message(3, 2, "user", [Part("tool_result", "assert add(1, 2) == 4", is_error=True)]),
        Message(4, 3, "user", [Part("image", data=b"\x89PNG" + b"0" * 96, media_type="image/png")]),
        text_message(5, 4, "assistant", "add(1, 2) is 3; the expectation is wrong. " * 40),
    ]


def _sha(snapshot_pages: tuple[object, ...]) -> list[str]:
    return [hashlib.sha256(p.png).hexdigest() for p in snapshot_pages]  # type: ignore[attr-defined]


def _image(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_messages_become_marked_text_runs() -> None:
    texts = [e.text for e in to_entries(_conversation())]
    assert texts[0].startswith("[user #1] Fix the test.")
    assert texts[1] == "[assistant #2 thinking] Read the file first."
    assert texts[2] == "Reading it."
    assert texts[3] == '[tool_use Bash #2] {"command": "cat t.py"}'
    assert texts[4] == "[tool_result #3 error] assert add(1, 2) == 4"
    assert texts[5] == "[image image/png 100 bytes #4]"
    assert {e.message_id for e in to_entries(_conversation())} == {"1", "2", "3", "4", "5"}


def test_empty_source_gives_no_pages() -> None:
    snapshot = render_snapshot([], page_geometry("gemini"))
    assert (snapshot.pages, snapshot.missing, snapshot.chars) == ((), (), 0)


def test_triples_are_accepted() -> None:
    assert to_entries([("user", 12, "hi")]) == [SourceEntry("12", "[user #12] hi")]


@pytest.mark.parametrize("item", [b"\x89PNG", Image.new("L", (4, 4)), ("user", 1, b"bytes")])
def test_L4_pages_are_rendered_from_text_only(item: object) -> None:
    with pytest.raises(TypeError, match="text only"):
        render_snapshot([item], page_geometry("anthropic"))  # type: ignore[list-item]


def test_normalize_marks_newlines_expands_tabs_and_shows_controls() -> None:
    assert normalize("a\r\nb\rc\nd") == f"a{NEWLINE_MARK}b{NEWLINE_MARK}c{NEWLINE_MARK}d"
    assert normalize("\tx\nab\ty") == f"    x{NEWLINE_MARK}ab  y"
    assert normalize("\x1b[0m") == "\u241b[0m"
    assert normalize("e\u0301") == "é"


def test_spaced_marks_stand_apart_and_keep_indentation() -> None:
    m = NEWLINE_MARK
    assert normalize("a,\n{", spaced_marks=True) == f"a, {m} {{"
    assert normalize("def f():\n    return 1", spaced_marks=True) == f"def f(): {m}    return 1"
    assert normalize("a \n\n b", spaced_marks=True) == f"a {m}{m} b"
    assert normalize("no newline", spaced_marks=True) == "no newline"


def test_legible_pages_draw_spaced_marks_where_the_geometry_asks() -> None:
    text = "x = 1\ny = 2\n" * 40
    for provider in ("anthropic", "openai", "gemini"):
        g = page_geometry(provider, tier="legible")
        snapshot = render_snapshot([SourceEntry("1", text)], g)
        assert snapshot.chars == len(normalize(text, g.spaced_marks))
    assert page_geometry("anthropic", tier="legible").spaced_marks
    assert not page_geometry("anthropic", tier="dense").spaced_marks


def test_L4_rendering_is_deterministic_in_process() -> None:
    g = page_geometry("anthropic", tier="dense")
    first = render_snapshot(_conversation(), g)
    second = render_snapshot(_conversation(), g)
    assert _sha(first.pages) == _sha(second.pages)
    assert len(first.pages) == 1


def test_L4_rendering_is_deterministic_across_fresh_processes() -> None:
    script = textwrap.dedent(
        """
        import hashlib
        from explorer.compaction.page_geometry import page_geometry
        from explorer.compaction.snapshot_render import render_snapshot
        text = "naïve {x: 1} ¶ Ελληνικά 中文 \\U0001F600 " * 400
        for tier in ("dense", "legible"):
            snap = render_snapshot([("user", 7, text)], page_geometry("openai", tier=tier))
            for page in snap.pages:
                print(hashlib.sha256(page.png).hexdigest())
        """
    )
    outputs = []
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=True,
            timeout=120,
        )
        outputs.append(done.stdout.split())
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) >= 2


def test_pages_decode_at_their_declared_size() -> None:
    g = page_geometry("anthropic", tier="legible")
    snapshot = render_snapshot(_conversation(), g)
    for page in snapshot.pages:
        image = _image(page.png)
        assert image.format == "PNG"
        assert image.size == (page.width, page.height) == (g.page_width, page.height)
        assert image.mode in ("1", "L")
        assert page.image_tokens == image_cost.page_cost("anthropic", g.model, *image.size)


def test_reflow_fills_every_row_but_the_last() -> None:
    g = page_geometry("openai", tier="dense")
    marker = "[user #1] "
    body = "line one\nline two\n" * (3 * g.columns // 18 + 5)
    snapshot = render_snapshot([("user", 1, body)], g)
    (page,) = snapshot.pages
    total = len(marker) + len(normalize(body, g.spaced_marks))
    assert page.chars == total
    assert page.rows == -(-total // g.columns)  # short source lines did not open new rows


def test_last_page_height_hugs_its_rows() -> None:
    g = page_geometry("anthropic", tier="dense")
    text = "x" * (g.chars_per_page + 3 * g.columns)
    snapshot = render_snapshot([("user", 1, text)], g)
    first, last = snapshot.pages
    assert (first.height, first.rows) == (g.page_height, g.rows)
    assert last.rows == 4
    printed = 2 * g.padding + last.rows * g.cell_height
    assert printed <= last.height < printed + g.height_quantum
    assert last.height % g.height_quantum == 0
    assert _image(last.png).size == (g.page_width, last.height)
    assert last.image_tokens < first.image_tokens


def test_pages_name_the_messages_they_hold() -> None:
    g = page_geometry("gemini", tier="legible")
    items = [("user" if i % 2 else "assistant", i, f"message {i} " * 30) for i in range(40)]
    snapshot = render_snapshot(items, g)
    assert len(snapshot.pages) > 1
    assert snapshot.pages[0].first_message_id == "0"
    assert snapshot.pages[-1].last_message_id == "39"
    ids = [(int(p.first_message_id or -1), int(p.last_message_id or -1)) for p in snapshot.pages]
    for (_, last), (nxt, _) in itertools.pairwise(ids):
        assert nxt in (last, last + 1)


def _cell_has_ink(png: bytes, g: object, col: int, row: int = 0, cells: int = 1) -> bool:
    image = _image(png).convert("L")
    pad, cw, ch = g.padding, g.cell_width, g.cell_height  # type: ignore[attr-defined]
    box = (pad + col * cw, pad + row * ch, pad + (col + cells) * cw, pad + (row + 1) * ch)
    low, _high = image.crop(box).getextrema()
    assert isinstance(low, int)
    return low < 128


@pytest.mark.parametrize("tier", ["dense", "legible"])
def test_non_latin_scripts_render_without_being_reported(tier: str) -> None:
    g = page_geometry("anthropic", tier=tier)
    text = "Ελληνικά Русский 中文 한국어"
    snapshot = render_snapshot([SourceEntry("9", text)], g)
    assert snapshot.missing == ()
    png = snapshot.pages[0].png
    assert _cell_has_ink(png, g, 0)  # Ε
    assert _cell_has_ink(png, g, 9)  # Р
    assert _cell_has_ink(png, g, 17, cells=2)  # 中, two cells wide
    assert _cell_has_ink(png, g, 19, cells=2)  # 文


def test_undrawable_characters_are_boxed_and_reported() -> None:
    g = page_geometry("openai", tier="legible")
    entries = [SourceEntry("a", "ok"), SourceEntry("b", "x\U0001f600y\U0010fffd\u0378 \U0001f600")]
    snapshot = render_snapshot(entries, g)
    report = {m.codepoint: (m.count, m.first_message_id) for m in snapshot.missing}
    assert report == {"U+0378": (1, "b"), "U+1F600": (2, "b"), "U+10FFFD": (1, "b")}
    assert _cell_has_ink(snapshot.pages[0].png, g, 4)  # the box drawn for the emoji
    assert snapshot.pages[0].chars == len("ok x\U0001f600y\U0010fffd\u0378 \U0001f600")


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_L5_a_full_dense_page_is_at_least_3x_cheaper_than_its_text(provider: str) -> None:
    g = page_geometry(provider, tier="dense")
    words = "the compaction ladder keeps every word as pixels; "
    snapshot = render_snapshot([("assistant", 1, words * (g.chars_per_page // len(words) + 1))], g)
    page = snapshot.pages[0]
    assert page.height == g.page_height
    assert page.text_tokens >= 3 * page.image_tokens


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_L5_legible_tier_draws_larger_or_roomier_glyphs_than_dense(provider: str) -> None:
    def ink(tier: str) -> tuple[int, int]:
        g = page_geometry(provider, tier=tier)
        snapshot = render_snapshot([SourceEntry("1", "M" * 41)], g)
        image = _image(snapshot.pages[0].png).convert("L")
        box = Image.eval(image, lambda v: 255 if v < 128 else 0).getbbox()
        assert box is not None
        return box[2] - box[0], g.cell_height

    dense_width, dense_pitch = ink("dense")
    legible_width, legible_pitch = ink("legible")
    assert legible_width >= dense_width and legible_pitch >= dense_pitch
    assert (legible_width, legible_pitch) != (dense_width, dense_pitch)


def test_real_transcript_renders_and_reports_consistently(corpus_dir: Path) -> None:
    sample = sorted(corpus_dir.glob("claude_code/home/**/*.jsonl"))[0]
    lines = sample.read_text(encoding="utf-8").splitlines()
    entries = [SourceEntry(str(i), line) for i, line in enumerate(lines)]
    g = page_geometry("anthropic", tier="dense")
    snapshot = render_snapshot(entries, g)
    assert snapshot.chars >= sum(len(line) for line in lines) * 0.9
    assert _sha(snapshot.pages) == _sha(render_snapshot(entries, g).pages)
    drawn = {m.char for m in snapshot.missing}
    assert all(not (c.isascii() and c.isprintable()) for c in drawn)
