"""A heavy agent user's whole archive: many Claude Code sessions over many project folders.

``archive`` writes ``sessions`` session files into a fake home's ``.claude/projects``: a few
busy projects and a long tail of rare ones (Zipf-like), sessions of 4 to 200 messages (about
``mean`` on average, fewer after the cut), started over a year, each file's modification
time its last line's (so "newest first" means something). Sizes are ``lean``: about 1.6 KB
of file per message with the envelopes, so 25,000 sessions (1.26 M messages) make 2 GB.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from .generate_transcripts import SIZES, START_TIME, Sizes, TextPool
from .scale_data import write_session

LEAN = Sizes(prompt=60, thinking=120, thinking_share=0.1, answer=160, step_text=30,
             code_blocks=1, output_lines=3)
SIZES.setdefault("lean", LEAN)
YEAR_S = 365 * 86400.0
PROJECTS = 120


def project_names(rng: random.Random, count: int = PROJECTS) -> list[str]:
    words = ("api", "shop", "billing", "infra", "docs", "web", "mobile", "ml", "auth", "data",
             "search", "cli", "site", "notes", "game", "bot", "etl", "ops", "lab", "core")
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(words)}-{rng.choice(words)}-{len(names)}"
        names.append(name)
    return names


def _length(rng: random.Random, mean: int) -> int:
    """Messages in one session: long-tailed around ``mean``, 4 to 200."""
    return max(4, min(200, int(rng.expovariate(1.0 / mean))))


def archive(home: Path, sessions: int, mean: int = 52, seed: int = 11) -> list[Path]:
    """Write the archive under ``home``; the session files, oldest first."""
    rng = random.Random(seed)
    pool = TextPool(rng)
    projects = project_names(rng)
    weights = [1.0 / (i + 1) for i in range(len(projects))]
    starts = sorted(START_TIME + rng.uniform(0, YEAR_S) for _ in range(sessions))
    made: list[Path] = []
    for i, start in enumerate(starts):
        project = rng.choices(projects, weights)[0]
        folder = home / ".claude" / "projects" / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_sid(rng)}.jsonl"
        last = write_session(path, rng, pool, path.stem, project, start, LEAN,
                             _length(rng, mean))
        os.utime(path, (last, last))
        made.append(path)
        if i % 1000 == 999:
            print(f"    {i + 1:,} sessions written", flush=True, file=__import__("sys").stderr)
    return made


def _sid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1])
    files = archive(out, int(sys.argv[2]) if len(sys.argv) > 2 else 25_000)
    total = sum(f.stat().st_size for f in files)
    print(f"{len(files):,} sessions, {total / 1e6:,.0f} MB under {out}")
