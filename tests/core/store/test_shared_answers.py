"""Kept answers with one computation per key at a time (the path and boundary memos)."""

from __future__ import annotations

import threading

import pytest

from explorer.store.shared_answers import SharedAnswers


def test_V2_askers_of_one_key_at_once_share_its_computation() -> None:
    answers: SharedAnswers[str, int] = SharedAnswers(4)
    computed, gate = [], threading.Event()

    def compute() -> int:
        computed.append(1)
        gate.wait(5)  # the others ask while this one computes
        return 42

    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(answers.get("k", compute)))
               for _ in range(3)]
    for t in threads:
        t.start()
    threading.Event().wait(0.2)
    gate.set()
    for t in threads:
        t.join(5)
    assert got == [42, 42, 42] and computed == [1]


def test_a_failed_computation_is_not_kept_and_the_next_asker_computes() -> None:
    answers: SharedAnswers[str, int | None] = SharedAnswers(4)

    def broken() -> int | None:
        raise RuntimeError("read failed")

    with pytest.raises(RuntimeError):
        answers.get("k", broken)
    assert answers.get("k", lambda: None) is None  # None is an answer, kept like any other
    assert answers.get("k", lambda: 7) is None


def test_only_the_newest_answers_are_kept() -> None:
    answers: SharedAnswers[int, int] = SharedAnswers(2)
    for k in range(3):
        answers.get(k, lambda k=k: k * 10)  # type: ignore[misc]
    assert answers.get(0, lambda: -1) == -1, "the oldest was let go"
    assert answers.get(2, lambda: -1) == 20
