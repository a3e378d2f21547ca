"""A legible-tier page reads back through OCR (tesseract with eng, por and nor: skipped with the
install line where it lacks, a failure in CI)."""

from __future__ import annotations

import pytest
import system_tools
from benchmarks import ocr_proxy

from explorer.compaction import fonts
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import SourceEntry, render_snapshot

PROSE = (
    "The nightly export wrote duplicate rows whenever a retry happened after the database lock "
    "was released. Each page is now read, stamped and committed in one transaction, the rows "
    "are written only after the commit, and the busy timeout is five seconds. Operations have "
    "been asked to move the vacuum job to half past three, so the two jobs never compete."
)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_L5_a_legible_page_is_read_back_by_ocr(provider: str) -> None:
    system_tools.tesseract(*ocr_proxy.LANGS.split("+"))
    g = page_geometry(provider, tier="legible")
    (page,) = render_snapshot([SourceEntry("1", PROSE)], g).pages
    factor = ocr_proxy.upscale_factor(fonts.cell_font(g.font).cell_height)
    text = ocr_proxy.ocr(ocr_proxy.as_seen(page.png, None), factor)
    assert ocr_proxy.char_accuracy(PROSE, text) >= 0.85


def test_levenshtein_is_the_edit_distance() -> None:
    assert ocr_proxy.levenshtein("kitten", "sitting") == 3
    assert ocr_proxy.levenshtein("", "abc") == 3
    assert ocr_proxy.levenshtein("flaw", "lawn") == 2
    assert ocr_proxy.char_accuracy("a  b\nc", "a b c") == 1.0
    assert ocr_proxy.id_recall(["deadbeef42"], "x dead\nbeef42 y") == 1.0


def test_row_accuracy_does_not_charge_row_breaks_inside_words() -> None:
    rows = ["the export wr", "ote duplicate ", "rows"]
    read = "the export wr\note duplicate\nrows\n"
    assert ocr_proxy.row_accuracy(rows, read) == 1.0
    assert ocr_proxy.char_accuracy("".join(rows), read) < 1.0  # the flat measure would
    assert ocr_proxy.row_accuracy(rows, "the export wrote duplicate\nrows") < 1.0  # merged rows


def test_typographic_quotes_count_as_the_straight_ones() -> None:
    assert ocr_proxy.char_accuracy('say "hi" it\'s', "say \u201chi\u201d it\u2019s") == 1.0
    assert ocr_proxy.char_accuracy('say "hi"', "say hi") < 1.0
