"""What fills the context window, by part, estimated beside measured (``/context``).

The estimate is split by part so a person sees *what* to compact; the provider's
measured count (the last stored prompt count plus what came after) has no parts,
so it is drawn as its own bar under the estimate. The threshold line sits where
the proactive ladder starts, so the warning comes before the wall, not at it.
A third row shows the other half of the window's price: how much of the next request is
expected from the provider's prompt cache, written to it, or paid in full.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from explorer.compaction.kinds import DEFAULT_OUTPUT_RESERVE, PART_NAMES
from explorer.ui.preview.figure_bars import (
    CACHE_COLOURS,
    COLOURS,
    DARK_FREE,
    LABEL_WIDTH,
    MEASURED_COLOUR,
    ROW_HEIGHT,
    WARNING_COLOUR,
    FigureBars,
    free_colour,
    paint_segments,
)
from explorer.ui.preview.steady_label import SteadyLabel

__all__ = ["BAR_PARTS", "CACHE_COLOURS", "COLOURS", "DARK_FREE", "LABELS", "LABEL_WIDTH",
           "LEGEND", "MEASURED_COLOUR", "ROW_HEIGHT", "WARNING_COLOUR", "ContextBar",
           "cache_text", "free_colour", "paint_segments", "threshold_tokens"]

BAR_PARTS: tuple[str, ...] = (*PART_NAMES, "free")
LABELS = {name: name.replace("_", " ") for name in (*BAR_PARTS, "measured")}
LEGEND: tuple[str, ...] = (*BAR_PARTS, "measured")
WIDEST_TOKENS = "0,000,000"  # the legend's numbers keep this width: new ones move nothing
WIDEST_SHARE = "000.0 %"


def threshold_tokens(usage: dict[str, Any], threshold: float) -> int | None:
    """Where the proactive ladder starts: ``threshold`` of (window − output reserve).

    A usage without its own reserve is measured against the ladder's default
    reserve, so the warning fires exactly where ``/compact`` would act.
    """
    window = usage.get("window")
    if not window:
        return None
    reserve = usage.get("output_reserve") or DEFAULT_OUTPUT_RESERVE
    return int((window - reserve) * threshold)


def _fixed_width(label: QLabel, widest: str) -> QLabel:
    label.setMinimumWidth(label.fontMetrics().horizontalAdvance(widest))
    return label


class ContextBar(QWidget):
    """The window by part; ``legend[name]`` shows each part's tokens as ``/context`` prints."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bars = FigureBars()
        # The wrapped lines keep their room, so a new figure never changes the panel's
        # height (which would lay the transcript below out again).
        self.summary = SteadyLabel(lines=2)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = SteadyLabel(lines=1)
        self._status_style = ""
        self.cache_text = SteadyLabel("Prompt cache: –", lines=2)
        self.cache_text.setTextFormat(Qt.TextFormat.PlainText)
        self.cache_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.legend: dict[str, QLabel] = {}
        self.shares: dict[str, QLabel] = {}
        grid = QGridLayout()
        for i, name in enumerate(LEGEND):
            swatch = QLabel()
            swatch.setFixedSize(12, 12)
            fill = free_colour(self).name() if name == "free" else COLOURS[name]
            swatch.setStyleSheet(f"background: {fill}; border: 1px solid #757575;")
            row, col = divmod(i, 3)
            grid.addWidget(swatch, row, 4 * col)
            grid.addWidget(QLabel(LABELS[name]), row, 4 * col + 1)
            self.legend[name] = _fixed_width(QLabel("–"), WIDEST_TOKENS)
            self.legend[name].setAlignment(Qt.AlignmentFlag.AlignRight)
            grid.addWidget(self.legend[name], row, 4 * col + 2)
            self.shares[name] = _fixed_width(QLabel(""), WIDEST_SHARE)
            grid.addWidget(self.shares[name], row, 4 * col + 3)
        self.details = QWidget()  # the legend and the cache line, which a panel may fold
        folded = QVBoxLayout(self.details)
        folded.setContentsMargins(0, 0, 0, 0)
        folded.addLayout(grid)
        folded.addWidget(self.cache_text)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.bars)
        layout.addWidget(self.details)
        layout.addWidget(self.status)
        self.usage: dict[str, Any] | None = None
        self.cache: dict[str, Any] | None = None

    @property
    def warning(self) -> bool:
        return self.bars.warning

    def set_usage(self, usage: dict[str, Any], threshold: float = 0.8) -> None:
        """Show ``ContextUsage.to_dict()``; warn once the larger of estimate and measurement
        passes ``threshold`` of the window less the output reserve."""
        self.usage = usage
        parts: dict[str, int] = usage["parts"]
        window: int | None = usage.get("window")
        estimated, measured = int(usage["estimated_total"]), usage.get("measured_total")
        free = usage.get("free")
        limit = threshold_tokens(usage, threshold)
        used = max(estimated, measured or 0)
        self.bars.estimated = [(n, parts.get(n, 0)) for n in PART_NAMES]
        if window:
            self.bars.estimated.append(("free", max(window - estimated, 0)))
        self.bars.measured = measured
        self.bars.scale_total = max(window or 0, estimated, measured or 0)
        self.bars.threshold = limit
        self.bars.warning = limit is not None and used > limit
        for name in LEGEND:
            tokens = {"free": free, "measured": measured}.get(name, parts.get(name, 0))
            self.legend[name].setText("–" if tokens is None else f"{max(tokens, 0):,}")
            self.shares[name].setText(_share(tokens, window, over=name == "free"))
        self.summary.setText(_summary_text(usage, limit, threshold))
        self._set_status(used, limit)
        self.bars.update()

    def set_cache(self, cache: dict[str, Any] | None) -> None:
        """Show ``prompt_cache.figures()``: the next request's expected cache read, write and
        full-price part (a row of the bar and a line), and what the last answer measured."""
        self.cache = cache
        outlook = (cache or {}).get("outlook")
        last = (cache or {}).get("last")
        self.bars.cache = [] if outlook is None else [
            ("read", int(outlook["read_tokens"])), ("written", int(outlook["written_tokens"])),
            ("uncached", int(outlook["uncached_tokens"]))]
        self.cache_text.setText(cache_text(outlook, last))
        self.bars.update()

    def _set_status(self, used: int, limit: int | None) -> None:
        if limit is not None and used > limit:
            self.status.setText(f"⚠ Compaction due: {used:,} tokens pass the threshold of "
                                f"{limit:,}. Run /shake or /compact before the window fills.")
            self._style_status(f"color: {WARNING_COLOUR}; font-weight: bold;")
        else:
            left = "" if limit is None else f" · {limit - used:,} tokens before the threshold"
            self.status.setText(f"Within the threshold{left}.")
            self._style_status("")

    def _style_status(self, style: str) -> None:
        """Restyle the status only when its state changes: a style sheet polishes the
        label again, which costs the main thread milliseconds on every figure."""
        if style != self._status_style:
            self._status_style = style
            self.status.setStyleSheet(style)

    def show_error(self, message: str) -> None:
        self.status.setText(message)
        self._style_status(f"color: {WARNING_COLOUR};")

    def show_note(self, message: str) -> None:
        self.status.setText(message)
        self._style_status("")


def cache_text(outlook: dict[str, Any] | None, last: dict[str, Any] | None) -> str:
    """The cache row as words, in the units the preview and ``convo compact`` print."""
    if outlook is not None:
        head = (f"Prompt cache, next request: {outlook['read_tokens']:,} tokens expected from "
                f"the cache (at {outlook['read_price']:g}×), {outlook['written_tokens']:,} "
                f"written (at {outlook['write_price']:g}×), {outlook['uncached_tokens']:,} "
                f"uncached: about {outlook['cost_in_input_tokens']:,} input tokens' worth")
    else:
        head = "Prompt cache: no outlook for this provider (it caches on its own)"
    if last is not None:
        head += (f" · last answer read {last['read']:,} from the cache, wrote "
                 f"{last['written']:,}")
    return head + "."


def _summary_text(usage: dict[str, Any], limit: int | None, threshold: float) -> str:
    window = usage.get("window")
    measured = usage.get("measured_total")
    head = f"window {window:,}" if window else "window unknown"
    return (f"{head} ({usage.get('family')} estimate, factor {usage.get('factor', 1.0):.2f}) · "
            f"estimated {usage['estimated_total']:,} · measured "
            + (f"{measured:,}" if measured is not None else "none")
            + (f" · threshold {limit:,} ({threshold:.0%})" if limit is not None else ""))


def _share(tokens: int | None, window: int | None, *, over: bool = False) -> str:
    """A part's share of the window; free space past the window reads "full", not a negative."""
    if tokens is None or not window:
        return ""
    if over and tokens < 0:
        return "full"
    return f"{100 * tokens / window:.1f} %"

