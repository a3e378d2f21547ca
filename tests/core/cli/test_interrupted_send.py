"""Ctrl+C while ``convo send`` waits on a server that never answers stops at once, says that
nothing was stored, and nothing was; the wait itself is said on stderr as it starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")


def _silent_server() -> tuple[socket.socket, int]:
    """Accepts connections on loopback and never answers (closed by the test)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return server, server.getsockname()[1]


def test_ctrl_c_during_a_send_stops_at_once_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-test-key-for-the-silent-server"}
    demo = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), "demo"],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=120)
    assert demo.returncode == 0
    before = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db),
                             "list", "--json"], cwd=REPO, capture_output=True, text=True,
                            env=env, timeout=120).stdout
    server, port = _silent_server()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "explorer.cli.main", "--db", str(db), "send", "1",
             "--text", "anyone there?", "--provider", "anthropic", "--no-summary",
             "--base-url", f"http://127.0.0.1:{port}", "--key-env", "ANTHROPIC_API_KEY",
             "--timeout", "30"],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert proc.stderr is not None
        first = proc.stderr.readline()  # the wait is said as it starts
        assert "waiting for the first byte (at most 30 s a try, 4 tries)" in first
        time.sleep(0.5)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
        assert time.monotonic() - started < 10
    finally:
        server.close()
    assert proc.returncode == 130, err
    assert "nothing of this call was stored" in err and "Traceback" not in err
    after = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db),
                            "list", "--json"], cwd=REPO, capture_output=True, text=True,
                           env=env, timeout=120).stdout
    assert after == before
