"""V2: an import or a sync runs with the cycle collector paused, and puts it back after.

Collections triggered while a huge session's light pass grows the heap walked it again
and again: 2.3 s of a 13.7 s import of a 100,000-message session, 4 s of a first sync of
2,000 sessions."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing import collector
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.collector import collector_paused
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.store import Store


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:  # as it was before, whatever the test left
        gc.enable()
    else:
        gc.disable()


def test_V2_nested_pauses_share_one_and_the_last_turns_it_back_on(collector_on: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the outer import still runs"
    assert gc.isenabled()


class _Ring:
    """An object in a cycle of its own: freed only by a collection."""

    def __init__(self) -> None:
        self.me = self


def test_V2_the_last_pause_to_end_collects_at_once(
        collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the pause let wait is collected as it ends (with the free lists, whose spare
    objects kept a huge import's emptied arenas: 60 MB after 100,000 messages)."""
    monkeypatch.setattr(collector, "collect_at_end", True)
    with collector_paused():
        with collector_paused():
            ring = weakref.ref(_Ring())
        assert ring() is not None, "the outer import still runs: nothing is collected"
    assert ring() is None


def test_V2_a_window_keeps_its_collections_to_itself(
        collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window decides when a full collection may walk its heap: the end of an import
    on one of its threads does not collect for it."""
    monkeypatch.setattr(collector, "collect_at_end", False)
    with collector_paused():
        ring = weakref.ref(_Ring())
    assert gc.isenabled() and ring() is not None
    gc.collect()
    assert ring() is None


def test_V2_a_collector_that_was_off_stays_off(collector_on: None) -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled(), "the pause does not turn on what the program turned off"


def test_V2_the_pause_ends_when_the_import_fails(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a failed import")
    assert gc.isenabled()


def _sessions(root: Path) -> Path:
    from benchmarks.scale_data import many_sessions

    folder = root / "home" / ".claude" / "projects" / "-home-dev-app"
    many_sessions(folder, 3, 6, seed=4)
    return folder


def test_V2_an_import_runs_with_the_collector_paused(tmp_path: Path, collector_on: None) -> None:
    folder = _sessions(tmp_path)
    seen: set[bool] = set()
    with Store(tmp_path / "x.db") as store:
        report = import_paths(store, [folder], progress=lambda p: seen.add(gc.isenabled()))
    assert len(report.conversations) == 3
    assert seen == {False}
    assert gc.isenabled()


def test_V2_a_sync_runs_with_the_collector_paused(tmp_path: Path, collector_on: None) -> None:
    _sessions(tmp_path)
    seen: set[bool] = set()
    with Store(tmp_path / "x.db") as store:
        report = sync_sources(store, Environment(tmp_path / "home", {}), {"claude-code"},
                              progress=lambda p: seen.add(gc.isenabled()))
    assert report.errors == [] and seen == {False}
    assert gc.isenabled()


def test_V2_a_sync_of_one_file_leaves_the_collector_alone(
        tmp_path: Path, collector_on: None) -> None:
    """A followed session is polled twice a second beside a window: one file is too
    little work to take the process's collector away."""
    from explorer.app.importing.sync import sync_units
    from explorer.app.importing.units import Unit

    folder = _sessions(tmp_path)
    seen: set[bool] = set()
    with Store(tmp_path / "x.db") as store:
        report = sync_units(store, [Unit(next(folder.glob("*.jsonl")), "claude_code")],
                            progress=lambda p: seen.add(gc.isenabled()))
    assert report.errors == [] and report.added_messages > 0
    assert seen == {True}
