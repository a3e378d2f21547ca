"""The bundle's entry point: the same ``convo`` command line the installed package has.

A bundle has no ``python -m``: the window starts its helper processes as
``<this executable> -m explorer.app.importing.child`` (an import's reader),
``-m explorer.app.importing.read_worker`` (a big sync's readers) or
``-m explorer.app.graph.turn_child`` (a big conversation's turn graph), which land here and
run that module.
"""

from __future__ import annotations

import os
import sys

from explorer.app.graph import turn_child
from explorer.app.importing import child as import_child
from explorer.app.importing import read_worker
from explorer.cli.main import main

IMPORT_CHILD = ["-m", "explorer.app.importing.child"]
TURN_CHILD = ["-m", "explorer.app.graph.turn_child"]
SYNC_READER = ["-m", "explorer.app.importing.read_worker"]

if __name__ == "__main__":
    if sys.argv[1:] == IMPORT_CHILD:
        sys.exit(import_child.main())
    if sys.argv[1:] == SYNC_READER:
        code = read_worker.main()
        sys.stdout.flush()
        os._exit(code)
    if sys.argv[1:] == TURN_CHILD:
        code = turn_child.main()
        sys.stderr.flush()
        os._exit(code)  # as ``python -m`` ends it: no interpreter teardown to wait for
    sys.exit(main())
