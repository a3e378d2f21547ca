"""A long sync or import draws one line of progress on a terminal (nothing on a pipe), and
Ctrl+C asks it to stop instead of killing it mid-write; a second Ctrl+C interrupts."""

from __future__ import annotations

import io
import os
import signal

import pytest

from explorer.cli import progress_line
from explorer.cli.progress_line import ProgressLine, interrupt_stops


def test_the_line_is_drawn_in_place_and_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    line = ProgressLine("syncing: session", out, force=True)
    line.show(10, 25_000, 5 << 20, 2 << 30)
    monkeypatch.setattr(progress_line, "EVERY_S", 0.0)
    line.show(25_000, 25_000, 2 << 30, 2 << 30)
    line.end()
    drawn = out.getvalue().split("\r")
    assert drawn[1].startswith("syncing: session 10 of 25,000 · 5 MB of 2.00 GB")
    assert drawn[2].startswith("syncing: session 25,000 of 25,000 · 2.00 GB of 2.00 GB")
    assert "Ctrl+C stops" in drawn[1]
    assert drawn[-2].strip() == "" and len(drawn[-2]) == len(drawn[2].rstrip())


def test_nothing_is_drawn_when_it_is_not_a_terminal() -> None:
    out = io.StringIO()
    line = ProgressLine("importing", out)
    line.show(1, 2, 1, 2)
    line.end()
    assert out.getvalue() == ""


def test_ctrl_c_asks_to_stop_and_a_second_one_interrupts() -> None:
    with interrupt_stops() as stopping:
        os.kill(os.getpid(), signal.SIGINT)
        assert stopping == [True]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
