"""A branch as one self-contained HTML page to share: readable, reviewed, safe to open.

The page holds the path from the root to the chosen message rendered as the HTML export
renders it (text escaped, Markdown drawn from escaped text, control and bidi characters
shown), a small map of where the branch sits in the tree, what the branch cost (C5), and
what was redacted before writing (R1). Nothing in it fetches or runs: a Content-Security-
Policy forbids scripts and every load that is not inline, images are ``data:`` URLs, and the
export's web links become plain text naming their address (a page someone is handed should
not send its reader anywhere). The messages are read, redacted and written a chunk at a
time into a file beside the target, renamed into place when complete, so a 100,000-message
branch never sits in memory whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path

from explorer.app.costs.report import cost_report, path_cost
from explorer.app.costs.tally import Tally
from explorer.app.costs.words import money
from explorer.app.sharing import safe_write
from explorer.app.sharing.image_ocr import pixel_reader
from explorer.app.sharing.share_map import MAP_STYLE, tree_map
from explorer.app.sharing.share_review import Review, path_chunks
from explorer.app.sharing.share_scan import CATEGORIES, NAMES, SECRETS, redact
from explorer.formats.exporters.html import CSP, STYLE, message_lines
from explorer.formats.exporters.html_inline import CONTROL, shown
from explorer.store import Store
from explorer.tree import secrets
from explorer.tree.model import Message, Part

_LINK = re.compile(r'<a href="([^"]*)" rel="noopener noreferrer">(.*?)</a>', re.DOTALL)
SHARE_STYLE = """
.summary { background: #f6f6f6; padding: .6rem .8rem; margin: .8rem 0; }
.summary h2 { font-size: 1rem; margin: .2rem 0 .4rem; }
.summary table { border-collapse: collapse; } .summary td { padding: 0 .8rem 0 0; }
.summary td.n { text-align: right; } .link { text-decoration: underline dotted; }
.address { font-family: monospace; font-size: .85em; color: #555; }
"""


@dataclass
class Shared:
    """What was written: the counts the command and the window report."""

    path: Path
    messages: int = 0
    redacted: dict[str, dict[str, int]] = field(default_factory=dict)  # category → kind → n
    kept: dict[str, int] = field(default_factory=dict)  # category → found and kept
    cost: Tally = field(default_factory=Tally)
    bytes: int = 0


def write_share(store: Store, conv_id: int, at: int, dest: Path, review: Review,
                redacting: Mapping[str, bool]) -> Shared:
    """Write the page for the path to ``at``; ``redacting`` says, per category of the review,
    whether it is redacted (True) or kept."""
    report = cost_report(store, conv_id)
    path_ids = store.path_ids(at)
    out = Shared(dest, cost=path_cost(report, store, at))
    out.kept = {c: review.count(c) for c in CATEGORIES if not redacting.get(c)}
    pixels = pixel_reader(review.ocr) if redacting.get(SECRETS) else None
    title, _ = redact(store.conversation(conv_id, boundary=False).title or "Conversation",
                      redacting)
    head = _head(title, at, review, redacting, out.cost,
                 tree_map(report.shape, set(path_ids), at, report.tip))
    with safe_write.atomic_text(dest, store.db_path) as f:
        f.write(head)
        for chunk in path_chunks(store, conv_id, at):
            for m in _redacted(chunk, redacting, pixels, out):
                f.write("\n".join(_inert(line) for line in message_lines(m)) + "\n")
                out.messages += 1
        f.write("</main>\n</body>\n</html>\n")
    out.bytes = dest.stat().st_size
    return out


def _redacted(chunk: Sequence[Message], redacting: Mapping[str, bool],
              pixels: secrets.PixelReader | None, out: Shared) -> Iterator[Message]:
    if redacting.get(SECRETS):
        chunk, found = secrets.redact_messages(chunk, pixels)
        for f in found:
            _count(out, SECRETS, f.kind)
    rest = {c: v for c, v in redacting.items() if c != SECRETS}
    for m in chunk:
        parts: list[Part] = []
        for p in m.parts:
            if p.kind == "image" or not p.text:
                parts.append(p)
                continue
            text, done = redact(p.text, rest)
            for cat, kind in done:
                _count(out, cat, kind)
            parts.append(replace(p, text=text) if done else p)
        model, _ = redact(m.model or "", redacting)
        yield replace(m, parts=parts, model=model or None)


def _count(out: Shared, category: str, kind: str) -> None:
    kinds = out.redacted.setdefault(category, {})
    kinds[kind] = kinds.get(kind, 0) + 1


def _inert(line: str) -> str:
    """A web link as text naming its address: the page sends its reader nowhere."""
    def plain(m: re.Match[str]) -> str:
        inner, address = m.group(2), m.group(1)
        after = "" if inner == address else f' <span class="address">&lt;{address}&gt;</span>'
        return f'<span class="link">{inner}</span>{after}'
    return _LINK.sub(plain, line) if "<a " in line else line


def _head(title: str, at: int, review: Review, redacting: Mapping[str, bool], cost: Tally,
          svg: str) -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(CSP, quote=True)}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{escape(CONTROL.sub(_code, title))}</title>",
        f"<style>{STYLE}{SHARE_STYLE}{MAP_STYLE}</style>",
        "</head>", "<body>", f"<header><h1>{shown(title)}</h1>",
        f"<p>The branch from the first message to message {at}: {review.messages} "
        "messages.</p>", "</header>",
        '<section class="summary"><h2>Where this branch sits</h2>', svg, "</section>",
        _cost_html(cost), _redaction_html(review, redacting), "<main>", ""])


def _code(m: re.Match[str]) -> str:
    return f"[U+{ord(m.group(0)):04X}]"


def _cost_html(cost: Tally) -> str:
    spent = money(cost.usd)
    rows = [("input", cost.input), ("output", cost.output), ("cache read", cost.cache_read),
            ("cache write", cost.cache_write)]
    cells = "".join(f'<tr><td>{k} tokens</td><td class="n">{v:,}</td></tr>' for k, v in rows)
    notes = []
    if cost.estimated:
        notes.append(f"{len(cost.estimated)} answer(s) estimated (no usage recorded)")
    if cost.no_price:
        notes.append("no price for " + ", ".join(sorted(cost.no_price)))
    more = f"<p>{shown('; '.join(notes))}</p>" if notes else ""
    return (f'<section class="summary"><h2>What this branch cost: {spent} '
            f"({cost.answers} answers)</h2><table>{cells}</table>{more}</section>")


def _redaction_html(review: Review, redacting: Mapping[str, bool]) -> str:
    done = [f"{NAMES[c]} ({review.count(c)})" for c in CATEGORIES
            if redacting.get(c) and review.count(c)]
    kept = [f"{NAMES[c]} ({review.count(c)})" for c in CATEGORIES
            if not redacting.get(c) and review.count(c)]
    lines = [f"<p>redacted: {shown(', '.join(done) or 'nothing')}</p>"]
    if redacting.get(SECRETS) and review.found[SECRETS]:
        kinds = ", ".join(f"{i.value} ×{i.count}" for i in review.found[SECRETS].values())
        lines.append(f"<p>secrets replaced by [redacted: kind]: {shown(kinds)}</p>")
    if kept:
        lines.append(f"<p>kept as they are, as chosen: {shown(', '.join(kept))}</p>")
    if review.unscanned_images:
        lines.append(f"<p>{shown(secrets.unscanned_note(review.unscanned_images))}</p>")
    return ('<section class="summary"><h2>Reviewed before sharing</h2>' + "".join(lines)
            + "</section>")
