"""What an agent's messages read as: call summaries, command chips, result lines."""

from __future__ import annotations

import json

from explorer.app.views.agent_display import (
    CommandChip,
    argument_fields,
    call_summary,
    chip_label,
    command_chips,
    looks_like_markdown,
    result_summary,
    thinking_title,
)

EXIT = ("<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n"
        "            <command-args></command-args>")


def test_a_local_command_becomes_one_chip_without_its_repeated_name() -> None:
    chips = command_chips(EXIT)
    assert chips == [CommandChip("command", "/exit")]
    assert [chip_label(c) for c in chips] == ["/exit"]


def test_caveat_and_stdout_become_chips_of_their_own_kind() -> None:
    caveat = command_chips("<local-command-caveat>Caveat: The messages below were generated"
                           "</local-command-caveat>")
    assert caveat is not None and chip_label(caveat[0]) == "local command"
    out = command_chips("<local-command-stdout>See ya!</local-command-stdout>")
    assert out == [CommandChip("stdout", "See ya!")]
    assert chip_label(out[0]) == "stdout: See ya!"


def test_prose_that_mentions_a_tag_stays_prose() -> None:
    assert command_chips("Why does <command-name>/exit</command-name> print nothing?") is None
    assert command_chips("plain words") is None
    assert command_chips("") is None


def test_call_summary_names_the_argument_a_person_knows_the_call_by() -> None:
    assert call_summary("Bash", json.dumps({"command": "git merge feature", "timeout": 5})) \
        == "Bash(git merge feature)"
    assert call_summary("Read", json.dumps({"file_path": "/src/a.py"})) == "Read(/src/a.py)"
    long = call_summary("Bash", json.dumps({"command": "x" * 200}))
    assert long.endswith("…)") and len(long) <= len("Bash()") + 60
    assert call_summary(None, "{}") == "tool()"
    assert call_summary("python", "print(1)") == "python(print(1))"


def test_string_arguments_keep_their_real_newlines() -> None:
    fields = argument_fields(json.dumps({"prompt": "line one\nline two", "n": [1, 2]}))
    assert fields == [("prompt", "line one\nline two"), ("n", "[\n  1,\n  2\n]")]
    assert argument_fields("not json") is None
    assert argument_fields("[1, 2]") is None


def test_result_summary_says_outcome_and_size() -> None:
    assert result_summary("a\nb\nc", False) == "✓ 3 lines"
    assert result_summary("one", False) == "✓ 1 line"
    assert result_summary("", False) == "✓ empty"
    assert result_summary("boom\nat x", True) == "✗ failed · 2 lines"


def test_markdown_output_is_recognised_and_logs_are_not() -> None:
    assert looks_like_markdown("# Plan\n\n- read the file\n- **fix** the bug\n")
    assert looks_like_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [docs](http://x.y)")
    assert not looks_like_markdown("- starting server\nlistening on :8080\n")
    assert not looks_like_markdown("# comment in a shell script\necho hi\n")
    assert not looks_like_markdown("")


def test_redacted_thinking_says_so_instead_of_zero_words() -> None:
    assert thinking_title("", redacted=True) == "Thinking (redacted by the provider)"
    assert thinking_title("one two", redacted=False) == "Thinking (2 words)"
    assert thinking_title("one", redacted=False) == "Thinking (1 word)"
    assert thinking_title(" ", redacted=False) == "Thinking (text not kept in the session file)"
