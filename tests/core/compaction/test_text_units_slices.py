"""A huge part is counted in slices (V2: no C loop over a 10 MB paste holds the GIL for long).

Each regex or count over a string is one C call that keeps the interpreter from every other
thread, the window's included. These tests trace the calls, never time them.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from explorer.tree import secrets
from explorer.tree import text_units as units


class Traced:
    """A compiled pattern that records the length of every string it is run over."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.lengths: list[int] = []

    def sub(self, repl: str, text: str) -> str:
        self.lengths.append(len(text))
        return self.pattern.sub(repl, text)

    def finditer(self, text: str, *args: Any) -> Any:
        self.lengths.append(len(text))
        return self.pattern.finditer(text, *args)

    def search(self, text: str, *args: Any) -> Any:
        return self.pattern.search(text, *args)


def test_V2_a_huge_text_is_counted_in_slices_no_bigger_than_the_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    traced = Traced(units._WS_RUN)
    monkeypatch.setattr(units, "_WS_RUN", traced)
    line = "00001 a pasted log line,  that goes on\t\tfor a while — ünïcode.\n"
    text = line * (3 * units.UNITS_CHUNK // len(line) + 7)
    whole = units._units(text)
    traced.lengths.clear()
    assert units.text_units(text) == (max(0, whole[0]), *whole[1:])
    assert len(traced.lengths) >= 3
    assert max(traced.lengths) <= units.UNITS_CHUNK + len(line)


def test_slices_cut_before_a_non_blank_so_the_counts_add_up_exactly() -> None:
    rnd = random.Random(7)
    pieces = ["a", " ", "  ", "\n\n", ".", "é", "\t", "xyz", "\u3000", "—"]
    for _ in range(300):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 400)))
        for size in (1, 3, 17, 128):
            parts = list(units.slices(text, size))
            assert "".join(parts) == text
            assert all(not p[:1].isspace() for p in parts[1:]), "no blank run is split"
            total = [sum(u) for u in zip(*(units._units(p) for p in parts), strict=True)]
            assert tuple(total or (0, 0, 0)) == units._units(text)


def test_V2_text_without_what_a_url_password_or_bearer_token_needs_is_not_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, bearer = Traced(secrets._URL_PASSWORD), Traced(secrets._BEARER)
    monkeypatch.setattr(secrets, "_URL_PASSWORD", url)
    monkeypatch.setattr(secrets, "_BEARER", bearer)
    paste = "00000001 a pasted log line that goes on for a while\n" * 20_000
    assert secrets.find_spans(paste) == []
    assert url.lengths == [] and bearer.lengths == []
    token = "abcdefghijklmnopqrstuvwxyz0123"
    found = secrets.find_spans(paste + f"Authorization: Bearer {token} at https://u:hunter22@x/")
    assert [kind for *_, kind in found] == ["bearer-token", "url-password"]
    assert len(url.lengths) == 1 and len(bearer.lengths) == 1


def test_ascii_blank_runs_are_counted_as_the_substitution_counts_them() -> None:
    """ASCII text counts its blank runs from byte marks; it must agree with ``\\s{2,}``
    replaced by one space, the definition every other text is counted by."""
    rnd = random.Random(11)
    blanks = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f"]
    pieces = ["a", "bc", ".", ",;", *blanks, "  ", "\n\n\t"]
    for _ in range(2000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 60)))
        extra = len(text) - len(units._WS_RUN.sub(" ", text))
        data = text.encode()
        assert units._blanks_beyond_one(text, data, 0) == extra, repr(text)
