"""A tool call and its result kept in one message (Open WebUI's executed tools,
claude.ai's tool blocks) export as call, result and the rest: the real output
stays a tool result and no call is reported as interrupted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from request_rules import anthropic_violations, openai_violations

from explorer.app.sharing.exporting import EXPORTERS
from explorer.formats import claude_ai, openwebui
from explorer.formats.base import ImportedConversation
from explorer.formats.exporters.steps import INTERRUPTED

FORMATS = Path(__file__).resolve().parents[1]
CASES = {
    "openwebui": (openwebui, FORMATS / "openwebui" / "fixtures" / "details.json", "m2",
                  "call_7", "Paris: 18C, rain"),
    "claude_ai": (claude_ai, FORMATS / "claude_ai" / "fixtures" / "inline_tools.json", "a1",
                  "toolu_oslo", "Oslo: -3C, clear skies"),
}


def _conv(case: str) -> ImportedConversation:
    module, path, *_ = CASES[case]
    return next(iter(module.read(path)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_importers_keep_call_and_result_in_one_message(case: str) -> None:
    _, _, key, call, _output = CASES[case]
    m = {m.id: m for m in _conv(case).messages}[key]
    kinds = [(p.kind, p.tool_use_id) for p in m.parts if p.tool_use_id == call]
    assert kinds == [("tool_use", call), ("tool_result", call)]


@pytest.mark.parametrize("exporter", ["anthropic", "openai", "claude-code", "pi"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_inline_tool_result_exports_as_a_result_not_an_interrupted_call(
    case: str, exporter: str
) -> None:
    _, _, key, _call, output = CASES[case]
    conv = _conv(case)
    notes: list[str] = []
    text = "\n".join(EXPORTERS[exporter].lines({"title": conv.title}, conv.messages, key,
                                               notes))
    assert INTERRUPTED not in text
    assert "[tool result for call" not in text
    assert output in text
    assert not [n for n in notes if "interrupted" in n or "answers no call" in n], notes
    assert any(f"message {key}: holds tool calls and their results" in n for n in notes)


@pytest.mark.parametrize("case", sorted(CASES))
def test_inline_tool_result_request_bodies_follow_the_provider_rules(case: str) -> None:
    _, _, key, call, output = CASES[case]
    conv = _conv(case)
    anthropic = json.loads("\n".join(EXPORTERS["anthropic"].lines({}, conv.messages, key)))
    assert anthropic_violations(anthropic) == []
    results = [b for m in anthropic["messages"] if isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results if r["tool_use_id"] == call] == [call]
    assert results[0].get("is_error") is not True
    openai = json.loads("\n".join(EXPORTERS["openai"].lines({}, conv.messages, key)))
    assert openai_violations(openai) == []
    tools = [m for m in openai["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tools if m["tool_call_id"] == call] == [output]
