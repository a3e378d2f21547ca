"""A small picture of the conversation's tree for a shared page: where the branch sits.

Only what gives the tree its shape is drawn (roots, branch points, leaves, the shared
message and the tip), each straight run between them one line, so a 100,000-message
conversation is a handful of shapes. Each leaf has a row (at most :data:`MAX_ROWS`; the
branch shared always among them), depth runs left to right, and the shared path is drawn
strong. Inline SVG: nothing is fetched, nothing runs.
"""

from __future__ import annotations

from collections.abc import Collection
from html import escape

from explorer.app.costs.shape import Shape

MAX_ROWS = 40
WIDTH, ROW, PAD = 640, 14, 12
ON, OFF, AT, TIP = "#1a5fb4", "#bbb", "#c01c28", "#26a269"


def tree_map(shape: Shape, path: Collection[int], at: int, tip: int | None) -> str:
    main = [m for m in shape.order if not shape.in_subagent(m)]
    if not main:
        return ""
    depth: dict[int, int] = {}
    kids: dict[int, int] = {}
    for m in main:
        p = shape.parent[m]
        depth[m] = depth[p] + 1 if p is not None else 0
        if p is not None:
            kids[p] = kids.get(p, 0) + 1
    target = at if at in depth else shape.attributed(at)
    leaves = _rows(shape, path)
    key = {m for m in main if shape.parent[m] is None or kids.get(m, 0) > 1}
    key |= set(leaves) | {k for k in (target, tip) if k in depth}
    near: dict[int, int] = {}
    for m in main:
        p = shape.parent[m]
        near[m] = m if m in key else near[p] if p is not None else m
    row = {leaf: i for i, leaf in enumerate(leaves)}
    for leaf in reversed(leaves):  # a node sits on the row of its first drawn leaf below
        at_node: int | None = leaf
        while at_node is not None:
            row[near[at_node]] = row[leaf]
            p = shape.parent[near[at_node]]
            at_node = near[p] if p is not None else None
    deepest = max(depth[m] for m in row) or 1
    height = ROW * len(leaves) + 2 * PAD

    def xy(m: int) -> tuple[float, float]:
        return (PAD + depth[m] * (WIDTH - 2 * PAD) / deepest, PAD + ROW * row[m])

    lines, dots = [], []
    for m in sorted(row, key=lambda n: depth[n]):
        p = shape.parent[m]
        up = near[p] if p is not None else None
        x, y = xy(m)
        if up is not None and up in row:
            px, py = xy(up)
            strong = m in path
            lines.append(f'<path d="M{px:.1f},{py:.1f} V{y:.1f} H{x:.1f}" fill="none" '
                         + (f'stroke="{ON}" stroke-width="3"/>' if strong
                            else f'stroke="{OFF}" stroke-width="1.5"/>'))
        if m == target:
            dots.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#fff" '
                        f'stroke="{AT}" stroke-width="3"/>')
        elif m == tip:
            dots.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{TIP}"/>')
        elif m not in shape.leaf_of or m in leaves:
            dots.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" '
                        f'fill="{ON if m in path else OFF}"/>')
    label = (f"The conversation's tree: {len(shape.leaves)} branch(es); the shared path is "
             "drawn strong, its last message ringed red, the tip green.")
    return (f'<svg class="map" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
            f'height="{height}" role="img" aria-label="{escape(label)}">'
            + "".join(lines) + "".join(dots) + "</svg>")


def _rows(shape: Shape, path: Collection[int]) -> list[int]:
    """The leaves drawn, in walk order: the shared branch's always among them."""
    if len(shape.leaves) <= MAX_ROWS:
        return list(shape.leaves)
    ours = {shape.leaf_of[m] for m in path if m in shape.leaf_of}
    kept = [leaf for leaf in shape.leaves if leaf in ours]
    for leaf in shape.leaves:
        if len(kept) >= MAX_ROWS:
            break
        if leaf not in ours:
            kept.append(leaf)
    order = {leaf: i for i, leaf in enumerate(shape.leaves)}
    return sorted(kept, key=order.__getitem__)


MAP_STYLE = """
.map { display: block; margin: .6rem 0; max-width: 100%; height: auto; }
"""
