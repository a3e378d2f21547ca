"""Import at disk speed: each first import or sync beside the JSON-parse floor of the same files.

The floor is what no importer can beat: every line of the same files read and parsed with
``json.loads`` (and with ``msgspec``, the parser the importer uses), in a child process of
its own. Each import or sync runs in a fresh child too, so its peak resident size
(``os.wait4``) counts only itself. The sets are generated here, in a temporary folder:

* one 100,000-message Claude Code session (``scale_data.one_session``, seed 3), imported
  with ``convo import`` ``BENCH_DISK_RUNS`` times (3), each into a new file, beside as many
  floors: on a shared machine one run can take half as long again as the next, so the
  median of each is reported (the peak is the largest);
* the same session imported as a window imports it, as many times: read by the import's
  child process, written by the window's writer, its views prepared by a child started
  while it was read (``import_in_child``, ``prepare_in_child``; no window is drawn, so
  the peak is the import's, without the window's own ~90 MB);
* where one more ``convo import`` of it spends its time: start-up, reading and shaping,
  writing, preparing the views (the times at which the write and the views begin and end,
  seen by wrapping them in the importing process);
* 2,000 sessions of 50 messages in a fake home, synced with ``convo sync`` (the first
  sync, then one with nothing new).

    python -m tests.benchmarks disk_speed
    BENCH_DISK_SESSIONS=200 BENCH_DISK_RUNS=1 python -m tests.benchmarks disk_speed   (quick)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from tests.benchmarks.harness import Result

AREA = "disk speed"
REPO = Path(__file__).resolve().parents[2]
BIG_MESSAGES = 100_000
SESSIONS = int(os.environ.get("BENCH_DISK_SESSIONS", "2000"))
RUNS = max(1, int(os.environ.get("BENCH_DISK_RUNS", "3")))
SESSION_MESSAGES = 50
FLOOR_TIMES = 5.0  # the target: a first import within 5x the parse floor
PEAK_MB = 150.0
MB = 1 << 20

_FLOOR = """
import json, sys, time
from pathlib import Path
import msgspec
names = sys.argv[2:]
if names and names[0].startswith("@"):  # a list too long for a command line
    names = Path(names[0][1:]).read_text().splitlines()
files = [Path(p) for p in names]
decode = msgspec.json.Decoder().decode
parse = json.loads if sys.argv[1] == "json" else decode
t = time.perf_counter()
for f in files:
    with f.open("rb") as h:
        for line in h:
            if line.strip():
                parse(line)
print(time.perf_counter() - t)
"""


_WINDOW = """
import sys
from pathlib import Path
from explorer.app.graph.turn_process import CHILD_MIN_MESSAGES, prepare_in_child
from explorer.app.importing.process import import_in_child
from explorer.app.kept.prepared import child_ready, handed_paths
from explorer.store import Store
db, source = sys.argv[1], Path(sys.argv[2])
with Store(db) as store, child_ready([source], prepares=True):
    report = import_in_child(store, [source])
    big = [c.conversation_id for c in report.conversations
           if c.added + c.already_present >= CHILD_MIN_MESSAGES]
    store.writes_done()
    done = prepare_in_child(db, big, paths=handed_paths(store, big))
print(report.added_messages, len(done))
"""


_PHASES = """
import sys, time
T0 = time.perf_counter()
import runpy
from explorer.app.kept import prepared
from explorer.store.store import Store
marks = {}
def marked(owner, name, label):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        marks.setdefault(label + " from", time.perf_counter() - T0)
        try:
            return real(*args, **kwargs)
        finally:
            marks[label + " to"] = time.perf_counter() - T0
    setattr(owner, name, wrapper)
marked(Store, "import_conversations", "write")
marked(prepared, "prepare_big", "views")
sys.argv = ["convo", "--db", sys.argv[1], "import", sys.argv[2]]
try:
    runpy.run_module("explorer.cli.main", run_name="__main__")
except SystemExit:
    pass
end = time.perf_counter() - T0
print(marks["write from"], marks["write to"], marks["views from"], marks["views to"], end)
"""


def _child(args: list[str], home: Path | None = None) -> tuple[float, float, float, str]:
    """Run ``python args`` in a child: its wall and CPU seconds (a shared machine's other
    work lengthens the wall time only), its peak RSS in MB and its stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if home is not None:
        env["HOME"] = str(home)
        env.pop("CLAUDE_CONFIG_DIR", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{args[:3]} failed: {out[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def _floor(files: list[Path], parser: str) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(map(str, files)))
    try:
        *_, out = _child(["-c", _FLOOR, parser, "@" + listing.name])
    finally:
        os.unlink(listing.name)
    return float(out.strip())


def _convo(db: Path, *args: str, home: Path | None = None) -> tuple[float, float, float]:
    wall, cpu, peak, _ = _child(["-m", "explorer.cli.main", "--db", str(db), *args], home)
    return wall, cpu, peak


def _sessions(root: Path, count: int) -> list[Path]:
    """``count`` Claude Code sessions of ``SESSION_MESSAGES`` messages in a fake home."""
    from tests.benchmarks.scale_data import many_sessions

    folder = root / "home" / ".claude" / "projects" / "-home-dev-api-server"
    return many_sessions(folder, count, SESSION_MESSAGES, seed=5)


def _rows(what: str, files: list[Path], run: tuple[float, float, float], floor: float,
          fast_floor: float, judged: bool) -> list[Result]:
    wall, cpu, peak = run
    size = sum(f.stat().st_size for f in files) / MB
    times = wall / floor
    return [
        Result(AREA, f"{what}: floor, json.loads of every line ({size:,.0f} MB)", floor, "s"),
        Result(AREA, f"{what}: floor, msgspec of every line", fast_floor, "s"),
        Result(AREA, f"{what}: first import, wall", wall, "s"),
        Result(AREA, f"{what}: first import, CPU", cpu, "s"),
        Result(AREA, f"{what}: first import / json floor", times, "x",
               f"< {FLOOR_TIMES:.0f}" if judged else "", times < FLOOR_TIMES if judged else None),
        Result(AREA, f"{what}: peak RSS of the importing process", peak, "MB",
               f"< {PEAK_MB:.0f}" if judged else "", peak < PEAK_MB if judged else None),
    ]


def _window(db: Path, source: Path) -> tuple[float, float, float]:
    wall, cpu, peak, out = _child(["-c", _WINDOW, str(db), str(source)])
    added, prepared = map(int, out.split())
    if added < BIG_MESSAGES or prepared != 1:
        raise RuntimeError(f"a window's import stored {added} messages, prepared {prepared}")
    return wall, cpu, peak


def _median(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (median(r[0] for r in runs), median(r[1] for r in runs), max(r[2] for r in runs))


def _spread(what: str, runs: list[tuple[float, float, float]]) -> str:
    walls = sorted(r[0] for r in runs)
    return what + (f" (median of {RUNS}: {walls[0]:.1f}-{walls[-1]:.1f} s)" if RUNS > 1 else "")


def _phases(db: Path, source: Path) -> list[Result]:
    """Where one import's wall time goes, in order (the command line's import is read on a
    thread of its process, so its write and views are seen from inside)."""
    *_, out = _child(["-c", _PHASES, str(db), str(source)])
    write_from, write_to, views_from, views_to, end = map(float, out.split()[-5:])
    what = f"one {BIG_MESSAGES:,}-message Claude Code session, where one import's time goes"
    return [Result(AREA, f"{what}: start-up, reading and shaping", write_from, "s"),
            Result(AREA, f"{what}: writing", write_to - write_from, "s"),
            Result(AREA, f"{what}: preparing the views", views_to - views_from, "s"),
            Result(AREA, f"{what}: the rest (between, and the exit)",
                   end - (write_to - write_from) - (views_to - views_from) - write_from, "s")]


def _big(root: Path) -> list[Result]:
    from tests.benchmarks.scale_data import one_session

    print(f"  generating a {BIG_MESSAGES:,}-message session …", file=sys.stderr, flush=True)
    source = one_session(root / "big", BIG_MESSAGES, seed=3)
    floors, fasts, runs, windows = [], [], [], []
    for n in range(RUNS):  # each beside its own floor, alternating
        floors.append(_floor([source], "json"))
        fasts.append(_floor([source], "msgspec"))
        runs.append(_convo(root / f"big{n}.db", "import", str(source)))
        windows.append(_window(root / f"window{n}.db", source))
    what = f"one {BIG_MESSAGES:,}-message Claude Code session"
    floor, fast = median(floors), median(fasts)
    phases = _phases(root / "phases.db", source)
    wall, cpu, peak = _median(windows)
    window = _spread(f"{what}, as a window imports it (views included)", windows)
    return [*_rows(_spread(what, runs), [source], _median(runs), floor, fast, judged=True),
            Result(AREA, f"{window}: wall", wall, "s"),
            Result(AREA, f"{window}: CPU of its processes", cpu, "s"),
            Result(AREA, f"{window}: wall / json floor", wall / floor, "x"),
            Result(AREA, f"{window}: peak RSS of the largest of its processes", peak, "MB"),
            *phases]


def _many(root: Path) -> list[Result]:
    print(f"  generating {SESSIONS:,} sessions …", file=sys.stderr, flush=True)
    files = _sessions(root, SESSIONS)
    floor, fast = _floor(files, "json"), _floor(files, "msgspec")
    home = root / "home"
    db = root / "many.db"
    run = _convo(db, "sync", "--tool", "claude-code", home=home)
    again, *_ = _convo(db, "sync", "--tool", "claude-code", home=home)
    what = f"{SESSIONS:,} sessions x {SESSION_MESSAGES} messages, convo sync"
    return [*_rows(what, files, run, floor, fast, judged=False),
            Result(AREA, f"{what}: again with nothing new (wall, with start-up)", again, "s",
                   "< 1", again < 1.0)]


def run() -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="bench_disk_") as d:
        return [*_big(Path(d)), *_many(Path(d))]


if __name__ == "__main__":
    from tests.benchmarks.harness import HEADER

    print("\n".join([HEADER, *(r.row() for r in run())]))
