"""Reactive overflow (L6, L7): recognise the rejection, learn the measured count, climb, retry once.

The fake server counts text at 2 characters per token, about twice what the heuristic
estimator assumes, so a request that looks well inside the window is rejected as too long.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
from typing import Any

import pytest
from PIL import Image
from provider_seed import db_state, run_options, seed_conversation
from provider_server import ProviderServer, ServerState
from test_stream_faults_P2 import endpoint, make

from explorer.app.calls import conversation_ops as ops
from explorer.compaction.estimate import Estimator
from explorer.compaction.summary import SUMMARY_SYSTEM
from explorer.providers import AnthropicProvider, ContextOverflow
from explorer.providers.http import HttpPolicy
from explorer.providers.summarizer import ProviderSummarizer
from explorer.store import Store
from explorer.tree.model import Message, Part

WINDOW = 20_000


def _options(kind: str = "anthropic", **kw: Any) -> ops.RunOptions:
    return run_options(kind, WINDOW, 1000, **kw)


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_L7_overflow_recovers_through_snapshots_without_a_summarizer(
    kind: str, store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    state.limit = WINDOW
    conv = seed_conversation(store, 20, chars=1250)
    count, _ = db_state(store, conv)
    estimator = Estimator(family="anthropic") if kind == "anthropic" else None
    opts = _options(kind, estimator=estimator) if estimator else _options(kind)
    result = ops.send(store, conv, "what next?", make(kind, server, policy), opts)

    first, second = state.hits_to(endpoint(kind))
    assert first.status == 400 and first.measured is not None and first.measured > WINDOW
    assert second.status == 200 and second.measured is not None and second.measured <= WINDOW
    assert result.retried_after_overflow
    assert "snapshot" in result.plan.rungs and "summary" not in result.plan.rungs
    sent = json_text(second.body)
    assert ("image_url" in sent) if kind == "openai" else ('"type": "image"' in sent)
    stored = store.message(result.answer_id)
    assert stored.source_meta["context"]["trigger"] == "rejection"
    (record,) = store.compactions(conv)
    assert record["message_id"] == result.answer_id and record["kind"] == "snapshot"
    assert [p["sha256"] for p in record["outputs"]["pages"]] == [
        hashlib.sha256(p.png).hexdigest() for p in result.plan.pages]
    assert [p["sha256"] for p in record["outputs"]["pages"]] == sent_image_hashes(second.body)
    assert store.conversation(conv).message_count == count + 2
    if estimator is not None:
        assert estimator.factor > 1.4  # it learned from the measured count


def sent_image_hashes(body: dict[str, object] | None) -> list[str]:
    """Hashes of the images in a request, in order, in either API's shape."""
    out: list[str] = []
    for message in (body or {}).get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "image":
                data = block["source"]["data"]
            elif block.get("type") == "image_url":
                data = block["image_url"]["url"].split(",", 1)[1]
            else:
                continue
            out.append(hashlib.sha256(base64.b64decode(data)).hexdigest())
    return out


def json_text(body: object) -> str:
    return json.dumps(body)


def test_L6_L7_summary_rung_sends_a_request_that_fits(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    state.limit = WINDOW
    conv = seed_conversation(store, 20, chars=1250)
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 1000, policy)
    said: list[str] = []
    summarizer = ProviderSummarizer(provider, say=said.append)
    result = ops.send(store, conv, "what next?", provider,
                      _options(vision=False, summarizer=summarizer))
    assert len(said) == 1 and said[0].startswith("the compaction's summary call")

    overflowed, summary_call, final = state.hits_to("/v1/messages")
    assert overflowed.status == 400
    assert summary_call.body is not None
    assert summary_call.body["system"][0]["text"] == SUMMARY_SYSTEM
    assert summary_call.status == 200  # the summary request itself fit
    assert summary_call.measured is not None and summary_call.measured <= WINDOW
    assert summary_call.body["messages"] != overflowed.body["messages"]
    assert final.status == 200 and "SUMMARY: the task" in json_text(final.body)
    assert result.plan.rungs[-1] == "summary"
    assert store.compactions(conv)[0]["summary"] == result.plan.summary
    assert len(summarizer.sent) == 1


def test_L6_summary_without_network_then_retry_happens_once_and_stores_nothing(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    state.limit = WINDOW
    conv = seed_conversation(store, 20, chars=1250)
    before = db_state(store, conv)
    offline = AnthropicProvider("claude-sonnet-4-5", None, "http://127.0.0.1:9", 1000,
                                HttpPolicy(max_attempts=1, connect_timeout=2))
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 1000, policy)
    with pytest.raises(ContextOverflow):
        ops.send(store, conv, "what next?", provider,
                 _options(vision=False, summarizer=ProviderSummarizer(offline)))
    assert [h.status for h in state.hits_to("/v1/messages")] == [400, 400]  # retried once only
    assert db_state(store, conv) == before


def test_L7_request_too_large_413_recovers_by_imaging_the_middle(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    noise = random.Random(3).randbytes(300 * 300 * 3)
    buf = io.BytesIO()
    Image.frombytes("RGB", (300, 300), noise).save(buf, format="PNG")
    conv = store.create_conversation("with a photo")
    store.append_turn(conv, [
        Message(id=None, parent_id=None, role="user",
                parts=[Part("text", "a photo"), Part("image", data=buf.getvalue(),
                                                     media_type="image/png")]),
        Message(id=None, parent_id=None, role="assistant", parts=[Part("text", "nice")]),
    ])
    for t in range(5):
        store.append_turn(conv, [
            Message(id=None, parent_id=None, role="user", parts=[Part("text", f"q{t}")]),
            Message(id=None, parent_id=None, role="assistant", parts=[Part("text", f"a{t}")]),
        ])
    state.max_body_bytes = len(buf.getvalue())  # base64 makes the photo alone too large
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 1000, policy)
    result = ops.send(store, conv, "and now?", provider, _options())
    first, second = state.hits_to("/v1/messages")
    assert first.status == 413 and second.status == 200
    assert result.retried_after_overflow
    assert "images" in result.plan.rungs


def test_L7_openai_compatible_overflow_recovers_too(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    state.limit = WINDOW
    conv = seed_conversation(store, 20, chars=1250)
    result = ops.send(store, conv, "go on", make("openai-compatible", server, policy),
                      _options("openai-compatible"))
    assert [h.status for h in state.hits] == [400, 200]
    assert result.retried_after_overflow and "snapshot" in result.plan.rungs


def test_L7_under_the_threshold_nothing_is_compacted(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    conv = seed_conversation(store, 2)
    result = ops.send(store, conv, "short", make("anthropic", server, policy), _options())
    assert result.plan.rungs == () and not result.retried_after_overflow
    assert "context" not in store.message(result.answer_id).source_meta
    assert store.compactions(conv) == []
    assert len(state.hits) == 1
