"""Sessions recorded by the agents' real clients against a loopback fake model.

``python -m tests.corpus.record [--agent NAME]`` installs each client at its pinned
version, drives it through a scripted session and copies what it wrote here, with
``<agent>/manifest.json`` saying which client version wrote each file and what it
exercises. Tests read these files from the repository, so a bare clone runs every import
test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent


def manifests() -> dict[str, dict[str, Any]]:
    """Every recorded agent's manifest, by folder name."""
    return {p.parent.name: json.loads(p.read_text())
            for p in sorted(CORPUS.glob("*/manifest.json"))}
