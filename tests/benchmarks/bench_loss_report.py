"""The loss report on a long agent conversation (L8): it streams and stays under 300 MB.

A synthetic agent session of ``LOSS_MESSAGES`` messages (100,000 by default: prompts with a
decision, shell calls, outputs with paths and line numbers, an error every fiftieth) is planned
with a forced snapshot at Anthropic's default target, and its loss report made, in a child
process whose peak resident memory is the figure (the messages themselves included).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

from tests.benchmarks.harness import Result

AREA = "loss report"
MESSAGES = int(os.environ.get("LOSS_MESSAGES", "100000"))
LIMIT_MB = 300


def _session(n: int) -> list:  # type: ignore[type-arg]
    from explorer.tree.model import Message, Part

    out: list[Message] = []
    for i in range(n // 4):
        for role, part in (
            ("user", Part("text", f"Let's check build {i:08x}a1 and keep port {8000 + i % 100}.")),
            ("assistant", Part("tool_use", json.dumps({"command": f"grep -n foo src/m_{i}.py"}),
                               tool_name="Bash", tool_use_id=f"t{i}")),
            ("user", Part("tool_result", f"src/m_{i}.py:{i % 300}: foo = {i}\n" * 3,
                          tool_use_id=f"t{i}", is_error=i % 50 == 0)),
            ("assistant", Part("text", f"Found it in src/m_{i}.py; duration_ms {i * 7}.")),
        ):
            out.append(Message(len(out) + 1, out[-1].id if out else None, role, [part]))
    return out


def child(n: int) -> None:
    from explorer.compaction import planner
    from explorer.compaction.loss_report import loss_report
    from explorer.compaction.target import Target

    path = _session(n)
    target = Target.default("anthropic", tier="dense")
    t0 = time.perf_counter()
    plan = planner.build_plan(path, target, rung="snapshot")
    t1 = time.perf_counter()
    report = loss_report(path, plan, target.geometry)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"plan_s": t1 - t0, "report_s": t2 - t1, "items": len(report.entries),
                      "peak_mb": peak}))


def run() -> list[Result]:
    res = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_loss_report",
                          str(MESSAGES)], capture_output=True, text=True, check=True)
    d = json.loads(res.stdout.strip().splitlines()[-1])
    n = f"{MESSAGES:,} messages"
    return [
        Result(AREA, f"{n}: plan (forced snapshot)", d["plan_s"], "s"),
        Result(AREA, f"{n}: loss report", d["report_s"], "s"),
        Result(AREA, f"{n}: items listed", d["items"], ""),
        Result(AREA, f"{n}: peak memory, messages included", d["peak_mb"], "MB",
               f"< {LIMIT_MB} MB", d["peak_mb"] < LIMIT_MB),
    ]


if __name__ == "__main__":
    child(int(sys.argv[1]))
