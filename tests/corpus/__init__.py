"""Sessions recorded by the agents' real clients against a loopback fake model.

``python -m tests.corpus.record [--agent NAME]`` installs each client at its pinned
version, drives it through a scripted session and copies what it wrote here, with
``manifest.json`` saying which client version wrote each file and what it exercises. Tests
read these files from the repository, so a bare clone runs every import test.
"""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parent
