"""V2: the tended view reads the tree's shape (every message's parent) only when something
needs it: opening a conversation without archived branches or edited prompts reads no
parent of its messages, and what the view says is the same either way."""

from __future__ import annotations

from pathlib import Path

from helpers import statements_run
from tending_helpers import grow, ids_of

from explorer.app.tending import tree_actions as ta
from explorer.app.views.read import path_notes, tree_marks
from explorer.app.views.tree_view import build_view, tended_view
from explorer.store import Store
from explorer.tree.tending import children_of

SHAPE = [0, 1, 2, 1, 4, 5, 3, 7, 8, 6, 10, 0, 12, 13, 11, 15, 16]


def _reads_of_the_shape(store: Store, run: object) -> int:
    assert callable(run)
    with statements_run(store.reader) as statements:
        run()
    return sum("SELECT id, parent_id FROM messages" in s for s in statements)


def test_V2_a_view_without_archives_or_edits_reads_no_parents(tmp_path: Path) -> None:
    store = Store(tmp_path / "view.db")
    try:
        conv = grow(store, SHAPE, 9)
        views: list[object] = []
        assert _reads_of_the_shape(store, lambda: views.append(tended_view(store, conv))) == 0
        assert _reads_of_the_shape(store, lambda: tree_marks(store, conv)) == 0
        view = tended_view(store, conv)
        assert view.hidden == set() and view.markers == [] and view.stale == set()
        # Asked for, the shape is read once and is the stored one.
        assert _reads_of_the_shape(store, lambda: view.children) == 1
        assert view.children == children_of(store.parents(conv))
        assert _reads_of_the_shape(store, lambda: view.children) == 0
    finally:
        store.close()


def test_V2_an_archived_branch_folds_as_the_eager_view_folds_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "view.db")
    try:
        conv = grow(store, SHAPE, 9)
        active = set(store.path_ids(store.conversation(conv).tip_id or 0))
        off_path = [m for m in ids_of(store, conv)[1:] if m not in active]
        ta.archive(store, off_path[0])
        lazy = tended_view(store, conv)
        eager = build_view(conv, dict(store.parents(conv)), store.marks(conv),
                           store.tombstones(conv))
        assert lazy.hidden == eager.hidden and lazy.hidden
        assert lazy.markers == eager.markers and lazy.markers
        assert lazy.children == eager.children
        said = [n for notes in path_notes(store, conv).values() for n in notes]
        assert any("archived branch" in n for n in said) or lazy.markers[0].at not in active
    finally:
        store.close()


def test_V2_fork_marks_are_read_without_counting_every_conversations_messages(
        tmp_path: Path) -> None:
    """The tree's marks and the graph's name the messages other conversations were forked
    at; finding them must not count the messages of every conversation in the file (a scan
    of all of them: a second on a file of a million messages)."""
    store = Store(tmp_path / "forks.db")
    try:
        conv = grow(store, SHAPE, 9)
        other = grow(store, SHAPE[:5], 2)
        at = ids_of(store, conv)[4]
        fork = store.fork(conv, at)
        with statements_run(store.reader) as statements:
            marks = tree_marks(store, conv)
        assert f"forked to #{fork}" in marks.notes[at]
        assert not [s for s in statements if "GROUP BY conversation_id" in s]
        assert tree_marks(store, other).notes.get(at) is None
    finally:
        store.close()


def test_V2_merges_and_edits_come_from_one_scan_and_read_as_each_alone(
        tmp_path: Path) -> None:
    from helpers import assistant, chat_turn, tool_turn, user

    from explorer.app.tending import merge

    store = Store(tmp_path / "scan.db")
    try:
        conv = store.create_conversation("c")
        first = store.append_turn(conv, chat_turn(1))
        side = store.append_turn(conv, tool_turn(2, tool="Grep", error=True))
        side += store.append_turn(conv, [user("so what now?"), assistant("encoding")])
        store.branch(conv, first[-1])
        main = first + store.append_turn(conv, chat_turn(3))
        merge.merge(store, side[-1], main[-1])
        edited = store.edit_prompt(conv, main[2], "say it again, shorter")
        with statements_run(store.reader) as statements:
            view = tended_view(store, conv)
        assert sum("messages_meta_keys" in _plan(store, s) for s in statements
                   if "source_meta" in s) == 1  # one read, of the marked messages only
        assert view.merges == store.merge_links(conv) and view.merges
        assert store.edits(conv) == {edited: main[2]}
        from explorer.tree.tending import stale_answers

        roles = dict.fromkeys(store.ids_with_role(conv, "assistant"), "assistant")
        assert view.stale == stale_answers(store.parents(conv), roles, store.edits(conv),
                                           store.replays(conv))
        eager = build_view(conv, dict(store.parents(conv)), store.marks(conv),
                           store.tombstones(conv))
        assert view.markers == eager.markers
    finally:
        store.close()


def _plan(store: Store, sql: str) -> str:
    """How SQLite runs ``sql`` as it was traced (its parameters already in its text)."""
    return " ".join(r[3] for r in store.reader.execute(f"EXPLAIN QUERY PLAN {sql}"))
