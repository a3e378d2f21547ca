"""The command bar's language (SPEC §6): every command parses, every mistake explains itself."""

from __future__ import annotations

import pytest

from explorer.app.context.compacting import RUNGS
from explorer.app.ops.slash import (
    NAMES,
    WITH_CHECKPOINTS,
    SlashCommand,
    SlashError,
    complete,
    parse,
    usage_hint,
)
from explorer.app.sharing.exporting import FORMATS

LABELS = ["before refactor", "alpha", "beta"]


@pytest.mark.parametrize(("text", "expected"), [
    ("/compact", SlashCommand("compact")),
    ("/compact snapshot", SlashCommand("compact", ("snapshot",))),
    ("/shake", SlashCommand("shake")),
    ("/context", SlashCommand("context")),
    ("/tree", SlashCommand("tree")),
    ("/fork", SlashCommand("fork")),
    ("/fork  A new   title ", SlashCommand("fork", ("A new   title",))),
    ("/checkpoint alpha", SlashCommand("checkpoint", ("alpha",))),
    ("/checkpoint 'before refactor'", SlashCommand("checkpoint", ("before refactor",))),
    ("/rewind alpha", SlashCommand("rewind", ("alpha",))),
    ("/export markdown", SlashCommand("export", ("markdown",))),
    ("/search token window", SlashCommand("search", ("token window",))),
    ("/send don't \"quote\" me", SlashCommand("send", ("don't \"quote\" me",))),
    ("  /TREE  ", SlashCommand("tree")),
    ("/compact\tsummary", SlashCommand("compact", ("summary",))),
])
def test_every_command_parses(text: str, expected: SlashCommand) -> None:
    assert parse(text) == expected


def test_the_table_covers_the_spec_commands() -> None:
    assert set(NAMES) == {"compact", "shake", "context", "tree", "fork", "checkpoint", "rewind",
                          "export", "search", "send",
                          # tending the tree (T6–T8)
                          "archive", "unarchive", "delete", "star", "label", "note", "merge",
                          "undo", "redo", "replay", "fanout"}


@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_is_accepted(rung: str) -> None:
    assert parse(f"/compact {rung}").arg == rung


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_export_format_is_accepted(fmt: str) -> None:
    assert parse(f"/export {fmt}").arg == fmt


@pytest.mark.parametrize("text", ["/compact snapshot", "/checkpoint 'before refactor'",
                                  "/send it's \"fine\"", "/fork", "/export html"])
def test_str_round_trips(text: str) -> None:
    cmd = parse(text)
    assert parse(str(cmd)) == cmd


@pytest.mark.parametrize(("text", "fragments"), [
    ("", ["starting with '/'", "/compact", "/send"]),
    ("hello", ["starting with '/'"]),
    ("/", ["starting with '/'"]),
    ("/nope", ["unknown command /nope", "/compact", "/rewind"]),
    ("/contxt", ["unknown command /contxt", "did you mean /context?"]),
    ("/shake now", ["/shake takes no arguments", "'now'"]),
    ("/context x y", ["/context takes no arguments"]),
    ("/tree 3", ["/tree takes no arguments"]),
    ("/compact fast", ["unknown rung 'fast'", *RUNGS]),
    ("/compact elide images", ["takes one argument", "/compact [rung]"]),
    ("/checkpoint", ["needs a checkpoint name", "/checkpoint NAME"]),
    ("/checkpoint two words", ["takes one argument, not 2", "quote a name"]),
    ("/checkpoint 'open", ["unclosed quote"]),
    ("/rewind", ["needs a checkpoint name", "/rewind NAME"]),
    ("/export", ["needs an export format", "/export FORMAT"]),
    ("/export md", ["unknown export format 'md'", *FORMATS]),
    ("/search", ["/search needs text", "/search TEXT"]),
    ("/send   ", ["/send needs text"]),
])
def test_every_error_is_one_helpful_line(text: str, fragments: list[str]) -> None:
    with pytest.raises(SlashError) as info:
        parse(text)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_rewind_checks_the_labels_it_is_given() -> None:
    assert parse("/rewind nowhere").arg == "nowhere"  # without labels the store decides
    assert parse("/rewind 'before refactor'", labels=LABELS).arg == "before refactor"
    with pytest.raises(SlashError, match=r"no checkpoint named 'nowhere'.*alpha, beta"):
        parse("/rewind nowhere", labels=LABELS)
    with pytest.raises(SlashError, match=r"none yet — set one with /checkpoint NAME"):
        parse("/rewind x", labels=[])


def test_custom_rungs_and_formats_are_honoured() -> None:
    assert parse("/export csv", formats=["csv"]).arg == "csv"
    with pytest.raises(SlashError, match="choose one of: csv"):
        parse("/export markdown", formats=["csv"])
    with pytest.raises(SlashError, match="choose one of: only"):
        parse("/compact elide", rungs=["only"])


def test_command_names_complete() -> None:
    assert complete("/comp") == ["/compact"]
    assert complete("/c") == ["/compact", "/context", "/checkpoint"]
    assert complete("/") == [f"/{n}" for n in NAMES]
    assert complete("/COMP") == ["/compact"]
    assert complete("/zzz") == []
    assert complete("compact") == []


def test_rungs_complete_in_argument_position() -> None:
    assert complete("/compact sn") == ["/compact snapshot"]
    assert complete("/compact ") == [f"/compact {r}" for r in RUNGS]
    assert complete("/compact snapshot x") == []
    assert complete("/compact s", rungs=["summary", "snapshot", "elide"]) == [
        "/compact summary", "/compact snapshot"]


def test_checkpoint_labels_complete_for_rewind() -> None:
    assert complete("/rewind ", labels=LABELS) == [
        "/rewind 'before refactor'", "/rewind alpha", "/rewind beta"]
    assert complete("/rewind b", labels=LABELS) == ["/rewind 'before refactor'", "/rewind beta"]
    assert complete("/rewind 'bef", labels=LABELS) == ["/rewind 'before refactor'"]
    assert complete("/rewind ", labels=[]) == []
    for line in complete("/rewind ", labels=LABELS):  # every offer parses back to its label
        assert parse(line, labels=LABELS).arg in LABELS


def test_export_formats_complete() -> None:
    assert complete("/export m", formats=FORMATS) == ["/export markdown"]
    assert complete("/export ") == [f"/export {f}" for f in FORMATS]
    assert complete("/export o", formats=["openai", "html"]) == ["/export openai"]


def test_free_text_and_new_names_offer_nothing() -> None:
    assert complete("/send hel") == []
    assert complete("/search x") == []
    assert complete("/checkpoint a", labels=LABELS) == []
    assert complete("/nope x") == []


def test_usage_hint_names_the_command_being_typed() -> None:
    assert usage_hint("/checkpoint fo").startswith("/checkpoint NAME — ")
    assert usage_hint("/compact").startswith("/compact [rung]")
    assert usage_hint("/comp").startswith("/compact [rung]")
    assert usage_hint("/c") == ""  # three commands start so
    assert usage_hint("/") == ""
    assert usage_hint("/zzz") == ""
    assert usage_hint("plain") == ""


def test_T7_delete_takes_with_checkpoints_in_the_bar_s_own_words() -> None:
    assert parse("/delete").args == ()
    assert parse("/delete with-checkpoints").arg == WITH_CHECKPOINTS
    assert parse("/delete --with-checkpoints").arg == WITH_CHECKPOINTS  # the CLI's spelling
    assert parse("/DELETE With-Checkpoints").arg == WITH_CHECKPOINTS
    with pytest.raises(SlashError, match="unknown option 'everything' for /delete; "
                                         "choose one of: with-checkpoints"):
        parse("/delete everything")
    with pytest.raises(SlashError, match="takes one argument"):
        parse("/delete with-checkpoints now")
    assert complete("/delete ") == complete("/delete w") == ["/delete with-checkpoints"]
    assert complete("/delete x") == []
    assert usage_hint("/delete").startswith("/delete [with-checkpoints] — ")
    assert "with-checkpoints also removes the checkpoints" in usage_hint("/delete")
