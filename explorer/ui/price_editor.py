"""Settings → Prices: the models the settings file prices, over the bundled dated table (C5)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.app.costs.price_edits import PriceRow, read_rows
from explorer.app.costs.prices import load_prices
from explorer.providers import PROVIDER_KINDS

COLUMNS = ("Provider", "Model", "Input $/M tokens", "Output $/M tokens")


class PriceEditor(QWidget):
    """A row per model the settings file prices; ``rows()`` reads them back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        table = load_prices()
        about = QLabel(f"The bundled table (dated {table.date}) prices {len(table.prices)} "
                       "models; a row here adds a model or replaces its input and output price "
                       "(cache reads and writes keep the provider's multipliers). A model in "
                       "neither has no price: its tokens are counted, its money is not guessed.")
        about.setWordWrap(True)
        broken = QLabel("\n".join(f"{n} (Save leaves it out)" for n in table.notes))
        broken.setWordWrap(True)
        broken.setVisible(bool(table.notes))
        self.notes = broken
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.horizontalHeader().setStretchLastSection(True)
        for row in read_rows():
            self.add_row(row)
        add, remove = QPushButton("Add", self), QPushButton("Remove", self)
        add.clicked.connect(lambda: self.add_row(PriceRow(PROVIDER_KINDS[0], "", 0.0, 0.0)))
        remove.clicked.connect(lambda: self.table.removeRow(self.table.currentRow()))
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addWidget(broken)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

    def add_row(self, row: PriceRow) -> None:
        at = self.table.rowCount()
        self.table.insertRow(at)
        for column, value in enumerate((row.provider, row.model, f"{row.input:g}",
                                        f"{row.output:g}")):
            self.table.setItem(at, column, QTableWidgetItem(value))

    def rows(self) -> tuple[list[PriceRow], str]:
        """The rows, and the first reason one cannot be saved ("" when all can)."""
        out: list[PriceRow] = []
        for at in range(self.table.rowCount()):
            cells = [self._text(at, c) for c in range(len(COLUMNS))]
            if not any(cells):
                continue  # an empty row added and left: nothing to save
            try:
                row = PriceRow(cells[0], cells[1], float(cells[2] or 0), float(cells[3] or 0))
            except ValueError:
                return out, f"{cells[1] or 'a model'}: a price is a number of dollars"
            if row.problem():
                return out, row.problem()
            out.append(row)
        return out, ""

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""
