"""Syntax colours for code blocks inside a rendered Markdown document.

Qt's Markdown reader tags fenced code blocks with their language
(``QTextFormat.BlockCodeLanguage``), so one highlighter on the whole document
can colour only those blocks and leave prose alone. The rules are deliberately
small (keywords, strings, comments, numbers): enough to read code at a glance
without pulling in a lexer package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextFormat,
)

_PY = (
    "and as assert async await break class continue def del elif else except finally for from "
    "global if import in is lambda nonlocal not or pass raise return try while with yield "
    "match case None True False self"
)
_JS = (
    "break case catch class const continue debugger default delete do else export extends "
    "finally for function if import in instanceof let new return super switch this throw try "
    "typeof var void while with yield async await of null undefined true false interface type "
    "enum implements private public protected readonly"
)
_C = (
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register return short signed sizeof static struct switch typedef union "
    "unsigned void volatile while bool class namespace template typename public private "
    "protected virtual override new delete nullptr true false this using"
)
_RUST = (
    "as async await break const continue crate dyn else enum extern false fn for if impl in let "
    "loop match mod move mut pub ref return self Self static struct super trait true type unsafe "
    "use where while"
)
_GO = (
    "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var nil true false"
)
_SH = (
    "if then else elif fi for while until do done case esac function in return local export "
    "echo exit set unset"
)
_SQL = (
    "select from where insert into values update set delete create table index view drop alter "
    "join left right inner outer on group by order having limit offset as and or not null "
    "primary key references with recursive union all distinct case when then else end"
)
_JAVA = _C + " abstract extends final implements import instanceof interface package super throws"


@dataclass(frozen=True)
class Language:
    keywords: frozenset[str]
    line_comment: str | None
    block_comment: tuple[str, str] | None = None
    case_insensitive: bool = False


_C_LIKE = ("//", ("/*", "*/"))
LANGUAGES: dict[str, Language] = {
    "python": Language(frozenset(_PY.split()), "#"),
    "javascript": Language(frozenset(_JS.split()), *_C_LIKE),
    "c": Language(frozenset(_C.split()), *_C_LIKE),
    "java": Language(frozenset(_JAVA.split()), *_C_LIKE),
    "rust": Language(frozenset(_RUST.split()), *_C_LIKE),
    "go": Language(frozenset(_GO.split()), *_C_LIKE),
    "shell": Language(frozenset(_SH.split()), "#"),
    "sql": Language(frozenset(_SQL.split()), "--", ("/*", "*/"), case_insensitive=True),
    "json": Language(frozenset({"true", "false", "null"}), None),
    "text": Language(frozenset(), None),
}
ALIASES = {
    "py": "python", "python3": "python", "js": "javascript", "ts": "javascript",
    "typescript": "javascript", "jsx": "javascript", "tsx": "javascript", "cpp": "c",
    "c++": "c", "h": "c", "hpp": "c", "cs": "java", "csharp": "java", "kotlin": "java",
    "rs": "rust", "golang": "go", "sh": "shell", "bash": "shell", "zsh": "shell",
    "console": "shell", "postgres": "sql", "sqlite": "sql", "jsonl": "json",
}

_STRING = re.compile(r""""(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`[^`]*`?""")
_NUMBER = re.compile(r"\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
IN_BLOCK_COMMENT = 1


def language_for(name: str) -> Language | None:
    """The rules for a fence's info string (``python``, ``ts``…); None when unknown."""
    key = name.strip().lower().split()[0] if name.strip() else ""
    return LANGUAGES.get(ALIASES.get(key, key))


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def _fmt(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(color))
    if bold:
        f.setFontWeight(QFont.Weight.Bold)
    f.setFontItalic(italic)
    return f


def token_formats(palette: QPalette) -> dict[str, QTextCharFormat]:
    """Token colours chosen for the palette's background (light or dark)."""
    if _is_dark(palette):
        return {"keyword": _fmt("#c792ea", bold=True), "string": _fmt("#c3e88d"),
                "comment": _fmt("#7f8c98", italic=True), "number": _fmt("#f78c6c")}
    return {"keyword": _fmt("#7a1fa2", bold=True), "string": _fmt("#1b7f3b"),
            "comment": _fmt("#6a737d", italic=True), "number": _fmt("#b35900")}


class CodeHighlighter(QSyntaxHighlighter):
    """Colours fenced code blocks of a Markdown document (or a whole plain code document)."""

    def __init__(self, document: QTextDocument, default_language: str | None = None) -> None:
        super().__init__(document)
        self._default = language_for(default_language) if default_language else None
        self._formats = token_formats(QGuiApplication.palette())

    def highlightBlock(self, text: str) -> None:
        lang = self._block_language()
        self.setCurrentBlockState(0)
        if lang is None or not text:
            return
        taken = [False] * len(text)
        start = self._block_comments(text, lang, taken)
        self._strings_and_line_comment(text, lang, taken, start)
        self._apply(_NUMBER, text, taken, "number")
        self._keywords(text, lang, taken)

    def _block_language(self) -> Language | None:
        fmt = self.currentBlock().blockFormat()
        name = fmt.stringProperty(QTextFormat.Property.BlockCodeLanguage)
        if name:
            return language_for(name) or LANGUAGES["text"]
        if fmt.hasProperty(QTextFormat.Property.BlockCodeFence):
            return LANGUAGES["text"]
        return self._default

    def _mark(self, taken: list[bool], start: int, end: int, kind: str) -> None:
        self.setFormat(start, end - start, self._formats[kind])
        for i in range(start, end):
            taken[i] = True

    def _block_comments(self, text: str, lang: Language, taken: list[bool]) -> int:
        """Colour ``/* … */`` spans, carrying an open comment into the next block."""
        if lang.block_comment is None:
            return 0
        opener, closer = lang.block_comment
        continuing = self.previousBlockState() == IN_BLOCK_COMMENT
        pos = 0 if continuing else text.find(opener)
        while pos >= 0:
            end = text.find(closer, pos if continuing else pos + len(opener))
            continuing = False
            if end < 0:
                self._mark(taken, pos, len(text), "comment")
                self.setCurrentBlockState(IN_BLOCK_COMMENT)
                return len(text)
            self._mark(taken, pos, end + len(closer), "comment")
            pos = text.find(opener, end + len(closer))
        return 0

    def _strings_and_line_comment(
        self, text: str, lang: Language, taken: list[bool], start: int
    ) -> None:
        """Strings first, so a ``#`` inside quotes is not a comment."""
        i = start
        while i < len(text):
            if taken[i]:
                i += 1
                continue
            if lang.line_comment and text.startswith(lang.line_comment, i):
                self._mark(taken, i, len(text), "comment")
                return
            m = _STRING.match(text, i)
            if m and m.end() > i:
                self._mark(taken, i, m.end(), "string")
                i = m.end()
            else:
                i += 1

    def _apply(self, pattern: re.Pattern[str], text: str, taken: list[bool], kind: str) -> None:
        for m in pattern.finditer(text):
            if not any(taken[m.start():m.end()]):
                self._mark(taken, m.start(), m.end(), kind)

    def _keywords(self, text: str, lang: Language, taken: list[bool]) -> None:
        for m in _WORD.finditer(text):
            word = m.group().lower() if lang.case_insensitive else m.group()
            if word in lang.keywords and not any(taken[m.start():m.end()]):
                self._mark(taken, m.start(), m.end(), "keyword")
