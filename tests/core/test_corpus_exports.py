"""The chat products' exports kept in tests/corpus/exports are exactly what their writers
write, and every one is read by the importer of its format without a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.formats.registry import detect
from tests.corpus.make_exports import EXPORTS, build

FILES = build()


@pytest.mark.parametrize("rel", sorted(FILES))
def test_each_file_is_what_its_writer_writes(rel: str) -> None:
    assert (EXPORTS / rel).read_bytes() == FILES[rel], \
        f"{rel} differs: run python -m tests.corpus.make_exports"


def test_no_file_is_kept_that_no_writer_writes(corpus_dir: Path) -> None:
    folder = corpus_dir / "exports"
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert on_disk == set(FILES) | {"README.md"}


@pytest.mark.parametrize("rel", sorted(r for r in FILES if not r.endswith(".png")))
def test_each_export_is_detected_as_its_folder_and_read_cleanly(
        corpus_dir: Path, rel: str) -> None:
    path = corpus_dir / "exports" / rel
    module = detect(path)
    assert module is not None and rel.split("/")[0] == module.FORMAT
    convs = list(module.read(path))
    assert convs and all(c.notes == [] and not c.ignored_records for c in convs)
