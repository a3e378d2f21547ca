"""The benchmark's generated agent session is a session a person could have had.

Its tool calls are answered, so its clean boundary is its tip (the scale benchmark's
"context figure on deep" row measures the whole path, not a one-message context).
"""

from __future__ import annotations

from pathlib import Path

from graph_trees import agent_session

from explorer.store import Store


def test_every_call_of_the_generated_agent_session_is_answered(tmp_path: Path) -> None:
    with Store(tmp_path / "deep.db") as store:
        conv = agent_session(store, 3000, seed=7)
        tip = store.conversation(conv).tip_id
        assert store.clean_boundary(conv) == tip
        calls, answered = store.reader.execute(
            "SELECT count(*), count(r.id) FROM parts c LEFT JOIN parts r ON r.kind = "
            "'tool_result' AND r.tool_use_id = c.tool_use_id WHERE c.kind = 'tool_use'"
        ).fetchone()
        assert calls > 1000 and answered == calls
