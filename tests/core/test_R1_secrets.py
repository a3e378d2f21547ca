"""SPEC R1: no detected secret reaches a snapshot page, a summary, or an export meant for
sharing or sending; what was redacted is listed; the stored conversation and the native
export stay exact. Secrets are planted in a real store and looked for in every output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import assistant, new_store, tool_call, tool_result, user
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.app.importing.agent_homes import Environment
from explorer.app.sharing.exporting import export_lines
from explorer.app.sharing.handoff import handoff
from explorer.cli import main
from explorer.compaction import planner
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.summary import SummaryRequest
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree import secrets
from explorer.tree.secrets import SecretRedactor, redact_messages, redact_text

# Planted secrets, one of each kind (made up; the shapes are the providers').
OPENAI = "sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ"
ANTHROPIC = "sk-ant-api03-Xy7Kq2Wv9Lm4Np8Rt6Zs3Bc1Df5Gh0Jk-AbCdEfGhIjKlMnOpQrStUvWx"
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXyZ"
AWS = "AKIAZ7QX4MPL2TESTK3Y"
URL_PASSWORD = "Tr0ub4dor-3"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "-----END OPENSSH PRIVATE KEY-----")
ENV_PASSWORD = "hunter2-Correct-Horse"
ALL = (OPENAI, ANTHROPIC, GITHUB, AWS, URL_PASSWORD, "b3BlbnNzaC1rZXktdjEA", ENV_PASSWORD)


def planted() -> list[str]:
    return [
        f"my key is {OPENAI}, please use it",
        f"export ANTHROPIC_API_KEY={ANTHROPIC}",
        f"token {GITHUB} and {AWS}",
        f"connect to postgres://app:{URL_PASSWORD}@db.internal:5432/orders",
        PEM,
        f"DB_PASSWORD={ENV_PASSWORD}",
    ]


def assert_clean(text: str) -> None:
    for secret in ALL:
        assert secret not in text


@pytest.mark.parametrize("line", planted())
def test_R1_each_planted_kind_is_replaced_by_a_named_marker(line: str) -> None:
    text, kinds = redact_text(line)
    assert kinds and all(f"[redacted: {k}]" in text for k in kinds)
    assert_clean(text)


@pytest.mark.parametrize("line", [
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "max_tokens=4096 input_tokens: 123456 tokenizer: cl100k_base",
    "token = get_token(); api_key = api_key; password: str; secret = os.environ['X']",
    "MY_TOKEN=$TOKEN and API_KEY=${API_KEY} and PASSWORD=<your password>",
    "http://example.com:8080/path and the author: Alexander Graham",
    "sk-ant-test is too short to be a key",
])
def test_R1_ordinary_text_is_left_alone(line: str) -> None:
    assert redact_text(line) == (line, [])


@pytest.mark.parametrize("around", ["", "plain words ", "x=1\n"])
def test_R1_the_literal_screen_passes_every_text_a_rule_could_match(around: str) -> None:
    """The one scan that lets a text skip the rules must see each rule's literal, alone,
    inside words and at either end (it is built from the literals, grouped)."""
    from explorer.tree import secrets

    for literals in secrets._LITERALS.values():
        for lit in literals:
            for text in (lit, around + lit, lit + around, around + "a" + lit + "z" + around):
                assert secrets._ANY_LITERAL.search(text), (lit, text)
    assert secrets._ANY_LITERAL.search(around + "nothing to see here") is None


_LITERAL_CHARS = "".join(sorted({c for xs in secrets._LITERALS.values() for x in xs for c in x}))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(sorted({x for xs in secrets._LITERALS.values()
                                                   for x in xs})),
                          st.text(alphabet=_LITERAL_CHARS + " \n", max_size=6)), max_size=8))
def test_R1_the_literal_screen_finds_a_text_exactly_when_it_holds_a_literal(
        pieces: list[str]) -> None:
    """Looked for from each literal's rarest character and checked back from there, the
    screen still answers as a substring test of every literal would, pieces of literals
    glued together included."""
    text = "".join(pieces)
    holds = any(lit in text for xs in secrets._LITERALS.values() for lit in xs)
    assert (secrets._ANY_LITERAL.search(text) is not None) == holds


def test_R1_redacting_twice_changes_nothing_more() -> None:
    once, _ = redact_text("\n".join(planted()))
    assert redact_text(once) == (once, [])


def _filler(store: Store, conv: int, turns: int) -> None:
    for n in range(turns):
        store.append_turn(conv, [user(f"question {n} " + "word " * 300),
                                 assistant(f"answer {n} " + "text " * 300)])


def _store_with_secrets(tmp_path: Path, filler: int = 0) -> tuple[Store, int]:
    store = new_store(tmp_path)
    conv = store.create_conversation(f"deploy with {GITHUB}")
    _filler(store, conv, filler)
    lines = planted()
    store.append_turn(conv, [user(lines[0]), assistant("noted")])
    store.append_turn(conv, [user("run it"), tool_call("Bash", "c1", {"command": lines[1]}),
                             tool_result("c1", lines[2] + "\n" + lines[3]),
                             assistant(lines[4] + "\n" + lines[5])])
    _filler(store, conv, filler * 2)
    return store, conv


@pytest.mark.parametrize("fmt", ["markdown", "html", "anthropic", "openai", "claude-code",
                                 "pi", "codex"])
def test_R1_exports_for_sharing_carry_no_secret_and_list_what_was_redacted(
    fmt: str, tmp_path: Path
) -> None:
    store, conv = _store_with_secrets(tmp_path)
    with store:
        notes: list[str] = []
        text = "\n".join(export_lines(store, conv, fmt, notes=notes))
        exact = "\n".join(export_lines(store, conv, fmt, redact=False))
    assert_clean(text)
    assert "[redacted: openai-key]" in text or "[redacted: openai-key]" in json.dumps(text)
    assert any(n.startswith("redacted ") and "openai-key" in n for n in notes)
    assert not any(s in n for n in notes for s in ALL)  # the notes never repeat a secret
    assert OPENAI in exact  # --no-redact is explicit


def test_R1_the_stored_conversation_and_the_native_export_stay_exact(tmp_path: Path) -> None:
    store, conv = _store_with_secrets(tmp_path)
    with store:
        export_lines_ = list(export_lines(store, conv, "native"))
        stored = "\n".join(p.text for m in store.path(conv) for p in m.parts)
    native = "\n".join(export_lines_)
    for secret in (OPENAI, GITHUB, ENV_PASSWORD):
        assert secret in native
        assert secret in stored or secret in store.conversation(conv).title


def test_R1_the_agent_hand_back_is_redacted_and_reads_back_without_differences(
    tmp_path: Path,
) -> None:
    store, conv = _store_with_secrets(tmp_path)
    with store:
        done = handoff(store, conv, "claude-code", env=Environment(tmp_path / "home"),
                       cwd="/proj/x")
    assert_clean(done.path.read_text(encoding="utf-8"))
    assert done.differences == []
    assert any(n.startswith("redacted ") for n in done.notes)


def test_R1_pages_facts_and_summaries_are_made_from_the_redacted_text(tmp_path: Path) -> None:
    store, conv = _store_with_secrets(tmp_path, filler=4)  # the planted turns in the middle
    with store:
        context = store.path(conv)
    target = Target.default("anthropic", window=12_000, output_reserve=1000,
                            redactor=SecretRedactor())
    plan = planner.build_plan(context, target, rung="snapshot")
    assert plan.pages and plan.split is not None
    middle_text = "\n".join(p.text for m in plan.split.middle for p in m.parts)
    assert "[redacted:" in middle_text
    assert_clean(middle_text)
    assert_clean(plan.facts.text if plan.facts else "")
    expected, _ = redact_messages(plan.split.middle)
    assert [p.png for p in plan.pages] == [
        p.png for p in render_snapshot(expected, target.geometry).pages]
    assert any(n.startswith("redacted ") for n in plan.notes)

    class Recording:
        def __init__(self) -> None:
            self.asked: list[SummaryRequest] = []

        def summarize(self, request: SummaryRequest) -> str:
            self.asked.append(request)
            return "the summary"

    summarizer = Recording()
    planner.build_plan(context, target, rung="summary", summarizer=summarizer)
    (request,) = summarizer.asked
    assert "[redacted:" in request.prompt
    assert_clean(request.prompt + request.system)


def test_R1_export_on_the_command_line_notes_the_redactions_and_obeys_no_redact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, conv = _store_with_secrets(tmp_path)
    store.close()
    db = str(tmp_path / "t.db")
    assert main.main(["--db", db, "export", str(conv), "--format", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert_clean(out)
    assert "note: redacted" in err and "openai-key" in err
    assert main.main(["--db", db, "export", str(conv), "--format", "markdown",
                      "--no-redact"]) == 0
    assert OPENAI in capsys.readouterr().out
