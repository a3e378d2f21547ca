"""Snapshot density and legibility: the shipped tiers against reference page shapes (SPEC L5).

One ~40,000-character transcript (``data/density_sample.txt``: prose, Python, JSON tool output
with hex ids, UUIDs and SHA-256 hashes, Portuguese and Norwegian) is rendered with every shipped
provider shape and with reference shapes other tools send. For each: characters and billed
tokens per full page, characters per billed token, the ratio to the same text sent as text,
whether the provider resamples the page, and an OCR legibility proxy (``density_ocr``): tesseract
reads the first 10,000 characters (at three line-breakings with ``CONVO_DENSITY_FULL=1``, at the
page's own by default) after an integer nearest-neighbour upscale; character accuracy is
1 - normalized Levenshtein distance row by row (exact DP), id
recall the share of the region's hex ids found verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from explorer.compaction import image_cost
from explorer.compaction.estimate import Estimator, Family
from explorer.compaction.fact_layout import expand
from explorer.compaction.facts import FactSheet
from explorer.compaction.ladder import sheet_beside_pages
from explorer.compaction.page_geometry import TIERS, PageGeometry, page_geometry
from explorer.compaction.snapshot_render import (
    Snapshot,
    SourceEntry,
    normalize,
    render_snapshot,
    to_entries,
)
from explorer.tree.model import Message, Part
from tests.benchmarks import density_cache, density_ocr, ocr_proxy
from tests.benchmarks.density_ocr import IDS, Key, Outcome, read_of
from tests.benchmarks.harness import Result

Role = Literal["system", "user", "assistant", "tool"]
SAMPLE = Path(__file__).parent / "data" / "density_sample.txt"
PROVIDERS = image_cost.PROVIDERS


@dataclass(frozen=True)
class Shape:
    """A page shape: its geometry at one provider, and how the text is prepared for it."""

    name: str
    geometry: PageGeometry
    collapse: bool = False  # whitespace runs become one space, no newline marks
    reference: bool = False


def sample_messages() -> list[Message]:
    """The fixture as messages: blocks opened by ``--- role`` or ``--- tool_use Name``."""
    out: list[Message] = []
    for i, block in enumerate(SAMPLE.read_text(encoding="utf-8").split("--- ")[1:]):
        head, _, body = block.partition("\n")
        kind, _, tool = head.partition(" ")
        body = body.rstrip("\n")
        if kind == "tool_use":
            part, role = Part("tool_use", body, tool_name=tool), "assistant"
        elif kind == "tool_result":
            part, role = Part("tool_result", body), "user"
        else:
            part, role = Part("text", body), kind
        out.append(Message(i + 1, i or None, cast(Role, role), [part]))
    return out


def reference_shapes(provider: str) -> list[Shape]:
    """oh-my-pi snapcompact's 8x13 square frames and pxpipe's 5x8 page, billed at ``provider``."""
    model = page_geometry(provider).model

    def frame(font: str, adv: int, pitch: int, w: int, h: int, cols: int | None) -> PageGeometry:
        return PageGeometry(provider, model, "reference", font, w, h, adv, pitch, h, 0,
                            max_columns=cols)

    return [
        Shape("8x13 adv11 pitch16 1568²", frame("8x13", 11, 16, 1568, 1568, None), True, True),
        Shape("8x13 adv8 pitch16 1568²", frame("8x13", 8, 16, 1568, 1568, None), True, True),
        Shape("8x13 adv8 pitch22 1568²", frame("8x13", 8, 22, 1568, 1568, None), True, True),
        Shape("5x8 312 cols 1568x728", frame("5x8", 5, 8, 1568, 728, 312), False, True),
    ]


def entries_for(shape: Shape, messages: list[Message]) -> list[SourceEntry]:
    entries = to_entries(messages)
    if not shape.collapse:
        return entries
    return [SourceEntry(e.message_id, ocr_proxy.collapse(e.text)) for e in entries]


def drawn_text(entries: list[SourceEntry], spaced_marks: bool = False) -> str:
    """The characters as the renderer lays them out, in order (one space between entries)."""
    return " ".join(normalize(e.text, spaced_marks) for e in entries)


@dataclass(frozen=True)
class Measured:
    shape: Shape
    pages: int
    chars_per_page: float  # source characters a full page carries
    tokens_per_page: int
    sample_tokens: int
    resampled: bool


def measure(shape: Shape, snapshot: Snapshot, source_chars: int, drawn_chars: int) -> Measured:
    g = shape.geometry
    scale = source_chars / drawn_chars  # collapsed whitespace carries more source per cell
    return Measured(
        shape,
        len(snapshot.pages),
        g.chars_per_page * scale,
        g.cost(),
        snapshot.image_tokens,
        image_cost.is_resampled(g.provider, g.model, g.page_width, g.page_height),
    )


def _tier_name(g: PageGeometry) -> str:
    return f"{g.tier} {g.font} {g.page_width}x{g.page_height}"


def run() -> list[Result]:
    messages = sample_messages()
    source = drawn_text(to_entries(messages))
    est_tokens = {
        p: Estimator(family=cast(Family, p)).estimate(messages, with_overhead=False)
        for p in PROVIDERS
    }
    shapes = [Shape(_tier_name(page_geometry(p, tier=t)), page_geometry(p, tier=t))
              for p in PROVIDERS for t in TIERS]
    shapes += [s for p in PROVIDERS for s in reference_shapes(p)]
    drawn: dict[str, tuple[list[SourceEntry], str]] = {}
    measured: dict[Shape, Measured] = {}
    for shape in shapes:
        entries = entries_for(shape, messages)
        text = drawn_text(entries, shape.geometry.spaced_marks)
        drawn[shape.name] = (entries, text)
        snapshot = render_snapshot(entries, shape.geometry)
        measured[shape] = measure(shape, snapshot, len(source), len(text))
    results = [Result("density", "sample characters (drawn, with markers)", len(source), "chars")]
    results += [Result("density", f"{p} sample as text (estimator)", est_tokens[p], "tokens")
                for p in PROVIDERS]
    cache = density_cache.ReadCache(density_cache.cache_file())
    ocr = density_ocr.read_all(list(shapes), drawn, "tesseract", cache)
    rapid = density_ocr.read_all(list(shapes), drawn, "rapidocr", cache)
    for shape in shapes:
        results += _rows(measured[shape], est_tokens[shape.geometry.provider], ocr, rapid)
    results += _targets(shapes, measured, ocr)
    results += _fact_rows(messages, source, measured)
    results += _density_with_sheet(shapes, measured, messages, len(source))
    return results


def _density_with_sheet(shapes: list[Shape], measured: dict[Shape, Measured],
                        messages: list[Message], chars: int) -> list[Result]:
    """Chars per token of each shipped tier alone and with the fact sheet the pipeline sends
    beside its pages (``pipeline_sheet``: the whole sample as the imaged middle)."""
    out: list[Result] = []
    for shape in shapes:
        if shape.reference:
            continue
        m, g = measured[shape], shape.geometry
        est = Estimator(family=cast(Family, g.provider))
        sheet = pipeline_sheet(messages, m)
        sheet_tokens = est.correct(est.text_tokens(sheet.text))
        out += [Result("density with sheet", f"{g.provider} {shape.name}: pages alone",
                       chars / m.sample_tokens, "chars/token"),
                Result("density with sheet", f"{g.provider} {shape.name}: pages + "
                       f"{sheet_tokens:,}-token sheet", chars / (m.sample_tokens + sheet_tokens),
                       "chars/token", f"{sheet.omitted} of {len(sheet.facts) + sheet.omitted} "
                       "strings left out")]
    return out


def _rows(m: Measured, text_tokens: int, ocr: dict[Key, Outcome], rapid: dict[Key, Outcome]
          ) -> list[Result]:
    g, area = m.shape.geometry, f"density {m.shape.geometry.provider}"
    name = f"{'ref ' if m.shape.reference else ''}{m.shape.name}"
    rows = [
        Result(area, f"{name}: chars per full page", m.chars_per_page, "chars"),
        Result(area, f"{name}: billed tokens per full page", m.tokens_per_page, "tokens"),
        Result(area, f"{name}: chars per billed token", m.chars_per_page / m.tokens_per_page,
               "chars/token"),
        Result(area, f"{name}: sample as images ({m.pages} pages)", m.sample_tokens, "tokens"),
        Result(area, f"{name}: text tokens / image tokens", text_tokens / m.sample_tokens, "x"),
        Result(area, f"{name}: resampled by provider", float(m.resampled), "(1 = yes)",
               "0 for shipped tiers" if not m.shape.reference else "",
               (not m.resampled) if not m.shape.reference else None),
    ]
    seen = " (as the provider sees it)" if (m.shape.name, g.provider, True) in ocr else ""
    for engine, reads in (("Tesseract", ocr), ("RapidOCR", rapid)):
        read = read_of(m.shape, reads)
        if isinstance(read, str):
            rows.append(Result(area, f"{name}: {engine} OCR not run: {read}", 0, ""))
            continue
        over = f", {read.layouts} of {density_ocr.LAYOUTS} layouts"
        rows.append(Result(area, f"{name}: {engine} character accuracy{seen}{over}",
                           100 * read.accuracy, "%"))
        if read.layouts > 1:
            rows.append(Result(area, f"{name}: {engine} accuracy spread over {read.layouts} "
                               "layouts", 100 * read.spread, "points"))
        rows.append(Result(area, f"{name}: {engine} exact-id recall{seen}{over}",
                           100 * read.id_recall, "%"))
    return rows


def _targets(shapes: list[Shape], measured: dict[Shape, Measured],
             ocr: dict[Key, Outcome]) -> list[Result]:
    out: list[Result] = []
    for provider in PROVIDERS:
        mine = {s.geometry.tier: s for s in shapes
                if not s.reference and s.geometry.provider == provider}
        refs = [s for s in shapes if s.reference and s.geometry.provider == provider]
        for tier, pool in (("dense", refs), ("legible", [r for r in refs if "8x13" in r.name])):
            best = max(pool, key=lambda r: measured[r].chars_per_page / measured[r].tokens_per_page)
            out.append(_compare(provider, measured[mine[tier]], measured[best],
                                read_of(mine[tier], ocr), read_of(best, ocr)))
    return out


def _compare(provider: str, mine: Measured, ref: Measured,
             mine_ocr: Outcome, ref_ocr: Outcome) -> Result:
    cpt = mine.chars_per_page / mine.tokens_per_page
    ref_cpt = ref.chars_per_page / ref.tokens_per_page
    target = f"≥ {ref_cpt:.1f} c/t of {ref.shape.name}"
    if isinstance(mine_ocr, str) or isinstance(ref_ocr, str):
        return Result("density target", f"{provider} {mine.shape.geometry.tier}: chars per token "
                      "(OCR not run)", cpt, "chars/token", target, None)
    target += f", OCR ≥ {100 * ref_ocr.accuracy:.1f} % (ours {100 * mine_ocr.accuracy:.1f} %)"
    met = cpt >= ref_cpt and mine_ocr.accuracy >= ref_ocr.accuracy
    return Result("density target", f"{provider} {mine.shape.geometry.tier}: chars per token",
                  cpt, "chars/token", target, met)


def pipeline_sheet(messages: list[Message], m: Measured) -> FactSheet:
    """The sheet the ladder sends beside ``m``'s pages when the sample is the whole middle."""
    est = Estimator(family=cast(Family, m.shape.geometry.provider))
    return sheet_beside_pages(messages, [], m.sample_tokens, est)


def _fact_rows(messages: list[Message], source: str, measured: dict[Shape, Measured]
               ) -> list[Result]:
    """Exact ids the sheet the pipeline sends beside the Anthropic dense pages carries."""
    ids = list(dict.fromkeys(IDS.findall(source)))
    dense = next(m for s, m in measured.items() if not s.reference
                 and s.geometry.provider == "anthropic" and s.geometry.tier == "dense")
    sheet = pipeline_sheet(messages, dense)
    carried = expand(sheet.text)
    kept = sum(1 for i in ids if any(i in item for item in carried))
    est = Estimator(family="anthropic")
    return [
        Result("density facts", f"sample hex ids / UUIDs / hashes ({len(ids)})",
               100 * kept / max(1, len(ids)), "% verbatim in the fact sheet", "100 %",
               kept == len(ids)),
        Result("density facts", "fact sheet beside the anthropic dense pages",
               est.correct(est.text_tokens(sheet.text)), "tokens",
               f"{len(sheet.text):,} chars, {len(sheet.facts)} strings, "
               f"{sheet.omitted} left out"),
    ]
