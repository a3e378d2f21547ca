"""What every benchmark module returns, and how the table is printed.

Each ``bench_*.py`` module defines ``run() -> list[Result]``. Numbers are
measured on this machine at the time of the run; targets are printed beside
them so a regression is visible, but nothing fails on speed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    area: str
    name: str
    value: float
    unit: str
    target: str = ""
    met: bool | None = None

    def row(self) -> str:
        mark = {True: "yes", False: "**no**", None: ""}[self.met]
        value = f"{self.value:,.1f}" if self.value < 1000 else f"{self.value:,.0f}"
        return f"| {self.area} | {self.name} | {value} {self.unit} | {self.target} | {mark} |"


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    """Median wall time of ``fn`` in milliseconds."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


HEADER = "| area | measure | value | target | met |\n|---|---|---|---|---|"
