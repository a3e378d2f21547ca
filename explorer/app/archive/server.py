"""The MCP server over stdio: the catalog's tools, answered from the archive.

Built on the official SDK's low-level server, so the tools' schemas are the ones declared
in ``catalog`` and every refusal is the one line ``arguments`` or the store gives, returned
as a tool error (``isError``) the agent can read and act on; a bug is logged with its
traceback (E1) and answered in one line too, and the server goes on.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from explorer import __version__
from explorer.app import error_log
from explorer.app.archive import catalog
from explorer.app.archive.session import Archive
from explorer.tree.errors import ExplorerError

INSTRUCTIONS = (
    "Conversation Explorer's archive: every LLM conversation the person kept (chats and "
    "coding-agent sessions), as trees with branches. Find with search or "
    "list_conversations, read with get_branch, see alternatives with list_branches and "
    "compare, and what a model was sent with context_at. Results are bounded (max_chars) "
    "and say when they were cut; secrets are redacted unless the person chose otherwise."
)


class Refused(Exception):
    """A call answered with ``isError``: the message is the one line the agent reads."""


def refusal(archive: Archive, error: BaseException, tool: str) -> str:
    """The one line an agent is shown for a failed call (redacted: it may echo input)."""
    if isinstance(error, ExplorerError | sqlite3.Error | OSError):
        line = error_log.one_line(error)
    else:  # a bug: the whole traceback goes to the log
        failure = error_log.report(
            f"convo mcp: {tool} failed: {type(error).__name__}: {error_log.one_line(error)}",
            error, show=False)
        line = f"{failure.summary} (a bug: the traceback is in {error_log.log_path()})"
    return archive.text(line)


def answer_text(result: dict[str, Any]) -> str:
    """The text block of a result: its JSON, with a ``text`` field (a branch) set out after
    it as plain lines an agent reads more easily than an escaped string."""
    if isinstance(result.get("text"), str):
        rest = {k: v for k, v in result.items() if k != "text"}
        return json.dumps(rest, ensure_ascii=False) + "\n\n" + str(result["text"])
    return json.dumps(result, ensure_ascii=False)


def build(archive: Archive) -> Any:
    """The SDK server with the archive's tools (``mcp`` is imported only here: the other
    ``convo`` commands never pay for it)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Server[Any, Any] = Server("convo", version=__version__,
                                      instructions=INSTRUCTIONS)

    # the SDK's decorators carry no types: the handlers below are typed themselves
    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(
            name=t.name, description=t.description, inputSchema=t.input_schema(),
            annotations=types.ToolAnnotations(
                readOnlyHint=not t.writes, destructiveHint=False, idempotentHint=not t.writes,
                openWorldHint=False))
            for t in catalog.offered(archive)]

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None
                        ) -> tuple[list[types.TextContent], dict[str, Any]]:
        try:
            result = catalog.call(archive, name, arguments)
        except Exception as e:  # the SDK answers it as a tool error (isError) with this line
            raise Refused(refusal(archive, e, name[:60])) from None
        return [types.TextContent(type="text", text=answer_text(result))], result

    return server


def serve(archive: Archive) -> None:
    """Answer on stdin/stdout until the client closes them."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(archive)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
