"""Comparing branches: columns from the shared ancestor, aligned by turn, word differences."""

from __future__ import annotations

from collections.abc import Iterator
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from helpers import assistant, new_store, tool_turn, user

from explorer.app.comparing.columns import (
    MAX_COLUMNS,
    CompareError,
    Comparison,
    compare,
    default_choice,
    words,
)
from explorer.app.importing.demo import load_demo
from explorer.app.tending.message_actions import branch_target
from explorer.store import Store
from explorer.store.rows import db_id


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path / "d.db")
    conv = load_demo(store)
    yield store, conv
    store.close()


def regenerated_answers(store: Store, conv: int) -> list[int]:
    [prompt] = [n.id for n in store.skeleton(conv) if n.role == "user"
                and len(store.children(n.id)) == 2
                and all(store.message(k).role == "assistant" for k in store.children(n.id))]
    return store.children(prompt)


def edited_prompts(store: Store, conv: int) -> tuple[int, int]:
    """The original prompt and its edited sibling."""
    [edited] = [n.id for n in store.skeleton(conv)
                if store.message(n.id).source_meta.get("edited_from")]
    return int(store.message(edited).source_meta["edited_from"]), edited


def marked_words(c: Comparison, row: int, col: int) -> list[str]:
    return [w.strip() for s in c.rows[row][col].marked() for w in words(s.text) if w.strip()]


def test_T2_regenerated_answers_compare_in_two_columns_after_the_shared_prompt(
    demo: tuple[Store, int],
) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    c = compare(store, [first, second])
    prompt = store.message(first).parent_id
    assert c.conversation_id == conv and c.ancestor_id == prompt
    assert [col.message_ids[0] for col in c.columns] == [first, second]
    assert all(store.message(col.message_ids[0]).parent_id == prompt for col in c.columns)
    assert c.columns[0].models != c.columns[1].models
    assert {m for col in c.columns for m in col.models} == {
        store.message(first).model, store.message(second).model}
    for col, mid in zip(c.columns, (first, second), strict=True):
        usage = store.message(mid).usage
        assert usage is not None and col.output_tokens == usage.output_tokens
        assert col.started_at == store.message(mid).created_at
        assert col.leaf_id == branch_target(store, mid)


def test_word_diff_marks_exactly_the_words_that_differ(demo: tuple[Store, int]) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    c = compare(store, [first, second], base=first)
    assert c.base == 0
    a = [w.strip() for w in words(store.message(first).text)]
    b = [w.strip() for w in words(store.message(second).text)]
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    changed = [w for op, _, _, j0, j1 in ops if op != "equal" for w in b[j0:j1] if w]
    lost = [w for op, i0, i1, _, _ in ops if op != "equal" for w in a[i0:i1] if w]
    own = [w.strip() for s in c.rows[0][1].marked() if s.kind != "delete"
           for w in words(s.text) if w.strip()]
    struck = [w.strip() for s in c.rows[0][1].marked() if s.kind == "delete"
              for w in words(s.text) if w.strip()]
    assert changed and own == changed
    assert struck == lost
    assert c.rows[0][0].marked() == [], "the base column carries no marks"
    assert c.rows[0][1].text == store.message(second).text
    assert c.rows[0][0].text == store.message(first).text


def test_edited_prompt_and_original_differ_in_the_first_row(demo: tuple[Store, int]) -> None:
    store, conv = demo
    original, edited = edited_prompts(store, conv)
    c = compare(store, [original, edited], base=original)
    assert len(c.columns) == 2
    first_row = c.rows[0]
    assert [cell.messages[0].message_id for cell in first_row] == [original, edited]
    prompt_spans = first_row[1].messages[0].spans
    assert any(s.kind in ("insert", "replace") for s in prompt_spans)
    assert not first_row[0].marked()
    assert first_row[1].messages[0].text.startswith(store.message(edited).text)


def test_columns_are_aligned_turn_by_turn_with_empty_cells(demo: tuple[Store, int]) -> None:
    store, conv = demo
    original, edited = edited_prompts(store, conv)
    c = compare(store, [original, edited])
    assert len(c.rows) == max(col.turns for col in c.columns)
    for k, row in enumerate(c.rows):
        assert len(row) == 2
        for col, cell in zip(c.columns, row, strict=True):
            assert cell.empty == (k >= col.turns)
            if not cell.empty:
                assert store.message(cell.messages[0].message_id).is_prompt or k == 0
    for j, col in enumerate(c.columns):
        shown = [m.message_id for row in c.rows for m in row[j].messages]
        assert tuple(shown) == col.message_ids
        path = [m.id for m in store.path(conv, col.leaf_id)]
        assert path[-len(shown):] == shown and path[-len(shown) - 1] == c.ancestor_id


def test_three_and_four_nodes_from_different_branches(demo: tuple[Store, int]) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    original, _ = edited_prompts(store, conv)
    [chardet] = [n.id for n in store.skeleton(conv) if "chardet" in n.preview
                 and store.message(n.id).is_prompt]
    three = compare(store, [chardet, original, second])
    assert len(three.columns) == 3 and all(len(r) == 3 for r in three.rows)
    shared = three.ancestor_id
    assert shared is not None
    for col in three.columns:
        path = [m.id for m in store.path(conv, col.leaf_id)]
        assert path[path.index(shared) + 1] == col.message_ids[0]
    four = compare(store, [first, second, original, chardet])
    assert len(four.columns) == MAX_COLUMNS and four.ancestor_id == shared
    assert [col.leaf_id for col in four.columns] == [first, second, branch_target(
        store, original), branch_target(store, chardet)]


@pytest.mark.parametrize("pick", ["one", "five", "twice", "missing", "ancestor"])
def test_bad_choices_give_a_clear_error(demo: tuple[Store, int], pick: str) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    ids = {"one": [first], "five": [first, second, 1, 2, 3], "twice": [first, first],
           "missing": [first, 99_999], "ancestor": [store.message(first).parent_id, second]}
    expected = {"one": "at least 2", "five": "at most 4", "twice": "more than once",
                "missing": "no message 99999", "ancestor": "different branches"}
    with pytest.raises(CompareError, match=expected[pick]):
        compare(store, ids[pick])  # type: ignore[arg-type]


def test_messages_of_different_conversations_are_refused(demo: tuple[Store, int]) -> None:
    store, conv = demo
    [fork] = [c.id for c in store.conversations() if c.forked_from_conversation_id == conv]
    first, _ = regenerated_answers(store, conv)
    other = store.path(fork)[-1].id
    with pytest.raises(CompareError, match=r"only branches of one conversation"):
        compare(store, [first, db_id(other)])
    with pytest.raises(CompareError, match=f"not {fork}"):
        compare(store, regenerated_answers(store, conv), conv_id=fork)


def test_tool_turns_and_a_cut_turn_stay_in_their_rows(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("tools")
        ids = s.append_turn(conv, tool_turn(1))
        answer = s.append_turn(conv, [assistant("the plain answer")], parent_id=ids[2])
        s.append_turn(conv, [user("and then?"), assistant("more")], parent_id=answer[0])
        c = compare(s, [ids[3], answer[0]])
        assert c.ancestor_id == ids[2]
        assert [[cell.empty for cell in row] for row in c.rows] == [[False, False],
                                                                   [True, False]]
        assert c.rows[1][1].marked() == [], "a turn with nothing beside it is not marked"
        assert c.base == 1, "the column holding the tip is the base"
        assert c.rows[0][0].marked() and not c.rows[0][1].marked()
        assert c.columns[1].turns == 2 and c.columns[0].output_tokens == 20
        assert c.columns[1].output_tokens == 40
        assert c.rows[1][1].messages[0].heading.startswith("user")


def test_separate_roots_compare_from_the_start(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("roots")
        a = s.append_turn(conv, [user("alpha beta"), assistant("one")])
        root = s.edit_prompt(conv, a[0], "alpha gamma")
        s.append_turn(conv, [assistant("two")])
        assert s.message(root).parent_id is None
        c = compare(s, [a[0], root], base=a[0])
        assert c.ancestor_id is None
        assert "separate root" in c.columns[0].description
        assert marked_words(c, 0, 1) == ["beta", "gamma", "one", "two"]
        assert [s.kind for s in c.rows[0][1].marked()] == ["delete", "replace"] * 2


def test_default_choice_keeps_the_newest() -> None:
    assert default_choice([5, 9, 2, 7, 11, 3]) == [5, 9, 7, 11]
    assert default_choice([4, 8]) == [4, 8]


def test_default_choice_keeps_the_clicked_and_the_active_sibling() -> None:
    seven = [1, 2, 3, 4, 5, 6, 7]
    assert default_choice(seven, clicked=2, active=1) == [1, 2, 6, 7]
    assert default_choice(seven, clicked=2, active=1, limit=3) == [1, 2, 7]
    assert default_choice(seven, clicked=7, active=None) == [4, 5, 6, 7]


def test_messages_pair_by_role_so_a_missing_answer_is_never_struck_into_a_prompt(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("edit without an answer")
        [prompt, answer] = s.append_turn(conv, [user("tell me a joke"),
                                                assistant("why did the atom split")])
        edited = s.edit_prompt(conv, prompt, "tell me a pun")
        c = compare(s, [prompt, edited], base=prompt)
        [only] = c.rows[0][1].messages
        assert only.message_id == edited
        assert [(sp.kind, sp.text.strip()) for sp in only.spans] == [
            ("equal", "tell me a"), ("delete", "joke"), ("replace", "pun")]
        assert answer in c.columns[0].message_ids and c.columns[1].changes == 2
