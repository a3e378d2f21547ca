"""Sharing at size and without a terminal, in a process of its own: a 100,000-message branch
is streamed to disk in bounded memory, and a share with no terminal and no --yes writes
nothing (R1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from explorer.store import Store
from explorer.tree.model import Message, Part, Usage

LIMIT_MB = 300
# The child's own high-water mark. Not ru_maxrss: Linux carries into it the resident size of
# the process that forked the child, here a test worker that may hold 400 MB of its own.
_MEASURED = """
import resource, sys
from explorer.cli import main
rc = main.main(sys.argv[1:])
try:
    with open("/proc/self/status") as f:
        peak = next(int(l.split()[1]) // 1024 for l in f if l.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak = peak // (1 << 20) if sys.platform == "darwin" else peak // 1024
print(f"peak {peak}", file=sys.stderr)
sys.exit(rc)
"""


def long_branch(db: Path, pairs: int) -> int:
    with Store(db) as store:
        conv = store.create_conversation("a long session")
        messages: list[Message] = []
        for i in range(pairs):
            messages.append(Message(None, None, "user", [Part(
                "text", f"prompt {i}: look at /home/bob/src/app{i % 50}.py line {i % 300}. " * 3)]))
            messages.append(Message(None, None, "assistant", [Part(
                "text", f"answer {i}: check the bounds before indexing `items[{i}]`. " * 4)],
                model="claude-sonnet-4-5", usage=Usage(1000 + i, 50)))
        store.append_turn(conv, messages)
    return conv


def test_R1_a_100k_message_branch_is_shared_in_bounded_memory(tmp_path: Path) -> None:
    db, out = tmp_path / "long.db", tmp_path / "long.html"
    conv = long_branch(db, 50_000)
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, "share", str(conv), "--db", str(db), "-o", str(out),
         "--yes"], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    peak = int(done.stderr.rsplit("peak ", 1)[1])
    assert peak < LIMIT_MB, f"{peak} MB"
    assert "wrote " in done.stdout and "100000 messages" in done.stdout
    with out.open(encoding="utf-8") as f:
        articles = sum(line.count("<article ") for line in f)
    assert articles == 100_000
    assert "/home/bob" not in out.read_text(encoding="utf-8")


def test_R1_share_with_no_terminal_and_no_yes_refuses_in_one_line(tmp_path: Path) -> None:
    db, out = tmp_path / "small.db", tmp_path / "small.html"
    conv = long_branch(db, 2)
    done = subprocess.run(
        [sys.executable, "-m", "explorer.cli.main", "share", str(conv), "--db", str(db),
         "-o", str(out)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("convo: error: share needs a terminal") and "--yes" in line
    assert not out.exists()
