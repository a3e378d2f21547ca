"""``context_at``: what the model saw at a message, part by part with token counts.

It is ``convo context --at``'s request (``explorer.app.context.at``), built by the one
pipeline sends use, for the provider the settings name unless the caller picks another;
the target's redactor is the one sends and exports use, off only with ``--no-redact``.
Each part's text is cut to a size the caller chooses; the counts are always whole.
"""

from __future__ import annotations

from typing import Any

from explorer.app.archive.arguments import Param
from explorer.app.archive.bounds import Budget, cut_text
from explorer.app.archive.session import Archive
from explorer.app.context.at import context_at as context_at_node
from explorer.app.targets import build_target
from explorer.compaction.target import PROVIDER_KINDS
from explorer.store import StoreError

PARAMS = [
    Param("message", "integer", "the message (an answer: the request that produced it)",
          required=True, minimum=1),
    Param("provider", "string", "whose request to build (default: the settings' provider)",
          choices=tuple(PROVIDER_KINDS)),
    Param("model", "string", "the model (prices images; default: the settings')",
          max_length=200),
    Param("window", "integer", "the context window in tokens (default: the model's)",
          minimum=1_000, maximum=10_000_000),
    Param("max_part_chars", "integer", "characters of each part's text kept", default=300,
          minimum=0, maximum=20_000),
]


def context_at(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    mid = args["message"]
    conv = store.message_conversation(mid)
    try:
        target = build_target(args["provider"], model=args["model"], window=args["window"],
                              redact=archive.redact)
    except ValueError as e:  # the settings or the choices name no usable target
        raise StoreError(str(e)) from e
    data = context_at_node(store, conv, mid, target).to_dict()  # refusals: one line each
    chars = args["max_part_chars"]
    budget = Budget(args["max_chars"])
    head = {"conversation": conv, "message": mid,
            "target": {k: data["target"][k] for k in ("provider", "model", "window",
                                                      "output_reserve", "tier", "vision")},
            "rungs": data["rungs"], "tokens": data["tokens"],
            "system": [cut_text(t, chars) for t in data["system"]],
            "notes": data["notes"][:20]}
    budget.fits(head)
    parts = budget.take((_part(p, chars) for p in data["parts"]),
                        f"parts past these did not fit in max_chars ({len(data['parts']):,} "
                        "parts in all; the token counts above count every one)")
    compactions = budget.take(({**r, "summary": cut_text(r["summary"] or "", chars) or None}
                               for r in data["compactions"]),
                              "not every compaction record fitted in max_chars")
    return budget.finish({**head, "part_count": len(data["parts"]), "parts": parts,
                          "compactions": compactions})


def _part(p: dict[str, Any], chars: int) -> dict[str, Any]:
    out = dict(p)
    if "text" in out:
        out["chars"] = len(out["text"])
        out["text"] = cut_text(out["text"], chars)
    return out
