"""V2 in the graph: the turn model keeps arrays and makes a box's words when it is drawn.

The model of a 100,000-message session lives as long as the window shows it; a
title, an answer, a chip and a tooltip string per node, and a dict from every
message id to its node, cost it ~30 MB. Here they are made on demand from the
projection's columns, and must read exactly as the turns say.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from turn_sessions import deep_session

from explorer.app.graph.turn_model import build_turn_model
from explorer.app.graph.turn_text import TurnView
from explorer.app.views.tree_text import TreeMarks
from explorer.store.turn_reads import TurnSource
from explorer.tree.columns import Lazy
from explorer.tree.turn_grouping import group_turns
from explorer.tree.turn_labels import chips, first_words
from explorer.tree.turn_runs import collapse_runs
from explorer.ui.graph.model import F_RUN, GraphMarks

PER_NODE = 64  # bytes: positions, flags, styles, layout and grid, all in arrays


def _view(messages: int) -> TurnView:
    proj = collapse_runs(group_turns(deep_session(messages)))
    return TurnView(1, TurnSource(None, {}), proj, TreeMarks())


def test_V2_the_turn_model_of_20k_messages_keeps_no_strings_per_node() -> None:
    view = _view(20_000)
    tip = view.projection.tail(len(view.projection) - 1)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        model = build_turn_model(view, GraphMarks(tip=tip))  # type: ignore[arg-type]
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    n = len(model)
    assert n > 500
    assert kept <= PER_NODE * n + 64 * 1024, (kept, n)
    info = model.turns
    assert info is not None
    for column in (info.titles, info.answers, info.chips, info.tooltips, info.spans,
                   model.previews):
        assert isinstance(column, Lazy) and len(column) == n
    assert not isinstance(model.index, dict)


def test_V2_box_words_made_on_demand_read_as_the_turns_say() -> None:
    view = _view(3000)
    proj = view.projection
    model = build_turn_model(view, GraphMarks())
    info = model.turns
    assert info is not None
    for i in range(len(model)):
        turn = proj.turn(i)
        mids = proj.messages(i)
        assert info.spans[i] == (len(mids), proj.turn_count(i))
        assert all(model.index[m] == i for m in mids)
        assert model.ids[i] == mids[-1]
        if model.flags[i] & F_RUN:
            assert info.titles[i] == f"⋯ {proj.turn_count(i)} turns"
            assert info.answers[i] == f"{len(mids)} messages  ▸ expand" and info.chips[i] == ""
            continue
        if turn.prompt:
            assert info.titles[i] == first_words(turn.prompt, 80)
        else:  # a node inside a turn: the prompt it continues
            assert info.titles[i].startswith("↳ ")
        assert info.answers[i] == turn.answer
        assert info.chips[i] == chips(turn.tool_calls, turn.tool_errors)
        assert info.tooltips[i].startswith(f"turn #{mids[0]}")
        assert (f"answer: {turn.answer}" in info.tooltips[i]) == bool(turn.answer)


def test_V2_the_models_node_columns_say_what_the_projection_says_node_by_node() -> None:
    """Ids, box styles and run/subagent flags come from one pass over the projection's
    columns; each must be what asking the projection node by node gives."""
    from explorer.ui.graph.model import F_SIDE
    from explorer.ui.graph.palette import STYLE_AGENT, STYLE_RUN, STYLE_SYSTEM, STYLE_TURN

    view = _view(6_000)
    proj = view.projection
    model = build_turn_model(view, GraphMarks(tip=proj.tail(len(proj) - 1)))  # type: ignore[arg-type]
    tree = proj.tree
    seen = set()
    for i in range(len(proj)):
        t = proj.first_turn(i)
        assert model.ids[i] == proj.tail(i)
        if proj.is_run(i):
            style = STYLE_RUN
        elif tree.agent_index[t] >= 0:
            style = STYLE_AGENT
        else:
            style = STYLE_SYSTEM if tree.prompts[t].startswith("[system]") else STYLE_TURN
        assert model.styles[i] == style
        assert bool(model.flags[i] & F_RUN) == proj.is_run(i)
        assert bool(model.flags[i] & F_SIDE) == proj.is_side(i)
        seen.add(style)
    assert {STYLE_RUN, STYLE_AGENT, STYLE_TURN} <= seen  # the session has all three


def test_V1_a_regenerated_answer_is_titled_by_the_prompt_it_answers(tmp_path: Path) -> None:
    """A node that starts inside a turn (a second answer to one prompt) says which prompt it
    answers, not "(continued)"."""
    from explorer.app.importing.demo import load_demo
    from explorer.store import Store
    from explorer.ui.graph.palette import light_palette
    from explorer.ui.graph.worker import build_turn_graph

    store = Store(tmp_path / "d.db")
    load_demo(store)
    model = build_turn_graph(store, 1, light_palette()).model
    assert model.turns is not None
    titles = {int(model.ids[i]): model.turns.titles[i] for i in range(len(model))}
    assert titles[24].startswith("↳ Write a short commit message"), titles[24]
    assert titles[23].startswith("↳ Write a short commit message")
    assert not any("(continued)" in t for t in titles.values())
    store.close()


def test_V1_a_turn_without_answer_words_uses_both_lines_for_its_title(
        qapp: object, tmp_path: Path) -> None:
    """"Write a short commit message for this change." has no answer of its own on its node
    (its answers are the two regenerated siblings): its title takes the box's second line
    rather than being cut at the first."""
    from explorer.app.importing.demo import load_demo
    from explorer.store import Store
    from explorer.ui.graph.item import GraphItem
    from explorer.ui.graph.palette import light_palette
    from explorer.ui.graph.worker import build_turn_graph

    store = Store(tmp_path / "d.db")
    load_demo(store)
    data = build_turn_graph(store, 1, light_palette())
    item = GraphItem(data.model, data.geometry, light_palette())
    [i] = [k for k in range(len(data.model))
           if str(data.model.turns.titles[k]).startswith("Write a short commit")]  # type: ignore[union-attr]
    head, line, _chip, _w, more = item._text(i)
    assert more and not head.endswith("…")
    assert f"{head} {line}".rstrip("…").startswith("Write a short commit message")
    answered = next(k for k in range(len(data.model)) if data.model.turns.answers[k])  # type: ignore[union-attr]
    assert item._text(answered)[4] is False and item._text(answered)[1].startswith("→ ")
    store.close()
