"""``convo mcp`` driven by the official SDK's own client over stdio, as an agent drives it
(A1): initialize, list the tools, call each on the demo and on a real Claude Code session;
refusals come back as tool errors of one line; a planted key never comes back; writes only
with ``--allow-writes``; and the server reads while ``convo`` writes beside it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent
from planted import KEY, Planted, build, leaked

from explorer.app.importing import run as importing
from explorer.store import Store
from tests.corpus import claude_code_sessions as cc

REPO = Path(__file__).resolve().parents[3]
READ_TOOLS = ["list_conversations", "search", "get_branch", "list_branches", "compare",
              "context_at", "checkpoints"]
ASKED = "three things at once"  # from a prompt of the recorded Claude Code session


def serve(db: Path, *flags: str,
          talk: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Start ``convo --db DB mcp FLAGS`` and run ``talk`` with an initialized session."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "explorer.cli.main", "--db", str(db), "mcp",
                                      *flags],
        env=dict(os.environ), cwd=str(REPO))

    async def run() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            init = await s.initialize()
            assert init.serverInfo.name == "convo" and init.capabilities.tools is not None
            return await talk(s)

    return asyncio.run(run())


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


async def answer(s: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await s.call_tool(tool, args)
    assert not result.isError, text_of(result)
    data = result.structuredContent
    assert isinstance(data, dict) and "cut" in data
    head = text_of(result).split("\n\n", 1)[0]
    assert json.loads(head) == {k: v for k, v in data.items() if k != "text"}
    return data


async def refused(s: ClientSession, tool: str, **args: Any) -> str:
    result = await s.call_tool(tool, args)
    line = text_of(result)
    assert result.isError and line and "\n" not in line, line
    return line


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Planted]:
    path = tmp_path_factory.mktemp("stdio") / "archive.db"
    return path, build(path)


def test_A1_an_agent_lists_the_tools_and_reads_the_demo(db: tuple[Path, Planted]) -> None:
    path, planted = db

    async def talk(s: ClientSession) -> None:
        tools = (await s.list_tools()).tools
        assert [t.name for t in tools] == READ_TOOLS
        for t in tools:
            assert t.inputSchema["type"] == "object" and t.description
            assert t.inputSchema["additionalProperties"] is False
            assert t.annotations is not None and t.annotations.readOnlyHint is True
        by_name = {t.name: t.inputSchema for t in tools}
        assert by_name["search"]["required"] == ["query"]
        assert by_name["get_branch"]["properties"]["max_tool_chars"]["maximum"] == 20_000
        listed = await answer(s, "list_conversations")
        assert {c["id"] for c in listed["conversations"]} >= {planted.demo,
                                                              planted.conversation}
        hit = (await answer(s, "search", query="cp1252 fallback", limit=1))["results"][0]
        assert hit["conversation"] == planted.demo and hit["rank"] == 1
        branch = await answer(s, "get_branch", message=hit["message"])
        assert "cp1252" in branch["text"] and branch["message"] == hit["message"]
        points = (await answer(s, "list_branches", conversation=planted.demo))["points"]
        sibs = points[0]["siblings"]
        diff = await answer(s, "compare", message_a=sibs[0]["message"],
                            message_b=sibs[1]["message"])
        assert diff["summary"] and diff["turns"]
        context = await answer(s, "context_at", message=hit["message"])
        assert context["tokens"]["total"] > 0
        marks = await answer(s, "checkpoints", conversation=planted.demo)
        assert {c["label"] for c in marks["checkpoints"]} == {"diagnosed", "fixed"}
        assert await refused(s, "get_branch", message=99_999) == "no message 99999"
        assert "no conversation 77" in await refused(s, "list_branches", conversation=77)
        assert "whole number" in await refused(s, "checkpoints", conversation="one")
        assert "at most 500" in await refused(s, "search", query="x" * 200_000)
        assert "takes no argument" in await refused(s, "search", query="x", where="1=1")
        assert "--allow-writes" in await refused(s, "label", message=2, name="mine")
        assert "no tool 'rm'" in await refused(s, "rm")
        small = await answer(s, "get_branch", message=planted.answer, max_chars=1000)
        assert len(json.dumps(small, ensure_ascii=False)) <= 1000

    serve(path, talk=talk)


def test_A1_a_planted_key_never_comes_back_over_stdio(db: tuple[Path, Planted]) -> None:
    path, p = db

    async def everything(s: ClientSession) -> str:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list_conversations", {}), ("search", {"query": "key"}),
            ("search", {"query": "rollout"}), ("list_branches", {"conversation": p.conversation}),
            ("compare", {"message_a": p.answer, "message_b": p.other_answer}),
            ("context_at", {"message": p.answer, "max_part_chars": 20_000}),
            ("checkpoints", {"conversation": p.conversation}),
            ("search", {"query": KEY}), ("get_branch", {"message": KEY})]
        calls += [("get_branch", {"message": p.answer, "max_tool_chars": n, "thinking": True})
                  for n in (0, 290, 300, 20_000)]
        out = []
        for tool, args in calls:
            result = await s.call_tool(tool, args)
            out += [text_of(result), json.dumps(result.structuredContent)]
        return "\n".join(out)

    redacted = serve(path, talk=everything)
    assert leaked(redacted) == [] and "[redacted: anthropic-key]" in redacted
    assert KEY in serve(path, "--no-redact", talk=everything)


def test_A1_writes_only_with_allow_writes_and_beside_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    p = build(path)

    async def talk(s: ClientSession) -> None:
        names = [t.name for t in (await s.list_tools()).tools]
        assert names == [*READ_TOOLS, "label", "note", "checkpoint"]
        done = await answer(s, "label", message=p.other_answer, name="second try")
        assert "second try" in done["done"]
        assert "already has the label" in await refused(s, "label", message=p.other_answer,
                                                        name="third")
        assert "never removes" in await refused(s, "note", message=p.answer, text="")

    serve(path, "--allow-writes", talk=talk)
    with Store(path) as store:
        assert store.marks(p.conversation).labels[p.other_answer] == "second try"

    async def beside_a_writer(s: ClientSession) -> None:
        before = await answer(s, "list_branches", conversation=p.conversation)
        names = [sib["name"] for pt in before["points"] for sib in pt["siblings"]]
        assert "shipped" not in names
        wrote = subprocess.run(  # convo writes while the server is reading the same file
            [sys.executable, "-m", "explorer.cli.main", "--db", str(path), "label",
             str(p.answer), "shipped"], capture_output=True, text=True, timeout=60)
        assert wrote.returncode == 0, wrote.stderr
        after = await answer(s, "list_branches", conversation=p.conversation)
        assert "shipped" in [sib["name"] for pt in after["points"] for sib in pt["siblings"]]

    serve(path, talk=beside_a_writer)


def test_A1_an_agent_reads_a_real_claude_code_session(tmp_path: Path) -> None:
    """The recorded session with its fork's prompt written in, as a rewind writes it: one
    answer with two prompts below it."""
    session = cc.fork_in_one_file(tmp_path / "projects")
    assert sum(ASKED in p for p in cc.MANIFEST["prompts"]) == 1
    path = tmp_path / "real.db"
    with Store(path) as store:
        report = importing.import_paths(store, [session])
        conv = report.conversations[0].conversation_id
        tip = store.conversation(conv).tip_id

    async def talk(s: ClientSession) -> None:
        listed = await answer(s, "list_conversations", source="claude-code")
        assert [c["id"] for c in listed["conversations"]] == [conv]
        assert listed["conversations"][0]["project"]
        whole = await answer(s, "get_branch", message=tip)
        assert not whole["cut"] and len(whole["text"]) > 3000
        tail = await answer(s, "get_branch", message=tip, max_chars=1500)
        assert tail["to_turn"] == tail["turns"] > 1 and tail["cut"]
        assert len(json.dumps(tail, ensure_ascii=False)) <= 1500
        head = await answer(s, "get_branch", message=tip, start_turn=1, max_tool_chars=40)
        assert head["from_turn"] == 1 and "→ Bash" in head["text"]
        assert "… [" in head["text"]  # tool output past 40 characters is elided
        hits = (await answer(s, "search", query=ASKED, conversation=conv))["results"]
        assert hits and all(h["conversation"] == conv for h in hits)
        assert any(ASKED in h["snippet"] for h in hits)
        points = await answer(s, "list_branches", conversation=conv)
        assert points["branch_points"] >= 1
        sibs = points["points"][0]["siblings"]
        assert len(sibs) >= 2 and [sib["active"] for sib in sibs].count(True) == 1
        assert all(sib["words"] and "snapshot" not in sib["words"] for sib in sibs)
        diff = await answer(s, "compare", message_a=sibs[0]["tip"], message_b=sibs[1]["tip"])
        assert len(diff["columns"]) == 2
        context = await answer(s, "context_at", message=tip, max_chars=6000)
        assert context["tokens"]["total"] > 0 and context["parts"]
        assert (await answer(s, "checkpoints", conversation=conv))["checkpoints"] == []

    serve(path, talk=talk)
