"""A database for the archive's tests: the demo, and a conversation with an Anthropic key
planted where a careless server would leak it (a prompt, a tool call, a tool output cut
right across the key, two answers on sibling branches, a checkpoint label)."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from pathlib import Path

from helpers import assistant, tool_call, tool_result, user

from explorer.app.importing import demo
from explorer.store import Store

_ALPHABET = string.ascii_letters + string.digits
BODY = "".join(random.Random(7).choice(_ALPHABET) for _ in range(90))
KEY = "sk-ant-api03-" + BODY
CUT_AT = 300  # the tool output's key starts a few characters before a 300-character cut


def leaked(text: str, window: int = 12) -> list[str]:
    """Every ``window``-character piece of the key's secret part found in ``text``."""
    return [BODY[i:i + window] for i in range(len(BODY) - window + 1)
            if BODY[i:i + window] in text]


@dataclass(frozen=True)
class Planted:
    demo: int
    conversation: int
    prompt: int
    answer: int
    other_answer: int
    tool_output: int


def build(path: Path) -> Planted:
    with Store(path) as s:
        demo_id = demo.load_demo(s)
        conv = s.create_conversation("deploying the shop")
        ids = s.append_turn(conv, [
            user(f"Deploy the shop with the key {KEY} and tell me what the rollout said."),
            tool_call("Bash", "c1", {"command": f"ANTHROPIC_API_KEY={KEY} ./deploy.sh"}),
            tool_result("c1", "x" * (CUT_AT - 20) + f" {KEY} rollout finished"),
            assistant(f"The rollout finished; it used {KEY} as the deploy key."),
        ])
        other = s.append_turn(conv, [assistant(f"Deployed. The key {KEY} worked at once.")],
                              parent_id=ids[2])
        s.branch(conv, ids[3])
        s.checkpoint(conv, f"deployed with {KEY}", ids[3])
        s.writes_done()
    return Planted(demo_id, conv, ids[0], ids[3], other[0], ids[2])
