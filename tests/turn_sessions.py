"""Generated turn-view inputs of any size, for the tests of what a big projection keeps."""

from __future__ import annotations

import random

from explorer.tree.turn_view import TurnInput


def deep_session(n: int = 20_000, seed: int = 7) -> list[TurnInput]:
    """A deep session: prompt, tool loop, answer; rewinds every ~50 messages; subagents."""
    rng = random.Random(seed)
    out: list[TurnInput] = []
    parent: int | None = None
    mid = 1
    tools = ("Bash", "Read", "Edit", "Grep")
    while mid <= n:
        out.append(TurnInput(mid, parent, "user", f"please do step {mid} of the plan, with care",
                             prompt=True))
        parent, mid = mid, mid + 1
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(tools)
            out.append(TurnInput(mid, parent, "assistant", f"[{name}] run", has_text=False,
                                 tool_calls=1, tools=(name,), model="model-a"))
            out.append(TurnInput(mid + 1, mid, "user", "[result] ok",
                                 tool_errors=rng.randint(0, 1)))
            parent, mid = mid + 1, mid + 2
        out.append(TurnInput(mid, parent, "assistant", f"Done with step {mid}: it works now.",
                             model=rng.choice(("model-a", "model-b"))))
        parent, mid = mid, mid + 1
        if rng.random() < 0.04:  # a rewind: the next prompt branches from further up
            parent = rng.randint(max(1, parent - 40), parent)
        if rng.random() < 0.01:  # a subagent hung off the last call
            out.append(TurnInput(mid, None, "user", "look into the logs", prompt=True,
                                 subagent="explorer", spawned_by=parent))
            out.append(TurnInput(mid + 1, mid, "assistant", "the logs are clean"))
            mid += 2
    return out
