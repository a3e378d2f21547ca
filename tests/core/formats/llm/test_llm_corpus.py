"""The llm 0.36 ``logs.db`` the real client recorded (``tests/corpus/llm``).

``llm -m fake-model`` answered, was continued with ``-c``; a second conversation with a
system prompt (``-s``) began, then the first was resumed by its id (``--cid``); a third
ran bash and read_file from a ``--functions`` file and was continued with ``-c``. llm
0.36 wrote all of it to its message store (``threads``, ``turns``, ``messages``,
``parts``) and left the classic ``responses`` table empty.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from itertools import pairwise

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import find_sources
from explorer.formats import llm
from explorer.formats.base import ImportedConversation
from explorer.tree.model import Message
from explorer.tree.paths import message_path
from tests.corpus import CORPUS, manifests
from tests.corpus.fake_model.wire import USAGE_IN, USAGE_OUT

HOME = CORPUS / "llm" / "home"
DB = HOME / ".config" / "io.datasette.llm" / "logs.db"
PROMPTS: list[str] = manifests()["llm"]["prompts"]


def _conversations() -> dict[str, ImportedConversation]:
    """Each conversation by the first prompt on its path."""
    out: dict[str, ImportedConversation] = {}
    for conv in llm.read(DB):
        first = next(m for m in _path(conv) if m.role == "user")
        out[first.text] = conv
    return out


def _path(conv: ImportedConversation) -> list[Message]:
    return message_path({m.id: m for m in conv.messages}, conv.tip)


def _said(conv: ImportedConversation) -> list[str]:
    return [m.text for m in _path(conv) if m.role == "user"]


def test_llm_036_left_the_classic_tables_empty_and_wrote_three_threads() -> None:
    with closing(sqlite3.connect(f"{DB.as_uri()}?mode=ro", uri=True)) as conn:
        assert conn.execute("SELECT count(*) FROM responses").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM threads").fetchone() == (3,)
    assert set(_conversations()) == {PROMPTS[0], PROMPTS[2], PROMPTS[4]}


def test_S1_sources_counts_the_threads_of_a_message_store() -> None:
    [found] = find_sources(Environment(HOME, {}), {"llm"})
    assert found.sessions == 3 and found.problems == []


def test_continued_and_resumed_prompts_follow_each_other_in_one_conversation() -> None:
    convs = _conversations()
    first, second = convs[PROMPTS[0]], convs[PROMPTS[2]]
    assert _said(first) == [PROMPTS[0], PROMPTS[1], PROMPTS[3]]
    assert [m.role for m in _path(first)] == ["user", "assistant"] * 3
    assert len(first.messages) == 6  # the whole tree is the one path: nothing branched
    resumed = next(m for m in first.messages if m.text == PROMPTS[3])
    began = min(m.created_at or 0.0 for m in second.messages)
    assert (resumed.created_at or 0.0) > began  # --cid came back after the second began
    assert [t["id"] for t in first.meta["threads"]] == [first.meta["threads"][0]["id"]]
    assert first.title.startswith("Say hello and tell me")


def test_every_answer_keeps_its_words_model_and_usage() -> None:
    for conv in _conversations().values():
        path = _path(conv)
        for prompt, answer in pairwise(path):
            if answer.role != "assistant":
                continue
            assert answer.model == "fake-model"
            assert answer.usage is not None
            assert (answer.usage.input_tokens, answer.usage.output_tokens) == (USAGE_IN,
                                                                               USAGE_OUT)
            assert answer.source_meta.get("duration_ms", 0) > 0
            if prompt.role == "user":
                assert answer.text.startswith("Answer ") or answer.text.startswith("Calling ")
        assert conv.notes == []


def test_the_system_prompt_opens_only_its_own_conversation() -> None:
    convs = _conversations()
    path = _path(convs[PROMPTS[2]])
    assert [(m.role, m.text) for m in path[:2]] == [("system", "Answer in one short sentence."),
                                                     ("user", PROMPTS[2])]
    others = [m for k, c in convs.items() if k != PROMPTS[2] for m in c.messages]
    assert not any(m.role == "system" for m in others)


def test_every_function_llm_ran_is_paired_with_what_it_returned() -> None:
    conv = _conversations()[PROMPTS[4]]
    path = _path(conv)
    assert _said(conv) == [PROMPTS[4], PROMPTS[5]]
    calls = [(p.tool_name, p.text) for m in path for p in m.tool_uses()]
    assert calls == [("bash", '{"command": "ls -1"}'), ("read_file", '{"path": "notes.txt"}'),
                     ("bash", '{"command": "wc -l notes.txt"}')]
    results = {p.tool_use_id: p for m in path if m.role == "tool" for p in m.tool_results()}
    outputs = [results[p.tool_use_id].text for m in path for p in m.tool_uses()]
    assert outputs == ["notes.txt\n", "first line of the notes\nsecond line\n", "2 notes.txt\n"]
    assert not any(r.is_error for r in results.values())
    answers = [m.text for m in path if m.role == "assistant" and not m.tool_uses()]
    assert answers[-1].startswith("Saw tool result: '2 notes.txt'")
