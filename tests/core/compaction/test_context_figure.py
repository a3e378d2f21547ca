"""The context figure is cached and incremental, and equals the plan's own usage (V2).

The panel's figure must be the one ``planner.usage`` gives on the active context (what
``/context`` prints), while reading and estimating only messages it has not costed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from explorer.app.context import compacting
from explorer.app.context.figure import ContextFigure
from explorer.app.importing.demo import load_demo
from explorer.app.targets import build_target
from explorer.compaction import estimate, planner
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.model import Message, Part, Usage
from tests.helpers import assistant, chat_turn, tool_turn, user

SECRET = "AKIAIOSFODNN7EXAMPLE"  # an AWS access key id shape the redactor replaces


def _expected(store: Store, conv: int, target: Target) -> dict[str, Any]:
    return planner.usage(compacting.active_context(store, conv), target).to_dict()


def _conversation(store: Store, turns: int = 6) -> int:
    conv = store.create_conversation("figure")
    for n in range(turns):
        store.append_turn(conv, tool_turn(n) if n % 2 else chat_turn(n))
    store.append_turn(conv, [user(f"my key is {SECRET}, keep it safe"), Message(
        id=None, parent_id=None, role="assistant", parts=[Part("text", "noted " * 40)],
        usage=Usage(input_tokens=900, output_tokens=40, cache_read_tokens=300))])
    return conv


@pytest.mark.parametrize("target", [
    build_target(), build_target("openai", model="gpt-4o"), build_target(redact=False)],
    ids=["default", "openai", "unredacted"])
def test_V2_the_context_figure_equals_the_plans_usage(tmp_path: Path, target: Target) -> None:
    with Store(tmp_path / "x.db") as store:
        demo = load_demo(store)
        conv = _conversation(store)
        figure = ContextFigure(store)
        for cid in (demo, conv):
            assert figure.usage(cid, target).to_dict() == _expected(store, cid, target)


def test_V2_a_grown_path_costs_only_its_new_messages(tmp_path: Path) -> None:
    target = build_target()
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        figure = ContextFigure(store)
        first = figure.usage(conv, target)
        length = len(figure.context_ids(conv))
        assert figure.costed == length
        figure.usage(conv, target)
        assert figure.costed == length  # a refresh reads nothing again
        store.append_turn(conv, [user("one more"), assistant("and its answer")])
        grown = figure.usage(conv, target)
        assert figure.costed == length + 2
        assert grown.to_dict() == _expected(store, conv, target)
        assert grown.measured_at != first.measured_at  # the new answer measured the prompt


def test_V2_a_message_whose_parts_changed_is_costed_again(tmp_path: Path) -> None:
    target = build_target()
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        figure = ContextFigure(store)
        before = figure.usage(conv, target)
        tip = store.conversation(conv).tip_id

        def grow(conn: Any) -> None:  # as a sync does when a response gains a block
            conn.execute("INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 9, 'text', ?)",
                         (tip, "a long further block " * 200))
        store.transact(grow)
        after = figure.usage(conv, target)
        assert after.to_dict() == _expected(store, conv, target)
        assert after.parts["assistant"] > before.parts["assistant"]


def test_V2_a_superseded_figure_stops_between_chunks(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.app.context import figure as context_figure

    monkeypatch.setattr(context_figure, "CHUNK", 3)
    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("superseded")

    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        figure = ContextFigure(store)
        with pytest.raises(RuntimeError, match="superseded"):
            figure.usage(conv, build_target(), check)
        assert figure.costed == 3  # the first chunk only


def test_V2_the_figure_learns_from_recorded_requests_and_image_prices_as_the_plan_does(
        tmp_path: Path) -> None:
    """After a compaction an answer records the request it was sent and the image price its
    usage showed; the kept costs must learn from those records exactly as the plan does."""
    target = build_target()
    key = target.estimator().image_key
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("compacted")
        for n in range(4):
            store.append_turn(conv, chat_turn(n))
        for n, (sent_text, measured) in enumerate([(1200, 2900), (1500, 3400)]):
            answer = Message(id=None, parent_id=None, role="assistant",
                             parts=[Part("text", "after the compaction " * 30)],
                             usage=Usage(input_tokens=measured, output_tokens=30))
            answer.source_meta[estimate.REQUEST_KEY] = {"text": sent_text,
                                                        "image_rule_tokens": 1456}
            answer.source_meta[estimate.IMAGE_PRICE_KEY] = {"key": key, "ratio": 1.05}
            store.append_turn(conv, [user(f"question {n} " * 20), answer])
        figure = ContextFigure(store)
        got = figure.usage(conv, target).to_dict()
        assert got == _expected(store, conv, target)
        # the same counts without the records learn otherwise: the records matter
        plain = planner.usage([_strip(m) for m in compacting.active_context(store, conv)],
                              target).to_dict()
        assert plain != got


def _strip(m: Message) -> Message:
    meta = {k: v for k, v in m.source_meta.items()
            if k not in (estimate.REQUEST_KEY, estimate.IMAGE_PRICE_KEY)}
    return Message(id=m.id, parent_id=m.parent_id, role=m.role, parts=m.parts, usage=m.usage,
                   source_meta=meta)
