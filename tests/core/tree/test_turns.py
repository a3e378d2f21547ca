"""P1: turn boundaries on a path, and the turns between them."""

from __future__ import annotations

from helpers import assistant, tool_call, tool_result, tool_turn, user

from explorer.tree.model import Message
from explorer.tree.turns import boundary_flags, is_boundary, last_clean_boundary, split_turns


def _ids(path: list[Message]) -> list[Message]:
    for i, m in enumerate(path):
        m.id = i
    return path


def test_P1_boundary_only_when_every_tool_call_has_its_result() -> None:
    path = _ids(tool_turn(1))
    assert boundary_flags(path) == [True, False, True, True]


def test_P1_parallel_calls_need_every_result() -> None:
    call = tool_call("Read", "a")
    call.parts += tool_call("Grep", "b").parts
    path = _ids([user("go"), call, tool_result("a", "x"), tool_result("b", "y"), assistant("ok")])
    assert boundary_flags(path) == [True, False, False, True, True]


def test_P3_last_clean_boundary_of_a_crashed_session() -> None:
    path = _ids([*tool_turn(1), user("again"), tool_call("Bash", "late")])
    assert last_clean_boundary(path) == 4
    assert not is_boundary(path, 5)


def test_turns_start_at_prompts_not_at_tool_results() -> None:
    path = _ids([Message(0, None, "system", []), *tool_turn(1), *tool_turn(2)])
    turns = split_turns(path)
    assert [(t.start, t.end) for t in turns] == [(1, 5), (5, 9)]
    assert all(path[t.start].is_prompt for t in turns)


def test_a_path_without_a_prompt_has_no_turns() -> None:
    """A character's greeting alone (SillyTavern), or an answer whose prompt is gone."""
    greeting = [assistant("Are you new here?")]
    assert split_turns(greeting) == []
    assert split_turns([]) == []


def test_P1_boundaries_agree_with_the_pending_calls_when_calls_pile_up() -> None:
    from explorer.tree.turns import pending_after

    path: list[Message] = []
    for n in range(300):  # every third call is never answered: the open set only grows
        path.append(tool_call("Bash", f"c{n}"))
        if n % 3:
            path.append(tool_result(f"c{n}", "ok"))
        if n % 50 == 0:
            path += [tool_result(f"c{k}", "late") for k in range(0, n, 3)]
    path = _ids(path)
    assert boundary_flags(path) == [not pending for pending in pending_after(path)]
    assert any(boundary_flags(path)) and not all(boundary_flags(path))


def test_P1_open_calls_after_a_path_are_the_last_pending_calls() -> None:
    """The import's end-of-session check keeps the open calls only, not a list per message."""
    from explorer.tree.turns import open_calls, pending_after

    path: list[Message] = []
    for n in range(200):
        path.append(tool_call("Bash", f"c{n}"))
        if n % 7:
            path.append(tool_result(f"c{n}", "ok"))
    path = _ids(path)
    assert open_calls(path) == pending_after(path)[-1] == [f"c{n}" for n in range(0, 200, 7)]
    assert open_calls(path[1:3]) == [] and open_calls([]) == []
