"""Importing large transcript sets: messages/s, MB/s and peak memory, per format and size.

Each import runs in a fresh child process and its peak resident size comes from
``os.wait4`` when it exits, so neither this process nor the generator counts.
Data sets are generated into a temporary folder that is deleted after each run.
``BENCH_IMPORT_MAX_MB`` caps the sizes for quick runs; ``BENCH_IMPORT_BUDGET_S``
bounds the wall time, and a 1 GB run that would not fit in it is reported as an
extrapolation from the 100 MB run, marked as such.

    python -m tests.benchmarks import          # via the harness
    python -m tests.benchmarks.bench_import --child INPUT DB [--search WORD]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.benchmarks.generate_transcripts import Generated, generate
from tests.benchmarks.harness import Result

AREA = "import"
REPO = Path(__file__).resolve().parents[2]
SIZES_MB = (100, 1024)
LABELS = {"claude-code": "Claude Code JSONL", "chatgpt": "ChatGPT export"}
TARGET_MESSAGES = 100_000
TARGET_SECONDS = 10.0
CHATGPT_PEAK_MB = 200.0
PLANT = "quokkaplanted"  # the generator's vocabulary never holds it
MIN_FREE_BYTES = 5 * (1 << 30)
MB = 1 << 20


def _max_mb() -> int:
    return int(os.environ.get("BENCH_IMPORT_MAX_MB", "1024"))


def _budget_s() -> float:
    return float(os.environ.get("BENCH_IMPORT_BUDGET_S", "1200"))


@dataclass(frozen=True)
class ChildRun:
    """What one importing child measured, and its peak RSS as the kernel saw it."""

    import_s: float
    total_s: float  # import plus the search
    messages: int
    conversations: int
    errors: int
    hits: int
    peak_mb: float
    wall_s: float  # including interpreter start, for time estimates


def _size_label(mb: int) -> str:
    return f"{mb // 1024} GB" if mb % 1024 == 0 else f"{mb} MB"


def run_child(source: Path | None, db: Path, search: str | None = None) -> ChildRun:
    """Import ``source`` into a fresh store at ``db`` in a new process (None: import nothing)."""
    cmd = [sys.executable, "-m", "tests.benchmarks.bench_import", "--child", str(db)]
    cmd += ["--source", str(source)] if source is not None else []
    cmd += ["--search", search] if search else []
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not all children's
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"the importing child failed with exit code {proc.returncode}")
    data = json.loads(out)
    own = data.pop("peak_mb", None)
    peak = own if own is not None else usage.ru_maxrss / 1024  # ru_maxrss is KiB
    return ChildRun(peak_mb=peak, wall_s=wall, **data)


def _free_bytes() -> int:
    return shutil.disk_usage(tempfile.gettempdir()).free


def _measure(fmt: str, mb: int | None, messages: int | None = None) -> tuple[Generated, ChildRun,
                                                                             float]:
    """Generate a set, import it in a child, delete both; answers the generation seconds too."""
    with tempfile.TemporaryDirectory(prefix="bench_import_") as d:
        what = f"{mb} MB" if mb is not None else f"{messages:,} messages"
        print(f"  {LABELS[fmt]}: generating {what} …", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        plant = PLANT if messages is not None else None
        made = generate(fmt, Path(d) / "input", mb=mb, messages=messages, seed=1, plant=plant)
        gen_s = time.perf_counter() - t0
        print(f"  … {made.bytes / MB:,.0f} MB, {made.messages:,} messages in {gen_s:.0f} s; "
              "importing", file=sys.stderr, flush=True)  # fmt: skip
        run = run_child(made.path, Path(d) / "bench.db", plant)
    return made, run, gen_s


def _checked(name: str, made: Generated, run: ChildRun) -> str:
    if run.errors or run.messages != made.messages or run.conversations != made.conversations:
        return (f"{name} (!! imported {run.messages:,} of {made.messages:,} messages, "
                f"{run.errors} errors)")  # fmt: skip
    return name


def _size_rows(fmt: str, size: int, made: Generated, run: ChildRun, note: str = "") -> list[Result]:
    label = f"{LABELS[fmt]} {_size_label(size)}{note}"
    shape = f"{made.messages:,} msgs, {made.conversations:,} conversations"
    peak_target = fmt == "chatgpt" and size >= 1024
    met = run.peak_mb < CHATGPT_PEAK_MB if peak_target and not note else None
    return [
        Result(AREA, _checked(f"{label}: import rate ({shape})", made, run),
               run.messages / run.import_s, "msg/s"),
        Result(AREA, f"{label}: throughput", made.bytes / MB / run.import_s, "MB/s"),
        Result(AREA, f"{label}: peak RSS of the importing process", run.peak_mb, "MB",
               f"< {CHATGPT_PEAK_MB:.0f}" if peak_target else "", met),
    ]  # fmt: skip


def _target_row(fmt: str, messages: int) -> Result:
    made, run, _ = _measure(fmt, None, messages)
    found = run.hits > 0
    name = (f"{LABELS[fmt]}: {messages:,} messages ({made.bytes / MB:,.0f} MB) parsed, stored, "
            "indexed and searchable")  # fmt: skip
    if not found:
        name += " (!! planted word not found)"
    if messages != TARGET_MESSAGES:
        name += " (scaled down by BENCH_IMPORT_MAX_MB; target not judged)"
        return Result(AREA, _checked(name, made, run), run.total_s, "s")
    met = run.total_s < TARGET_SECONDS and found
    return Result(AREA, _checked(name, made, run), run.total_s, "s",
                  f"< {TARGET_SECONDS:.0f}", met)  # fmt: skip


def _extrapolated(fmt: str, size: int, base: tuple[Generated, ChildRun, float]) -> list[Result]:
    """Rows for a run that would not fit in the time budget, scaled from a smaller run."""
    made, run, _ = base
    factor = size * MB / made.bytes
    scaled = Generated(made.format, made.path, int(made.bytes * factor), made.files,
                       int(made.conversations * factor), int(made.messages * factor))
    guess = ChildRun(run.import_s * factor, run.total_s * factor, scaled.messages,
                     scaled.conversations, 0, 0, run.peak_mb, run.wall_s * factor)
    note = f" (EXTRAPOLATED from {made.bytes / MB:,.0f} MB, not measured)"
    return _size_rows(fmt, size, scaled, guess, note)


def run() -> list[Result]:
    free = _free_bytes()
    if free < MIN_FREE_BYTES:
        return [Result(AREA, "skipped: not enough disk", free / (1 << 30), "GB free", "≥ 5")]
    started = time.perf_counter()
    cap = _max_mb()
    sizes = sorted({min(s, cap) for s in SIZES_MB})
    with tempfile.TemporaryDirectory(prefix="bench_import_") as d:
        idle = run_child(None, Path(d) / "idle.db")
    results = [Result(AREA, "peak RSS of an idle child (Python, explorer and an empty store)",
                      idle.peak_mb, "MB")]  # fmt: skip
    done: dict[str, tuple[Generated, ChildRun, float]] = {}
    for size in sizes:
        for fmt in LABELS:
            base = done.get(fmt)
            if base is not None:
                estimate = (base[2] + base[1].wall_s) * size * MB / base[0].bytes
                if time.perf_counter() - started + estimate > _budget_s():
                    results += _extrapolated(fmt, size, base)
                    continue
            if _free_bytes() < 4 * size * MB:
                results.append(Result(AREA, f"{LABELS[fmt]} {_size_label(size)}: skipped: not "
                                      "enough disk", _free_bytes() / (1 << 30), "GB free"))
                continue
            measured = _measure(fmt, size)
            done.setdefault(fmt, measured)
            results += _size_rows(fmt, size, measured[0], measured[1])
    messages = TARGET_MESSAGES if cap >= 512 else cap * 200
    results += [_target_row(fmt, messages) for fmt in LABELS]
    return results


def child_main(db: Path, source: Path | None, search: str | None) -> int:
    """Runs in the measured process: import into a fresh store, search, print the numbers."""
    from explorer.app.importing.run import import_paths
    from explorer.store import Store

    t0 = time.perf_counter()
    with Store(db) as store:
        report = import_paths(store, [source]) if source is not None else None
        import_s = time.perf_counter() - t0
        hits = store.search(search) if search else []
        total_s = time.perf_counter() - t0
    print(json.dumps({
        "import_s": import_s, "total_s": total_s, "hits": len(hits),
        "messages": report.added_messages if report else 0,
        "conversations": len(report.conversations) if report else 0,
        "errors": len(report.errors) if report else 0,
        "peak_mb": _own_peak_mb(),
    }))  # fmt: skip
    return 0


def _own_peak_mb() -> float | None:
    """This process's peak RSS since exec (VmHWM). ``ru_maxrss`` would also count the
    parent's memory at fork time, which a benchmark run after others inflates."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", type=Path, metavar="DB", required=True)
    parser.add_argument("--source", type=Path)
    parser.add_argument("--search")
    args = parser.parse_args(argv)
    return child_main(args.child, args.source, args.search)


if __name__ == "__main__":
    sys.exit(main())
