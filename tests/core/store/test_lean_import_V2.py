"""V2: a database is migrated without importing numpy (``sqlite_utils`` would pull it in).

``convo import`` of a 100,000-message session into a new file held numpy's 14 MB through
the whole read, for a type mapping no migration uses."""

from __future__ import annotations

import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import pytest

from explorer.store.connection import open_connection
from explorer.store.lean_import import _Refuse
from explorer.store.migrations import migrate

_NEW_FILE = """
import sys
from explorer.store import Store
with Store(sys.argv[1]) as s:
    assert s.conversations() == []
print("numpy" in sys.modules, "sqlite_utils" in sys.modules)
import numpy, sqlite_utils.db
print(numpy.int64(3) + 1, sqlite_utils.db.np is None)
"""


def test_V2_an_older_file_is_migrated_without_numpy_which_stays_importable(
        tmp_path: Path) -> None:
    """(A new file is made from the schema snapshot, without ``sqlite_utils`` at all; one an
    older version made is upgraded step by step.)"""
    old = tmp_path / "old.db"
    with closing(open_connection(old)) as conn:
        migrate(conn, upto=1)
    out = subprocess.run([sys.executable, "-c", _NEW_FILE, str(old)],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "False True", "migrated with sqlite_utils, and numpy was not imported"
    assert out[1] == "4 True", "numpy imports afterwards; sqlite_utils kept going without it"


def test_V2_numpy_is_refused_only_to_the_thread_importing_sqlite_utils() -> None:
    mine = _Refuse(threading.get_ident())
    with pytest.raises(ImportError):
        mine.find_spec("numpy")
    with pytest.raises(ImportError):
        mine.find_spec("numpy.linalg")
    assert mine.find_spec("numpyro") is None and mine.find_spec("json") is None
    seen: list[object] = []
    other = threading.Thread(target=lambda: seen.append(mine.find_spec("numpy")))
    other.start()
    other.join()
    assert seen == [None], "another thread's import of numpy goes on as usual"
