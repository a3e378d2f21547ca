"""A transcript that understands agents, on a real Claude Code session and own fixtures."""

from __future__ import annotations

import json
from pathlib import Path

from pytestqt.qtbot import QtBot
from transcript_helpers import settle, shown_view

from explorer.store import Store
from explorer.tree.model import Message, Part, Usage
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.card_words import describe_tokens, format_tokens
from explorer.ui.transcript.cards import MessageCard


def _view(qtbot: QtBot, store: Store, conv: int) -> TranscriptView:
    return shown_view(qtbot, store, conv, 900, 1200)


def _card_with(qtbot: QtBot, view: TranscriptView, store: Store, conv: int,
               needle: str) -> MessageCard:
    """The built card of the first message on the path whose text holds ``needle``."""
    mid = next(m.id for m in store.path(conv) if any(needle in p.text for p in m.parts))
    assert isinstance(mid, int)
    view.scroll_to(mid)
    qtbot.waitUntil(lambda: isinstance(view.card_for(mid), MessageCard), timeout=10_000)
    settle(qtbot, view)
    card = view.card_for(mid)
    assert isinstance(card, MessageCard)
    return card


def _cards(view: TranscriptView) -> list[MessageCard]:
    return [c for c in view.live_cards() if isinstance(c, MessageCard)]


def test_command_tags_of_a_real_session_show_as_chips_not_markup(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, conv = worktrees_session
    view = _view(qtbot, store, conv)
    cards = [_card_with(qtbot, view, store, conv, tag)
             for tag in ("<command-name>/compact", "<local-command-stdout>Compacted")]
    chip_texts = [t for c in cards for row in c.chip_rows for t in row.texts()]
    assert chip_texts == ["/compact", "stdout: Compacted (ctrl+o to see full summary)"]
    raw = [v.toPlainText() for c in cards for v in c.texts]
    assert not [t for t in raw if "<command-name>" in t or "<local-command-stdout>" in t]


def test_agent_prompt_reads_with_real_newlines(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, conv = worktrees_session
    view = _view(qtbot, store, conv)
    card = _card_with(qtbot, view, store, conv, '"subagent_type"')
    calls = [b for b in card.calls if b.summary.startswith("Agent(")]
    assert calls, "the sample spawns subagents with the Agent tool"
    shown = calls[0].arguments.toPlainText()
    assert "prompt:\n" in shown and "\\n" not in shown
    assert calls[0].toggle.text().startswith("⚙ Agent(")


def _one(store: Store, parts: list[Part], *after: Message) -> int:
    """One turn: a prompt, an assistant message of ``parts``, then ``after``."""
    conv = store.create_conversation("agent")
    store.append_turn(conv, [Message(None, None, "user", [Part("text", "go")]),
                             Message(None, None, "assistant", parts), *after])
    return conv


def test_a_tool_call_is_one_row_that_folds(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        args = json.dumps({"command": "git merge feature", "description": "merge"})
        conv = _one(store, [Part("tool_use", args, tool_name="Bash", tool_use_id="c1")],
                    Message(None, None, "user", [Part(
                        "tool_result", "\n".join(f"line {i}" for i in range(24)),
                        tool_use_id="c1")]),
                    Message(None, None, "assistant", [Part("text", "merged")]))
        view = _view(qtbot, store, conv)
        call = next(b for c in _cards(view) for b in c.calls)
        assert call.toggle.text() == "⚙ Bash(git merge feature)"
        assert call.is_expanded()
        call.toggle.click()
        assert not call.is_expanded() and call.arguments.isHidden()
        result = next(r for c in _cards(view) for r in c.results)
        assert result.caption.text() == "↳ Bash result ✓ 24 lines"


def test_markdown_tool_output_is_rendered(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        conv = _one(store, [Part("tool_use", "{}", tool_name="Read", tool_use_id="c1")],
                    Message(None, None, "user", [Part(
                        "tool_result", "# Plan\n\n- **first** step\n- second step",
                        tool_use_id="c1")]),
                    Message(None, None, "assistant", [Part("text", "ok")]))
        view = _view(qtbot, store, conv)
        result = next(r for c in _cards(view) for r in c.results)
        assert result.markdown
        shown = result.output.toPlainText()
        assert "# Plan" not in shown and "**first**" not in shown and "Plan" in shown


def test_redacted_thinking_is_labelled_and_thinking_is_muted(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "a.db") as store:
        conv = _one(store, [Part("thinking", "", meta={"redacted": True}),
                            Part("thinking", "weigh the options"), Part("text", "done")])
        view = _view(qtbot, store, conv)
        redacted, plain = next(c.thinking for c in _cards(view) if c.thinking)
        assert redacted.toggle.text() == "Thinking (redacted by the provider)"
        assert not redacted.toggle.isEnabled()
        plain.set_expanded(True)
        assert plain.body is not None and plain.body.font().italic()
        assert plain.body.palette().color(plain.body.palette().ColorRole.Text) \
            == plain.palette().color(plain.palette().ColorRole.PlaceholderText)


def test_card_header_token_line_is_short_and_the_tooltip_exact() -> None:
    usage = Usage(input_tokens=1, output_tokens=506, cache_read_tokens=65_682,
                  cache_write_tokens=1_204)
    assert format_tokens(usage) == "in 1 · out 506 · cache 66.9k"
    assert describe_tokens(usage).splitlines() == [
        "input: 1 tokens", "output: 506 tokens", "cache read: 65,682 tokens",
        "cache write: 1,204 tokens"]


def test_thinking_kept_only_as_a_signature_says_so_instead_of_zero_words(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, conv = worktrees_session
    view = _view(qtbot, store, conv)
    card = _card_with(qtbot, view, store, conv, '"subagent_type"')
    blocks = [b for b in card.thinking if not b.redacted]
    assert blocks, "Claude Code keeps a thinking block's signature, not its text"
    assert blocks[0].toggle.text() == "Thinking (text not kept in the session file)"
    assert not blocks[0].toggle.isEnabled() and "signature" in blocks[0].toggle.toolTip()
