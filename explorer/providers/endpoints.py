"""Each provider's default address, apart from its HTTP client so that settings can name it
without importing httpx."""

from __future__ import annotations

ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"
OPENAI_COMPATIBLE_URL = "http://localhost:11434/v1"
GEMINI_URL = "https://generativelanguage.googleapis.com"
