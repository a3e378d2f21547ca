"""A file's whole text as a read tool showed it, or None when the read showed only part.

Claude Code numbers the lines (``     1→text``, or ``1<TAB>text``) and may add a
``<system-reminder>`` after them; OpenCode wraps numbered lines (``00001| text``) in
``<file>`` and says when more follow; pi and Gemini CLI return the text itself and say when
they cut it. Claude Code numbers the empty line after a final line break too, so its lines
joined are the file; a listing that leaves it out cannot say whether the file ends with a
line break, so :func:`same_text` compares without that last break.
"""

from __future__ import annotations

import re

_NUMBERED = re.compile(r"^\s*(\d+)(?:\t|→)(.*)$")
_OPENCODE = re.compile(r"^(\d{5})\| ?(.*)$")
_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
_EMPTY_NOTE = "the file exists but the contents are empty"
_CUT = re.compile(r"(?:file content (?:has been )?truncated|\[showing lines \d|more lines\b|"
                  r"use '?offset'? (?:parameter )?to read|\[\.\.\. ?\d* ?(?:lines? )?truncated)",
                  re.IGNORECASE)
CLAUDE_CODE_MAX_LINES = 2000  # a longer file is shown cut at this many lines, unsaid


def read_content(output: str) -> str | None:
    if _EMPTY_NOTE in output:
        return ""
    body = _REMINDER.sub("\n", output).strip("\n")
    if body.startswith("<file>"):
        return _numbered(body.removeprefix("<file>").removesuffix("</file>"), _OPENCODE, None)
    if _CUT.search(body):
        return None
    first = _NUMBERED.match(body.split("\n", 1)[0])
    if first is not None and first[1] == "1":
        return _numbered(body, _NUMBERED, CLAUDE_CODE_MAX_LINES)
    return output


def _numbered(body: str, pattern: re.Pattern[str], cap: int | None) -> str | None:
    out: list[str] = []
    for line in body.strip("\n").split("\n"):
        m = pattern.match(line)
        if m is None:
            if line.strip() == "" or line.strip().startswith("(End of file"):
                continue
            return None
        if int(m[1]) != len(out) + 1:
            return None
        out.append(m[2])
    if cap is not None and len(out) >= cap:
        return None
    return "\n".join(out)


def same_text(a: str, b: str) -> bool:
    """Equal but for one line break at the end (which a numbered listing cannot show)."""
    return a == b or a.removesuffix("\n") == b.removesuffix("\n")
