"""R1 for what is derived for display: a secret in the first prompt never shows in the
conversation's title or in a message's preview (``convo list``, ``convo tree``, the
window), while the stored text and the native export stay exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.store import Store
from explorer.store.migrations import MIGRATIONS
from explorer.store.rows import preview
from explorer.tree.model import Message, Part

KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" + "QQ77"
PROMPT = f"Use OPENAI_API_KEY={KEY} to call the API and list the models"


def session(folder: Path) -> Path:
    """A Claude Code session whose first prompt holds a key."""
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-secret",
         "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work",
         "message": {"role": "user", "content": PROMPT}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-secret",
         "timestamp": "2026-01-01T00:00:01Z", "cwd": "/work",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                     "content": [{"type": "text", "text": "Listed them."}]}},
    ]
    path = folder / "s-secret.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main.main(list(args)) == 0
    return capsys.readouterr().out


def test_R1_list_and_tree_mask_a_key_the_native_export_keeps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.db")
    run(capsys, "--db", db, "import", str(session(tmp_path)))
    listed = run(capsys, "--db", db, "list")
    as_json = run(capsys, "--db", db, "list", "--json")
    tree = run(capsys, "--db", db, "tree", "1")
    shown = run(capsys, "--db", db, "show", "1")
    for text in (listed, as_json, tree):
        assert KEY not in text and KEY[:20] not in text, text
    assert "[redacted: openai-key]" in listed and "[redacted: openai-key]" in tree
    assert shown.splitlines()[0].startswith("# Use OPENAI_API_KEY=[redacted: openai-key]")
    assert KEY in shown  # the transcript itself is the stored text, exact
    native = run(capsys, "--db", db, "export", "1", "--format", "native")
    assert KEY in native  # the stored conversation and the native export stay exact


def test_R1_a_title_is_shown_masked_and_kept_exact(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = store.create_conversation(PROMPT)
        got = store.conversation(conv)
        assert got.title == PROMPT
        assert got.display_title == "Use OPENAI_API_KEY=[redacted: openai-key] to call the API " \
                                    "and list the models"
        assert store.conversations()[0].display_title == got.display_title


def test_R1_previews_an_older_version_stored_are_masked_on_upgrade(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Store(db) as store:
        conv = store.create_conversation("old")
        from tests.helpers import assistant, user

        store.append_turn(conv, [user(PROMPT), assistant("fine")])
        store.transact(lambda c: c.execute("UPDATE messages SET preview = ? WHERE role = 'user'",
                                           (PROMPT,)))  # as an older version wrote it
        at = next(n for n, (name, _) in enumerate(MIGRATIONS)
                  if name.endswith("_masked_previews"))
        later = [name for name, _ in MIGRATIONS[at:]]  # as a version before the masking
        store.transact(lambda c: c.executemany("DELETE FROM _migrations WHERE name = ?",
                                               [(name,) for name in later]))
    with Store(db) as store:
        (preview,) = store.reader.execute(
            "SELECT preview FROM messages WHERE role = 'user'").fetchone()
        assert KEY not in preview and "[redacted: openai-key]" in preview
        assert KEY in store.message(1 if store.message(1).role == "user" else 2).text


@pytest.mark.parametrize(("part", "label"), [
    (Part("tool_result", f"export KEY={KEY}"), "[result] "),
    (Part("tool_result", f"{KEY} leaked", is_error=True), "[error] "),
    (Part("tool_use", f'{{"command": "curl -H {KEY}"}}', tool_name="Bash"), "[Bash] "),
    (Part("thinking", f"the key {KEY} is in the env"), "[thinking] "),
])
def test_R1_a_labelled_preview_masks_the_key_its_text_holds(part: Part, label: str) -> None:
    """A call's, a result's and a thought's preview is its label and its masked text."""
    shown = preview(Message(1, None, "assistant", [part]))
    assert shown.startswith(label) and KEY not in shown and KEY[:12] not in shown
    assert "[redacted: openai-key]" in shown


def test_R1_a_tool_named_like_a_key_is_masked_with_its_input() -> None:
    """A label that is itself a secret is masked too, with the text after it."""
    part = Part("tool_use", "-----END RSA PRIVATE KEY-----",
                tool_name="-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA")
    shown = preview(Message(1, None, "assistant", [part]))
    assert "MIIEpAIBAAKCAQEA" not in shown and "[redacted: private-key]" in shown
    assert "END RSA" not in shown  # the key ran on into the input: masked as one
