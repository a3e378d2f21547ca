"""Each format's program as a person calls it, in a table light enough for the first frame
(the registry, which imports every importer, is loaded only when a file is read)."""

from __future__ import annotations

TITLES: dict[str, str] = {
    "native": "Conversation Explorer",
    "gemini_cli": "Gemini CLI",
    "qwen_code": "Qwen Code",
    "kimi_cli": "Kimi CLI",
    "claude_code": "Claude Code",
    "pi": "pi",
    "codex": "Codex CLI",
    "opencode": "OpenCode",
    "crush": "Crush",
    "continue_cli": "Continue CLI",
    "sillytavern": "SillyTavern",
    "chatgpt": "ChatGPT",
    "openwebui": "Open WebUI",
    "librechat": "LibreChat",
    "claude_ai": "Claude.ai",
    "llm": "llm",
    "copilot_cli": "Copilot CLI",
    "cursor": "Cursor",
    "goose": "Goose",
    "cline": "Cline",
    "cline_tasks": "Cline/Roo Code/Kilo Code",
    "aider": "aider",
    "mistral_vibe": "Mistral Vibe",
}
