"""File → Share branch…: the review of what a shared page would carry, then the page (R1, C5).

The path is reviewed off the main thread (secrets the redaction rules find, home-folder and
other absolute paths, e-mail addresses); the dialog lists each category with what was found
and a "Redact" box set to the command line's defaults (secrets and home paths redacted), and
the page is written off the main thread too, where the person chose. Nothing is written
until the person says so; the outcome names the file and what was redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from explorer.store import Store
from explorer.ui.background.op_runner import OpRunner, telling

if TYPE_CHECKING:
    from explorer.app.sharing.share_html import Shared
    from explorer.app.sharing.share_review import Review

SHOWN = 4  # the most-found items of a category named in the dialog


class Asks(Protocol):
    def ask_save_path(self, title: str, suggested: str, filters: str) -> Path | None: ...

    def tell(self, title: str, text: str) -> None: ...

    def fail(self, text: str) -> None: ...


class ShareReview(QDialog):
    """What the review found, a box per category; ``choices()`` says what to redact."""

    def __init__(self, review: Review, parent: QWidget | None = None) -> None:
        from explorer.app.sharing.share_scan import CATEGORIES, DEFAULTS, NAMES

        super().__init__(parent)
        self.setWindowTitle("Share branch")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        head = QLabel(f"The page will hold the path to message {review.at} "
                      f"({review.messages:,} messages). Found on it:")
        head.setWordWrap(True)
        layout.addWidget(head)
        self.boxes: dict[str, QCheckBox] = {}
        for cat in CATEGORIES:
            count = review.count(cat)
            box = QCheckBox(f"Redact {NAMES[cat]} ({count:,} found)")
            box.setObjectName(f"redact_{cat}")
            box.setChecked(DEFAULTS[cat])
            box.setEnabled(count > 0)
            self.boxes[cat] = box
            layout.addWidget(box)
            items = sorted(review.found[cat].values(), key=lambda i: -i.count)[:SHOWN]
            if items:
                listing = QLabel("\n".join(f"    {i.value} ×{i.count}" for i in items)
                                 + (" …" if len(review.found[cat]) > SHOWN else ""))
                listing.setTextFormat(Qt.TextFormat.PlainText)
                layout.addWidget(listing)
        if review.unscanned_images:
            from explorer.tree import secrets

            note = QLabel(secrets.unscanned_note(review.unscanned_images))
            note.setWordWrap(True)
            layout.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def choices(self) -> dict[str, bool]:
        return {cat: box.isChecked() for cat, box in self.boxes.items()}


def _asked(dialog: ShareReview) -> bool:
    return dialog.exec() == QDialog.DialogCode.Accepted


class ShareBranch:
    """Review, ask, write: the window's share of a branch, both long steps off the main thread."""

    def __init__(self, store: Store, ops: OpRunner, asks: Asks, parent: QWidget,
                 conversation: Callable[[], int | None]) -> None:
        self.store, self.ops, self.asks, self.parent = store, ops, asks, parent
        self._conversation = conversation
        self.dialog: ShareReview | None = None
        self.decide: Callable[[ShareReview], bool] = _asked
        """How the review is answered (a test answers it without a person)."""

    def share(self, mid: int) -> None:
        conv = self._conversation()
        if conv is None:
            return

        def review() -> Review:
            from explorer.app.sharing.share_review import review_branch

            return review_branch(self.store, conv, mid)

        self.ops.run("Reviewing the branch", review, lambda r: self._reviewed(conv, mid, r),
                     telling(self.asks.fail), refresh=lambda _r: False)

    def _reviewed(self, conv: int, mid: int, review: Review) -> None:
        self.dialog = ShareReview(review, self.parent)
        if not self.decide(self.dialog):
            return
        choices = self.dialog.choices()
        title = self.store.conversation(conv).display_title
        stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in title)[:60].strip()
        dest = self.asks.ask_save_path("Share branch", f"{stem or 'branch'}.html",
                                       "HTML page (*.html);;All files (*)")
        if dest is not None:
            self._write(conv, mid, dest, review, choices)

    def _write(self, conv: int, mid: int, dest: Path, review: Review,
               choices: Mapping[str, bool]) -> None:
        def work() -> Shared:
            from explorer.app.sharing.share_html import write_share

            return write_share(self.store, conv, mid, dest, review, choices)

        def done(shared: Shared) -> None:
            redacted = sum(n for kinds in shared.redacted.values() for n in kinds.values())
            self.asks.tell("Share branch", f"wrote {shared.messages:,} messages to {dest} "
                           f"({redacted:,} redacted)")

        self.ops.run("Writing the shared page", work, done, telling(self.asks.fail),
                     refresh=lambda _r: False)
