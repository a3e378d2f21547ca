"""The density benchmark's OCR reads kept in a file, so a long run can be done in parts.

Reading 18 page shapes at three line-breakings with two engines takes hours of CPU on a shared
machine; one invocation need not do it all. Each read (one engine, one shape, one layout) is
stored under a key that names what was read and a fingerprint of how it was drawn (the
geometry, the glyph files of its font, the text), so a later invocation reads only what is
missing and a redrawn glyph or a changed sample is never answered from an old read.

Which parts an invocation reads (the rest come from the file when it holds them):

- ``CONVO_DENSITY_LAYOUTS=0,2``: the layouts (0 = the page's own column count, 1 and 2 = one
  and two fewer; 1 and 2 only with ``CONVO_DENSITY_FULL=1``); default: all that are counted;
- ``CONVO_DENSITY_ENGINES=tesseract,rapidocr``: default ``tesseract`` (RapidOCR is the slow one);
- ``CONVO_DENSITY_PROVIDERS=anthropic``: the providers whose shapes are read; default all;
- ``CONVO_DENSITY_SHAPES=shipped`` (or ``references``): which shapes are read; default both.

``CONVO_DENSITY_PROVIDERS=none`` reads nothing: the report comes from the file alone.

The file is ``CONVO_DENSITY_CACHE``, default ``~/.cache/conversation-explorer/density_ocr.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import asdict
from pathlib import Path

from explorer.compaction import fonts
from explorer.compaction.page_geometry import PageGeometry
from explorer.resources import resource_path

ENGINES = ("tesseract", "rapidocr")
DEFAULT_FILE = Path.home() / ".cache" / "conversation-explorer" / "density_ocr.json"


def cache_file() -> Path:
    return Path(os.environ.get("CONVO_DENSITY_CACHE") or DEFAULT_FILE)


def _listed(name: str) -> list[str] | None:
    raw = os.environ.get(name, "").strip()
    return [v.strip() for v in raw.split(",") if v.strip()] if raw else None


def layouts_now(counted: int) -> list[int]:
    """The layouts this invocation reads (of the ``counted`` ones)."""
    chosen = _listed("CONVO_DENSITY_LAYOUTS")
    every = list(range(counted))
    return every if chosen is None else [int(k) for k in chosen if int(k) in every]


def engines_now() -> list[str]:
    chosen = _listed("CONVO_DENSITY_ENGINES") or ["tesseract"]
    unknown = set(chosen) - set(ENGINES)
    if unknown:
        raise ValueError(f"unknown OCR engine(s) {sorted(unknown)}; known: {', '.join(ENGINES)}")
    return chosen


def providers_now() -> list[str] | None:
    return _listed("CONVO_DENSITY_PROVIDERS")


def reads_now(provider: str, reference: bool) -> bool:
    """Whether this invocation reads a shape of ``provider`` (a reference shape or a tier)."""
    providers = providers_now()
    shapes = os.environ.get("CONVO_DENSITY_SHAPES", "").strip()
    if shapes not in ("", "shipped", "references"):
        raise ValueError(f"CONVO_DENSITY_SHAPES is 'shipped' or 'references', not {shapes!r}")
    kind_ok = not shapes or (shapes == "references") == reference
    return kind_ok and (providers is None or provider in providers)


def fingerprint(g: PageGeometry, text: str, seen: bool) -> str:
    """What a read depends on: the geometry, the font's glyph files, the text, the view."""
    h = hashlib.sha256(json.dumps(asdict(g), sort_keys=True).encode())
    pcf = Path(resource_path("fonts", f"{g.font}.pcf"))
    for path in (pcf, pcf.with_suffix(".glyphs")):  # a font without drawn glyphs has no file
        h.update(path.read_bytes() if path.exists() else b"")
    h.update(str(fonts.CELL_FONTS.get(g.font)).encode())
    h.update(text.encode())
    h.update(b"seen" if seen else b"native")
    return h.hexdigest()[:16]


class ReadCache:
    """(accuracy, id recall) per read key, loaded once and written after each new read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._reads: dict[str, list[float]] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self._reads = {}
        except ValueError as e:
            raise ValueError(f"{path} is not a density read cache ({e}); move it away") from None

    def get(self, key: str) -> tuple[float, float] | None:
        found = self._reads.get(key)
        return (found[0], found[1]) if found else None

    def put(self, key: str, value: tuple[float, float]) -> None:
        """Keep a read, merged with what other parts running beside this one wrote since."""
        with self._lock:
            self._reads[key] = [value[0], value[1]]
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                written = json.loads(self.path.read_text(encoding="utf-8"))
            except (FileNotFoundError, ValueError):
                written = {}
            self._reads = {**written, **self._reads}
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self._reads, indent=0, sort_keys=True), encoding="utf-8")
            tmp.replace(self.path)
