"""The bundle's entry point: the same ``convo`` command line the installed package has.

A bundle has no ``python -m``: the window's import starts its reading process as
``<this executable> -m explorer.app.import_child``, which lands here and runs that module.
"""

from __future__ import annotations

import sys

from explorer.app import import_child
from explorer.cli.main import main

IMPORT_CHILD = ["-m", "explorer.app.import_child"]

if __name__ == "__main__":
    if sys.argv[1:] == IMPORT_CHILD:
        sys.exit(import_child.main())
    sys.exit(main())
