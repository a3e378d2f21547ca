"""A big conversation's turn graph and context figure, kept in the file, open it at once the
next time (V2), equal to what deriving them again gives, and only while it is unchanged.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.app.context.figure import ContextFigure
from explorer.app.graph import turn_process, view_children
from explorer.app.graph.turn_build import packed_parts
from explorer.app.graph.turn_process import unpack_built
from explorer.app.kept import figure as kept_figure
from explorer.app.kept import paths as kept_paths
from explorer.app.kept import prepared as prepared_views
from explorer.app.kept import turns as kept_turns
from explorer.app.kept.codec import Refused, code_key, decode, encode
from explorer.app.targets import build_target
from explorer.cli.main import main
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.store.reads_path import PathColumns, columns_of
from tests.helpers import chat_turn, settled_conversation, statements_run

TARGET = build_target()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.setattr(kept_figure, "KEPT_FROM", 10)
    with Store(tmp_path / "k.db") as s:
        yield s


def _conversation(store: Store) -> int:
    return settled_conversation(store, 8, "kept")


def test_V2_a_kept_figure_is_the_costed_one_and_costs_nothing(store: Store) -> None:
    conv = _conversation(store)
    first = ContextFigure(store)
    costed = first.usage(conv, TARGET)
    assert first.costed > 0
    store.writes_done()
    again = ContextFigure(store)  # as the next start of the window makes it
    kept = again.usage(conv, TARGET)
    assert again.costed == 0 and again.length == first.length
    assert kept == costed


def test_V2_a_kept_figure_is_costed_again_for_another_target_or_a_change(
        store: Store) -> None:
    conv = _conversation(store)
    ContextFigure(store).usage(conv, TARGET)
    store.writes_done()
    other = Target(TARGET.kind, TARGET.model, TARGET.window // 2)
    fig = ContextFigure(store)
    assert fig.usage(conv, other).window == other.window and fig.costed > 0
    store.append_turn(conv, chat_turn(99))
    fig = ContextFigure(store)
    grown = fig.usage(conv, TARGET)
    assert fig.costed > 0
    store.writes_done()
    fresh = ContextFigure(store)
    fresh.usage(conv, TARGET)  # kept by the one before: the same figure
    assert fresh.costed == 0 and fresh.usage(conv, TARGET) == grown


def test_V2_a_small_context_is_not_kept(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_figure, "KEPT_FROM", 10_000)
    conv = _conversation(store)
    ContextFigure(store).usage(conv, TARGET)
    store.writes_done()
    fig = ContextFigure(store)
    fig.usage(conv, TARGET)
    assert fig.costed > 0


def _no_child(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the kept graph was not used")


def test_V2_a_kept_turn_graph_is_the_built_one(store: Store,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    conv = _conversation(store)
    assert not kept_turns.is_kept(store, conv)
    kept_turns.keep_now(store, conv)
    store.writes_done()
    assert kept_turns.is_kept(store, conv)
    monkeypatch.setattr(kept_turns, "packed_in_child", _no_child)
    kept = kept_turns.kept_or_built(store, conv)
    built = unpack_built(packed_parts(store, conv))
    assert kept is not None
    assert list(kept.model.ids) == list(built.model.ids)
    assert list(kept.model.xs) == list(built.model.xs)
    assert kept.view.marks == built.view.marks
    assert kept.collected.cells == built.collected.cells
    store.rename(conv, "changed")  # the title is drawn: no longer the kept one
    assert not kept_turns.is_kept(store, conv)


def test_V2_a_broken_kept_graph_is_built_again_and_said(
        store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    conv = _conversation(store)
    at = store.revision(conv)
    assert at is not None
    store.keep_view(conv, kept_turns.KIND, at, code_key(), b"not a pickle")
    store.writes_done()
    def child(db: Path, cid: int, *args: Any, keep_at: int | None = None) -> Any:
        packed = packed_parts(store, cid)  # what the child does, in this process
        if keep_at is not None:
            assert kept_turns.keep_in_file(db, cid, keep_at, packed)
        return packed

    monkeypatch.setattr(kept_turns, "packed_in_child", child)
    with caplog.at_level(logging.WARNING):
        built = kept_turns.kept_or_built(store, conv)
    assert built is not None and len(built.model.ids) > 0
    assert "unreadable" in caplog.text  # what the build made replaced the broken entry
    assert kept_turns.is_kept(store, conv)
    monkeypatch.setattr(kept_turns, "packed_in_child", _no_child)
    assert kept_turns.kept_or_built(store, conv) is not None


class _Runs:
    """A pickle that would run a command when loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_V2_a_kept_view_never_loads_anything_but_plain_records(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(Refused):
        decode(pickle.dumps({"tree": _Runs(marker)}))
    assert not marker.exists()
    with pytest.raises(Refused):
        decode(pickle.dumps(Store))  # a class of the project, but not a plain record
    packed = {"a": [1, 2.5, "x", b"y", (None, True)], "s": {1, 2}}
    assert decode(encode(packed)) == packed


def test_V2_convo_import_prepares_the_views_of_a_big_conversation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    monkeypatch.setattr(kept_figure, "KEPT_FROM", 10)
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    source, db = tmp_path / "demo.db", tmp_path / "big.db"
    assert main(["--db", str(source), "demo"]) == 0
    exported = tmp_path / "demo.jsonl"
    assert main(["--db", str(source), "export", "1", "--format", "native",
                 "-o", str(exported)]) == 0
    assert main(["--db", str(db), "import", str(exported)]) == 0
    capsys.readouterr()
    with Store(db) as store:
        conv = store.conversations()[0].id
        assert kept_turns.is_kept(store, conv)
        fig = ContextFigure(store)
        fig.usage(conv, build_target())
        assert fig.costed == 0  # the import costed it already
        tip = store.conversation(conv).tip_id
        at = store.revision(conv)
        assert tip is not None and at is not None
        assert store.kept_view(conv, kept_paths.KIND, at, f"{code_key()}:{tip}") is not None


def _columns_equal(a: PathColumns, b: PathColumns) -> None:
    assert list(a) == list(b)
    assert a.role_names == b.role_names


def test_V2_a_kept_path_is_the_read_one_and_reads_no_message(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    conv = _conversation(store)
    tip = store.conversation(conv).tip_id
    assert tip is not None
    read = kept_paths.path_columns(store, conv, tip, keep=True)
    store.writes_done()
    _columns_equal(read, columns_of(store.reader, store.path_ids(tip)))
    with statements_run(store.reader) as seen:
        kept = kept_paths.path_columns(store, conv, tip)
    assert not [s for s in seen if "messages m" in s or "parts p" in s]
    _columns_equal(kept, read)
    # A path looked at on the way (another tip) is read, and does not replace the kept one.
    earlier = store.path_ids(tip)[-5]
    other = kept_paths.path_columns(store, conv, earlier)
    store.writes_done()
    assert len(other) == len(read) - 4
    with statements_run(store.reader) as seen:
        kept_paths.path_columns(store, conv, tip)
    assert not [s for s in seen if "parts p" in s]
    store.append_turn(conv, chat_turn(50))  # changed: read again
    grown_tip = store.conversation(conv).tip_id
    assert grown_tip is not None
    grown = kept_paths.path_columns(store, conv, grown_tip, keep=True)
    assert len(grown) == len(read) + 2


def test_V2_a_broken_kept_path_is_read_again_and_a_short_one_never_looked_for(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = _conversation(store)
    tip = store.conversation(conv).tip_id
    at = store.revision(conv)
    assert tip is not None and at is not None
    with statements_run(store.reader) as seen:
        read = kept_paths.path_columns(store, conv, tip, keep=True)  # under KEPT_FROM
    store.writes_done()
    assert not [s for s in seen if "view_cache" in s]
    assert store.kept_view(conv, kept_paths.KIND, at, f"{code_key()}:{tip}") is None
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    packed = kept_paths.pack(read)
    packed["chars"] = packed["chars"][:-8]  # a column cut short
    store.keep_view(conv, kept_paths.KIND, at, f"{code_key()}:{tip}", encode(packed))
    store.writes_done()
    _columns_equal(kept_paths.path_columns(store, conv, tip, keep=True), read)
    store.writes_done()  # the one read again replaced the broken entry
    kept = store.kept_view(conv, kept_paths.KIND, at, f"{code_key()}:{tip}")
    assert kept is not None
    _columns_equal(kept_paths.unpack(decode(kept)), read)


def test_V2_the_code_key_moves_with_the_source_and_stands_on_the_program_when_frozen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer
    from explorer.app.kept import codec as view_codec

    package = tmp_path / "explorer"
    package.mkdir()
    (package / "__init__.py").write_text("x = 1\n")
    monkeypatch.setattr(explorer, "__file__", str(package / "__init__.py"))

    def key() -> str:
        view_codec.code_key.cache_clear()
        return view_codec.code_key()

    try:
        first = key()
        (package / "turns.py").write_text("y = 2\n")
        assert key() != first  # any change to the code
        (package / "__init__.py").unlink()
        (package / "turns.py").unlink()
        (package / "__init__.pyc").write_bytes(b"frozen")
        program = tmp_path / "convo"
        program.write_bytes(b"one build")
        monkeypatch.setattr(view_codec.sys, "executable", str(program))
        frozen = key()
        program.write_bytes(b"another build of the same version")
        assert key() != frozen
    finally:
        view_codec.code_key.cache_clear()


def test_V2_a_graph_started_before_the_first_frame_is_taken_over_not_built_twice(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_turns, "CHILD_MIN_MESSAGES", 10)
    conv = _conversation(store)
    assert kept_turns.start_early_if_cold(store, conv, yield_cores=False)
    early = list(turn_process._early)
    assert len(early) == 1

    def no_second(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a second child was started")

    monkeypatch.setattr(turn_process, "_spawn", no_second)
    built = kept_turns.kept_or_built(store, conv)
    assert built is not None and not turn_process._early
    assert list(built.model.ids) == list(unpack_built(packed_parts(store, conv)).model.ids)
    assert early[0].running[0].wait(timeout=10) == 0  # it kept what it built, and ended
    assert kept_turns.is_kept(store, conv)
    assert not kept_turns.start_early_if_cold(store, conv)  # kept: nothing to start


def test_V2_an_early_graph_nobody_asks_for_is_ended(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_turns, "CHILD_MIN_MESSAGES", 10)
    conv, other = _conversation(store), _conversation(store)
    small = store.create_conversation("small")
    assert not kept_turns.start_early_if_cold(store, small)  # too small for a child
    assert kept_turns.start_early_if_cold(store, conv)
    first = turn_process._early[0].running[0]
    built = kept_turns.kept_or_built(store, other)  # the window opened another one
    assert built is not None and first.wait(timeout=10) != 0  # ended, not waited for
    assert kept_turns.start_early_if_cold(store, conv)
    second = turn_process._early[0].running[0]
    turn_process.drop_early()  # the window closes
    assert second.wait(timeout=10) != 0 and not turn_process._early


def test_V2_an_imports_turn_graph_is_kept_by_its_child_and_built_once(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """``convo import`` builds the turn graph in a child process while it costs the figure:
    the graph is in the file when the child answers, so this process never builds it a
    second time (it did when the child sent the graph first and kept it after)."""
    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    conv = _conversation(store)
    store.writes_done()
    monkeypatch.setattr(kept_turns, "packed_parts", _no_child)  # a build in this process
    assert prepared_views.prepare_big(store, [conv], TARGET, turns_beside=True) == [conv]
    assert kept_turns.is_kept(store, conv)
    monkeypatch.setattr(kept_turns, "packed_in_child", _no_child)
    kept = kept_turns.kept_or_built(store, conv)
    assert kept is not None
    assert list(kept.model.ids) == list(unpack_built(packed_parts(store, conv)).model.ids)


def test_V2_a_turn_graph_its_child_could_not_keep_is_built_here(
        store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    conv = _conversation(store)
    store.writes_done()
    at = store.revision(conv)
    assert at is not None
    with caplog.at_level(logging.WARNING):
        assert turn_process.kept_in_child(store.db_path, conv + 99, at) is False  # none such
    said = [r.getMessage() for r in caplog.records if "was not kept" in r.getMessage()]
    assert said and "Traceback (most recent call last)" in said[0]  # the child's, in full
    monkeypatch.setattr(turn_process, "_start", lambda request: None)  # no process starts
    assert prepared_views.prepare_big(store, [conv], TARGET, turns_beside=True) == [conv]
    assert kept_turns.is_kept(store, conv)


def test_V2_a_window_imports_views_build_the_turn_graph_beside_the_figure(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process that prepares a window's import's views (``turn_child.prepare``) has the
    turn graph built by one of its own while it costs the figure and the path, as
    ``convo import`` does: one after the other they took 2 s on 100,000 messages."""
    from explorer.app.graph import turn_child

    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    conv = _conversation(store)
    store.writes_done()
    monkeypatch.setattr(kept_turns, "packed_parts", _no_child)  # a build in this process
    assert turn_child.prepare(str(store.db_path), [conv]) == [conv]
    assert kept_turns.is_kept(store, conv)


def test_V2_a_spare_child_started_while_reading_keeps_the_imports_turn_graph(
        store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``convo import`` of big files starts the turn graph's child while it reads (its
    modules imported on the idle core): the graph prepared after the write is kept by that
    very child, and a spare nothing asked for is ended when the import ends."""
    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    monkeypatch.setattr(prepared_views, "SPARE_BYTES", 100)
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    big.write_bytes(b"{}\n" * 40)
    small.write_bytes(b"{}\n")
    with prepared_views.child_ready([small]):
        assert not view_children._spare  # too small to hold a big conversation
    with prepared_views.child_ready([big]):
        (spare,) = [proc for proc, _pipe in view_children._spare]
    assert spare.wait(timeout=10) != 0 and not view_children._spare  # unused: ended
    folder = tmp_path / "sessions"
    (folder / ".hidden").mkdir(parents=True)
    (folder / ".hidden" / "big.jsonl").write_bytes(b"{}\n" * 40)  # never read: not counted
    (folder / "small.jsonl").write_bytes(b"{}\n")
    assert not prepared_views._reach([folder, small], 100)
    (folder / "sub").mkdir()
    (folder / "sub" / "big.jsonl").write_bytes(b"{}\n" * 40)
    assert prepared_views._reach([folder], 100)

    conv = _conversation(store)
    store.writes_done()
    with prepared_views.child_ready([big]):
        (spare,) = [proc for proc, _pipe in view_children._spare]
        monkeypatch.setattr(turn_process, "started", lambda: None)  # no other could start
        assert prepared_views.prepare_big(store, [conv], TARGET, turns_beside=True) == [conv]
        assert not view_children._spare
    assert spare.wait(timeout=10) == 0  # it kept the graph, and ended by itself
    assert kept_turns.is_kept(store, conv)
