"""The providers' ordering and shape rules for request bodies, with their own error wording.

``anthropic_violations`` and ``openai_violations`` answer the list of errors the
provider would return for a body (empty when it would be accepted). Wording is
the providers' where they publish or return it; indices are the body's.
"""

from __future__ import annotations

import re
from typing import Any

_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


# ---------------------------------------------------------------------------
# Anthropic Messages API
# ---------------------------------------------------------------------------


def anthropic_violations(body: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    if not isinstance(body.get("max_tokens"), int):
        errors.append("max_tokens: Field required")
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        errors.append("system: Input should be a valid string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*errors, "messages: at least one message is required"]
    if messages[0].get("role") != "user":
        errors.append('messages: first message must use the "user" role')
    previous_calls: list[str] = []
    for n, message in enumerate(messages):
        errors.extend(_anthropic_message(n, message, messages, previous_calls))
        previous_calls = _calls(message)
    return errors


def _calls(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return []
    return [b.get("id", "") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def _anthropic_message(n: int, message: dict[str, Any], messages: list[dict[str, Any]],
                       previous_calls: list[str]) -> list[str]:
    errors: list[str] = []
    role = message.get("role")
    if role not in ("user", "assistant"):
        return [f"messages.{n}.role: Input should be 'user' or 'assistant'"]
    if n > 0 and messages[n - 1].get("role") == role:
        errors.append(f'messages: roles must alternate between "user" and "assistant", '
                      f'but found multiple "{role}" roles in a row')
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    last = n == len(messages) - 1
    if not isinstance(blocks, list) or (not blocks and not (last and role == "assistant")):
        errors.append(f"messages.{n}: all messages must have non-empty content except for "
                      "the optional final assistant message")
        return errors
    errors.extend(_anthropic_blocks(n, role, blocks))
    errors.extend(_anthropic_results(n, role, blocks, previous_calls))
    calls = _calls(message)
    following = messages[n + 1] if n + 1 < len(messages) else None
    answered = _result_ids(following) if following else set()
    missing = [c for c in calls if c not in answered]
    if missing:
        errors.append(f"messages.{n}: `tool_use` ids were found without `tool_result` blocks "
                      f"immediately after: {', '.join(missing)}. Each `tool_use` block must have "
                      "a corresponding `tool_result` block in the next message.")
    if last and role == "assistant" and blocks:
        tail = blocks[-1]
        if tail.get("type") == "text" and tail.get("text", "") != tail.get("text", "").rstrip():
            errors.append("messages: final assistant content cannot end with trailing whitespace")
    return errors


def _anthropic_blocks(n: int, role: str, blocks: list[Any]) -> list[str]:
    errors: list[str] = []
    for m, block in enumerate(blocks):
        where = f"messages.{n}.content.{m}"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and not str(block.get("text", "")).strip():
            errors.append("messages: text content blocks must contain non-whitespace text")
        elif kind == "tool_use":
            if role != "assistant":
                errors.append(f"{where}: tool_use blocks can only be in assistant messages")
            if not _ID.match(str(block.get("id", ""))):
                errors.append(f"{where}.tool_use.id: String should match pattern "
                              f"'{_ID.pattern}'")
            if not _NAME.match(str(block.get("name", ""))):
                errors.append(f"{where}.tool_use.name: String should match pattern "
                              f"'{_NAME.pattern}'")
            if not isinstance(block.get("input"), dict):
                errors.append(f"{where}.tool_use.input: Input should be a valid dictionary")
        elif kind == "tool_result" and role != "user":
            errors.append(f"{where}: tool_result blocks can only be in user messages")
        elif kind == "image":
            errors.extend(_anthropic_image(where, role, block))
        elif kind not in ("text", "tool_use", "tool_result", "image"):
            errors.append(f"{where}: Input tag '{kind}' found using 'type' does not match "
                          "any of the expected tags")
    return errors


def _anthropic_image(where: str, role: str, block: dict[str, Any]) -> list[str]:
    errors = []
    if role != "user":
        errors.append(f"{where}: image blocks can only be in user messages")
    source = block.get("source") or {}
    if source.get("type") == "base64" and source.get("media_type") not in IMAGE_TYPES:
        errors.append(f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', "
                      "'image/png', 'image/gif' or 'image/webp'")
    return errors


def _anthropic_results(n: int, role: str, blocks: list[Any], previous_calls: list[str]
                       ) -> list[str]:
    """Results answer a call of the previous message, once, and come before anything else."""
    errors: list[str] = []
    seen_other = False
    answered: set[str] = set()
    for m, block in enumerate(blocks):
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            seen_other = True
            continue
        key = str(block.get("tool_use_id", ""))
        if key not in previous_calls or key in answered:
            errors.append(f"messages.{n}.content.{m}: unexpected `tool_use_id` found in "
                          f"`tool_result` blocks: {key}. Each `tool_result` block must have a "
                          "corresponding `tool_use` block in the previous message.")
        elif seen_other:
            # The documented rule: in the user message holding tool results, the
            # tool_result blocks must come first in the content array.
            errors.append(f"messages.{n}.content.{m}: `tool_result` blocks must come first in "
                          "the content array, before any text or image")
        answered.add(key)
    return errors


def _result_ids(message: dict[str, Any]) -> set[str]:
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return set()
    return {str(b.get("tool_use_id")) for b in content
            if isinstance(b, dict) and b.get("type") == "tool_result"}


# ---------------------------------------------------------------------------
# OpenAI Chat Completions
# ---------------------------------------------------------------------------


def openai_violations(body: dict[str, Any]) -> list[str]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["Invalid 'messages': empty array. Expected an array with minimum length 1, "
                "but got an empty array instead."]
    errors: list[str] = []
    pending: list[str] = []  # calls of the last assistant message not yet answered
    open_calls = False
    for n, message in enumerate(messages):
        role = message.get("role")
        if role not in OPENAI_ROLES:
            errors.append(f"Invalid value: '{role}'. Supported values are: 'system', "
                          "'assistant', 'user', 'function', 'tool', and 'developer'.")
            continue
        if role == "tool":
            errors.extend(_openai_tool(n, message, pending, open_calls))
            continue
        if pending:
            errors.append(_unanswered(pending))
        pending, open_calls = [], False
        errors.extend(_openai_content(n, role, message))
        if role == "assistant" and message.get("tool_calls"):
            errors.extend(_openai_calls(n, message["tool_calls"]))
            pending = [str(c.get("id")) for c in message["tool_calls"]]
            open_calls = True
    if pending:
        errors.append(_unanswered(pending))
    return errors


def _unanswered(pending: list[str]) -> str:
    return ("An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {', '.join(pending)}")


def _openai_tool(n: int, message: dict[str, Any], pending: list[str], open_calls: bool
                 ) -> list[str]:
    if not open_calls:
        return ["Invalid parameter: messages with role 'tool' must be a response to a "
                "preceeding message with 'tool_calls'."]
    key = message.get("tool_call_id")
    if key not in pending:
        return [f"Invalid parameter: 'tool_call_id' of '{key}' not found in 'tool_calls' of "
                "previous message."]
    pending.remove(key)
    if not isinstance(message.get("content"), str | list):
        return [f"Invalid value for 'messages[{n}].content': expected a string, got null."]
    return []


def _openai_content(n: int, role: str, message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if content is None:
        if role == "assistant" and message.get("tool_calls"):
            return []
        return [f"Invalid value for 'content': expected a string, got null."
                f" (messages[{n}])"]
    if isinstance(content, str):
        return []
    if not isinstance(content, list):
        return [f"Invalid type for 'messages[{n}].content': expected one of a string or "
                "array of objects."]
    errors = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "image_url" and role != "user":
            errors.append(f"Invalid 'messages[{n}]'. Image URLs are only allowed for messages "
                          f"with role 'user', but this message with role '{role}' contains an "
                          "image URL.")
        elif kind == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            if not url.startswith("data:image/"):
                errors.append(f"Invalid 'messages[{n}]': image_url must be a data URL here")
        elif kind != "text":
            errors.append(f"Invalid value: '{kind}'. Supported values are: 'text', "
                          "'image_url', 'input_audio', 'refusal', and 'file'.")
    return errors


def _openai_calls(n: int, calls: list[Any]) -> list[str]:
    errors = []
    for m, call in enumerate(calls):
        fn = call.get("function") or {}
        if not isinstance(fn.get("arguments"), str):
            errors.append(f"Invalid type for 'messages[{n}].tool_calls[{m}].function.arguments'"
                          ": expected a string, but got an object instead.")
        if not _NAME.match(str(fn.get("name", ""))):
            errors.append(f"Invalid 'messages[{n}].tool_calls[{m}].function.name': string does "
                          "not match pattern. Expected a string that matches the pattern "
                          "'^[a-zA-Z0-9_-]+$'.")
    return errors
