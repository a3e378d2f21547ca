"""SPEC X1: what the preview writes is byte for byte what ``send`` posts next, per provider × tier.

The preview (``convo compact --preview``) and the send (``convo send``) run as a person runs
them, with the same target flags; a loopback server records every POSTed body. The page PNGs
the preview wrote must be the images the request carried, byte for byte, and the body must be
the preview's ``request.json`` with the new prompt appended. The same after Apply.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.compaction.page_geometry import TIERS
from explorer.store import Store

KINDS = ("anthropic", "openai", "openai-compatible", "gemini")
PROMPT = "what is the next step?"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test")


def base_url(kind: str, server: ProviderServer) -> str:
    return server.url if kind in ("anthropic", "gemini") else server.url + "/v1"


def turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation of a body in any provider's shape."""
    return list(body["contents"] if "contents" in body else body["messages"])


def images(body: dict[str, Any]) -> list[bytes]:
    """Every image the body carries, in order, in either API's shape."""
    out: list[bytes] = []
    for message in turns(body):
        content = message.get("content", message.get("parts"))
        for block in content if isinstance(content, list) else []:
            if "inlineData" in block:
                out.append(base64.b64decode(block["inlineData"]["data"]))
            if block.get("type") == "image":
                out.append(base64.b64decode(block["source"]["data"]))
            elif block.get("type") == "image_url":
                out.append(base64.b64decode(block["image_url"]["url"].split(",", 1)[1]))
    return out


def preview(monkeypatch: pytest.MonkeyPatch, db: Path, conv: int, folder: Path,
            target: list[str], *extra: str) -> tuple[dict[str, Any], list[bytes]]:
    code = run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), *target, *extra,
                                 "--preview", str(folder)])
    assert code == 0
    body = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    return body, [p.read_bytes() for p in sorted(folder.glob("page-*.png"))]


def send(monkeypatch: pytest.MonkeyPatch, db: Path, conv: int, kind: str,
         server: ProviderServer, target: list[str]) -> None:
    code = run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text", PROMPT, *target,
                                 "--base-url", base_url(kind, server), "--no-summary", "--json"])
    assert code == 0


def assert_sent_is_preview(sent: dict[str, Any], shown: dict[str, Any], kind: str) -> None:
    """The POSTed body is the preview's body with the new prompt appended, and nothing else."""
    *context, prompt = turns(sent)
    assert context == turns(shown)
    text = (prompt["parts"][0]["text"] if kind == "gemini" else prompt["content"]
            if kind != "anthropic" else prompt["content"][0]["text"])
    assert (prompt["role"], text) == ("user", PROMPT)
    conversation = ("messages", "contents")
    assert {k: v for k, v in sent.items() if k not in conversation} == {
        k: v for k, v in shown.items() if k not in conversation}


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("kind", KINDS)
def test_X1_send_posts_the_pages_and_body_the_preview_wrote(
    kind: str, tier: str, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 60, chars=1250)
    target = ["--provider", kind, "--window", "40000", "--max-tokens", "1000", "--tier", tier]
    shown, pngs = preview(monkeypatch, db, conv, tmp_path / "p", target)
    assert len(pngs) >= 1  # the ladder imaged the middle
    send(monkeypatch, db, conv, kind, server, target)
    (hit,) = state.hits
    assert hit.status == 200 and hit.body is not None
    assert images(hit.body) == pngs  # byte for byte, in order
    assert_sent_is_preview(hit.body, shown, kind)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("kind", KINDS)
def test_X1_a_compaction_applied_from_the_preview_is_what_the_next_send_carries(
    kind: str, tier: str, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 12, chars=1250)  # fits: the ladder alone would not compact
    target = ["--provider", kind, "--window", "200000", "--max-tokens", "1000", "--tier", tier]
    unforced, none = preview(monkeypatch, db, conv, tmp_path / "auto", target)
    assert none == []
    shown, pngs = preview(monkeypatch, db, conv, tmp_path / "p", target, "--rung", "snapshot")
    assert len(pngs) >= 1
    assert run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), *target,
                                 "--rung", "snapshot"]) == 0  # Apply
    send(monkeypatch, db, conv, kind, server, target)
    (hit,) = state.hits
    assert hit.status == 200 and hit.body is not None
    assert images(hit.body) == pngs
    assert_sent_is_preview(hit.body, shown, kind)
    assert turns(hit.body)[:-1] != turns(unforced)


def test_X1_an_applied_compaction_for_another_target_is_not_carried(
    tmp_path: Path, server: ProviderServer, state: ServerState, monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 12, chars=1250)
    target = ["--provider", "anthropic", "--window", "200000", "--max-tokens", "1000"]
    assert run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), *target, "--tier",
                                 "legible", "--rung", "snapshot"]) == 0
    send(monkeypatch, db, conv, "anthropic", server, [*target, "--tier", "dense"])
    (hit,) = state.hits
    assert hit.body is not None and images(hit.body) == []
