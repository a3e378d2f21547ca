"""Cards are built a few per event-loop turn, never a screenful in one go (V2).

A relayout may pass over the window several times while heights settle; those
passes share one time budget, and each turn builds at least one real card. With a
budget that is always spent, the trace of the turns shows exactly that: one card a
turn, and the window still fills.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assistant, user
from pytestqt.qtbot import QtBot
from transcript_helpers import load, settle

from explorer.store import Store
from explorer.ui.transcript import TranscriptView, stack
from explorer.ui.transcript.cards import MessageCard

MARKDOWN = "\n".join(f"- item {i} with **bold** and `code`" for i in range(12))


@pytest.fixture
def heavy_store(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path / "heavy.db")
    conv = store.create_conversation("heavy cards")
    store.append_turn(conv, [m for n in range(60)
                             for m in (user(f"prompt {n}"), assistant(MARKDOWN))])
    yield store, conv
    store.close()


def shown_view(qtbot: QtBot, store: Store) -> TranscriptView:
    """A transcript 700 × 900 on screen, nothing loaded yet."""
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(700, 900)
    view.show()
    return view


def loaded_view(qtbot: QtBot, store: Store, conv: int) -> TranscriptView:
    view = shown_view(qtbot, store)
    load(qtbot, view, conv)
    return view


def traced_budgets(monkeypatch: pytest.MonkeyPatch) -> list[stack.Budget]:
    budgets: list[stack.Budget] = []
    made = stack.Budget.for_turn

    def recording(scrolling: bool = False) -> stack.Budget:
        budget = made(scrolling)
        budgets.append(budget)
        return budget

    monkeypatch.setattr(stack.Budget, "for_turn", staticmethod(recording))
    return budgets


def test_V2_a_spent_budget_still_builds_one_card_a_turn_until_the_window_is_full(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, conv = heavy_store
    monkeypatch.setattr(stack, "BUILD_BUDGET_S", -1.0)  # spent as soon as one card is built
    budgets = traced_budgets(monkeypatch)
    view = loaded_view(qtbot, store, conv)
    assert max(b.built for b in budgets) == 1
    height = view.viewport().height()
    on_screen = [c for c in view.live_cards() if c.geometry().top() < height]
    assert len(on_screen) > 4 and all(isinstance(c, MessageCard) for c in on_screen)
    assert sum(1 for b in budgets if b.built) >= view.stack.built_real  # one turn per card


def test_V2_the_passes_of_one_relayout_share_its_budget(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, conv = heavy_store
    budgets = traced_budgets(monkeypatch)
    view = loaded_view(qtbot, store, conv)
    # Every card built was counted against the one budget of the turn that built it.
    assert view.stack.built_real > 0
    assert sum(b.built for b in budgets) == view.stack.built_real


def test_V2_the_tip_shows_its_message_as_soon_as_the_rows_are_in(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The skeleton's job also reads the content of the path's last rows, and the card
    scrolled to is built first: no second read, no turn spent on other cards."""
    store, conv = heavy_store
    monkeypatch.setattr(stack, "BUILD_BUDGET_S", -1.0)  # one real card a turn
    tip = store.conversation(conv).tip_id
    assert tip is not None
    view = shown_view(qtbot, store)
    at_rows: list[object] = []
    view.loaded.connect(lambda _c: at_rows.append(view.card_for(tip)))
    view.load_path(conv)
    view.scroll_to(tip)
    qtbot.waitUntil(lambda: bool(at_rows), timeout=10_000)
    assert isinstance(at_rows[0], MessageCard) and at_rows[0].mid == tip
    assert view.content.held >= 1
    load(qtbot, view, conv)  # settle before the view goes


def test_V2_a_scroll_step_paints_placeholders_and_the_cards_follow(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page-sized step builds at most one real card in its own turn (the rest of the rows
    it exposed are placeholders painted at once); the next turns swap in the cards."""
    store, conv = heavy_store
    view = loaded_view(qtbot, store, conv)
    monkeypatch.setattr(stack, "SCROLL_BUDGET_S", -1.0)  # spent as soon as one card is built
    bar = view.verticalScrollBar()
    built = view.stack.built_real
    assert bar.maximum() > 5 * view.viewport().height() and bar.value() == 0
    bar.setValue(bar.maximum() // 2)  # a jump: every row it exposes is new
    assert view.stack.built_real - built <= 1, "the step itself built at most one card"
    shown = on_screen(view)
    assert any(not isinstance(c, MessageCard) for c in shown), "placeholders stood in"
    settle(qtbot, view)
    shown = on_screen(view)
    assert shown and all(isinstance(c, MessageCard) for c in shown)


def on_screen(view: TranscriptView) -> list[object]:
    height = view.viewport().height()
    return [c for c in view.live_cards()
            if c.geometry().bottom() >= 0 and c.geometry().top() < height]


def test_V2_a_scroll_turn_builds_only_rows_on_screen_and_the_margin_follows(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scroll step's own turn builds what it exposed, however much time it has left; the
    rows beyond the screen (which the next step will expose) are built on the next turns."""
    store, conv = heavy_store
    view = loaded_view(qtbot, store, conv)
    monkeypatch.setattr(stack, "SCROLL_BUDGET_S", 10.0)
    monkeypatch.setattr(stack, "BUILD_BUDGET_S", 10.0)
    qtbot.wait(round(3 * stack.FRAME_S * 1000) + 10)  # a frame of its own
    view.stack.clear()
    view._relayout(scrolling=True)
    on_screen = set(view._window(0))
    assert set(view.stack.cards) == on_screen, "the rows on screen, and only they"
    assert all(isinstance(view.stack.cards[i], MessageCard) for i in on_screen)
    settle(qtbot, view)
    assert set(view._window(1.0)) <= set(view.stack.cards), "the margin followed"


def test_V2_passes_in_the_same_frame_build_cards_once_and_the_rest_follow(
    qtbot: QtBot, heavy_store: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several events handled in one pass of the loop (rows arriving, a resize) each lay
    the view out; only the first builds cards, the others put placeholders on screen."""
    store, conv = heavy_store
    view = loaded_view(qtbot, store, conv)
    monkeypatch.setattr(stack, "BUILD_BUDGET_S", 10.0)
    monkeypatch.setattr(stack, "FRAME_S", 0.5)  # "at once", however loaded the machine
    qtbot.wait(1000)
    view.stack.clear()
    view._relayout()
    assert all(isinstance(c, MessageCard) for c in view.stack.cards.values())
    view.stack.clear()
    view._relayout()  # at once: the same frame
    on_screen = [view.stack.cards[i] for i in view._window(0)]
    built = sum(isinstance(c, MessageCard) for c in on_screen)
    assert len(on_screen) > 2 and built <= 1, "placeholders, but for the row scrolled to"
    settle(qtbot, view)
    assert all(isinstance(view.stack.cards[i], MessageCard) for i in view._window(0))
