"""V1: the turn view is a projection of the message tree (hypothesis over random forests)."""

from __future__ import annotations

from collections.abc import Hashable

from hypothesis import given
from hypothesis import strategies as st

from explorer.tree.turn_grouping import group_turns
from explorer.tree.turn_labels import chips, first_words, prompt_words, top_tools
from explorer.tree.turn_runs import TurnProjection, project
from explorer.tree.turn_view import TurnInput, opens_turn

ROLES = ("user", "assistant", "user", "assistant", "tool", "system")


_ROW = st.tuples(st.integers(0, 19), st.integers(0, 10_000), st.sampled_from(ROLES),
                st.booleans(), st.integers(0, 2), st.integers(0, 1))


@st.composite
def forests(draw: st.DrawFn) -> tuple[list[TurnInput], set[Hashable]]:
    """A conversation with branches, prompts, tool loops and subagents hung off calls."""
    rows = draw(st.lists(_ROW, min_size=1, max_size=50))
    n = len(rows)
    msgs: list[TurnInput] = []
    for i, (how, pick, role, prompt, calls, errors) in enumerate(rows):
        # mostly a straight line, sometimes a branch from anywhere, rarely a new root
        parent = None if i == 0 or how == 19 else (i - 1 if how < 14 else pick % i)
        msgs.append(TurnInput(i, parent, role, f"m{i}", prompt=role == "user" and prompt,
                              tool_calls=calls, tool_errors=errors,
                              record=role == "system" and prompt))
    subs = draw(st.lists(st.tuples(st.lists(_ROW, min_size=1, max_size=6),
                                   st.integers(-1, n - 1)), max_size=3))
    for k, (sub_rows, call) in enumerate(subs):  # subagents: roots linked to a call
        base = 1000 * (k + 1)
        for j, (how, pick, role, prompt, _, _) in enumerate(sub_rows):
            parent = None if j == 0 else base + (j - 1 if how < 14 else pick % j)
            msgs.append(TurnInput(base + j, parent, role, f"s{k}.{j}",
                                  prompt=role == "user" and prompt,
                                  subagent=f"agent {k}" if j == 0 else None,
                                  spawned_by=(call if call >= 0 else "gone") if j == 0 else None))
    keep = set(draw(st.lists(st.sampled_from([m.id for m in msgs]), max_size=4)))
    return msgs, keep


def _parent_of(msgs: list[TurnInput]) -> dict[Hashable, Hashable | None]:
    return {m.id: m.parent_id for m in msgs}


@given(forests(), st.integers(2, 5))
def test_V1_every_message_in_exactly_one_turn_and_one_node(
    case: tuple[list[TurnInput], set[Hashable]], min_run: int
) -> None:
    msgs, keep = case
    proj = project(msgs, keep, min_run)
    in_turns = [mid for t in proj.tree.turns for mid in t.messages]
    assert sorted(in_turns) == sorted(m.id for m in msgs)
    in_nodes = [mid for node in proj.nodes for mid in proj.messages(node.index)]
    assert sorted(in_nodes) == sorted(m.id for m in msgs)
    for mid in in_turns:
        assert mid in proj.messages(proj.node_of(mid))


@given(forests())
def test_V1_a_turn_is_a_straight_chain_opened_by_a_prompt_root_branch_or_subagent(
    case: tuple[list[TurnInput], set[Hashable]],
) -> None:
    msgs, _ = case
    tree = group_turns(msgs)
    parent = _parent_of(msgs)
    by_id = {m.id: m for m in msgs}
    kids: dict[Hashable, int] = {}
    for m in msgs:
        kids[m.parent_id] = kids.get(m.parent_id, 0) + 1
    for turn in tree.turns:
        for a, b in zip(turn.messages, turn.messages[1:], strict=False):
            assert parent[b] == a and kids[a] == 1  # straight: no branch inside a turn
            before = turn.messages[:turn.messages.index(b)]
            # a prompt opens its own turn, unless only what set the turn up came before it:
            # tools' own records, and in a first turn (of a session or subagent) system text
            first = turn.parent < 0 or turn.index in tree.subagent
            assert not by_id[b].prompt or all(
                by_id[x].record or (first and by_id[x].role == "system") for x in before)
        assert turn.tool_calls == sum(by_id[m].tool_calls for m in turn.messages)


@given(forests(), st.integers(2, 5))
def test_V1_collapsing_never_hides_branch_points_tips_or_kept_messages(
    case: tuple[list[TurnInput], set[Hashable]], min_run: int
) -> None:
    msgs, keep = case
    proj = project(msgs, keep, min_run)
    turns = proj.tree.turns
    for node in proj.nodes:
        if not node.is_run:
            continue
        assert len(node.turns) >= min_run
        for t in node.turns:
            turn = turns[t]
            assert len(turn.children) == 1 and not turn.side  # no branch point, no tip
            assert not turn.is_side and turn.parent >= 0
            assert not keep.intersection(turn.messages)
        for a, b in zip(node.turns, node.turns[1:], strict=False):
            assert turns[b].parent == a  # a run is a straight run
    for mid in keep:  # a kept message's turn is a node of its own
        assert not proj.nodes[proj.node_of(mid)].is_run


@given(forests())
def test_V1_subagents_hang_off_their_call_and_are_never_siblings(
    case: tuple[list[TurnInput], set[Hashable]],
) -> None:
    msgs, keep = case
    proj = project(msgs, keep)
    own = {m.id for m in msgs if m.id < 1000}
    starts = [m for m in msgs if m.subagent is not None]
    for m in starts:
        node = proj.node_of(m.id)
        assert proj.is_side(node)
        assert proj.siblings(node) == [node]
        assert node not in proj.roots
        if m.spawned_by in own:
            parent = proj.nodes[node].parent
            assert m.spawned_by in proj.messages(parent)
            assert node in proj.nodes[parent].side
            assert node not in proj.nodes[parent].children
        else:
            assert node in proj.side_roots
    for node in proj.nodes:  # siblings of own nodes are own nodes
        if not proj.is_side(node.index):
            sibs = proj.siblings(node.index)
            assert node.index in sibs
            assert not any(proj.is_side(s) for s in sibs)


@given(forests())
def test_V1_node_links_follow_the_message_tree(
    case: tuple[list[TurnInput], set[Hashable]],
) -> None:
    msgs, keep = case
    proj: TurnProjection = project(msgs, keep)
    parent = _parent_of(msgs)
    for node in proj.nodes:
        head = proj.messages(node.index)[0]
        if node.parent >= 0 and not proj.is_side(node.index):
            assert parent[head] == proj.messages(node.parent)[-1]
        seen = {node.index}
        p = node.parent
        while p >= 0:  # no loops through subagent links
            assert p not in seen
            seen.add(p)
            p = proj.nodes[p].parent


def test_V1_tool_loop_folds_into_one_turn() -> None:
    msgs = [
        TurnInput(1, None, "user", "fix the bug", prompt=True),
        TurnInput(2, 1, "assistant", "[Bash] ls", has_text=False, tool_calls=1, tools=("Bash",)),
        TurnInput(3, 2, "user", "[error] no such file", tool_errors=1),
        TurnInput(4, 3, "assistant", "Fixed it by renaming the file."),
        TurnInput(5, 4, "user", "thanks", prompt=True),
        TurnInput(6, 5, "assistant", "You're welcome."),
    ]
    tree = group_turns(msgs)
    assert [t.messages for t in tree.turns] == [[1, 2, 3, 4], [5, 6]]
    first = tree.turns[0]
    assert (first.prompt, first.answer) == ("fix the bug", "Fixed it by renaming the file.")
    assert (first.tool_calls, first.tool_errors, first.tools) == (1, 1, {"Bash": 1})


def test_V1_a_prompt_joins_the_file_snapshot_above_it_instead_of_a_node_of_its_own() -> None:
    snapshot = "[system] File history snapshot: 0 tracked file(s)"
    msgs = [
        TurnInput(1, None, "system", snapshot, record=True),
        TurnInput(2, 1, "user", "make a plan", prompt=True),
        TurnInput(3, 2, "assistant", "Here is the plan."),
        TurnInput(4, 3, "system", snapshot, record=True),
        TurnInput(5, 4, "user", "go on", prompt=True),
        TurnInput(6, 3, "system", snapshot, record=True),  # the prompt edited: a branch
        TurnInput(7, 6, "user", "stop", prompt=True),
        TurnInput(8, 5, "system", "[system] Stop hook summary"),  # not a record: joins
        TurnInput(9, 8, "user", "hello", prompt=True),
    ]
    tree = group_turns(msgs)
    assert [t.messages for t in tree.turns] == [[1, 2, 3], [4, 5, 8], [9], [6, 7]]
    assert [t.prompt for t in tree.turns] == ["make a plan", "go on", "hello", "stop"]
    assert tree.turns[0].answer == "Here is the plan."


def test_V1_a_straight_run_collapses_but_its_ends_stay() -> None:
    msgs = [TurnInput(1, None, "user", "p1", prompt=True)]
    for i in range(2, 21):
        msgs.append(TurnInput(i, i - 1, "user" if i % 2 else "assistant", f"m{i}",
                              prompt=bool(i % 2)))
    proj = project(msgs, keep={20})
    assert [len(n.turns) for n in proj.nodes] == [1, 8, 1]
    assert proj.messages(1)[0] == 3 and proj.messages(2) == [19, 20]


def test_V1_a_sessions_opening_system_text_sets_up_the_first_turn() -> None:
    """Codex opens every session with its instructions and environment: the first prompt
    joins them and names the turn; later system text (and a root one that branches) does
    not."""
    msgs = [
        TurnInput(1, None, "system", "<skills_instructions> Skills …"),
        TurnInput(2, 1, "system", "<environment_context> cwd …"),
        TurnInput(3, 2, "user", "Say hello", prompt=True),
        TurnInput(4, 3, "assistant", "Hello."),
        TurnInput(5, 4, "system", "Context compacted"),
        TurnInput(6, 5, "user", "go on", prompt=True),
        TurnInput(10, None, "system", "You are terse."),  # two first prompts: a branch point
        TurnInput(11, 10, "user", "a", prompt=True),
        TurnInput(12, 10, "user", "b", prompt=True),
    ]
    tree = group_turns(msgs)
    assert [t.messages for t in tree.turns] == [[1, 2, 3, 4, 5], [6], [10], [11], [12]]
    assert [t.prompt for t in tree.turns][:3] == ["Say hello", "go on", "[system] You are terse."]
    assert tree.turns[0].answer == "Hello." and not tree.turns[0].records_only


def test_local_command_echoes_do_not_open_turns() -> None:
    assert opens_turn("user", False, "fix it")
    assert not opens_turn("user", True, "[result] ok")
    assert not opens_turn("user", False, "<local-command-stdout>See ya!</local-command-stdout>")
    assert not opens_turn("assistant", False, "hello")
    assert prompt_words("<command-name>/exit</command-name> <command-message>exit") == "/exit"


def test_labels_are_short_words_and_chips() -> None:
    assert first_words("one two three four five six", 14) == "one two three…"
    assert first_words("You are **alice**, a __careful__ agent") == "You are alice, a careful agent"
    assert len(first_words("x" * 500)) <= 60
    assert chips(12, 2) == "⚙ 12  ✗ 2" and chips(0, 0) == ""
    assert top_tools({"Bash": 5, "Read": 3, "Edit": 1}, 2) == "Bash ×5, Read ×3, +1 more"


def test_a_turn_knows_the_models_that_answered_it() -> None:
    msgs = [
        TurnInput(1, None, "user", "hi", prompt=True),
        TurnInput(2, 1, "assistant", "[Bash] ls", model="small"),
        TurnInput(3, 2, "user", "[result] ok"),
        TurnInput(4, 3, "assistant", "done", model="large"),
    ]
    (turn,) = group_turns(msgs).turns
    assert (turn.first_model, turn.last_model) == ("small", "large")


def test_V1_a_turn_is_titled_by_the_words_a_person_wrote_not_what_the_agent_injected() -> None:
    notification = ("<task-notification><task-id>b7xq2</task-id><output-file>/tmp/claude/tasks/"
                    "b7xq2.output</output-file><status>completed</status></task-notification>")
    assert prompt_words(notification) == "⟲ task notification"
    assert prompt_words("<system-reminder>Whenever you read a file, consider</system-reminder>"
                        "Please fix the flaky test") == "Please fix the flaky test"
    assert prompt_words("<user-prompt-submit-hook>lint: 3 warnings") == "⟲ hook output"
    assert "/tmp" not in prompt_words(notification + " ")
    assert prompt_words("plain words <b>bold</b>") == "plain words bold"
