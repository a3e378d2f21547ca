"""Write :mod:`explorer.store.schema_snapshot` again from the migrations, after one is added.

    python -m explorer.store.write_schema
"""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.store.fresh_schema import migrated_by_steps, render


def main() -> int:
    target = Path(__file__).with_name("schema_snapshot.py")
    target.write_text(render(migrated_by_steps()), encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
