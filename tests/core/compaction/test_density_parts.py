"""The density benchmark's OCR can run in parts: reads kept in a file, only the missing made."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from benchmarks import density_cache, density_ocr

from explorer.compaction.page_geometry import PageGeometry, page_geometry
from explorer.compaction.snapshot_render import SourceEntry


@dataclass(frozen=True)
class _Shape:
    name: str
    geometry: PageGeometry
    reference: bool = False


def test_a_read_is_kept_in_the_file_and_found_again(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "reads.json"
    cache = density_cache.ReadCache(path)
    cache.put("tesseract|a|b|False|0|x", (0.91, 0.5))
    assert density_cache.ReadCache(path).get("tesseract|a|b|False|0|x") == (0.91, 0.5)
    assert density_cache.ReadCache(path).get("tesseract|a|b|False|1|x") is None


def test_two_parts_writing_one_file_keep_each_others_reads(tmp_path: Path) -> None:
    path = tmp_path / "reads.json"
    first, second = density_cache.ReadCache(path), density_cache.ReadCache(path)
    first.put("a", (0.5, 0.0))
    second.put("b", (0.7, 1.0))
    reread = density_cache.ReadCache(path)
    assert reread.get("a") == (0.5, 0.0) and reread.get("b") == (0.7, 1.0)


def test_a_broken_cache_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "reads.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a density read cache"):
        density_cache.ReadCache(path)


def test_the_fingerprint_changes_with_the_geometry_the_text_and_the_view() -> None:
    g = page_geometry("anthropic", tier="legible")
    base = density_cache.fingerprint(g, "abc", False)
    assert base == density_cache.fingerprint(g, "abc", False)
    assert base != density_cache.fingerprint(g, "abd", False)
    assert base != density_cache.fingerprint(g, "abc", True)
    assert base != density_cache.fingerprint(replace(g, max_columns=g.columns - 1), "abc", False)
    gemini = page_geometry("gemini", tier="legible")  # 10x20: a font with no glyph file
    assert density_cache.fingerprint(gemini, "abc", False) != base


def test_parts_are_chosen_by_layout_engine_and_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONVO_DENSITY_LAYOUTS", "2, 0, 7")
    monkeypatch.setenv("CONVO_DENSITY_ENGINES", "rapidocr")
    monkeypatch.setenv("CONVO_DENSITY_PROVIDERS", "anthropic")
    assert density_cache.layouts_now(3) == [2, 0]
    assert density_cache.engines_now() == ["rapidocr"]
    assert density_cache.providers_now() == ["anthropic"]
    assert density_cache.reads_now("anthropic", True)
    assert not density_cache.reads_now("openai", False)
    monkeypatch.setenv("CONVO_DENSITY_SHAPES", "shipped")
    assert density_cache.reads_now("anthropic", False)
    assert not density_cache.reads_now("anthropic", True)
    monkeypatch.setenv("CONVO_DENSITY_SHAPES", "some")
    with pytest.raises(ValueError, match="CONVO_DENSITY_SHAPES"):
        density_cache.reads_now("anthropic", False)
    monkeypatch.setenv("CONVO_DENSITY_ENGINES", "easyocr")
    with pytest.raises(ValueError, match="unknown OCR engine"):
        density_cache.engines_now()


def test_an_engine_not_read_in_this_part_comes_from_the_file_or_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONVO_DENSITY_ENGINES", "tesseract")  # RapidOCR is not read now
    monkeypatch.setattr(density_ocr, "LAYOUTS", 3)
    g = page_geometry("anthropic", tier="dense")
    entries, text = [SourceEntry("1", "hello 0123abcd")], "hello 0123abcd"
    shapes = [_Shape("dense", g), _Shape("other", page_geometry("openai", tier="dense"))]
    drawn = {"dense": (entries, text), "other": (entries, text)}
    cache = density_cache.ReadCache(tmp_path / "reads.json")
    for k, acc in ((0, 0.9), (2, 0.8)):  # two of the three layouts were read earlier
        lg = density_ocr.layouts(g)[k]
        mark = density_cache.fingerprint(lg, text, False)
        cache.put(f"rapidocr|dense|anthropic|False|{k}|{mark}", (acc, 1.0))
    reads = density_ocr.read_all(shapes, drawn, "rapidocr", cache)
    read = reads[("dense", "anthropic", False)]
    assert isinstance(read, density_ocr.Read)
    assert read.layouts == 2 and read.accuracy == pytest.approx(0.85)
    assert read.spread == pytest.approx(0.1)
    assert "not read in this part" in str(reads[("other", "openai", False)])
