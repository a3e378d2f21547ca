"""One byte that is not UTF-8 in a ChatGPT or Open WebUI export no longer refuses the whole
file: the byte is shown as U+FFFD, and the note names the file and the byte's offset."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.formats import chatgpt, openwebui
from explorer.formats.importer import Importer


def _with_bad_byte(source: Path, dest: Path, after: bytes) -> int:
    """``source`` with one 0xFF byte after the first ``after``; returns its offset."""
    data = source.read_bytes()
    at = data.index(after) + len(after)
    dest.write_bytes(data[:at] + b"\xff" + data[at:])
    return at


@pytest.mark.parametrize(("folder", "name", "module", "after"), [
    ("chatgpt", "branching.json", chatgpt, b'"parts": ["hi'),
    ("openwebui", "chat-export-1716802100.json", openwebui, b'"content":"'),
])
def test_a_bad_byte_is_replaced_named_and_the_rest_imported(
        corpus_dir: Path, tmp_path: Path, folder: str, name: str, module: Importer,
        after: bytes) -> None:
    source = corpus_dir / "exports" / folder / name
    whole = list(module.read(source))
    damaged = tmp_path / name
    at = _with_bad_byte(source, damaged, after)
    read = list(module.read(damaged))
    assert len(read) == len(whole)  # nothing refused
    notes = [n for c in read for n in c.notes if "not UTF-8" in n]
    assert notes == [f"{name}: bytes from byte offset {at} on are not UTF-8 (invalid start "
                     "byte); they are shown as \ufffd"]
    texts = "".join(p.text for c in read for m in c.messages for p in m.parts)
    assert "\ufffd" in texts
