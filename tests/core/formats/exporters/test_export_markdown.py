"""Markdown export of a path, and the exporter registry."""

from __future__ import annotations

import json
import re
from pathlib import Path

from explorer.app.importing.demo import load_demo
from explorer.app.sharing.exporting import EXPORTERS
from explorer.formats.exporters.markdown import fence
from explorer.store import Store
from explorer.store.reads_all import conversation_messages
from explorer.tree.model import Message, Part, text_message

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _markdown(messages: list[Message], tip: object, title: str = "T") -> str:
    return "\n".join(EXPORTERS["markdown"].lines({"title": title}, messages, tip))


def test_fence_is_longer_than_any_backtick_run_inside() -> None:
    text = "a ``` b ```` c"
    fenced = fence(text, "json")
    assert fenced.startswith("`````json\n") and fenced.endswith("\n`````")
    assert fence("plain").startswith("```\n")


def test_tool_calls_results_thinking_and_images() -> None:
    path = [
        Message(1, None, "user", [Part("text", "see"),
                                  Part("image", data=PNG, media_type="image/png")],
                created_at=0.0),
        Message(2, 1, "assistant", [
            Part("thinking", "hmm </details> ```"),
            Part("tool_use", '{"command": "echo ```"}', tool_name="Bash", tool_use_id="t1")],
                model="claude-x", created_at=60.0),
        Message(3, 2, "user", [Part("tool_result", "````\nout", tool_use_id="t1",
                                    is_error=True)]),
        Message(4, 3, "assistant", [Part("image", media_type="image/png",
                                         meta={"url": "https://example.com/x.png"})]),
    ]
    md = _markdown(path, 4)
    assert "## User · 1970-01-01 00:00 UTC" in md
    assert "## Assistant · claude-x · 1970-01-01 00:01 UTC" in md
    assert ("<details><summary>Thinking</summary>\n\n<pre><code>hmm &lt;/details&gt; ```"
            "</code></pre>\n\n</details>") in md
    assert '**Tool call** `Bash` (`t1`)\n\n    {\n      "command": "echo ```"\n    }' in md
    assert "**Tool error** (`t1`)\n\n    ````\n    out" in md
    assert "![image](data:image/png;base64," in md
    assert "example.com" not in md and "[image: image/png (stored only as a link" in md


def test_only_the_path_is_written_and_other_branches_are_counted(tmp_path: Path) -> None:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    conv = store.conversation(cid)
    messages = conversation_messages(store.reader, cid)
    path = store.path(cid, conv.tip_id)
    store.close()
    md = _markdown(messages, conv.tip_id, conv.title)
    assert md.startswith(f"# {conv.title}\n")
    assert len(re.findall(r"^## ", md, flags=re.M)) == len(path)
    assert f"- Not included: {len(messages) - len(path)} messages on other branches" in md
    for m in path:
        for p in m.parts:
            if p.kind == "text":
                assert p.text in md
    off_path = {m.id for m in messages} - {m.id for m in path}
    assert all(m.text not in md for m in messages if m.id in off_path and m.text
               and not any(m.text == q.text for q in path))


def test_registry_lists_every_format_with_a_suffix(tmp_path: Path) -> None:
    assert set(EXPORTERS) == {"markdown", "html", "claude-code", "pi", "codex", "gemini-cli",
                              "opencode", "anthropic", "openai"}
    path = [text_message(1, None, "user", "two\nlines"),
            text_message(2, 1, "assistant", "hello")]
    for name, exporter in EXPORTERS.items():
        assert exporter.name == name and exporter.suffix.startswith(".") and exporter.description
        out = list(exporter.lines({"title": "t"}, path, 2))
        assert out and all("\n" not in line for line in out), name
        text = "\n".join(out)
        assert "hello" in text, name
        if exporter.suffix == ".jsonl":
            assert all(isinstance(json.loads(line), dict) for line in out)


def test_exporters_default_to_the_last_message_without_a_tip() -> None:
    path = [text_message(1, None, "user", "hi"), text_message(2, 1, "assistant", "bye")]
    for exporter in EXPORTERS.values():
        assert "\n".join(exporter.lines({}, path, None)) == "\n".join(
            exporter.lines({}, path, 2))
