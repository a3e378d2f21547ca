"""Compare on real exports: a ChatGPT edit and regeneration, LibreChat's three-way branch,
pi's tool-call branch and a Claude Code rewind. Differences are pairwise against a base,
a column's own words are never struck, and labels say what differs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_samples import Samples, import_samples

from explorer.app.comparing.columns import (
    CompareError,
    compare,
    siblings_to_compare,
    words,
)
from explorer.app.comparing.labels import first_differing_words
from explorer.app.comparing.text import summary, text_lines, to_json
from explorer.cli.main import main


@pytest.fixture(scope="module")
def samples(samples_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Samples]:
    s = import_samples(samples_dir, tmp_path_factory.mktemp("cmp") / "samples.db")
    yield s
    s.store.close()


def own_marked(cell_words: list[tuple[str, str]]) -> list[str]:
    return [w for kind, w in cell_words if kind in ("insert", "replace")]


def cell_words(c: object, row: int, col: int) -> list[tuple[str, str]]:
    cell = c.rows[row][col]  # type: ignore[attr-defined]
    return [(s.kind, w.strip()) for s in cell.marked() for w in words(s.text) if w.strip()]


def test_chatgpt_regenerated_answers_are_said_to_be_identical(samples: Samples) -> None:
    a, b = samples.find("chatgpt", "assistant", "Sure, here's one for you")
    c = compare(samples.store, [a, b])
    assert c.identical and all(c.same_rows)
    assert all(not cell.marked() for row in c.rows for cell in row)
    assert any("identical" in line for line in summary(c))
    assert c.columns[0].label.startswith("answer 1 of 2")
    assert c.columns[1].label.startswith("answer 2 of 2")
    assert c.columns[0].label != c.columns[1].label, "the time tells them apart"


def test_chatgpt_edited_prompt_marks_the_edit_in_the_other_column_only(
    samples: Samples,
) -> None:
    store = samples.store
    original = samples.one("chatgpt", "user", "so cool bro")
    edited = samples.one("chatgpt", "user", "hi again")
    c = compare(store, [original, edited])
    assert c.base == 1 and c.active == 1, "the active branch is the base by default"
    assert "so cool bro" in c.columns[0].label and "hi again" in c.columns[1].label
    assert all("prompt" in col.label for col in c.columns)
    assert not c.rows[0][1].marked(), "the base column strikes nothing"
    prompt = [(s.kind, s.text.strip()) for s in c.rows[0][0].messages[0].spans]
    assert prompt == [("delete", "hi again"), ("replace", "so cool bro")]
    assert c.rows[1][0].messages[0].text == "tell me a story"
    assert own_marked(cell_words(c, 1, 0))[:1] == ["story"]
    assert not c.identical and c.columns[0].changes > 0


def test_librechat_three_way_never_marks_words_a_column_shares_with_the_base(
    samples: Samples,
) -> None:
    store = samples.store
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    lol = samples.one("librechat", "user", "lol")
    c = compare(store, [luck, happy, lol], base=luck)
    assert c.base == 0 and not c.rows[0][0].marked()
    b = cell_words(c, 0, 1)
    assert "welcome!" not in [w for _, w in b], "B says it word for word, as the base does"
    assert own_marked(b) == ["Happy", "coding!"]
    assert [w for k, w in b if k == "delete"] == ["Good", "luck", "with", "your", "project!"]
    lol_cell = cell_words(c, 0, 2)
    assert ("delete", "welcome!") in lol_cell and ("replace", "lol") in lol_cell
    text = c.rows[0][1].text
    assert "Good luck" not in text and "Happy coding!" in text, "own text excludes struck words"
    assert "Happy coding!" in c.columns[1].label and "Good luck" in c.columns[0].label
    assert "lol" in c.columns[2].label


def test_modes_lines_and_off(samples: Samples) -> None:
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    off = compare(samples.store, [luck, happy], mode="off")
    assert all(not cell.marked() for row in off.rows for cell in row)
    assert not off.identical, "off hides marks, not the fact that they differ"
    lines = compare(samples.store, [luck, happy], base=luck, mode="lines")
    [changed] = [s for s in lines.rows[0][1].marked() if s.kind == "replace"]
    assert changed.text == lines.rows[0][1].messages[0].text, "the whole line is marked"
    with pytest.raises(CompareError, match="unknown diff mode"):
        compare(samples.store, [luck, happy], mode="chars")  # type: ignore[arg-type]


def test_changes_only_leaves_out_unchanged_runs(samples: Samples) -> None:
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    full = compare(samples.store, [luck, happy], base=luck)
    short = compare(samples.store, [luck, happy], base=luck, changes_only=True)
    assert short.changes_only
    spans = short.rows[0][1].messages[0].spans
    assert spans[0].kind == "skip" and spans[0].text.startswith("… 8 words")
    assert [s.text for s in short.rows[0][1].marked()] == [
        s.text for s in full.rows[0][1].marked()]
    a, b = samples.find("chatgpt", "assistant", "Sure, here's one for you")
    same = compare(samples.store, [a, b], changes_only=True)
    assert [s.kind for s in same.rows[0][0].messages[0].spans] == ["skip"]
    assert same.same_rows == (True,), "an unchanged turn is one skipped run"


def test_pi_branch_shows_tool_calls_as_parts(samples: Samples) -> None:
    store = samples.store
    answers = store.children(samples.one("pi", "user", "sanitized"))
    c = compare(store, answers)
    kinds = {p.kind for cell in c.rows[0] for m in cell.messages for p in m.parts}
    assert {"tool_use", "tool_result"} <= kinds
    tool = [p for m in c.rows[0][0].messages for p in m.parts if p.kind == "tool_use"]
    assert tool and tool[0].tool_name
    assert [col.label.split(" · ")[0] for col in c.columns] == ["answer 1 of 2", "answer 2 of 2"]


def test_claude_code_rewind_aligns_turns_of_unequal_length(samples: Samples) -> None:
    store = samples.store
    reply = samples.one("claude_code", "assistant", "Reply 2")
    fork = samples.one("claude_code", "user", "Fork from c")
    c = compare(store, [reply, fork])
    assert [col.turns for col in c.columns] == [len(c.rows), 2]
    assert [cell.empty for cell in c.rows[-1]] == [False, True]
    assert c.base == 1
    assert "“Reply 2”" in c.columns[0].label and "“Fork from c”" in c.columns[1].label


def test_impossible_compares_are_refused_with_the_reason(samples: Samples) -> None:
    store = samples.store
    alone = samples.one("chatgpt", "user", "tell me a joke")
    with pytest.raises(CompareError, match=f"message {alone} has no siblings"):
        siblings_to_compare(store, alone)
    a, b = samples.find("chatgpt", "assistant", "Sure, here's one for you")
    with pytest.raises(CompareError, match="not on any of the compared branches"):
        compare(store, [a, b], base=alone)
    other = samples.one("librechat", "user", "lol")
    with pytest.raises(CompareError, match="only branches of one conversation"):
        compare(store, [a, other])


def test_first_differing_words() -> None:
    assert first_differing_words(["tell me a joke", "tell me a story please"]) == [
        "…joke", "…story please"]
    assert first_differing_words(["same", "same"]) == ["same", "same"]
    assert first_differing_words(["a b", "a b c"]) == ["(same start, shorter)", "…c"]


def test_text_lines_use_wdiff_marks_and_name_the_base(samples: Samples) -> None:
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    lines = text_lines(compare(samples.store, [luck, happy], base=luck))
    assert any(line.strip().startswith("A (base)") for line in lines)
    joined = "\n".join(lines)
    assert "[-Good luck with your project!-] {+Happy coding!+}" in joined
    assert "── turn 1 ──" in joined


def run_cli(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), "compare", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_prints_the_same_comparison(samples: Samples,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = samples.store.db_path
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    lol = samples.one("librechat", "user", "lol")
    code, out, _ = run_cli(db, capsys, str(luck), str(happy), str(lol), "--json")
    assert code == 0
    data = json.loads(out)
    expected = to_json(compare(samples.store, [luck, happy, lol]))
    assert data == json.loads(json.dumps(expected, default=str))
    assert data["base"] == "C" and [c["letter"] for c in data["columns"]] == ["A", "B", "C"]
    code, out, _ = run_cli(db, capsys, str(luck), str(happy), "--base", str(luck),
                           "--changes-only")
    assert code == 0 and "{+Happy coding!+}" in out and "… 8 words …" in out
    code, out, _ = run_cli(db, capsys, str(luck))
    assert code == 0 and "answer 2 of 2" in out, "one message compares with its siblings"


def test_cli_compare_refuses_with_a_one_line_reason(samples: Samples,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = samples.store.db_path
    alone = samples.one("chatgpt", "user", "tell me a joke")
    code, out, err = run_cli(db, capsys, str(alone))
    assert code != 0 and out == ""
    assert err.strip() == (f"convo: error: cannot compare: message {alone} has no siblings: "
                           "nothing branches off here. Mark messages on other branches and use "
                           "Compare marked instead")
    code, _, err = run_cli(db, capsys, str(alone), "999999")
    assert code != 0 and "no message 999999" in err


def test_a_turn_node_compares_the_branch_its_turn_splits_off(samples: Samples) -> None:
    store = samples.store
    cool = samples.one("chatgpt", "user", "so cool bro")
    again = samples.one("chatgpt", "user", "hi again")
    [cool_answer] = store.children(cool)
    [again_answer] = store.children(again)
    assert store.siblings(cool_answer) == [cool_answer], "the answer has no siblings itself"
    assert siblings_to_compare(store, cool_answer) == [cool, again]
    assert siblings_to_compare(store, again_answer) == [cool, again]
    c = compare(store, [cool_answer, again_answer])
    assert [col.message_ids[0] for col in c.columns] == [cool, again]
    assert "so cool bro" in c.columns[0].label
