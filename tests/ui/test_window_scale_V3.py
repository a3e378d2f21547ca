"""V3 at 200 %: the window's geometry checks at a device scale of 2, in a process of its own
(the scale is read once, when Qt starts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_V3_at_200_percent_nothing_is_pushed_cut_or_covered(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2",
           "PYTHONPATH": os.pathsep.join([str(HERE.parents[1]), str(HERE)])}
    done = subprocess.run([sys.executable, str(HERE / "scaled_window_child.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ratio"] == 2.0
    before, after = seen["width"]
    assert after == before, "the preview strip widened the window"
    assert seen["graph"][1] >= seen["graph"][0] - 2, seen["graph"]
    assert seen["overlaps"] == []
    assert seen["title"].startswith("Context · ") and seen["title_whole"], seen["title"]
