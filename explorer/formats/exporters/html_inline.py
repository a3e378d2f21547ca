"""Markdown's inline marks (emphasis, code, links, images) as HTML that cannot carry markup.

Each piece of source text is escaped as it is written out: the only tags in the output are
the renderer's own (``strong``, ``em``, ``code``, ``a``, ``br``), and an ``a`` is made only
for an ``http``, ``https`` or ``mailto`` address. An image is never fetched: it is shown as
the words ``[image: alt]``. Every step is a single pass (matching backtick runs, brackets
and emphasis use lookups or stacks, never regex backtracking), so hostile text such as a
megabyte of ``*`` or ``[`` costs linear time.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from html import escape
from string import punctuation

SAFE_PREFIXES = ("http://", "https://", "mailto:")
_SPECIAL = re.compile(r"[\\`!\[*_\n]")
_BACKTICK_RUN = re.compile(r"`+")
CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069\x00]")
_UNSEEN = re.compile(r"[\x00-\x20\x7f]")


def shown(value: object) -> str:
    """Escaped, with the characters that reorder or hide text shown as what they are: a
    right-to-left override would make ``gnp.exe`` read ``exe.png`` (and a NUL cuts some
    viewers' text short)."""
    return CONTROL.sub(_shown_code, escape(str(value), quote=True))


def _shown_code(m: re.Match[str]) -> str:
    return f'<span class="ctl">[U+{ord(m.group(0)):04X}]</span>'


def safe_href(address: str) -> str | None:
    """The address as an attribute value when it is plainly http, https or mailto, else None
    (no entity, escape or hidden character can turn it into another scheme: it is taken
    literally and escaped)."""
    if _UNSEEN.search(address) or not address.lower().startswith(SAFE_PREFIXES):
        return None
    return escape(address, quote=True)


class _Delim:
    """A run of ``*`` or ``_``: the tags it closes, its unused characters, the tags it opens
    (the last paired outermost)."""

    __slots__ = ("can_close", "can_open", "char", "closes", "count", "opens")

    def __init__(self, char: str, count: int, can_open: bool, can_close: bool) -> None:
        self.char, self.count, self.can_open, self.can_close = char, count, can_open, can_close
        self.opens = self.closes = ""

    def html(self) -> str:
        return self.closes + self.char * self.count + self.opens


class _Next:
    """The next index of ``char`` at or after a position, remembered: the positions asked
    mostly grow, so a scan of many unclosed brackets reads the text once, not once each."""

    def __init__(self, text: str, char: str) -> None:
        self.text, self.char, self.start, self.found = text, char, len(text) + 1, -1

    def at(self, pos: int) -> int:
        if self.start <= pos and (self.found == -1 or pos <= self.found):
            return self.found
        self.start, self.found = pos, self.text.find(self.char, pos)
        return self.found


def render_inline(text: str, links: bool = True) -> str:
    """``text`` (one paragraph, line breaks kept as ``<br>``) as safe HTML."""
    return _Inline(text, links).render()


class _Inline:
    def __init__(self, text: str, links: bool) -> None:
        self.text, self.links = text, links
        self.out: list[str | _Delim] = []
        self.stacks: dict[str, list[int]] = {"*": [], "_": []}
        self.runs: dict[int, list[int]] = {}
        for m in _BACKTICK_RUN.finditer(text):
            self.runs.setdefault(len(m.group(0)), []).append(m.start())
        self.close_bracket = _Next(text, "]")
        self.close_paren = _Next(text, ")")

    def render(self) -> str:
        text, i = self.text, 0
        while i < len(text):
            m = _SPECIAL.search(text, i)
            if m is None:
                self.out.append(shown(text[i:]))
                break
            if m.start() > i:
                self.out.append(shown(text[i:m.start()]))
            i = self._special(m.start())
        return "".join(x if isinstance(x, str) else x.html() for x in self.out)

    def _special(self, i: int) -> int:
        """Writes the mark at ``i`` (or the character, when it marks nothing); the next index."""
        text, ch = self.text, self.text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in punctuation:
            self.out.append(shown(text[i + 1]))
            return i + 2
        if ch == "\n":
            self.out.append("<br>\n")
            return i + 1
        if ch == "`":
            return self._code(i)
        if ch in "*_":
            return self._delimiter(i)
        if ch == "!" and text.startswith("![", i):
            found = self._bracketed(i + 1)
            if found is not None:
                alt, _, end = found
                self.out.append(shown(f"[image: {alt}]" if alt.strip() else "[image]"))
                return end
        if ch == "[" and self.links:
            found = self._bracketed(i)
            href = safe_href(found[1]) if found else None
            if found is not None and href is not None:
                inner = render_inline(found[0], links=False)
                self.out.append(f'<a href="{href}" rel="noopener noreferrer">{inner}</a>')
                return found[2]
        self.out.append(shown(ch))
        return i + 1

    def _code(self, i: int) -> int:
        n = self._run(i)
        starts = self.runs.get(n, [])
        k = bisect_left(starts, i + n)
        if k == len(starts):
            self.out.append("`" * n)
            return i + n
        j = starts[k]
        code = self.text[i + n:j].replace("\n", " ")
        if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
            code = code[1:-1]
        self.out.append(f"<code>{shown(code)}</code>")
        return j + n

    def _run(self, i: int) -> int:
        j = i
        while j < len(self.text) and self.text[j] == self.text[i]:
            j += 1
        return j - i

    def _bracketed(self, i: int) -> tuple[str, str, int] | None:
        """``[label](address)`` at ``i``: its label, address and end, or None. The label
        holds no bracket; the address may hold one pair of parentheses and a quoted title."""
        text = self.text
        j = self.close_bracket.at(i + 1)
        if j < 0 or text.rfind("[", i + 1, j) >= 0 or not text.startswith("](", j):
            return None
        k = self.close_paren.at(j + 2)
        if k >= 0 and text.count("(", j + 2, k) > 0:
            k = self.close_paren.at(k + 1)
        if k < 0:
            return None
        parts = text[j + 2:k].strip().split(None, 1)
        if len(parts) != 1 and not (len(parts) == 2 and _quoted(parts[1])):
            return None
        address = parts[0] if parts else ""
        if address.startswith("<") and address.endswith(">"):
            address = address[1:-1]
        return text[i + 1:j], address, k + 1

    def _delimiter(self, i: int) -> int:
        text, ch = self.text, self.text[i]
        n = self._run(i)
        before = text[i - 1] if i > 0 else " "
        after = text[i + n] if i + n < len(text) else " "
        left = not after.isspace() and (after not in punctuation or before.isspace()
                                         or before in punctuation)
        right = not before.isspace() and (before not in punctuation or after.isspace()
                                          or after in punctuation)
        if ch == "_":
            opens = left and (not right or before in punctuation)
            closes = right and (not left or after in punctuation)
        else:
            opens, closes = left, right
        delim = _Delim(ch, n, opens, closes)
        self.out.append(delim)
        if closes:
            self._close(delim)
        if opens and delim.count:
            self.stacks[ch].append(len(self.out) - 1)
        return i + n

    def _close(self, closer: _Delim) -> None:
        """Pairs the closer with the nearest open run of its character (CommonMark's rule,
        without its rule of three); open runs of the other character in between stay text."""
        stack = self.stacks[closer.char]
        while closer.count and stack:
            at = stack[-1]
            opener = self.out[at]
            assert isinstance(opener, _Delim)
            n = 2 if closer.count >= 2 and opener.count >= 2 else 1
            tag = "strong" if n == 2 else "em"
            opener.opens = f"<{tag}>" + opener.opens
            closer.closes += f"</{tag}>"
            opener.count -= n
            closer.count -= n
            if not opener.count:
                stack.pop()
            other = self.stacks["_" if closer.char == "*" else "*"]
            while other and other[-1] > at:
                other.pop()


def _quoted(title: str) -> bool:
    return len(title) >= 2 and title[0] == title[-1] and title[0] in "\"'"
