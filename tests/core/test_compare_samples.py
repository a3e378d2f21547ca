"""Compare on the corpus's exports: a ChatGPT edit (whose left branch runs a turn longer)
and regeneration, LibreChat's three-way branch and Open WebUI's regenerated tool calls.
Differences are pairwise against a base, a column's own words are never struck, and labels
say what differs."""

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
def samples(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Samples]:
    s = import_samples(corpus_dir, tmp_path_factory.mktemp("cmp") / "samples.db")
    yield s
    s.store.close()


JOKE = "Bien sûr, en voici une"  # the regenerated answers, word for word the same
THANKS = "Glad it worked!"  # the two replies to "cheers, that worked"


def own_marked(cell_words: list[tuple[str, str]]) -> list[str]:
    return [w for kind, w in cell_words if kind in ("insert", "replace")]


def cell_words(c: object, row: int, col: int) -> list[tuple[str, str]]:
    cell = c.rows[row][col]  # type: ignore[attr-defined]
    return [(s.kind, w.strip()) for s in cell.marked() for w in words(s.text) if w.strip()]


def test_chatgpt_regenerated_answers_are_said_to_be_identical(samples: Samples) -> None:
    a, b = samples.find("chatgpt", "assistant", JOKE)
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
    original = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    edited = samples.one("chatgpt", "user", "parlons français")
    c = compare(store, [original, edited])
    assert c.base == 1 and c.active == 1, "the active branch is the base by default"
    assert "tell me about the rain in" in c.columns[0].label
    assert "parlons français" in c.columns[1].label
    assert all("prompt" in col.label for col in c.columns)
    assert not c.rows[0][1].marked(), "the base column strikes nothing"
    prompt = [(s.kind, s.text.strip()) for s in c.rows[0][0].messages[0].spans]
    assert prompt == [("delete", "parlons français, d'accord ?"),
                      ("replace", "tell me about the rain in Bergen")]
    assert c.rows[1][0].messages[0].text == "write me a poem about rain"
    assert own_marked(cell_words(c, 1, 0))[:6] == ["write", "me", "a", "poem", "about", "rain"]
    assert not c.rows[1][1].marked(), "the base column strikes nothing in any row"
    assert not c.identical and c.columns[0].changes > 0


def test_librechat_three_way_never_marks_words_a_column_shares_with_the_base(
    samples: Samples,
) -> None:
    store = samples.store
    enjoy, happy = samples.find("librechat", "assistant", THANKS)
    head = samples.one("librechat", "user", "why is it called HEAD?")
    c = compare(store, [enjoy, happy, head], base=enjoy)
    assert c.base == 0 and not c.rows[0][0].marked()
    b = cell_words(c, 0, 1)
    assert "worked!" not in [w for _, w in b], "B says it word for word, as the base does"
    assert own_marked(b) == ["Happy", "committing!"]
    assert [w for k, w in b if k == "delete"] == ["Enjoy", "the", "rest", "of", "your", "day!"]
    head_cell = cell_words(c, 0, 2)
    assert ("delete", "worked!") in head_cell and ("replace", "HEAD?") in head_cell
    text = c.rows[0][1].text
    assert "Enjoy the rest" not in text and "Happy committing!" in text, \
        "own text excludes struck words"
    assert "Happy committing!" in c.columns[1].label and "Enjoy the rest" in c.columns[0].label
    assert "why is it called" in c.columns[2].label


def test_modes_lines_and_off(samples: Samples) -> None:
    enjoy, happy = samples.find("librechat", "assistant", THANKS)
    off = compare(samples.store, [enjoy, happy], mode="off")
    assert all(not cell.marked() for row in off.rows for cell in row)
    assert not off.identical, "off hides marks, not the fact that they differ"
    lines = compare(samples.store, [enjoy, happy], base=enjoy, mode="lines")
    [changed] = [s for s in lines.rows[0][1].marked() if s.kind == "replace"]
    assert changed.text == lines.rows[0][1].messages[0].text, "the whole line is marked"
    with pytest.raises(CompareError, match="unknown diff mode"):
        compare(samples.store, [enjoy, happy], mode="chars")  # type: ignore[arg-type]


def test_changes_only_leaves_out_unchanged_runs(samples: Samples) -> None:
    enjoy, happy = samples.find("librechat", "assistant", THANKS)
    full = compare(samples.store, [enjoy, happy], base=enjoy)
    short = compare(samples.store, [enjoy, happy], base=enjoy, changes_only=True)
    assert short.changes_only
    spans = short.rows[0][1].messages[0].spans
    assert spans[0].kind == "skip" and spans[0].text.startswith("… 4 words")
    assert [s.text for s in short.rows[0][1].marked()] == [
        s.text for s in full.rows[0][1].marked()]
    a, b = samples.find("chatgpt", "assistant", JOKE)
    same = compare(samples.store, [a, b], changes_only=True)
    assert [s.kind for s in same.rows[0][0].messages[0].spans] == ["skip"]
    assert same.same_rows == (True,), "an unchanged turn is one skipped run"


def test_regenerated_tool_calls_are_shown_as_parts(samples: Samples) -> None:
    store = samples.store
    answers = store.children(samples.one("openwebui", "user", "what is in notes.txt"))
    c = compare(store, answers)
    kinds = {p.kind for cell in c.rows[0] for m in cell.messages for p in m.parts}
    assert {"tool_use", "tool_result"} <= kinds
    tools = [[p.tool_name for m in c.rows[0][j].messages for p in m.parts
              if p.kind == "tool_use"] for j in (0, 1)]
    assert tools == [["read_file"], ["run_bash"]]
    assert [col.label.split(" · ")[0] for col in c.columns] == ["answer 1 of 2", "answer 2 of 2"]


def test_an_edit_whose_left_branch_runs_longer_aligns_turns_of_unequal_length(
    samples: Samples,
) -> None:
    store = samples.store
    reply = samples.one("chatgpt", "assistant", "**Rain on the Fjord**")
    fork = samples.one("chatgpt", "user", "parlons français")
    c = compare(store, [reply, fork])
    assert [col.turns for col in c.columns] == [len(c.rows), 2] == [3, 2]
    assert [cell.empty for cell in c.rows[-1]] == [False, True]
    assert c.rows[-1][0].messages[-1].text.startswith("**Regn over fjorden**")
    assert c.base == 1, "the active branch is the base"
    assert "“tell me about the rain in…”" in c.columns[0].label
    assert "“parlons français, d'accord ?”" in c.columns[1].label


def test_impossible_compares_are_refused_with_the_reason(samples: Samples) -> None:
    store = samples.store
    alone = samples.one("chatgpt", "user", "raconte-moi une blague")
    with pytest.raises(CompareError, match=f"message {alone} has no siblings"):
        siblings_to_compare(store, alone)
    a, b = samples.find("chatgpt", "assistant", JOKE)
    with pytest.raises(CompareError, match="not on any of the compared branches"):
        compare(store, [a, b], base=alone)
    other = samples.one("librechat", "user", "why is it called HEAD?")
    with pytest.raises(CompareError, match="only branches of one conversation"):
        compare(store, [a, other])


def test_first_differing_words() -> None:
    assert first_differing_words(["tell me a joke", "tell me a story please"]) == [
        "…joke", "…story please"]
    assert first_differing_words(["same", "same"]) == ["same", "same"]
    assert first_differing_words(["a b", "a b c"]) == ["(same start, shorter)", "…c"]


def test_text_lines_use_wdiff_marks_and_name_the_base(samples: Samples) -> None:
    enjoy, happy = samples.find("librechat", "assistant", THANKS)
    lines = text_lines(compare(samples.store, [enjoy, happy], base=enjoy))
    assert any(line.strip().startswith("A (base)") for line in lines)
    joined = "\n".join(lines)
    assert "[-Enjoy the rest of your day!-] {+Happy committing!+}" in joined
    assert "── turn 1 ──" in joined


def run_cli(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), "compare", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_prints_the_same_comparison(samples: Samples,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = samples.store.db_path
    enjoy, happy = samples.find("librechat", "assistant", THANKS)
    head = samples.one("librechat", "user", "why is it called HEAD?")
    code, out, _ = run_cli(db, capsys, str(enjoy), str(happy), str(head), "--json")
    assert code == 0
    data = json.loads(out)
    expected = to_json(compare(samples.store, [enjoy, happy, head]))
    assert data == json.loads(json.dumps(expected, default=str))
    assert data["base"] == "C" and [c["letter"] for c in data["columns"]] == ["A", "B", "C"]
    code, out, _ = run_cli(db, capsys, str(enjoy), str(happy), "--base", str(enjoy),
                           "--changes-only")
    assert code == 0 and "{+Happy committing!+}" in out and "… 4 words …" in out
    code, out, _ = run_cli(db, capsys, str(enjoy))
    assert code == 0 and "answer 2 of 2" in out, "one message compares with its siblings"


def test_cli_compare_refuses_with_a_one_line_reason(samples: Samples,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = samples.store.db_path
    alone = samples.one("chatgpt", "user", "raconte-moi une blague")
    code, out, err = run_cli(db, capsys, str(alone))
    assert code != 0 and out == ""
    assert err.strip() == (f"convo: error: cannot compare: message {alone} has no siblings: "
                           "nothing branches off here. Mark messages on other branches and use "
                           "Compare marked instead")
    code, _, err = run_cli(db, capsys, str(alone), "999999")
    assert code != 0 and "no message 999999" in err


def test_a_turn_node_compares_the_branch_its_turn_splits_off(samples: Samples) -> None:
    store = samples.store
    cool = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    again = samples.one("chatgpt", "user", "parlons français")
    [cool_answer] = store.children(cool)
    [again_answer] = store.children(again)
    assert store.siblings(cool_answer) == [cool_answer], "the answer has no siblings itself"
    assert siblings_to_compare(store, cool_answer) == [cool, again]
    assert siblings_to_compare(store, again_answer) == [cool, again]
    c = compare(store, [cool_answer, again_answer])
    assert [col.message_ids[0] for col in c.columns] == [cool, again]
    assert "tell me about the rain in" in c.columns[0].label
