"""What a person wrote survives the Markdown export whole, and the HTML export shows the
characters that reorder or end text as what they are."""

from __future__ import annotations

from pathlib import Path

from explorer.app.sharing.exporting import export_lines
from explorer.store import Store
from tests.helpers import assistant, user


def _export(tmp_path: Path, text: str, fmt: str) -> str:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("hostile")
        store.append_turn(conv, [user(text), assistant("ok")])
        return "\n".join(export_lines(store, conv, fmt))


def test_the_words_after_an_opening_fence_are_kept_in_markdown(tmp_path: Path) -> None:
    text = "```<!-- keep me --> and this\nprint(1)\n```"
    out = _export(tmp_path, text, "markdown")
    assert "&lt;!-- keep me --&gt; and this" in out and "print(1)" in out
    assert "<!--" not in out  # still no raw HTML


def test_a_language_name_stays_a_class_not_text(tmp_path: Path) -> None:
    out = _export(tmp_path, "```python\nx = 1\n```", "markdown")
    assert '<code class="language-python">x = 1</code>' in out


def test_a_right_to_left_override_is_shown_not_obeyed_in_html(tmp_path: Path) -> None:
    out = _export(tmp_path, "open photo\u202egnp.exe now, \x00 done", "html")
    assert "\u202e" not in out and "\x00" not in out
    assert 'photo<span class="ctl">[U+202E]</span>gnp.exe' in out
    assert '<span class="ctl">[U+0000]</span> done' in out
