"""``convo context CONV --at MSG [--diff B] [--out DIR]``: what the model saw at a node."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.app.context.at import NodeContext, context_at, context_lines
from explorer.app.context.diff import diff, diff_lines
from explorer.app.sharing import safe_write
from explorer.cli.commands import open_store
from explorer.cli.output import emit
from explorer.compaction.ladder import LadderError
from explorer.compaction.target import Target
from explorer.store import StoreError


def run_context_at(args: argparse.Namespace, target: Target) -> int:
    with open_store(args) as s:
        try:
            a = context_at(s, args.conversation, args.at, target)
            b = context_at(s, args.conversation, args.diff, target) if args.diff else None
        except LadderError as e:
            raise StoreError(str(e)) from e
        if args.out:
            files = write_context(a, Path(args.out), s.db_path)
            print(f"wrote {len(files)} file(s) to {args.out}", file=sys.stderr)
    if b is not None:
        d = diff(a, b)
        emit(args, d.to_dict(), diff_lines(d))
    else:
        emit(args, a.to_dict(), context_lines(a))
    return 0


def write_context(ctx: NodeContext, folder: Path, db_path: Path | None) -> list[Path]:
    """The request body (``request.json``) and its snapshot pages as PNG files."""
    if folder.exists() and not folder.is_dir():
        raise safe_write.WriteRefused(f"refusing to write into {folder}: it is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for i, page in enumerate(ctx.plan.pages, start=1):
        out = folder / f"page-{i:03d}.png"
        safe_write.write_bytes(out, page.png, db_path)
        written.append(out)
    for name, data in (("request.json", ctx.body()), ("context.json", ctx.to_dict())):
        out = folder / name
        safe_write.write_text(out, json.dumps(data, ensure_ascii=False, indent=2,
                                              default=str), db_path)
        written.append(out)
    return written
