"""Where the database lives by default: the user's data folder, per platform."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "conversation-explorer"


def default_db_path() -> Path:
    """``$CONVO_DB`` if set, else ``explorer.db`` in the platform's user data folder."""
    env = os.environ.get("CONVO_DB")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "explorer.db"
