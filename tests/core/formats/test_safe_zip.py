"""Untrusted zips: names that climb out are refused, bombs stop with a clear error."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from explorer.formats.base import FormatError
from explorer.formats.safe_zip import SafeZip, is_zip, unsafe_reason

MIB = 1 << 20


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A zip whose one member inflates to 500 MB of zeros (about 0.5 MB on disk)."""
    path = tmp_path_factory.mktemp("bomb") / "export.zip"
    zeros = bytes(MIB)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open("conversations.json", "w") as f,
    ):
        for _ in range(500):
            f.write(zeros)
    return path


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../evil", "climbs"),
        ("a/../../evil", "climbs"),
        ("..\\evil.txt", "climbs"),
        ("/etc/passwd", "absolute"),
        ("C:\\Windows\\evil.dll", "absolute"),
        ("\\\\server\\share", "absolute"),
    ],
)
def test_unsafe_names_are_recognised(name: str, reason: str) -> None:
    found = unsafe_reason(name)
    assert found is not None and reason in found


@pytest.mark.parametrize("name", ["conversations.json", "user-1/file-Ab1-x.png", "a..b/c"])
def test_ordinary_names_are_allowed(name: str) -> None:
    assert unsafe_reason(name) is None


def test_zip_slip_entry_is_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "x.zip", {"conversations.json": b"[]", "../evil": b"pwned"})
    with SafeZip(path) as archive:
        assert archive.names() == ["conversations.json"]
        assert archive.refused == [
            "zip entry '../evil' refused: path climbs out of the archive ('..')"
        ]
        with pytest.raises(FormatError, match="refused"):
            archive.open("../evil")
        assert archive.read("conversations.json") == b"[]"


def test_bomb_stops_at_a_low_cap_passed_in(bomb: Path) -> None:
    with SafeZip(bomb, max_entry_bytes=MIB) as archive, pytest.raises(FormatError) as err:
        archive.open("conversations.json")
    assert "conversations.json" in str(err.value)
    assert "limit" in str(err.value)


def test_bomb_is_refused_by_its_compression_ratio_with_default_caps(bomb: Path) -> None:
    with SafeZip(bomb) as archive, pytest.raises(FormatError, match="zip bomb"):
        archive.open("conversations.json")


def test_bomb_stops_while_streaming_under_a_per_call_cap(bomb: Path) -> None:
    with SafeZip(bomb, max_ratio=10_000) as archive, pytest.raises(FormatError, match="limit"):
        archive.read("conversations.json", max_bytes=2 * MIB)


def test_total_budget_stops_streaming_across_members(tmp_path: Path) -> None:
    members = {f"part-{i}.bin": bytes(300_000) for i in range(3)}
    path = make_zip(tmp_path / "x.zip", members)
    with SafeZip(path, max_total_bytes=700_000) as archive:
        assert archive.read("part-0.bin") == bytes(300_000)
        assert archive.read("part-1.bin") == bytes(300_000)
        with pytest.raises(FormatError, match="total size limit"):
            archive.read("part-2.bin")


def test_member_streams_in_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4000
    path = make_zip(tmp_path / "x.zip", {"big.bin": data})
    with SafeZip(path) as archive, archive.open("big.bin") as f:
        first = f.read(1000)
        rest = f.read()
    assert first == data[:1000]
    assert first + rest == data


def test_not_a_zip_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "fake.zip"
    path.write_bytes(b"PK\x03\x04 but then nothing sensible")
    assert is_zip(path)
    with pytest.raises(FormatError, match="not a readable zip"):
        SafeZip(path)


def test_missing_member_is_a_format_error(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "x.zip", {"a.txt": b"a"})
    with SafeZip(path) as archive, pytest.raises(FormatError, match="no member"):
        archive.open("b.txt")


def test_is_zip_rejects_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("hello")
    assert not is_zip(path)
    assert not is_zip(tmp_path / "absent")
