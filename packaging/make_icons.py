"""Draw the application icon: a small session tree whose active branch is highlighted.

The shapes are listed once and written two ways — as SVG text and as Pillow drawings — so the
vector icon and the PNG/ICO renderings cannot drift apart, and no SVG renderer is needed.
Run ``python packaging/make_icons.py`` after changing a shape; the outputs are committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
VIEW = 256
SUPERSAMPLE = 4
PNG_SIZES = (16, 32, 48, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)

BACKGROUND = "#1f3a5f"
QUIET = "#c9d6e3"
ACTIVE = "#f2a541"
CORNER = 52
EDGE_WIDTH = 14
NODE_RADIUS = 21


@dataclass(frozen=True)
class Node:
    x: int
    y: int
    active: bool


NODES: dict[str, Node] = {
    "root": Node(128, 58, True),
    "left": Node(72, 128, False),
    "right": Node(184, 128, True),
    "left_leaf": Node(72, 198, False),
    "tip": Node(148, 198, True),
    "sibling": Node(212, 198, False),
}
EDGES: tuple[tuple[str, str], ...] = (
    ("root", "left"), ("left", "left_leaf"), ("right", "sibling"),
    ("root", "right"), ("right", "tip"),
)


def _edge_colour(a: str, b: str) -> str:
    return ACTIVE if NODES[a].active and NODES[b].active else QUIET


def svg_text() -> str:
    """The icon as a standalone SVG document (256 x 256 view box)."""
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{VIEW}" height="{VIEW}" '
        f'viewBox="0 0 {VIEW} {VIEW}">',
        "  <title>Conversation Explorer</title>",
        f'  <rect x="8" y="8" width="{VIEW - 16}" height="{VIEW - 16}" rx="{CORNER}" '
        f'fill="{BACKGROUND}"/>',
        f'  <g stroke-width="{EDGE_WIDTH}" stroke-linecap="round" fill="none">',
    ]
    for a, b in EDGES:
        na, nb = NODES[a], NODES[b]
        lines.append(f'    <line x1="{na.x}" y1="{na.y}" x2="{nb.x}" y2="{nb.y}" '
                     f'stroke="{_edge_colour(a, b)}"/>')
    lines.append("  </g>")
    for node in NODES.values():
        fill = ACTIVE if node.active else QUIET
        lines.append(f'  <circle cx="{node.x}" cy="{node.y}" r="{NODE_RADIUS}" fill="{fill}"/>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def draw(size: int) -> Image.Image:
    """The same shapes drawn with Pillow at ``size`` px, supersampled for smooth edges."""
    big = VIEW * SUPERSAMPLE
    s = SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    pen.rounded_rectangle((8 * s, 8 * s, (VIEW - 8) * s - 1, (VIEW - 8) * s - 1),
                          radius=CORNER * s, fill=BACKGROUND)
    half = EDGE_WIDTH * s / 2
    for a, b in EDGES:
        na, nb = NODES[a], NODES[b]
        colour = _edge_colour(a, b)
        pen.line((na.x * s, na.y * s, nb.x * s, nb.y * s), fill=colour, width=EDGE_WIDTH * s)
        for n in (na, nb):  # round caps, as in the SVG
            pen.ellipse((n.x * s - half, n.y * s - half, n.x * s + half, n.y * s + half),
                        fill=colour)
    r = NODE_RADIUS * s
    for node in NODES.values():
        pen.ellipse((node.x * s - r, node.y * s - r, node.x * s + r, node.y * s + r),
                    fill=ACTIVE if node.active else QUIET)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def write_icons(folder: Path = ICONS) -> list[Path]:
    """Write ``app.svg``, ``app-<size>.png`` and ``app.ico``; returns the written paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "app.svg"]
    written[0].write_text(svg_text(), encoding="utf-8")
    for size in PNG_SIZES:
        path = folder / f"app-{size}.png"
        draw(size).save(path, format="PNG", optimize=True)
        written.append(path)
    ico = folder / "app.ico"
    draw(256).save(ico, format="ICO", sizes=[(n, n) for n in ICO_SIZES])
    written.append(ico)
    return written


if __name__ == "__main__":
    for p in write_icons():
        print(p)
