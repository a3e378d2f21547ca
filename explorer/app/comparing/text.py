"""A comparison as plain text and as JSON: what ``convo compare`` prints.

Marks follow wdiff: ``{+added or changed+}`` are the column's own words,
``[-lost-]`` are base words the column does not have. The base column has no
marks. The same summary sentences head the compare window.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from explorer.app.comparing.columns import CellMessage, CellPart, Comparison

MARKS = {"insert": ("{+", "+}"), "replace": ("{+", "+}"), "delete": ("[-", "-]")}


def summary(c: Comparison) -> list[str]:
    """Sentences a person reads first: which column is the base, and what is the same."""
    base = c.letter(c.base)
    out = [f"{len(c.columns)} branches from "
           + (f"message #{c.ancestor_id}" if c.ancestor_id is not None else "separate roots")
           + f", {len(c.rows)} turn(s); differences are against {base}"
           + (" (the active branch)" if c.active == c.base else "")]
    if c.mode == "off":
        out[0] += "; differences are not marked"
    out[0] += "."
    if c.identical:
        out.append("The answers are identical: every column says word for word what "
                   f"{base} says.")
        return out
    for j, col in enumerate(c.columns):
        if j == c.base:
            continue
        if col.same_as_base:
            out.append(f"{c.letter(j)} is word for word the same as {base}.")
        elif c.mode != "off":
            unit = "line" if c.mode == "lines" else "word"
            out.append(f"{c.letter(j)} differs from {base} in {col.changes} "
                       f"{unit}{'s' if col.changes != 1 else ''}.")
    return out


def part_line(p: CellPart, marked: bool = True) -> str:
    body = "".join(_span(s.kind, s.text, marked) for s in p.spans)
    if p.kind == "thinking":
        return f"(thinking) {body}"
    if p.kind == "tool_use":
        return f"→ {p.tool_name or 'tool'}({body.strip()})"
    if p.kind == "tool_result":
        return ("✗ " if p.is_error else "← ") + body
    return body


def _span(kind: str, text: str, marked: bool) -> str:
    if not marked or kind not in MARKS:
        return text
    core = text.rstrip()
    left, right = MARKS[kind]
    return f"{left}{core}{right}{text[len(core):]}" if core else text


def text_lines(c: Comparison) -> list[str]:
    out = summary(c)
    for j, col in enumerate(c.columns):
        role = " (base)" if j == c.base else ""
        out.append(f"  {c.letter(j)}{role}  {col.label}  — {col.description}, leaf #{col.leaf_id}")
    for k, row in enumerate(c.rows):
        same = c.same_rows[k] if k < len(c.same_rows) else False
        out.append("")
        out.append(f"── turn {k + 1}" + (" · the same in every column" if same else "") + " ──")
        if same and c.changes_only:
            continue
        for j, cell in enumerate(row):
            out.append(f"[{c.letter(j)}{' base' if j == c.base else ''}] {c.columns[j].label}")
            if cell.empty:
                out.append("  (no turn here on this branch)")
            for m in cell.messages:
                out.append(f"  {m.heading}")
                for p in m.parts:
                    out.extend("    " + line for line in part_line(p).splitlines() or [""])
    return out


def _message(m: CellMessage) -> dict[str, Any]:
    """A cell's message as JSON: an image part says its size, not its bytes."""
    out = asdict(m)
    for part, original in zip(out["parts"], m.parts, strict=True):
        image = part.pop("image", None)
        if image is not None:
            part["image_bytes"] = len(original.image or b"")
    return out


def to_json(c: Comparison) -> dict[str, Any]:
    return {
        "conversation": c.conversation_id, "ancestor": c.ancestor_id,
        "base": c.letter(c.base), "mode": c.mode, "changes_only": c.changes_only,
        "identical": c.identical, "summary": summary(c),
        "columns": [{"letter": c.letter(j), **asdict(col)} for j, col in enumerate(c.columns)],
        "rows": [{"turn": k + 1, "same": c.same_rows[k],
                  "cells": [{"empty": cell.empty, "messages": [_message(m) for m in cell.messages]}
                            for cell in row]}
                 for k, row in enumerate(c.rows)],
    }
