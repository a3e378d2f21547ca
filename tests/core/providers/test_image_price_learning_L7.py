"""The price of a page learned from the provider's usage (L5, L7): every answer records what
its request carried, and when pages are a large share of it, the per-image price the
provider's count implies; the next preview and send prefer that price to the rule, and the
preview says so. The loopback server bills Claude pages by the documented area rule
(w·h/750, 1,523 tokens a 1568×728 page) while the program assumes 28 px patches (1,456)."""

from __future__ import annotations

from provider_seed import run_options, seed_conversation
from provider_server import ProviderServer, ServerState
from test_stream_faults_P2 import make

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting
from explorer.compaction import image_cost
from explorer.compaction.estimate import IMAGE_PRICE_KEY, REQUEST_KEY
from explorer.providers.http import HttpPolicy
from explorer.store import Store
from explorer.tree.model import Message

PAGE = (1568, 728)


def grow(store: Store, conv: int, turns: int) -> None:
    tip = store.conversation(conv).tip_id
    more = seed_conversation(store, turns, chars=2400, title="more")
    for m in store.path(more, store.conversation(more).tip_id):
        tip = store.append_turn(conv, [Message(id=None, parent_id=tip, role=m.role,
                                               parts=m.parts)], parent_id=tip)[-1]


def test_L7_the_page_price_is_learned_from_usage_and_preferred_in_the_preview(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.anthropic_image_rule = image_cost.anthropic_documented_tokens
    state.chars_per_token = 4.0
    conv = seed_conversation(store, 4, chars=2400)
    opts = run_options("anthropic", 30_000, 1000)
    target = opts.target
    for question in ("a first question", "a second one"):  # text only: the text factor
        ops.send(store, conv, question, make("anthropic", server, policy), opts)
    grow(store, conv, 36)  # the conversation moves on: the next requests carry pages
    before = compacting.plan(store, conv, target)
    assert before.pages and not before.estimator.image_measured
    assert before.estimator.image_price(*PAGE) == 1456  # the rule: 28 px patches
    ops.send(store, conv, "a third", make("anthropic", server, policy), opts)
    ops.send(store, conv, "and a fourth", make("anthropic", server, policy), opts)
    answers = [m for m in compacting.active_context(store, conv) if m.role == "assistant"]
    recorded = answers[-1].source_meta
    assert recorded[REQUEST_KEY]["images"] >= 1  # the request carried pages
    price = recorded[IMAGE_PRICE_KEY]
    assert price["key"] == target.images.key and price["measured_prompt"] == state.hits[-1].measured
    plan = compacting.plan(store, conv, target)
    assert plan.estimator.image_measured
    learned = plan.estimator.image_price(*PAGE)
    assert abs(learned - 1523) < abs(1456 - 1523)  # closer to what the provider billed
    [line] = compacting.price_lines(plan, target)
    assert "measured by the provider's usage" in line and f"{learned:,} tokens" in line
    assert "says 1,456" in line  # and what the rule would have said


def test_an_answer_without_pages_says_nothing_about_their_price(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    conv = seed_conversation(store, 3, chars=300)
    ops.send(store, conv, "short", make("anthropic", server, policy),
             run_options("anthropic", 100_000, 256))
    answer = compacting.active_context(store, conv)[-1]
    assert answer.source_meta[REQUEST_KEY]["images"] == 0
    assert IMAGE_PRICE_KEY not in answer.source_meta
