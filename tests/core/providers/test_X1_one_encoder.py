"""SPEC X1: one encoder per provider, so the preview, the export and ``send`` agree on every byte.

Also the request limits the pricing assumes: OpenAI images carry the ``detail`` their cost was
computed for, and no request carries more images than its provider takes.
"""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image
from provider_server import ProviderServer, ServerState

from explorer.compaction.target import MAX_IMAGES, ProviderKind, Target
from explorer.providers import make_provider
from explorer.providers.encoding import encode_request
from explorer.providers.http import HttpPolicy
from explorer.providers.request_export import anthropic_export, openai_export
from explorer.tree.model import Message, Part


def png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("L", (width, height), 200).save(buf, format="PNG")
    return buf.getvalue()


def msg(role: str, *parts: Part) -> Message:
    return Message(id=None, parent_id=None, role=role, parts=list(parts))  # type: ignore[arg-type]


def session(images: int = 1) -> list[Message]:
    shots = [Part("image", data=png(20 + i, 10), media_type="image/png") for i in range(images)]
    return [
        msg("system", Part("text", "be brief")),
        msg("user", Part("text", "look"), *shots),
        msg("assistant", Part("text", "calling"),
            Part("tool_use", '{"path": "a.py"}', tool_name="read", tool_use_id="t1")),
        msg("tool", Part("tool_result", "print(1)", tool_use_id="t1")),
        msg("assistant", Part("text", "done")),
        msg("user", Part("text", "next")),
    ]


@pytest.mark.parametrize("kind", ["anthropic", "openai", "openai-compatible"])
def test_X1_send_posts_exactly_the_encoded_body(
    kind: str, server: ProviderServer, state: ServerState, policy: HttpPolicy,
) -> None:
    target = Target.default(kind, window=100_000, output_reserve=300)
    url = server.url if kind == "anthropic" else server.url + "/v1"
    provider = make_provider(kind, model=target.model, base_url=url, api_key=None,
                             max_tokens=target.output_reserve, policy=policy)
    provider.complete(session(), max_tokens=target.output_reserve)
    (hit,) = state.hits
    assert hit.status == 200
    assert hit.body == encode_request(session(), target)


@pytest.mark.parametrize(("export", "kind", "model"), [
    (anthropic_export, ProviderKind.ANTHROPIC, "claude-sonnet-4-5"),
    (openai_export, ProviderKind.OPENAI, "gpt-4.1"),
])
def test_X1_the_request_exporters_print_the_send_encoder_less_stream_and_cache_marks(
    export: object, kind: ProviderKind, model: str,
) -> None:
    target = Target(kind, model, 200_000)
    exported = export(session(), [], model)  # type: ignore[operator]
    sent = encode_request(session(), target, max_tokens=exported.get("max_tokens")
                          or exported.get("max_completion_tokens"))
    sent.pop("stream")
    sent.pop("stream_options", None)
    if kind is ProviderKind.ANTHROPIC:  # the cache marks only pay off when sent
        sent["system"] = sent["system"][0]["text"]
        for block in (b for m in sent["messages"] for b in m["content"]):
            block.pop("cache_control", None)
    assert exported == sent


def test_openai_images_carry_the_detail_their_cost_assumes() -> None:
    target = Target.default("openai")
    assert target.images.detail == "high"
    body = encode_request(session(), target)
    (image,) = [p for m in body["messages"] if isinstance(m["content"], list)
                for p in m["content"] if p["type"] == "image_url"]
    assert image["image_url"]["detail"] == "high"
    assert image["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize("kind", ["anthropic", "openai", "gemini"])
def test_no_request_carries_more_images_than_the_provider_takes(kind: str) -> None:
    limit = MAX_IMAGES[kind]
    notes: list[str] = []
    body = encode_request(session(images=limit + 3), Target.default(kind), notes=notes)
    text = json.dumps(body)
    assert text.count("image/png") == limit
    assert text.count("over the provider's limit") == 3
    assert any(f"at most {limit} per request" in n for n in notes)
    # the newest images are the ones kept: the last one drawn is still in the body
    assert base64.b64encode(png(20 + limit + 2, 10)).decode() in text
    assert base64.b64encode(png(20, 10)).decode() not in text


def test_gemini_body_is_in_gemini_shape_and_names_no_model() -> None:
    body = encode_request(session(), Target.default("gemini", output_reserve=512))
    assert "model" not in body and "messages" not in body
    assert body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert body["generationConfig"] == {"maxOutputTokens": 512}
    roles = [c["role"] for c in body["contents"]]
    assert roles == ["user", "model", "user", "model", "user"]
    assert body["contents"][0]["parts"][1]["inlineData"]["mimeType"] == "image/png"
    call = body["contents"][1]["parts"][1]["functionCall"]
    assert call == {"name": "read", "args": {"path": "a.py"}}
    answer = body["contents"][2]["parts"][0]["functionResponse"]
    assert answer == {"name": "read", "response": {"content": "print(1)"}}


def test_gemini_3_images_carry_the_media_resolution_their_flat_price_assumes() -> None:
    target = Target.default("gemini", model="gemini-3-pro-preview", output_reserve=512)
    assert target.images.detail == "high" and target.images.tokens(20, 10) == 1120
    body = encode_request(session(), target)
    assert body["generationConfig"] == {"maxOutputTokens": 512,
                                        "mediaResolution": "MEDIA_RESOLUTION_HIGH"}
    text_only = [m for m in session() if not any(p.kind == "image" for p in m.parts)]
    assert "mediaResolution" not in encode_request(text_only, target)["generationConfig"]
    older = encode_request(session(), Target.default("gemini", output_reserve=512))
    assert "mediaResolution" not in older["generationConfig"]  # tiles: priced at the default
