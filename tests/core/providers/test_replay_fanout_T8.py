"""Replay after an edit and fan-out to several models, over real HTTP on loopback (T2, T8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_seed import db_state, run_options, seed_conversation
from provider_server import ProviderServer, ServerState
from test_stream_faults_P2 import make

from explorer.app.calls import fanout, replay
from explorer.app.tending import undo
from explorer.app.tending.tree_actions import archive, edit
from explorer.app.views.tree_view import tended_view
from explorer.cli.main import main
from explorer.compaction.estimate import Estimator
from explorer.providers.http import HttpPolicy
from explorer.store import Store, StoreError

OPTS = run_options("openai")


def _edited(store: Store) -> tuple[int, list[int], int]:
    """Three turns; the first prompt edited into a sibling (not run yet)."""
    conv = seed_conversation(store, 3)
    old = [int(m.id) for m in store.path(conv)]
    new = edit(store, conv, old[0], "question 0, asked better").changed["created"][0]
    return conv, old, new


def test_T8_replay_reruns_every_later_prompt_in_order_on_the_edited_branch(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv, old, new = _edited(store)
    assert tended_view(store, conv).stale == {old[1], old[3], old[5]}
    plan = replay.plan_replay(store, old[-1], new, Estimator(), "gpt-4.1")
    assert [s.prompt_id for s in plan.steps] == [new, old[2], old[4]]
    assert all(s.input_tokens > 0 and s.cost is not None for s in plan.steps)
    assert plan.steps[0].input_tokens < plan.steps[1].input_tokens < plan.steps[2].input_tokens
    assert state.hits == []  # planning sends nothing
    seen: list[int] = []
    outcome = replay.replay(store, plan, make("openai", server, policy), OPTS,
                            progress=lambda i, n, step: seen.append(i))
    assert outcome.error is None and outcome.finished == 3 and seen == [0, 1, 2]
    path = store.path(conv)
    assert [m.text for m in path if m.role == "user"] == [
        "question 0, asked better", store.message(old[2]).text, store.message(old[4]).text]
    assert path[-1].text.startswith("Answer to: question 2")
    assert [m.id for m in store.path(conv, old[-1])] == old  # the old branch stays (T3)
    assert tended_view(store, conv).stale == set()  # replayed: no longer stale
    undo.undo(store)
    assert store.conversation(conv).tip_id == new and store.children(new) == []


def test_T8_a_failed_replay_step_keeps_every_finished_turn(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv, old, new = _edited(store)
    plan = replay.plan_replay(store, old[-1], new)
    state.faults.extend([None, "401"])  # type: ignore[list-item]
    outcome = replay.replay(store, plan, make("openai", server, policy), OPTS)
    assert outcome.finished == 1 and outcome.error and "step 2 of 3 failed" in outcome.error
    assert outcome.change is not None and len(outcome.created) == 1
    assert store.conversation(conv).tip_id == outcome.created[0]


def test_T8_replay_refuses_a_prompt_that_is_not_an_edit_on_the_way(store: Store) -> None:
    _conv, old, _new = _edited(store)
    with pytest.raises(StoreError, match="on the branch to"):
        replay.plan_replay(store, old[-1], old[2])
    with pytest.raises(StoreError, match="not an edited prompt"):
        replay.plan_replay(store, old[-1], old[1])


def test_T8_fanout_stores_one_sibling_answer_per_model_and_sample(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    targets = [fanout.Target("anthropic:a", make("anthropic", server, policy),
                             run_options("anthropic")),
               fanout.Target("openai:b", make("openai", server, policy), OPTS)]
    done: list[str] = []
    result = fanout.fanout(store, conv, "which is faster?", targets, samples=2,
                           progress=lambda a: done.append(a.label))
    answers = [a.answer_id for a in result.answers]
    assert sorted(done) == ["anthropic:a", "anthropic:a", "openai:b", "openai:b"]
    assert all(answers) and sorted(store.children(result.prompt_id)) == sorted(answers)
    assert len(state.hits_to("/v1/messages")) == 2
    assert len(state.hits_to("/v1/chat/completions")) == 2
    assert store.conversation(conv).tip_id == answers[0]
    assert all(store.message(a).text == "Answer to: which is faster?" for a in answers if a)
    undo.undo(store)
    assert db_state(store, conv) == before


def test_T8_fanout_keeps_nothing_when_every_model_fails(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    state.faults.extend(["401", "401"])
    targets = [fanout.Target("openai:x", make("openai", server, policy), OPTS)]
    with pytest.raises(StoreError, match="no model answered"):
        fanout.fanout(store, conv, "hello?", targets, samples=2)
    assert db_state(store, conv) == before


def test_T8_replay_and_fanout_from_the_command_line(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "c.db"
    with Store(db) as s:
        conv, old, new = _edited(s)
    base = ["--db", str(db)]
    url = ["--base-url", server.url + "/v1"]
    assert main([*base, "replay", str(old[-1]), "--onto", str(new), "--dry-run",
                 "--provider", "openai-compatible", *url, "--json"]) == 0
    planned = json.loads(capsys.readouterr()[0])
    assert len(planned["steps"]) == 3 and state.hits == []
    assert main([*base, "replay", str(old[-1]), "--onto", str(new),
                 "--provider", "openai-compatible", *url, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["finished_steps"] == 3 and "step 3/3" in err
    assert main([*base, "fanout", str(conv), "--text", "and now?", "--model",
                 "openai-compatible:m1", "--model", "openai-compatible:m2", *url,
                 "--json"]) == 0
    ran = json.loads(capsys.readouterr()[0])
    assert [r["model"] for r in ran["runs"]] == ["openai-compatible:m1", "openai-compatible:m2"]
    assert len(ran["changed"]["answers"]) == 2
    models = {h.body["model"] for h in state.hits[-2:] if h.body}
    assert models == {"m1", "m2"}


def test_T6_T8_a_fanout_that_unfolds_an_archived_branch_folds_it_again_on_undo(
    store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    """A tip left inside an archived branch (a live session went on there): the answers
    unfold it, and the undo of the fan-out puts the archive mark back exactly."""
    conv, old, new = _edited(store)
    store.branch(conv, old[-1])
    archive(store, new)
    marks = store.reader.execute("SELECT * FROM message_marks ORDER BY message_id").fetchall()
    store.branch(conv, new)  # a raw pointer move, as a sync writes it
    target = fanout.Target("openai:gpt-4.1", make("openai", server, policy), OPTS)
    result = fanout.fanout(store, conv, "and now?", [target])
    assert result.change.changed["unarchived"] == [new]
    assert new not in store.marks(conv).archived
    undo.undo(store)
    assert store.reader.execute(
        "SELECT * FROM message_marks ORDER BY message_id").fetchall() == marks
    assert store.conversation(conv).tip_id == new


def test_T8_a_stale_answer_names_the_edit_it_waits_for_and_its_branch(store: Store) -> None:
    conv, old, new = _edited(store)
    assert replay.stale_edit(store, old[3]) == new
    assert replay.replay_source(store, old[3]) == (old[-1], new)  # the branch through it
    assert replay.replay_source(store, new) == (old[-1], new)  # the edit itself
    with pytest.raises(StoreError, match="not a stale answer"):
        replay.stale_edit(store, old[2])  # a prompt
    newer = edit(store, conv, old[0], "question 0, asked best").changed["created"][0]
    assert replay.stale_edit(store, old[1]) == newer  # the newest edit first


def test_T8_replay_of_a_stale_answer_needs_no_onto_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], server: ProviderServer,
    state: ServerState,
) -> None:
    db = tmp_path / "c.db"
    with Store(db) as s:
        _conv, old, new = _edited(s)
    assert main(["--db", str(db), "replay", str(old[3]), "--dry-run", "--provider",
                 "openai-compatible", "--base-url", server.url + "/v1", "--json"]) == 0
    planned = json.loads(capsys.readouterr()[0])
    assert (planned["onto"], planned["tip"], len(planned["steps"])) == (new, old[3], 2)
    assert state.hits == []
    assert main(["--db", str(db), "replay", str(old[2]), "--dry-run", "--provider",
                 "openai-compatible", "--base-url", server.url + "/v1"]) == 1
    assert "not a stale answer" in capsys.readouterr()[1]
