"""Appends whole turns forever, printing each committed turn's number (killed by the test)."""

from __future__ import annotations

import sys

from helpers import tool_turn

from explorer.store import Store


def main(db: str, conv: int, first: int) -> None:
    store = Store(db)
    n = first
    while True:
        turn = tool_turn(n)
        turn[2].parts[0].text = f"output {n} " + "x" * (n % 7) * 4000
        store.append_turn(conv, turn)
        print(n, flush=True)
        n += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
