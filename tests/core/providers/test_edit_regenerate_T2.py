"""Edit-and-rerun and regenerate (T2): siblings, tip moves, the old answer stays."""

from __future__ import annotations

import pytest
from provider_seed import db_state, run_options, seed_conversation
from provider_server import ProviderServer, ServerState
from test_stream_faults_P2 import make

from explorer.app.calls import conversation_ops as ops
from explorer.providers.base import ServerError
from explorer.providers.http import HttpPolicy
from explorer.store import Store, StoreError
from explorer.tree.model import Message, Part


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_T2_rerun_of_an_edited_prompt_leaves_both_answers_in_the_tree(
    kind: str, store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 3)
    path = store.path(conv)
    old_prompt, old_answer = path[-2], path[-1]
    result = ops.edit_and_run(store, conv, int(old_prompt.id), "a better question",
                              make(kind, server, policy), run_options(kind))
    new_prompt_id, new_answer_id = result.message_ids
    new_prompt = store.message(new_prompt_id)
    assert new_prompt.parent_id == old_prompt.parent_id  # a sibling of the old prompt
    assert new_prompt.source_meta["edited_from"] == old_prompt.id
    assert store.message(new_answer_id).text == "Answer to: a better question"
    assert store.conversation(conv).tip_id == new_answer_id
    assert store.children(int(old_prompt.id)) == [old_answer.id]
    assert store.message(int(old_answer.id)).text == old_answer.text
    sent = state.hits[-1].body
    assert sent is not None and "question 2" not in str(sent)  # the old prompt was not sent


def test_T2_rerun_of_the_first_prompt_makes_a_second_root(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    first = store.path(conv)[0]
    result = ops.edit_and_run(store, conv, int(first.id), "start over",
                              make("anthropic", server, policy), run_options("anthropic"))
    root, answer = result.message_ids
    assert store.message(root).parent_id is None
    assert store.message(answer).parent_id == root
    assert [m.id for m in store.path(conv)] == [root, answer]


def test_T2_regenerate_adds_a_sibling_answer_under_the_same_prompt(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    prompt, answer = store.path(conv)[-2:]
    result = ops.regenerate(store, conv, int(answer.id),
        make("openai", server, policy), run_options("openai"))
    new = store.message(result.answer_id)
    assert result.message_ids == [result.answer_id]
    assert new.parent_id == prompt.id
    assert sorted(store.children(int(prompt.id))) == sorted([answer.id, new.id])
    assert store.conversation(conv).tip_id == new.id
    assert new.usage is not None and new.usage.input_tokens


def test_failed_rerun_stores_no_sibling(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    before = db_state(store, conv)
    prompt = store.path(conv)[-2]
    state.faults.extend(["500"] * 5)
    with pytest.raises(ServerError):
        ops.edit_and_run(store, conv, int(prompt.id), "edited",
                         make("anthropic", server, policy), run_options("anthropic"))
    assert db_state(store, conv) == before
    assert store.siblings(int(prompt.id)) in ([], [prompt.id])


def test_only_prompts_can_be_edited_and_empty_prompts_are_refused(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    answer = store.path(conv)[-1]
    with pytest.raises(StoreError, match="not a prompt"):
        ops.edit_and_run(store, conv, int(answer.id), "x",
                         make("anthropic", server, policy), run_options("anthropic"))
    with pytest.raises(StoreError, match="empty"):
        ops.send(store, conv, "   ",
        make("anthropic", server, policy), run_options("anthropic"))
    assert state.hits == []


def test_send_continues_from_the_context_start(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 4)
    store.trim(conv, keep_turns=1)
    ops.send(store, conv, "after the trim",
        make("anthropic", server, policy), run_options("anthropic"))
    body = state.hits[-1].body
    assert body is not None
    assert "question 3" in str(body) and "question 0" not in str(body)


def test_P3_a_tip_left_mid_turn_is_continued_from_the_last_clean_boundary(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    prompt_id, _ = store.append_turn(conv, [
        Message(id=None, parent_id=None, role="user", parts=[Part("text", "run ls")]),
        Message(id=None, parent_id=None, role="assistant",
                parts=[Part("tool_use", "{}", tool_name="ls", tool_use_id="crashed")]),
    ], incomplete=True)
    assert store.clean_boundary(conv) == prompt_id  # after the prompt, before the open call
    result = ops.send(store, conv, "start again",
        make("anthropic", server, policy), run_options("anthropic"))
    assert store.message(result.message_ids[0]).parent_id == prompt_id
    assert any("mid-turn" in n for n in result.notes)
    assert state.hits[-1].status == 200 and "crashed" not in str(state.hits[-1].body)
