"""Secrets in an image's own text: PNG text chunks, JPEG EXIF/XMP/comments (SPEC R1).

An image sent or shared travels as its bytes, metadata and all: a screenshot tool that wrote
the window title, or a PNG saved with a ``Comment`` chunk, can carry a key the person never
sees. The pixels themselves are not read here (that needs OCR, see ``ocr_note``); what is
read is every run of text the file carries outside its pixel data.

A PNG text chunk holding a secret is dropped whole (its checksum would otherwise need
rewriting, and a compressed chunk cannot be edited in place); in other formats the secret's
bytes are overwritten with ``*`` of the same length, so offsets inside EXIF stay valid and
the pixels are untouched. Parsing is by hand, without a decoder: the bytes that are not
metadata come back exactly as they were.
"""

from __future__ import annotations

import re
import struct
import zlib

from explorer.tree import secrets

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt", b"eXIf")
_ASCII_RUN = re.compile(rb"[\x20-\x7e\t\n\r]{6,}")
_UTF16_RUN = re.compile(rb"(?:[\x20-\x7e]\x00){6,}")
MAX_INFLATED = 1 << 20  # a compressed chunk is read up to 1 MiB (a bomb stays a bomb)


def metadata_text(data: bytes) -> str:
    """All the text an image carries outside its pixels, one run a line (for tests, notes)."""
    if data.startswith(PNG_SIGNATURE):
        return "\n".join(_chunk_text(kind, body) for kind, body, _ in _png_chunks(data)
                         if kind in PNG_TEXT_CHUNKS)
    return "\n".join(text for _, _, text in _runs(data, _metadata_end(data)))


def redact_image(data: bytes) -> tuple[bytes, list[str]]:
    """The image with every secret in its metadata removed, and the kinds removed; the same
    bytes object when there were none."""
    if data.startswith(PNG_SIGNATURE):
        return _redact_png(data)
    kinds: list[str] = []
    out: bytearray | None = None
    for start, width, text in _runs(data, _metadata_end(data)):
        for s, e, kind in secrets.find_spans(text):
            out = out if out is not None else bytearray(data)
            out[start + s * width:start + e * width] = _stars(e - s, width)
            kinds.append(kind)
    return (bytes(out) if out is not None else data), kinds


def _stars(n: int, width: int) -> bytes:
    return (b"*" + b"\x00" * (width - 1)) * n


def _runs(data: bytes, end: int) -> list[tuple[int, int, str]]:
    """Printable runs in ``data[:end]``: (offset, bytes per character, text)."""
    head = data[:end]
    out = [(m.start(), 1, m.group().decode("ascii")) for m in _ASCII_RUN.finditer(head)]
    out += [(m.start(), 2, m.group().decode("utf-16-le")) for m in _UTF16_RUN.finditer(head)]
    return out


def _metadata_end(data: bytes) -> int:
    """Where a JPEG's metadata ends (its first scan); other formats are read whole."""
    if not data.startswith(b"\xff\xd8"):
        return len(data)
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xDA:  # start of scan: entropy-coded pixels follow
            return at
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        at += 2 + length
    return min(at, len(data))


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """(type, body, the chunk's whole bytes); a truncated tail is kept as one raw chunk."""
    out: list[tuple[bytes, bytes, bytes]] = []
    at = len(PNG_SIGNATURE)
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        end = at + 12 + length
        if end > len(data):
            break
        out.append((data[at + 4:at + 8], data[at + 8:at + 8 + length], data[at:end]))
        at = end
    if at < len(data):
        out.append((b"", b"", data[at:]))
    return out


def _inflate(raw: bytes) -> bytes:
    try:
        return zlib.decompressobj().decompress(raw, MAX_INFLATED)
    except zlib.error:
        return b""


def _chunk_text(kind: bytes, body: bytes) -> str:
    """A text chunk as ``keyword: text`` (eXIf as its printable runs)."""
    if kind == b"eXIf":
        return "\n".join(t for _, _, t in _runs(body, len(body)))
    keyword, _, rest = body.partition(b"\x00")
    if kind == b"tEXt":
        text = rest.decode("latin-1")
    elif kind == b"zTXt":
        text = _inflate(rest[1:]).decode("latin-1")
    else:  # iTXt: flag, method, language\0, translated keyword\0, text
        compressed, rest = rest[:1] == b"\x01", rest[2:]
        _, _, rest = rest.partition(b"\x00")
        _, _, rest = rest.partition(b"\x00")
        text = (_inflate(rest) if compressed else rest).decode("utf-8", "replace")
    return f"{keyword.decode('latin-1')}: {text}"


def _redact_png(data: bytes) -> tuple[bytes, list[str]]:
    kinds: list[str] = []
    kept: list[bytes] = [PNG_SIGNATURE]
    for kind, body, whole in _png_chunks(data):
        found = secrets.find_spans(_chunk_text(kind, body)) if kind in PNG_TEXT_CHUNKS else []
        if found:
            kinds += [k for _, _, k in found]
        else:
            kept.append(whole)
    return (b"".join(kept) if kinds else data), kinds
