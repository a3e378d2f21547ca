"""A sent turn is written with its parts' sizes, and the context figure summed from them
equals the one estimated from the texts, the answers' recorded requests included (V2)."""

from __future__ import annotations

from provider_seed import run_options, seed_conversation
from provider_server import ProviderServer
from test_stream_faults_P2 import make

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting
from explorer.app.context.figure import ContextFigure
from explorer.app.targets import build_target
from explorer.compaction import planner
from explorer.compaction.estimate import REQUEST_KEY
from explorer.providers.http import HttpPolicy
from explorer.store import Store
from explorer.tree.model import Part
from explorer.tree.part_sizes import SIZE_COLUMNS, part_size


def test_V2_after_a_send_the_figure_from_stored_sizes_equals_the_one_from_texts(
    store: Store, server: ProviderServer, policy: HttpPolicy,
) -> None:
    conv = seed_conversation(store, 4, chars=2400)
    opts = run_options("anthropic", 30_000, 1000)
    figure = ContextFigure(store)
    figure.usage(conv, opts.target)
    for question in ("a first question", "and a password = 'hunter2hunter2' for it"):
        ops.send(store, conv, question, make("anthropic", server, policy), opts)
    answer = compacting.active_context(store, conv)[-1]
    assert REQUEST_KEY in answer.source_meta  # the answer records what it was sent
    for target in (opts.target, build_target("openai", model="gpt-4o")):
        got = figure.usage(conv, target).to_dict()
        assert got == planner.usage(compacting.active_context(store, conv), target).to_dict()
    assert figure.read_texts == 0
    for kind, text, *stored in store.reader.execute(
            f"SELECT kind, text, {', '.join(SIZE_COLUMNS)} FROM parts WHERE kind != 'image'"):
        assert tuple(stored) == part_size(Part(kind, text or ""))
