"""Subcommands that tend the tree: archive, delete, undo, redo, purge, star, label, note, merge.

Each calls one operation of ``explorer.app.tending.tree_actions`` (the window calls the same
ones), prints one line for people, and with ``--json`` names exactly what changed.
"""

from __future__ import annotations

import argparse
import sys

from explorer.app.calls.model_setup import ModelChoice, SetupError, prepare
from explorer.app.ops.availability import check
from explorer.app.tending import merge, redo, tree_actions, undo
from explorer.app.tending.tree_actions import Change
from explorer.cli.commands import Command, open_store
from explorer.cli.output import emit
from explorer.compaction.summary import Summarizer
from explorer.providers import PROVIDER_KINDS
from explorer.providers.settings import settings_path


def _msg_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("message", type=int, metavar="MSG", help="message id")


def _print(args: argparse.Namespace, change: Change, extra: list[str] | None = None) -> int:
    emit(args, change.to_dict(), [change.summary, *(extra or [])])
    return 0


def run_archive(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        check(s, "archive", args.message)
        change = tree_actions.archive(s, args.message)
    return _print(args, change, [f"it shows as a marker at its branch point; "
                                 f"`convo unarchive {args.message}` or `tree --all` unfolds it"])


def run_unarchive(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        check(s, "unarchive", args.message)
        return _print(args, tree_actions.unarchive(s, args.message))


def _delete_args(p: argparse.ArgumentParser) -> None:
    _msg_arg(p)
    p.add_argument("--with-checkpoints", action="store_true",
                   help="also delete checkpoints set inside the branch (undo restores them)")


def run_delete(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        check(s, "delete", args.message)
        change = tree_actions.delete(s, args.message, with_checkpoints=args.with_checkpoints)
    return _print(args, change, ["`convo undo` restores it; `convo purge` removes it for good"])


def _undo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--conversation", type=int, metavar="CONV",
                   help="undo the last action in this conversation (default: the last anywhere)")


def run_undo(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        return _print(args, undo.undo(s, args.conversation))


def _redo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--conversation", type=int, metavar="CONV",
                   help="redo the last undone action in this conversation (default: anywhere)")


def run_redo(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        return _print(args, redo.redo(s, args.conversation))


def _purge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--conversation", type=int, metavar="CONV",
                   help="only this conversation's deleted branches")
    p.add_argument("--older-than", type=float, metavar="DAYS",
                   help="only branches deleted at least DAYS ago")


def run_purge(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        if args.conversation is not None:
            s.conversation(args.conversation)
        result = undo.purge(s, args.conversation, args.older_than)
    n = len(result["purged"])
    emit(args, result, [f"purged {n} deleted branch(es), {result['messages']} message(s); "
                        "this cannot be undone" if n else "no deleted branches to purge"])
    return 0


def run_star(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        check(s, "star", args.message)
        return _print(args, tree_actions.star(s, args.message))


def _label_args(p: argparse.ArgumentParser) -> None:
    _msg_arg(p)
    p.add_argument("name", help="the branch name ('' clears it)")


def run_label(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        return _print(args, tree_actions.label(s, args.message, args.name))


def _note_args(p: argparse.ArgumentParser) -> None:
    _msg_arg(p)
    p.add_argument("text", help="the note ('' clears it)")


def run_note(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        return _print(args, tree_actions.note(s, args.message, args.text))


def _history_args(p: argparse.ArgumentParser) -> None:
    _undo_args(p)
    p.add_argument("--limit", type=int, default=20)


def run_history(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        ops = s.operations(args.conversation, args.limit)
    rows = [{"id": o.id, "conversation": o.conversation_id, "kind": o.kind,
             "summary": o.summary, "state": o.state, "created_at": o.created_at} for o in ops]
    lines = [f"{o.id:>5}  {o.state:<7} #{o.conversation_id} {o.kind}: {o.summary}" for o in ops]
    emit(args, rows, lines or ["no tree actions yet"])
    return 0


def _merge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("tip", type=int, metavar="TIP", help="the end of the side branch")
    p.add_argument("--into", type=int, required=True, metavar="MSG",
                   help="the message of the active path the merge message follows")
    p.add_argument("--no-summary", action="store_true",
                   help="never call a model: carry the free digest of the branch")
    p.add_argument("--provider", choices=PROVIDER_KINDS,
                   help="summarize with this provider (default: the settings file, if any)")
    p.add_argument("--base-url", metavar="URL")
    p.add_argument("--model", metavar="M")


def _summarizer(args: argparse.Namespace) -> Summarizer | None:
    """A model summary when a provider is set up (flags or settings file), else None."""
    if args.no_summary or (args.provider is None and not settings_path().is_file()):
        return None
    try:
        prepared = prepare(ModelChoice(kind=args.provider, model=args.model,
                                       base_url=args.base_url))
    except SetupError as e:
        print(f"convo: note: no summary ({e}); the free digest is used", file=sys.stderr)
        return None
    return prepared.options.summarizer


def run_merge(args: argparse.Namespace) -> int:
    summarizer = _summarizer(args)
    with open_store(args) as s:
        check(s, "merge", args.tip)
        change, notes = merge.merge(s, args.tip, args.into, summarizer)
    for note in notes:
        print(f"convo: note: {note}", file=sys.stderr)
    return _print(args, change)


COMMANDS: list[Command] = [
    Command("archive", "fold the branch at MSG (off the active path) into a marker",
            _msg_arg, run_archive, json=True),
    Command("unarchive", "unfold an archived branch", _msg_arg, run_unarchive, json=True),
    Command("delete", "delete the branch at MSG (off the active path); undo restores it",
            _delete_args, run_delete, json=True),
    Command("undo", "undo the last tree action (the newest anywhere, or in --conversation)",
            _undo_args, run_undo, json=True),
    Command("redo", "make the action undone last again; any new tree action, in any "
            "conversation, clears what redo could make again", _redo_args, run_redo,
            json=True),
    Command("purge", "remove deleted branches for good (cannot be undone)", _purge_args,
            run_purge, json=True),
    Command("star", "prefer the path to MSG at every branch point on the way", _msg_arg,
            run_star, json=True),
    Command("label", "name the branch at MSG", _label_args, run_label, json=True),
    Command("note", "attach a note to MSG", _note_args, run_note, json=True),
    Command("merge", "add, after MSG on the active path, one message carrying a digest of the "
            "branch that ends at TIP", _merge_args, run_merge, json=True),
    Command("history", "the tree actions that undo can take back", _history_args, run_history,
            json=True),
]
