"""Which database a command line means, checked before anything is created.

Kept apart from the subcommands so that opening the window does not import them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from explorer.app.locations import default_db_path
from explorer.store.errors import StoreError


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db) if getattr(args, "db", None) else default_db_path()


def check_db_location(args: argparse.Namespace) -> Path:
    """The database path, refused when a command would create something unasked for.

    A database named by ``--db`` or ``$CONVO_DB`` must be in a folder that exists (a
    typo must not make folders); a command that only reads or changes what is there
    needs the database to exist already. Only the default data folder is created.
    """
    path = db_path(args)
    named = bool(getattr(args, "db", None) or os.environ.get("CONVO_DB"))
    if named and not path.parent.is_dir():
        raise StoreError(f"the folder {path.parent} does not exist "
                         "(create it first, or choose another --db)")
    creates = getattr(args, "creates_db", False)
    if not creates and not path.is_file():
        raise StoreError(f"no database at {path} "
                         "(convo demo or convo import creates one)")
    if not creates and path.stat().st_size == 0:
        raise StoreError(f"{path} is empty, not a database yet: nothing was changed "
                         "(convo demo or convo import makes it one)")
    return path
