"""``convo share``: one self-contained HTML page of a branch, reviewed before it is written.

The review lists every secret, absolute path and e-mail address found; each category is
kept or redacted. ``--yes`` accepts the defaults (redact secrets and home-folder paths); in
a terminal the person is asked one question per category found; with neither, nothing is
written and one line says why (R1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer.app.costs.words import money
from explorer.app.preferences import load_app_prefs
from explorer.app.sharing import safe_write
from explorer.app.sharing.share_html import Shared, write_share
from explorer.app.sharing.share_review import Review, review_branch
from explorer.app.sharing.share_scan import CATEGORIES, DEFAULTS, NAMES
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.output import visible
from explorer.store import StoreError


def decide(review: Review, yes: bool) -> dict[str, bool]:
    """Per category: redact (True) or keep."""
    if yes:
        return dict(DEFAULTS)
    if not sys.stdin.isatty():
        found = ", ".join(f"{review.count(c)} {NAMES[c]}" for c in CATEGORIES
                          if review.count(c)) or "nothing to redact"
        raise StoreError(f"share needs a terminal to review what it found ({found}) or --yes "
                         "to accept the defaults (redact secrets and home-folder paths); "
                         "nothing was written")
    for line in review.lines():
        print(visible(line))
    out = dict(DEFAULTS)
    for cat in CATEGORIES:
        n = review.count(cat)
        if not n:
            continue
        hint = "[Y/n]" if DEFAULTS[cat] else "[y/N]"
        answer = input(f"redact the {n} {NAMES[cat]}? {hint} ").strip().lower()
        out[cat] = DEFAULTS[cat] if not answer else answer.startswith("y")
    return out


def result_lines(done: Shared) -> list[str]:
    spent = money(done.cost.usd)
    redacted = "; ".join(
        f"{NAMES[c]}: " + ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items()))
        for c, kinds in done.redacted.items()) or "nothing"
    kept = ", ".join(f"{NAMES[c]} ({n})" for c, n in done.kept.items() if n)
    return [f"wrote {done.path}: {done.messages} messages, {done.bytes:,} bytes; the branch "
            f"cost {spent}", f"redacted: {redacted}"] + ([f"kept: {kept}"] if kept else [])


def run_share(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        at = args.at if args.at is not None else s.conversation(args.conversation).tip_id
        if at is None:
            raise StoreError(f"conversation {args.conversation} has no messages")
        safe_write.guard(Path(args.output), s.db_path)  # before anything is asked
        ocr = load_app_prefs().ocr_images if args.ocr_images is None else args.ocr_images
        review = review_branch(s, args.conversation, at, ocr=ocr)
        if args.yes:
            for line in review.lines():
                print(visible(line))
        redacting = decide(review, args.yes)
        done = write_share(s, args.conversation, at, Path(args.output), review, redacting)
        for line in result_lines(done):
            print(visible(line))
    return 0


def _share_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--at", type=int, metavar="MSG", help="share the path to MSG (default: "
                   "the tip)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.html",
                   help="the page to write (written beside it, then renamed into place)")
    p.add_argument("--yes", action="store_true",
                   help="accept the review's defaults: redact secrets and home-folder paths, "
                        "keep other paths and e-mail addresses")
    p.add_argument("--ocr-images", action=argparse.BooleanOptionalAction, default=None,
                   help="read images with OCR to find secrets drawn in them (default: as "
                        "Settings say)")


COMMANDS: list[Command] = [
    Command("share", "one self-contained HTML page of a branch, with its cost and a map; "
            "secrets, paths and e-mail addresses reviewed first", _share_args, run_share),
]
