"""Qt tests run offscreen: the machines that run them have no display."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
