"""Secrets drawn in an image, found by OCR (Tesseract) and blacked out (SPEC R1).

A screenshot of a terminal or a settings page can show a key that no text scan sees. When
the person asks for it (Settings ▸ "Read images with OCR", or ``--ocr-images``) and the
``tesseract`` program is installed, each image is read word by word with its boxes; the
words of a line are scanned with the same rules as text, and the boxes of the words a
secret spans are painted black. It is off by default: reading an image costs about half a
second of CPU, an image in a live conversation is sent again with every turn, and OCR
misreads; without it the notes name the images that went out unread. Results are cached by
the image's hash, so an image is read once per run.

Tesseract is never required: without it ``pixel_reader`` returns None and the notes say so.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.tree import secrets

TIMEOUT_SECONDS = 60
PAD = 3  # pixels of black around a word's box: anti-aliased edges must not survive
CACHE_SIZE = 256


@dataclass(frozen=True)
class Word:
    line: tuple[int, int, int]  # block, paragraph, line
    text: str
    box: tuple[int, int, int, int]  # left, top, width, height


def tesseract() -> str | None:
    return shutil.which("tesseract")


def parse_tsv(tsv: str) -> list[Word]:
    """Tesseract's TSV output as words (level 5 rows with text)."""
    words: list[Word] = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        try:
            nums = [int(c) for c in cells[2:10]]
        except ValueError:
            continue
        words.append(Word((nums[0], nums[1], nums[2]), cells[11].strip(),
                          (nums[4], nums[5], nums[6], nums[7])))
    return words


def secret_boxes(words: Sequence[Word]) -> list[tuple[tuple[int, int, int, int], str]]:
    """The boxes of the words each secret spans, line by line, with its kind."""
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for w in words:
        lines.setdefault(w.line, []).append(w)
    out: list[tuple[tuple[int, int, int, int], str]] = []
    for line in lines.values():
        text, starts = "", []
        for w in line:
            starts.append(len(text))
            text += w.text + " "
        for start, end, kind in secrets.find_spans(text):
            hit = [w for w, at in zip(line, starts, strict=True)
                   if at < end and start < at + len(w.text)]
            if hit:
                out.append((_union([w.box for w in hit]), kind))
    return out


def _union(boxes: Sequence[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    left = min(b[0] for b in boxes)
    top = min(b[1] for b in boxes)
    right = max(b[0] + b[2] for b in boxes)
    bottom = max(b[1] + b[3] for b in boxes)
    return left, top, right - left, bottom - top


def black_out(data: bytes, boxes: Sequence[tuple[int, int, int, int]]) -> bytes:
    """The image with each box (padded) painted black, in its own format."""
    from PIL import Image, ImageDraw  # loaded only when a secret was seen in an image

    with Image.open(io.BytesIO(data)) as im:
        fmt = im.format or "PNG"
        picture = im.convert("RGBA" if im.mode in ("RGBA", "LA", "P") else "RGB")
    draw = ImageDraw.Draw(picture)
    for left, top, width, height in boxes:
        draw.rectangle((left - PAD, top - PAD, left + width + PAD, top + height + PAD),
                       fill="black")
    if fmt == "JPEG" and picture.mode == "RGBA":
        picture = picture.convert("RGB")
    buf = io.BytesIO()
    picture.save(buf, fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return buf.getvalue()


class OcrReader:
    """A :data:`~explorer.tree.secrets.PixelReader` backed by the ``tesseract`` program."""

    def __init__(self, program: str) -> None:
        self.program = program
        self._cache: OrderedDict[str, tuple[bytes, list[str]] | None] = OrderedDict()

    def __call__(self, data: bytes) -> tuple[bytes, list[str]] | None:
        key = hashlib.sha256(data).hexdigest()
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        result = self._read(data)
        self._cache[key] = result
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return result

    def _read(self, data: bytes) -> tuple[bytes, list[str]] | None:
        try:
            done = subprocess.run([self.program, "stdin", "stdout", "tsv"], input=data,
                                  capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        found = secret_boxes(parse_tsv(done.stdout.decode("utf-8", "replace")))
        if not found:
            return data, []
        try:
            return black_out(data, [box for box, _ in found]), [kind for _, kind in found]
        except (OSError, ValueError):
            return None  # a picture Pillow cannot write back: counted as not scanned


_READER: OcrReader | None = None


def pixel_reader(wanted: bool) -> OcrReader | None:
    """The shared reader when OCR is ``wanted`` and Tesseract is installed, else None."""
    global _READER
    program = tesseract() if wanted else None
    if program is None:
        return None
    if _READER is None or _READER.program != program:
        _READER = OcrReader(program)
    return _READER


def missing_note(wanted: bool) -> list[str]:
    """The note when OCR was asked for but cannot run."""
    if wanted and tesseract() is None:
        return ["reading images with OCR was asked for, but the tesseract program is not "
                "installed: images were not scanned in their pixels"]
    return []
