"""The command bar's language: parse a ``/command`` line and complete it as it is typed.

The app and the command line share these commands (SPEC §6), so the names and
argument rules live here, free of any toolkit, and every mistake becomes one
readable line the bar can show inline. Free text (``/send``, ``/search``,
``/fork``) is taken verbatim so apostrophes and quotes survive; single-word
arguments (labels, rungs, formats) may be quoted to hold spaces.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from explorer.compaction.kinds import RUNGS
from explorer.tree.errors import ExplorerError


class SlashError(ExplorerError, ValueError):
    """A line the bar cannot run; the message is one line meant for the person."""


class Arg(Enum):
    """How a command takes its argument."""

    NONE = "none"
    RUNG = "rung"  # optional, one of the ladder's rungs
    LABEL = "label"  # required word: a checkpoint label
    FORMAT = "format"  # required, one of the export formats
    TEXT = "text"  # required free text: the rest of the line
    OPTIONAL_TEXT = "optional text"
    OPTION = "option"  # optional, one of the command's own words (``CommandSpec.options``)


@dataclass(frozen=True)
class CommandSpec:
    name: str
    arg: Arg
    usage: str
    help: str
    options: tuple[str, ...] = ()


WITH_CHECKPOINTS = "with-checkpoints"
"""``/delete with-checkpoints``: the branch goes with the checkpoints on it (``convo delete
--with-checkpoints``); the bar takes the flag's spelling too."""

SPECS: tuple[CommandSpec, ...] = (
    CommandSpec("compact", Arg.RUNG, "/compact [rung]", "run the compaction ladder, or one rung"),
    CommandSpec("shake", Arg.NONE, "/shake", "the free rungs only: elision and image dropping"),
    CommandSpec("context", Arg.NONE, "/context", "what fills the context window, by part"),
    CommandSpec("tree", Arg.NONE, "/tree", "the session tree of this conversation"),
    CommandSpec("fork", Arg.OPTIONAL_TEXT, "/fork [title]",
                "copy the active path into a new conversation"),
    CommandSpec("checkpoint", Arg.LABEL, "/checkpoint NAME", "label the tip"),
    CommandSpec("rewind", Arg.LABEL, "/rewind NAME", "move the tip back to a checkpoint"),
    CommandSpec("export", Arg.FORMAT, "/export FORMAT", "export this conversation"),
    CommandSpec("search", Arg.TEXT, "/search TEXT", "full-text search over every conversation"),
    CommandSpec("send", Arg.TEXT, "/send TEXT", "send a prompt on the active path"),
    CommandSpec("archive", Arg.NONE, "/archive", "fold the selected branch into a marker"),
    CommandSpec("unarchive", Arg.NONE, "/unarchive", "unfold the selected archived branch"),
    CommandSpec("delete", Arg.OPTION, f"/delete [{WITH_CHECKPOINTS}]",
                "delete the selected branch (undo restores it); "
                f"{WITH_CHECKPOINTS} also removes the checkpoints on it",
                options=(WITH_CHECKPOINTS,)),
    CommandSpec("star", Arg.NONE, "/star", "prefer the path to the selected message"),
    CommandSpec("label", Arg.OPTIONAL_TEXT, "/label [NAME]", "name the selected branch"),
    CommandSpec("note", Arg.OPTIONAL_TEXT, "/note [TEXT]", "a note on the selected message"),
    CommandSpec("merge", Arg.NONE, "/merge",
                "merge the selected branch back after the tip, as a digest"),
    CommandSpec("undo", Arg.NONE, "/undo", "undo the last tree action"),
    CommandSpec("redo", Arg.NONE, "/redo", "make the action undone last again"),
    CommandSpec("replay", Arg.NONE, "/replay",
                "re-run the old branch's later prompts on the selected edited prompt"),
    CommandSpec("fanout", Arg.OPTIONAL_TEXT, "/fanout [TEXT]",
                "ask several models the same prompt; answers open side by side"),
)
BY_NAME: dict[str, CommandSpec] = {s.name: s for s in SPECS}
NAMES: tuple[str, ...] = tuple(s.name for s in SPECS)
_COMMAND_LIST = ", ".join(f"/{n}" for n in NAMES)
_HEAD = re.compile(r"/(\S*)(\s*)(.*)", re.DOTALL)


@dataclass(frozen=True)
class SlashCommand:
    """A parsed command: ``name`` without the slash, ``args`` already checked."""

    name: str
    args: tuple[str, ...] = ()

    @property
    def arg(self) -> str | None:
        """The single argument, if any (every command takes at most one)."""
        return self.args[0] if self.args else None

    def __str__(self) -> str:
        if not self.args:
            return f"/{self.name}"
        spec = BY_NAME.get(self.name)
        free = spec is not None and spec.arg in (Arg.TEXT, Arg.OPTIONAL_TEXT)
        return f"/{self.name} " + (self.args[0] if free else _quote(self.args[0]))


def parse(text: str, *, rungs: Sequence[str] = RUNGS, formats: Sequence[str] | None = None,
          labels: Sequence[str] | None = None) -> SlashCommand:
    """The command ``text`` asks for, or :class:`SlashError` saying what is wrong.

    With ``labels`` given, ``/rewind`` must name one of them (the bar knows the
    conversation's checkpoints; the store would refuse an unknown one later).
    """
    line = text.strip()
    if not line.startswith("/") or line == "/":
        raise SlashError(f"type a command starting with '/', e.g. /compact; "
                         f"commands: {_COMMAND_LIST}")
    word, _, rest = _split(line)
    rest = rest.strip()
    spec = BY_NAME.get(word.casefold())
    if spec is None:
        raise SlashError(_unknown_command(word))
    return SlashCommand(spec.name, _arguments(spec, rest, rungs, _formats(formats), labels))


def _split(line: str) -> tuple[str, str, str]:
    """(command word, the whitespace after it, the rest) of a line starting with "/"."""
    match = _HEAD.match(line)
    assert match is not None  # the pattern matches any string starting with "/"
    return match.group(1), match.group(2), match.group(3)


def _unknown_command(word: str) -> str:
    close = difflib.get_close_matches(word, NAMES, n=1)
    hint = f" — did you mean /{close[0]}?" if close else ""
    return f"unknown command /{word}{hint} (commands: {_COMMAND_LIST})"


def _arguments(spec: CommandSpec, rest: str, rungs: Sequence[str], formats: Sequence[str],
               labels: Sequence[str] | None) -> tuple[str, ...]:
    if spec.arg is Arg.TEXT and not rest:
        raise SlashError(f"/{spec.name} needs text: {spec.usage}")
    if spec.arg in (Arg.TEXT, Arg.OPTIONAL_TEXT):
        return (rest,) if rest else ()
    words = _words(spec, rest)
    if spec.arg is Arg.NONE:
        if words:
            raise SlashError(f"/{spec.name} takes no arguments (got {' '.join(words)!r})")
        return ()
    if len(words) > 1:
        quoting = " (quote a name that has spaces)" if spec.arg is Arg.LABEL else ""
        raise SlashError(f"/{spec.name} takes one argument, not {len(words)}: "
                         f"{spec.usage}{quoting}")
    if spec.arg is Arg.RUNG:
        return _choice(words, rungs, "rung", spec) if words else ()
    if spec.arg is Arg.OPTION:  # "--with-checkpoints", as the command line spells it, too
        chosen = [w.lstrip("-").casefold() for w in words]
        return _choice(chosen, spec.options, "option", spec) if chosen else ()
    if not words:
        raise SlashError(f"/{spec.name} needs {_noun(spec)}: {spec.usage}")
    if spec.arg is Arg.FORMAT:
        return _choice(words, formats, "export format", spec)
    if spec.name == "rewind" and labels is not None and words[0] not in labels:
        known = _listing(labels) if labels else "none yet — set one with /checkpoint NAME"
        raise SlashError(f"no checkpoint named {words[0]!r} (checkpoints: {known})")
    return (words[0],)


def _formats(given: Sequence[str] | None) -> Sequence[str]:
    """The export formats (the exporters load when a command first names one)."""
    if given is not None:
        return given
    from explorer.app.sharing.exporting import FORMATS

    return FORMATS


def _noun(spec: CommandSpec) -> str:
    return {Arg.LABEL: "a checkpoint name", Arg.FORMAT: "an export format"}.get(
        spec.arg, "an argument")


def _words(spec: CommandSpec, rest: str) -> list[str]:
    try:
        return shlex.split(rest)
    except ValueError:
        raise SlashError(f"/{spec.name}: unclosed quote in {rest!r}") from None


def _choice(words: list[str], choices: Sequence[str], kind: str,
            spec: CommandSpec) -> tuple[str, ...]:
    if words[0] not in choices:
        raise SlashError(f"unknown {kind} {words[0]!r} for /{spec.name}; "
                         f"choose one of: {_listing(choices)}")
    return (words[0],)


def _listing(items: Iterable[str]) -> str:
    return ", ".join(items)


def _quote(word: str) -> str:
    return shlex.quote(word) if any(c.isspace() or c in "'\"" for c in word) else word


def usage_hint(text: str) -> str:
    """``/compact [rung] — run the compaction ladder…`` for the command being typed, or "".

    A prefix that only one command starts with (``/comp``) already names it.
    """
    if not text.strip().startswith("/"):
        return ""
    word = _split(text.strip())[0].casefold()
    spec = BY_NAME.get(word)
    if spec is None:
        matches = [s for s in SPECS if word and s.name.startswith(word)]
        spec = matches[0] if len(matches) == 1 else None
    return f"{spec.usage} — {spec.help}" if spec else ""


def complete(text: str, labels: Sequence[str] = (), formats: Sequence[str] | None = None,
             rungs: Sequence[str] = RUNGS) -> list[str]:
    """Whole lines that ``text`` may become: command names, then rungs, labels or formats.

    Matching ignores case, so ``/COMP`` still offers ``/compact``; an empty
    list means there is nothing to offer (free text, or no ``/`` yet).
    """
    if not text.startswith("/"):
        return []
    word, space, rest = _split(text)
    if not space:
        return [f"/{n}" for n in NAMES if n.startswith(word.casefold())]
    spec = BY_NAME.get(word.casefold())
    if spec is None:
        return []
    choices = {Arg.RUNG: rungs, Arg.FORMAT: _formats(formats),
               Arg.OPTION: spec.options}.get(spec.arg)
    if spec.name == "rewind":
        choices = labels
    if choices is None:
        return []
    prefix = _partial_word(rest)
    if prefix is None:
        return []
    return [f"/{spec.name} {_quote(c)}" for c in choices
            if c.casefold().startswith(prefix.casefold())]


def _partial_word(rest: str) -> str | None:
    """The argument typed so far (an opening quote dropped), or None past the first word."""
    if rest[:1] in ("'", '"'):
        quote = rest[0]
        body = rest[1:]
        return None if quote in body else body
    return None if any(c.isspace() for c in rest) else rest
