"""A sync of many sessions tells each kind of repair or skipped record once, with how many
conversations it concerns, instead of a line per session (66,000 lines at 25,000)."""

from __future__ import annotations

from explorer.app.importing.note_summary import summarized


def lines(count: int) -> list[str]:
    out = []
    for conv in range(1, count + 1):
        out.append(f"conversation {conv}: not messages: progress ×{conv % 3 + 1}")
        if conv % 2:
            out.append(f"conversation {conv}: repaired/skipped: {conv % 4 + 1} parallel tool "
                       "result(s) chained one after another")
    out.append("conversation 7: ends mid-turn: the last clean boundary is marked")
    return out


def test_a_few_notes_are_told_as_they_are() -> None:
    few = lines(4)
    assert summarized(few) == few


def test_many_notes_are_told_once_per_kind_with_their_counts() -> None:
    many = lines(100)
    told = summarized(many)
    progress = sum(conv % 3 + 1 for conv in range(1, 101))
    assert told == [
        f"not messages: progress ×{progress} in 100 conversations",
        "50 conversations, e.g. conversation 1: repaired/skipped: 2 parallel tool result(s) "
        "chained one after another",
        "conversation 7: ends mid-turn: the last clean boundary is marked",
    ]


def test_a_line_that_names_no_conversation_is_kept_as_it_is() -> None:
    many = [*lines(40), "a folder could not be read"]
    assert summarized(many)[0] == "a folder could not be read"
