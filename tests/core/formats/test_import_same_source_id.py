"""Two files that reuse one source id merge only when they hold the same conversation;
a merge keeps the newest title and the report names the stored one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing.run import import_paths
from explorer.store import Store


def _export(path: Path, title: str, turns: list[tuple[str, str]], start: float = 1.7e9) -> Path:
    """A ChatGPT export holding one conversation ``conv-001`` (ids m0, m1, ...)."""
    mapping: dict[str, object] = {}
    parent = None
    for n, (role, text) in enumerate(turns):
        key = f"m{n}"
        mapping[key] = {"id": key, "parent": parent, "children": [],
                        "message": {"id": key, "author": {"role": role},
                                    "create_time": start + n,
                                    "content": {"content_type": "text", "parts": [text]}}}
        if parent is not None:
            mapping[parent]["children"].append(key)  # type: ignore[index]
        parent = key
    conv = {"title": title, "id": "conv-001", "create_time": start, "mapping": mapping,
            "current_node": parent}
    path.write_text(json.dumps([conv]), encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "explorer.db")
    yield s
    s.close()


def test_same_source_id_with_different_content_is_a_new_conversation(
    tmp_path: Path, store: Store
) -> None:
    a = _export(tmp_path / "a.json", "Sourdough starter",
                [("user", "How do I feed a starter?"), ("assistant", "Flour and water daily.")])
    b = _export(tmp_path / "b.json", "Tax forms",
                [("user", "Which form for freelancers?"), ("assistant", "Schedule C.")])
    first = import_paths(store, [a])
    second = import_paths(store, [b])
    titles = sorted(c.title for c in store.conversations())
    assert titles == ["Sourdough starter", "Tax forms"]
    (outcome,) = second.conversations
    assert outcome.conversation_id != first.conversations[0].conversation_id
    assert outcome.title == "Tax forms" and outcome.added == 2
    assert any("already uses source id 'conv-001'" in n for n in outcome.notes)
    again = import_paths(store, [b])  # the second one re-imported merges with itself
    assert again.conversations[0].conversation_id == outcome.conversation_id
    assert again.added_messages == 0 and len(store.conversations()) == 2


def test_same_conversation_merges_and_keeps_the_newest_title(tmp_path: Path,
                                                             store: Store) -> None:
    turns = [("user", "Plan a trip to Bergen"), ("assistant", "Take the train.")]
    old = _export(tmp_path / "old.json", "Trip", turns)
    new = _export(tmp_path / "new.json", "Bergen by train",
                  [*turns, ("user", "And back?"), ("assistant", "The night train.")])
    import_paths(store, [old])
    report = import_paths(store, [new])
    (conv,) = store.conversations()
    (outcome,) = report.conversations
    assert conv.title == outcome.title == "Bergen by train"
    assert outcome.added == 2 and outcome.already_present == 2
    import_paths(store, [old])  # the older file again changes nothing
    (conv,) = store.conversations()
    assert conv.title == "Bergen by train"


def test_a_title_given_here_survives_reimporting_the_same_file(tmp_path: Path,
                                                               store: Store) -> None:
    path = _export(tmp_path / "x.json", "Trip", [("user", "hi"), ("assistant", "hello")])
    (outcome,) = import_paths(store, [path]).conversations
    store.rename(outcome.conversation_id, "My own name")
    again = import_paths(store, [path])
    assert store.conversation(outcome.conversation_id).title == "My own name"
    assert again.conversations[0].title == "My own name"
