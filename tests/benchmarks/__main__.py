"""Run every benchmark module (or the named ones) and print one table; save it to RESULTS.md."""

from __future__ import annotations

import importlib
import platform
import sys
import time
from pathlib import Path

from tests.benchmarks.harness import HEADER, Result

HERE = Path(__file__).parent


def main(names: list[str]) -> int:
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    chosen = [m for m in modules if not names or any(n in m for n in names)]
    results: list[Result] = []
    for name in chosen:
        print(f"running {name} …", file=sys.stderr, flush=True)
        results.extend(importlib.import_module(f"tests.benchmarks.{name}").run())
    table = "\n".join([HEADER, *(r.row() for r in results)])
    print(table)
    if not names:
        stamp = time.strftime("%Y-%m-%d")
        machine = f"{platform.machine()}, Python {platform.python_version()}, {platform.system()}"
        (HERE / "RESULTS.md").write_text(
            f"# Benchmark results\n\nMeasured {stamp} on {machine} "
            f"(`python -m tests.benchmarks`).\n\n{table}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
