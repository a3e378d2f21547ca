"""Copy buttons: on every code block of a message, and on tool call and result rows.

The text copied is the source (the code as written, the call's arguments, the
tool's whole output even when the row shows it folded), never what the widget
happens to display.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QTextBlock, QTextDocument, QTextFormat
from PySide6.QtWidgets import QToolButton, QWidget

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[`~]*[ \t]*$",
                    re.MULTILINE | re.DOTALL)


class CopyButton(QToolButton):
    """A small "Copy" that puts ``text()`` on the clipboard and says so."""

    def __init__(self, text: Callable[[], str] | str, what: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = text
        self.setObjectName("copy")
        self.setAutoRaise(True)
        self.setText("Copy")
        self.setToolTip(f"Copy {what}")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 0.85)
        self.setFont(font)
        self.clicked.connect(self.copy)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text if isinstance(self._text, str)
                                            else self._text())
        self.setText("Copied ✓")

    def leaveEvent(self, event: QEvent) -> None:  # ready to copy again once the pointer leaves
        self.setText("Copy")
        super().leaveEvent(event)


@dataclass(frozen=True)
class CodeBlock:
    first: QTextBlock  # the block where the code starts in the rendered document
    text: str  # the code as written in the message


def code_blocks(doc: QTextDocument, source: str) -> list[CodeBlock]:
    """The fenced code blocks of a rendered Markdown document, with their source text.

    Qt renders each line of a fence as one block and runs two adjacent fences
    together, so the fences are found in the source and matched to the rendered
    blocks by line count; when the counts disagree, runs of code blocks are used.
    """
    blocks: list[QTextBlock] = []
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
            blocks.append(block)
        block = block.next()
    if not blocks:
        return []
    fences = [m.group(2).removesuffix("\n") for m in _FENCE.finditer(source)]
    if sum(f.count("\n") + 1 for f in fences) == len(blocks):
        out, at = [], 0
        for code in fences:
            out.append(CodeBlock(blocks[at], code))
            at += code.count("\n") + 1
        return out
    return _runs(blocks)


def _runs(blocks: list[QTextBlock]) -> list[CodeBlock]:
    out: list[CodeBlock] = []
    run: list[QTextBlock] = []
    for b in blocks:
        if run and b.blockNumber() != run[-1].blockNumber() + 1:
            out.append(CodeBlock(run[0], "\n".join(x.text() for x in run)))
            run = []
        run.append(b)
    out.append(CodeBlock(run[0], "\n".join(x.text() for x in run)))
    return out
