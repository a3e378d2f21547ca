"""Copy buttons: every code block of a message and every tool call and result row copies its
source text, exactly, even when the row shows it folded."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from transcript_helpers import load

from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.markdown import DocumentView

TEXT = """Here is the fix:

```python
def f(x):

    return x + 1
```
```sh
pytest -q
```

And a note.

~~~
plain   spaced
~~~
"""


def _clipboard() -> str:
    return QGuiApplication.clipboard().text()


def test_each_code_block_gets_a_copy_button_that_copies_its_source(qtbot: QtBot) -> None:
    view = DocumentView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.set_markdown(TEXT)
    view.show()
    assert len(view.copy_buttons) == 3, "two adjacent fences are still two blocks"
    copied = []
    for button, _ in view.copy_buttons:
        button.click()
        copied.append(_clipboard())
        assert button.text() == "Copied ✓"
    assert copied == ["def f(x):\n\n    return x + 1", "pytest -q", "plain   spaced"]
    tops = [button.y() for button, _ in view.copy_buttons]
    assert tops == sorted(tops) and len(set(tops)) == 3, "each beside its own block"
    assert all(b.geometry().right() <= view.viewport().width() for b, _ in view.copy_buttons)


def test_buttons_follow_their_block_when_the_width_changes(qtbot: QtBot) -> None:
    view = DocumentView()
    qtbot.addWidget(view)
    view.set_markdown("word " * 200 + "\n\n```\ncode\n```\n")
    view.resize(700, view.heightForWidth(700))
    view.show()
    [(button, _)] = view.copy_buttons
    wide = button.y()
    view.resize(250, view.heightForWidth(250))
    assert button.y() > wide, "the paragraph above wraps into more lines"
    assert button.geometry().right() <= 250


def test_long_code_lines_wrap_inside_the_card_and_clear_the_copy_button(qtbot: QtBot) -> None:
    view = DocumentView()
    qtbot.addWidget(view)
    line = "git -C /a/long/worktree/path merge master --no-ff -m 'a message' " * 3
    view.set_markdown(f"Run:\n\n```sh\n{line}\nls\n```\n")
    view.resize(360, view.heightForWidth(360))
    view.show()
    [(button, code)] = view.copy_buttons
    layout = code.first.layout()
    assert layout.lineCount() > 1, "the long line wraps instead of running off the edge"
    width = view.viewport().width()
    for k in range(layout.lineCount()):
        assert layout.lineAt(k).naturalTextWidth() <= width, "no line is cut at the edge"
    assert code.first.blockFormat().rightMargin() >= button.width(), "clear of the button"


def test_text_without_code_has_no_copy_buttons(qtbot: QtBot) -> None:
    view = DocumentView()
    qtbot.addWidget(view)
    view.set_markdown("just `inline` code and text")
    assert view.copy_buttons == []
    view.set_markdown("```\nx\n```")
    view.set_markdown("no more code")
    assert view.copy_buttons == []


def test_tool_call_and_folded_result_rows_copy_their_whole_text(
    qtbot: QtBot, tmp_path: Path
) -> None:
    output = "\n".join(f"line {i}" for i in range(60))
    with Store(tmp_path / "a.db") as store:
        conv = store.create_conversation("tools")
        args = json.dumps({"command": "ls -la", "description": "list"})
        store.append_turn(conv, [
            Message(None, None, "user", [Part("text", "go")]),
            Message(None, None, "assistant", [Part("tool_use", args, tool_name="Bash",
                                                   tool_use_id="c1")]),
            Message(None, None, "user", [Part("tool_result", output, tool_use_id="c1")]),
        ])
        view = TranscriptView(store)
        qtbot.addWidget(view)
        view.resize(900, 1200)
        view.show()
        load(qtbot, view, conv)
        cards = [c for c in view.live_cards() if isinstance(c, MessageCard)]
        call = next(b for c in cards for b in c.calls)
        result = next(r for c in cards for r in c.results)
        call.copy_button.click()
        assert _clipboard() == call.arguments.toPlainText()
        assert "ls -la" in _clipboard()
        assert result.is_collapsed()
        result.copy_button.click()
        assert _clipboard() == output, "the whole output, not the folded part shown"
        assert isinstance(result.copy_button.parent(), QWidget)
