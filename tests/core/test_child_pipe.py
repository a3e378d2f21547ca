"""The framed pipe between the app and the processes it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app import child_pipe
from explorer.app.child_pipe import (
    PIPE_BYTES,
    Pipe,
    PipeClosed,
    child_command,
    child_env,
    raw,
)


@pytest.fixture
def pipes() -> Iterator[tuple[Pipe, Pipe]]:
    """Two ends talking to each other, closed after the test."""
    a_in, b_out = os.pipe()
    b_in, a_out = os.pipe()
    here = Pipe(raw(a_in, "rb"), raw(a_out, "wb"))
    there = Pipe(raw(b_in, "rb"), raw(b_out, "wb"))
    yield here, there
    here.close()
    there.close()


def test_a_big_message_arrives_whole_and_in_order(pipes: tuple[Pipe, Pipe]) -> None:
    here, there = pipes
    rows = [(i, "x" * 300 + str(i), None) for i in range(20_000)]  # about 6 MB
    sender = threading.Thread(target=lambda: [there.send("rows", rows), there.send("end")])
    sender.start()
    assert here.receive() == ("rows", rows)
    assert here.receive() == ("end",)
    sender.join()
    there.close()
    with pytest.raises(PipeClosed):
        here.receive()


def test_a_pipe_holds_a_whole_chunk_of_rows(pipes: tuple[Pipe, Pipe]) -> None:
    """A reading process's answer (1-2 MB) goes into the pipe in a few writes, not in
    64 KiB pieces each waiting for the other end; where a pipe's size is fixed (not
    Linux), it is left as it is."""
    here = pipes[0]
    sizes = [child_pipe.widen(end) for end in (here._in, here._out)]
    if sys.platform.startswith("linux"):
        import fcntl

        assert sizes == [PIPE_BYTES, PIPE_BYTES]
        assert [fcntl.fcntl(end.fileno(), fcntl.F_GETPIPE_SZ)
                for end in (here._in, here._out)] == sizes
    else:
        assert sizes == [None, None]


def test_widen_says_none_where_the_size_is_fixed(tmp_path: Path) -> None:
    with open(tmp_path / "file", "wb") as not_a_pipe:
        assert child_pipe.widen(not_a_pipe) is None


def test_a_child_started_in_a_folder_with_another_explorer_runs_this_one(
        tmp_path: Path) -> None:
    """``python -m`` puts the current folder first on the module path: a window started
    from a checkout of another version would have run that version's readers and graph
    builder, which may not speak this one's protocol."""
    other = tmp_path / "explorer"
    other.mkdir()
    (other / "__init__.py").write_text("raise SystemExit('the other explorer was imported')\n")
    shown = subprocess.run(child_command("explorer.app.child_pipe"), cwd=tmp_path,
                           env=child_env(), capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr


def test_a_child_that_yields_starts_below_normal_on_windows_and_as_is_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.nice``, which the children call on themselves, is POSIX only: on Windows they
    are started in the lower priority class instead."""
    monkeypatch.setattr(sys, "platform", "win32")
    assert child_pipe.yielding() == {"creationflags": 0x4000}
    monkeypatch.setattr(sys, "platform", "linux")
    assert child_pipe.yielding() == {}
