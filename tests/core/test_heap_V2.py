"""V2: the process's threads share one malloc heap, so what a reading thread frees the
store's writer thread reuses (an import's peak is not two heaps' worth)."""

from __future__ import annotations

import subprocess
import sys

from explorer.app import heap


def test_V2_one_heap_is_taken_by_the_c_library_here() -> None:
    script = ("from explorer.app import heap; import sys; "
              "sys.exit(0 if heap.share_one_heap() else 3)")
    done = subprocess.run([sys.executable, "-c", script], check=False, timeout=60)
    expected = 0 if sys.platform.startswith("linux") else 3
    assert done.returncode == expected


def test_V2_convo_asks_for_one_heap_before_anything_else_starts() -> None:
    """The setting only covers threads that have not allocated yet: it is the first
    thing ``convo`` does after pointing Python at its bytecode cache."""
    import inspect

    from explorer.cli import main

    source = inspect.getsource(main.main)
    assert source.index("heap.share_one_heap()") < source.index("build_parser(")
    assert heap.M_ARENA_MAX == -8
