"""Streaming against the fake provider, and every injected fault: no half turn is ever stored."""

from __future__ import annotations

import threading

import pytest
from provider_seed import Waits, db_state, run_options, seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.app.calls import conversation_ops as ops
from explorer.providers import AnthropicProvider, OpenAIProvider, Provider
from explorer.providers.base import (
    AuthError,
    Cancelled,
    ConnectionLost,
    ProviderTimeout,
    RateLimited,
    ServerError,
)
from explorer.providers.http import HttpPolicy
from explorer.store import Store

KINDS = ("anthropic", "openai", "openai-compatible")


def make(kind: str, server: ProviderServer, policy: HttpPolicy) -> Provider:
    if kind == "anthropic":
        return AnthropicProvider("claude-sonnet-4-5", None, server.url, 256, policy)
    return OpenAIProvider("gpt-4.1", None, server.url + "/v1", kind == "openai-compatible", 256,
                          policy)


def endpoint(kind: str) -> str:
    return "/v1/messages" if kind == "anthropic" else "/v1/chat/completions"


@pytest.mark.parametrize("kind", KINDS)
def test_P2_send_writes_prompt_and_answer_as_one_turn(
    kind: str, store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    state.cache_read = 5
    conv = seed_conversation(store, 2)
    count, _ = db_state(store, conv)
    chunks: list[str] = []
    opts = run_options(kind, on_text=chunks.append)
    result = ops.send(store, conv, "hello there", make(kind, server, policy), opts)

    assert store.conversation(conv).tip_id == result.answer_id
    assert store.conversation(conv).message_count == count + 2
    prompt_id, answer_id = result.message_ids
    answer = store.message(answer_id)
    assert answer.parent_id == prompt_id
    assert store.message(prompt_id).text == "hello there"
    assert answer.text == "Answer to: hello there" == "".join(chunks)
    assert len(chunks) > 1  # it streamed in pieces
    measured = state.hits_to(endpoint(kind))[-1].measured
    assert answer.usage is not None and measured is not None
    assert answer.usage.cache_read_tokens == 5
    assert answer.usage.output_tokens == len(chunks)
    expected_input = measured - 5 if kind == "anthropic" else measured
    assert answer.usage.input_tokens == expected_input


@pytest.mark.parametrize("kind", KINDS)
def test_P2_stream_dropped_midway_stores_nothing(
    kind: str, store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    before = db_state(store, conv)
    state.faults.extend(["drop"])
    chunks: list[str] = []
    opts = run_options(kind, on_text=chunks.append)
    with pytest.raises(ConnectionLost):
        ops.send(store, conv, "hello there", make(kind, server, policy), opts)
    assert chunks  # text had reached the caller before the drop
    assert db_state(store, conv) == before
    assert len(state.hits) == 1  # a stream that started is not replayed


@pytest.mark.parametrize("kind", KINDS)
def test_429_waits_for_retry_after_then_answers(
    kind: str, store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
    waits: Waits,
) -> None:
    conv = seed_conversation(store, 1)
    state.faults.extend(["429", "429"])
    result = ops.send(store, conv, "again", make(kind, server, policy),
                      run_options(kind))
    assert [h.status for h in state.hits] == [429, 429, 200]
    assert waits.delays == [7.0, 7.0]  # retry-after (7 s) beats the 0.5 s / 1 s backoff
    assert store.conversation(conv).tip_id == result.answer_id


@pytest.mark.parametrize(("kind", "fault", "error"), [
    ("anthropic", "500", ServerError), ("anthropic", "529", ServerError),
    ("openai", "500", ServerError), ("openai", "429", RateLimited),
])
def test_retries_stop_after_max_attempts_and_store_nothing(
    kind: str, fault: str, error: type[Exception], store: Store, server: ProviderServer,
    state: ServerState, policy: HttpPolicy, waits: Waits,
) -> None:
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    state.faults.extend([fault] * 10)
    with pytest.raises(error):
        ops.send(store, conv, "again", make(kind, server, policy),
                 run_options(kind))
    assert len(state.hits) == policy.max_attempts == 3
    assert len(waits.delays) == 2
    assert db_state(store, conv) == before


@pytest.mark.parametrize("kind", KINDS)
def test_slow_response_times_out_and_stores_nothing(
    kind: str, store: Store, server: ProviderServer, state: ServerState, waits: Waits
) -> None:
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    state.faults.extend(["slow", "slow"])
    fast = HttpPolicy(connect_timeout=2, read_timeout=0.3, max_attempts=2, backoff=0.1,
                      waiter=waits)
    with pytest.raises(ProviderTimeout):
        ops.send(store, conv, "again", make(kind, server, fast),
                 run_options(kind))
    assert len(state.hits) == 2
    assert db_state(store, conv) == before


def test_auth_failure_is_not_retried(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    state.faults.append("401")
    with pytest.raises(AuthError):
        ops.send(store, conv, "again", make("anthropic", server, policy),
                 run_options("anthropic"))
    assert len(state.hits) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_cancel_while_streaming_stores_nothing(
    kind: str, store: Store, server: ProviderServer, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    cancel = threading.Event()
    seen: list[str] = []

    def on_text(text: str) -> None:
        seen.append(text)
        cancel.set()

    opts = run_options(kind, on_text=on_text, cancel=cancel)
    with pytest.raises(Cancelled):
        ops.send(store, conv, "stop me", make(kind, server, policy), opts)
    assert len(seen) == 1
    assert db_state(store, conv) == before


def test_cancel_during_backoff_stops_retrying(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 1)
    state.faults.extend(["429"] * 5)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        ops.send(store, conv, "x", make("anthropic", server, policy),
                 run_options("anthropic", cancel=cancel))
    assert len(state.hits) == 1


def test_a_silent_server_is_waited_on_out_loud_and_stores_nothing(
    store: Store, server: ProviderServer, state: ServerState, waits: Waits
) -> None:
    """Each wait a person would sit through is said in one line: the first byte awaited,
    each timeout with the try that follows."""
    conv = seed_conversation(store, 1)
    before = db_state(store, conv)
    state.faults.extend(["slow", "slow"])
    said: list[str] = []
    fast = HttpPolicy(connect_timeout=2, read_timeout=0.3, max_attempts=2, backoff=0.1,
                      waiter=waits, notify=said.append)
    with pytest.raises(ProviderTimeout):
        ops.send(store, conv, "again", make("anthropic", server, fast),
                 run_options("anthropic"))
    assert said[0] == "waiting for the first byte (at most 0.3 s a try, 2 tries)"
    assert said[1].endswith("; trying again in 0.1 s (attempt 2 of 2)")
    assert "no answer within the timeout" in said[1]
    assert db_state(store, conv) == before


def test_the_command_lines_timeout_reaches_the_providers_policy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.app.calls.model_setup import ModelChoice, prepare
    from explorer.cli import main
    from explorer.cli.model_commands import choice_from

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-for-the-policy")
    args = main.build_parser().parse_args(["send", "1", "--text", "hi", "--timeout", "7.5"])
    choice = choice_from(args)
    assert choice.timeout == 7.5
    provider = prepare(choice).provider
    assert provider.policy.read_timeout == 7.5  # type: ignore[attr-defined]
    assert prepare(ModelChoice()).provider.policy.read_timeout == 120.0  # type: ignore[attr-defined]
