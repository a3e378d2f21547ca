"""The bundle's entry point: the same ``convo`` command line the installed package has."""

from __future__ import annotations

import sys

from explorer.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
