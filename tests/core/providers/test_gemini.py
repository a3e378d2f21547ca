"""Gemini through ``streamGenerateContent`` against a loopback server that follows its rules."""

from __future__ import annotations

import pytest
from helpers import MemoryKeyring
from provider_seed import db_state, seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.app.calls import conversation_ops as ops
from explorer.compaction.target import ProviderKind, Target
from explorer.providers import GeminiProvider, Secret, make_provider
from explorer.providers.base import AuthError, ConnectionLost, ContextOverflow, RateLimited
from explorer.providers.http import HttpPolicy
from explorer.providers.keys import resolve_key, set_key
from explorer.store import Store
from explorer.tree.model import Message, Part

MODEL = "gemini-2.5-flash"


def gemini(server: ProviderServer, policy: HttpPolicy, key: str | None = None) -> GeminiProvider:
    return GeminiProvider(MODEL, Secret(key) if key else None, server.url, 256, policy)


def prompt(text: str) -> list[Message]:
    return [Message(id=None, parent_id=None, role="user", parts=[Part("text", text)])]


def test_streams_the_answer_and_records_usage_with_cached_tokens(
    server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.cache_read = 7
    seen: list[str] = []
    done = gemini(server, policy).complete(prompt("hello there"), on_text=seen.append)
    assert done.text == "Answer to: hello there" and "".join(seen) == done.text
    assert (done.usage.input_tokens, done.usage.cache_read_tokens) == (
        state.hits[0].measured, 7)
    assert done.stop_reason == "STOP" and done.model == MODEL
    (hit,) = state.hits
    assert hit.path == f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    assert hit.body is not None and hit.body["generationConfig"] == {"maxOutputTokens": 256}


def test_the_key_travels_in_a_header_never_in_the_url(
    server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.gemini_key = "gm-right"
    gemini(server, policy, "gm-right").complete(prompt("hi"))
    assert state.hits[0].headers["x-goog-api-key"] == "gm-right"
    assert "gm-right" not in state.hits[0].path
    with pytest.raises(AuthError) as caught:
        gemini(server, policy, "gm-wrong").complete(prompt("hi"))
    assert "gm-wrong" not in str(caught.value)


def test_rate_limits_are_retried_and_a_dropped_stream_is_incomplete(
    server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.faults.extend(["429"])
    assert gemini(server, policy).complete(prompt("again")).text.startswith("Answer")
    assert [h.status for h in state.hits] == [429, 200]
    state.faults.extend(["429"] * 5)
    with pytest.raises(RateLimited):
        gemini(server, policy).complete(prompt("again"))
    state.faults.clear()
    state.faults.append("drop")
    with pytest.raises(ConnectionLost):
        gemini(server, policy).complete(prompt("a longer question to cut in the middle"))


def test_L7_gemini_overflow_is_measured_and_recovered_through_snapshots(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.limit = 20_000
    conv = seed_conversation(store, 20, chars=1250)
    count, _ = db_state(store, conv)
    provider = gemini(server, policy)
    with pytest.raises(ContextOverflow) as caught:
        provider.complete(store.path(conv))
    assert caught.value.measured is not None and caught.value.maximum == 20_000
    state.hits.clear()
    target = Target(ProviderKind.GEMINI, MODEL, 20_000, output_reserve=1000)
    result = ops.send(store, conv, "what next?", provider, ops.RunOptions(target))
    first, second = state.hits
    assert (first.status, second.status) == (400, 200) and result.retried_after_overflow
    assert "snapshot" in result.plan.rungs
    assert second.body is not None and '"inlineData"' in str(second.body).replace("'", '"')
    assert store.conversation(conv).message_count == count + 2


def test_the_key_comes_from_the_keyring_then_GEMINI_API_KEY(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gm-env")
    key, status = resolve_key("gemini")
    assert key is not None and key.reveal() == "gm-env" and status.source == "environment"
    set_key("gemini", "gm-ring")
    key, status = resolve_key("gemini")
    assert key is not None and key.reveal() == "gm-ring" and status.source == "keyring"


def test_make_provider_and_run_options_agree_on_gemini(
    server: ProviderServer, state: ServerState, policy: HttpPolicy, store: Store,
) -> None:
    provider = make_provider("gemini", model=MODEL, base_url=server.url, api_key=None,
                             max_tokens=300, policy=policy)
    assert provider.kind is ProviderKind.GEMINI and provider.family == "gemini"
    conv = seed_conversation(store, 2)
    target = Target(ProviderKind.GEMINI, MODEL, 100_000, output_reserve=300)
    result = ops.send(store, conv, "short", provider, ops.RunOptions(target))
    assert result.answer.text == "Answer to: short" and result.answer.model == MODEL
    assert store.message(result.answer_id).source_meta["provider"] == "gemini"
