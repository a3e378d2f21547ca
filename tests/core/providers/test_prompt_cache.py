"""The prompt cache: Anthropic breakpoints at stable prefixes, what the cache read is recorded,
and the preview's expected cached part. The loopback server caches like Anthropic does: a
marked prefix seen before is read, a new one is written."""

from __future__ import annotations

from provider_seed import run_options, seed_conversation
from provider_server import ProviderServer, ServerState
from test_stream_faults_P2 import make

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting, prompt_cache
from explorer.compaction import planner
from explorer.compaction.target import Target
from explorer.providers.encoding import encode_request
from explorer.providers.http import HttpPolicy
from explorer.store import Store
from explorer.tree.model import Message, Part


def marked(body: dict[str, object]) -> list[str]:
    """The text (or kind) of every block carrying a cache breakpoint, in order."""
    out: list[str] = []
    system = body.get("system")
    if isinstance(system, list):
        out += [b["text"][:12] for b in system if "cache_control" in b]
    for m in body["messages"]:  # type: ignore[attr-defined]
        for b in m["content"] if isinstance(m["content"], list) else []:
            if "cache_control" in b:
                out.append(b.get("text", b["type"])[:12])
    return out


def with_system(store: Store, turns: int, chars: int) -> int:
    conv = store.create_conversation("cached")
    store.append_turn(conv, [Message(id=None, parent_id=None, role="system",
                                     parts=[Part("text", "SYSTEM: " + "rules " * 300)])])
    for t in range(turns):
        store.append_turn(conv, [
            Message(id=None, parent_id=None, role="user",
                    parts=[Part("text", f"question {t}: " + "words " * (chars // 6))]),
            Message(id=None, parent_id=None, role="assistant",
                    parts=[Part("text", f"answer {t}: " + "reply " * (chars // 6))]),
        ])
    return conv


def test_breakpoints_mark_system_head_last_turn_and_prompt(tmp_path: object) -> None:
    path = [Message(id=0, parent_id=None, role="system", parts=[Part("text", "SYSTEM rules")])]
    for t in range(30):
        path.append(Message(id=2 * t + 1, parent_id=None, role="user",
                            parts=[Part("text", f"question {t} " + "words " * 200)]))
        path.append(Message(id=2 * t + 2, parent_id=None, role="assistant",
                            parts=[Part("text", f"answer {t} " + "reply " * 200)]))
    target = Target.default("anthropic", window=20_000, output_reserve=1000)
    plan = planner.build_plan(path, target, rung="snapshot")
    assert plan.pages
    prompt = [Message(id="p", parent_id=None, role="user", parts=[Part("text", "next?")])]
    preview = encode_request(plan.messages(), target)
    sent = encode_request(plan.messages() + prompt, target, prompt_start=len(plan.messages()))
    head_end = plan.split.head[-1].text[:12] if plan.split else ""
    tail_end = plan.messages()[-1].text[:12]
    assert marked(preview) == ["SYSTEM rules", head_end, tail_end]
    assert marked(sent) == ["SYSTEM rules", head_end, tail_end, "next?"]
    assert sent["messages"][:-1] == preview["messages"]  # X1 holds with the marks


def test_the_next_turn_and_a_regenerate_read_the_prefix_from_the_cache(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.prompt_cache = {}
    conv = seed_conversation(store, 6, chars=1200)
    opts = run_options("anthropic", 100_000, 256)
    first = ops.send(store, conv, "first question", make("anthropic", server, policy), opts)
    second = ops.send(store, conv, "second question", make("anthropic", server, policy), opts)
    assert state.hits[0].cache_read == 0 and state.hits[0].cache_write > 0
    assert state.hits[1].cache_read >= state.hits[0].cache_write  # all it wrote, read back
    usage = store.message(second.answer_id).usage
    assert usage is not None and usage.cache_read_tokens == state.hits[1].cache_read
    written = store.message(first.answer_id).source_meta[prompt_cache.META_KEY]
    # two prefixes written: up to the context's end and up to the prompt
    assert [set(w) for w in written] == [{"key", "messages", "tokens"}] * 2
    ops.regenerate(store, conv, second.answer_id, make("anthropic", server, policy), opts)
    regen = state.hits[2]
    assert regen.measured is not None and regen.cache_write == 0
    assert regen.cache_read == regen.measured  # the whole request was cached by the last one


def test_a_new_compaction_still_reads_the_system_text_and_the_head(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.prompt_cache = {}
    conv = with_system(store, 24, chars=1500)
    opts = run_options("anthropic", 30_000, 1000)
    ops.send(store, conv, "go on", make("anthropic", server, policy), opts)
    for t in range(6):  # the conversation moves on: the next compaction images more of it
        store.append_turn(conv, [
            Message(id=None, parent_id=None, role="user", parts=[Part("text", f"more {t} " * 200)]),
            Message(id=None, parent_id=None, role="assistant", parts=[Part("text", "ok " * 300)]),
        ])
    ops.send(store, conv, "and now?", make("anthropic", server, policy), opts)
    one, two = state.hits
    assert one.body is not None and two.body is not None
    assert "snapshot" in str(store.compactions(conv)[-1]["kind"])
    pages = [b for m in two.body["messages"] for b in m["content"] if b["type"] == "image"]
    assert pages and two.body["messages"] != one.body["messages"]
    head_one = one.body["messages"][0]
    assert two.body["messages"][0] == head_one  # the head is byte for byte the same
    assert two.cache_read > 0  # the system text and the head came from the cache


def test_the_preview_expects_what_the_last_answer_cached(
    store: Store, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    state.prompt_cache = {}
    conv = seed_conversation(store, 6, chars=1200)
    target = run_options("anthropic", 100_000, 256).target
    ops.send(store, conv, "first question", make("anthropic", server, policy),
             ops.RunOptions(target))
    plan = compacting.plan(store, conv, target)
    outlook = prompt_cache.outlook(plan, target)
    assert outlook is not None
    before_answer = plan.estimator.estimate(plan.messages()[:-1])
    assert outlook.read == before_answer  # all up to the prompt the last request marked
    assert outlook.cost_in_input_tokens < plan.estimator.estimate(plan.messages())
    assert "expected from the cache" in compacting.cache_lines(plan, target)[0]
