"""The subcommands: each parses its arguments, calls the store or an app use-case, prints."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from explorer.app.graph import turn_text
from explorer.app.importing import demo
from explorer.app.importing import run as importing
from explorer.app.ops.availability import check
from explorer.app.sharing import exporting
from explorer.app.tending import tree_actions
from explorer.app.views import read as views
from explorer.app.views import tree_view
from explorer.cli.command_spec import Command as Command
from explorer.cli.command_spec import add_redact_arg as add_redact_arg
from explorer.cli.command_spec import open_store as open_store
from explorer.cli.output import emit, message_dict, message_lines, visible
from explorer.store import Store, StoreError
from explorer.store.rows import db_id
from explorer.store.search_plan import search_page
from explorer.tree.digest import digest_text
from explorer.tree.secrets import masked


def _none(_: argparse.ArgumentParser) -> None:
    pass


def add_conv_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("conversation", type=int, metavar="CONV", help="conversation id")


def add_conv_msg_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("message", type=int, metavar="MSG", help="message id")


def run_demo(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        cid = demo.load_demo(s)
        print(f"demo conversation {cid} is loaded in {s.db_path}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        convs = s.conversations()
        rows = [
            {"id": c.id, "title": c.display_title, "messages": c.message_count, "tip": c.tip_id,
             "source": c.source_format, "forked_from": c.forked_from_conversation_id,
             "updated_at": c.updated_at}
            for c in convs
        ]
        lines = [f"{r['id']:>6}  {r['messages']:>6} msgs  {r['source'] or '-':<12} {r['title']}"
                 for r in rows]
        emit(args, rows, lines or ["no conversations yet (try: convo demo)"])
    return 0


def run_show(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        conv = s.conversation(args.conversation)
        path = s.path(conv.id)
        payload = {"conversation": asdict(conv), "path": [message_dict(m) for m in path]}
        lines = [f"# {conv.display_title}  (conversation {conv.id}, tip {conv.tip_id})"]
        notes = views.path_notes(s, conv.id, args.all)
        payload["notes"] = {str(k): v for k, v in notes.items()}
        for m in path:
            lines.extend(message_lines(m, full=args.full))
            lines += [f"    ({n})" for n in notes.get(db_id(m.id), ())]
        lines.extend(views.rewind_lines(s, conv.id))
        emit(args, payload, lines)
    return 0


def _show_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--full", action="store_true", help="print whole texts, not previews")
    _all_arg(p)


def _all_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true",
                   help="unfold archived branches (and count them in ◀ ▶)")


def _tree_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    _all_arg(p)
    p.add_argument("--turns", action="store_true",
                   help="one node per turn, straight runs folded, subagents beside their call")


def run_tree(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        if getattr(args, "turns", False):
            view = turn_text.turn_view(s, args.conversation)
            emit(args, turn_text.turn_json(view), turn_text.turn_lines(view))
        else:
            emit(args, views.tree_json(s, args.conversation, args.all),
                 views.tree_lines(s, args.conversation, show_all=args.all))
    return 0


def run_branch(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        tree_actions.branch(s, args.conversation, args.message)
        print(f"tip of conversation {args.conversation} is now message {args.message}")
    return 0


def run_edit(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        check(s, "edit", args.message, args.conversation)
        change = tree_actions.edit(s, args.conversation, args.message, read_text(args))
        new = change.changed["created"][0]
        emit(args, {"conversation": args.conversation, "edited_from": args.message,
                    "message": new, "tip": s.conversation(args.conversation).tip_id},
             [str(new)])
    return 0


def read_text(args: argparse.Namespace) -> str:
    return sys.stdin.read() if args.text == "-" else str(args.text)


def _edit_args(p: argparse.ArgumentParser) -> None:
    add_conv_msg_args(p)
    p.add_argument("--text", required=True, help="the new prompt ('-' reads standard input)")


def run_fork(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        print(s.fork(args.conversation, args.message, args.title))
    return 0


def _fork_args(p: argparse.ArgumentParser) -> None:
    add_conv_msg_args(p)
    p.add_argument("--title", help="title of the new conversation")


def run_checkpoint(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        at = args.at if args.at is not None else s.conversation(args.conversation).tip_id
        if at is not None:
            check(s, "checkpoint", at, args.conversation)
        target = tree_actions.checkpoint(s, args.conversation, args.label,
                                         args.at).changed["message"]
        print(f"checkpoint {args.label!r} set at message {target}")
    return 0


def _checkpoint_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("label")
    p.add_argument("--at", type=int, metavar="MSG", help="message to label (default: the tip)")


def run_rewind(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        digest = tree_actions.rewind(s, args.conversation, args.label).changed["digest"]
        tip = s.conversation(args.conversation).tip_id
        payload = {"tip": tip, "digest": digest}
        emit(args, payload, [f"tip is back at message {tip} ({args.label})",
                             digest_text(digest)])
    return 0


def _rewind_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("label")


def run_trim(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        plan = s.trim(args.conversation, keep_turns=args.keep_turns, keep_tokens=args.keep_tokens)
        lines = [f"active context now starts at message {plan.start_id} "
                 f"({plan.kept_turns} turn(s) kept; earlier messages stay in the tree)"]
        lines += [f"checkpoint {label!r} dropped: its message was trimmed away"
                  for label in plan.dropped_checkpoints]
        emit(args, asdict(plan), lines)
    return 0


def _trim_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--keep-turns", type=int, metavar="N")
    g.add_argument("--keep-tokens", type=int, metavar="N")


def run_export(args: argparse.Namespace) -> int:
    notes: list[str] = []
    with open_store(args) as s:
        if getattr(args, "preferred", False):
            if args.at is not None:
                raise StoreError("--at and --preferred both choose the branch: give one")
            args.at = tree_view.preferred_tip(s, args.conversation)
        if args.output:
            n = exporting.export_to_file(s, args.conversation, Path(args.output), args.format,
                                         args.at, notes, redact=not args.no_redact,
                                         ocr=args.ocr_images or None)
            print(f"wrote {n} lines to {args.output}", file=sys.stderr)
        else:
            show = visible if sys.stdout.isatty() else str  # a file or pipe gets it exact
            for line in exporting.export_lines(s, args.conversation, args.format, args.at,
                                               notes, redact=not args.no_redact,
                                               ocr=args.ocr_images or None):
                sys.stdout.write(show(line) + "\n")
    for note in notes:
        print(f"note: {visible(note)}", file=sys.stderr)
    return 0


def _export_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--format", default="native", choices=exporting.FORMATS)
    p.add_argument("--at", type=int, metavar="MSG", help="export only the branch ending here")
    p.add_argument("--preferred", action="store_true",
                   help="export only the preferred path (starred children, see `convo star`)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_redact_arg(p)
    p.add_argument("--ocr-images", action="store_true",
                   help="also read images with OCR (the tesseract program) and black out "
                        "secrets drawn in them; by default only their metadata is scanned")


def run_import(args: argparse.Namespace) -> int:
    """What was imported goes to stdout; every repair, skip and unreadable file is named
    on stderr. Exit 0 when anything was imported, 1 when nothing was."""
    from explorer.app.kept.prepared import child_ready

    paths = [Path(p) for p in args.paths]
    with open_store(args) as s:
        s.require_writable()  # before any file is read
        with child_ready(paths):
            report = _imported(s, paths)
            if any(c.added for c in report.conversations):
                from explorer.app.kept.prepared import prepare_big  # graph code: only then

                prepare_big(s, [c.conversation_id for c in report.conversations
                                if c.added], turns_beside=True)
    lines = [f"conversation {c.conversation_id} ({c.source_format}) {masked(c.title)!r}: "
             f"{c.added} added, {c.already_present} already present"
             for c in report.conversations]
    emit(args, report.to_dict(), lines)
    for note in import_notes(report):
        print(f"convo: note: {visible(note)}", file=sys.stderr)
    if report.conversations:
        return 0
    problems = report.errors or [f"{len(report.skipped_files)} file(s), none a transcript"]
    for problem in problems:
        print(f"convo: error: nothing imported: {visible(problem)}", file=sys.stderr)
    return 1


def _imported(store: Store, paths: list[Path]) -> importing.ImportReport:
    """The import, with its progress on the terminal; Ctrl+C stops it between
    conversations, keeping the ones stored. Read on a thread of this process: the window's
    reading process (:mod:`explorer.app.importing.process`) keeps a window responsive, but
    its content round trips made a 100,000-message import 23 s instead of 15 s."""
    from explorer.cli.progress_line import ProgressLine, interrupt_stops

    line = ProgressLine("importing")
    with interrupt_stops() as stopping:
        def progress(p: importing.ImportProgress) -> None:
            line.show(0, 0, p.bytes_done, p.bytes_total)

        report = importing.import_paths(store, paths, progress=progress,
                                        cancel=lambda: bool(stopping))
    line.end()
    return report


def import_notes(report: importing.ImportReport) -> list[str]:
    """The damage an import met, one line each: repairs, skipped records and files."""
    notes = [line for c in report.conversations for line in c.note_lines()]
    if report.conversations:
        notes += [f"skipped: {e}" for e in report.errors]
    notes += report.skipped_files
    return notes


def _import_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or zips")


def run_search(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        page = search_page(s.reader, args.text, args.limit)
        hits = page.hits
        lines = [f"{h.conversation_id}:{h.message_id}  {h.snippet}" for h in hits]
        if lines and page.note:
            lines.append(f"({page.note})")
        emit(args, [asdict(h) for h in hits], lines or ["no matches"])
    return 0


def _search_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("text")
    p.add_argument("--limit", type=int, default=50)


COMMANDS: list[Command] = [
    Command("demo", "load the bundled demo conversation", _none, run_demo, creates_db=True),
    Command("list", "list conversations", _none, run_list, json=True),
    Command("show", "print the active path of a conversation", _show_args, run_show, json=True),
    Command("tree", "print the session tree of a conversation (as /tree)", _tree_args, run_tree,
            json=True),
    Command("branch", "make MSG the tip (moves a pointer, writes no message)", add_conv_msg_args,
            run_branch),
    Command("fork", "copy the path to MSG into a new conversation; prints its id", _fork_args,
            run_fork),
    Command("checkpoint", "label a turn boundary", _checkpoint_args, run_checkpoint),
    Command("rewind", "move the tip back to a checkpoint, keeping a digest", _rewind_args,
            run_rewind, json=True),
    Command("trim", "start the active context at a recent turn boundary", _trim_args, run_trim,
            json=True),
    Command("export", "export a conversation or a branch", _export_args, run_export),
    Command("import", "import transcripts (files, folders, zips)", _import_args, run_import,
            json=True, creates_db=True),
    Command("search", "full-text search over every conversation", _search_args, run_search,
            json=True),
]


