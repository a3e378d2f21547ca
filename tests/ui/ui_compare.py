"""Reading the compare window's cells back: which words carry which mark."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat

from explorer.ui.compare.cells import CellWidget


def marked_runs(cell: CellWidget, kind: str) -> list[str]:
    """Words of the cell's text parts shown highlighted ("changed") or struck ("struck")."""
    changed = QColor(cell_colors(cell)).rgb()

    def wanted(f: QTextCharFormat) -> bool:
        if kind == "struck":
            return f.fontStrikeOut()
        return f.background().style().value != 0 and f.background().color().rgb() == changed

    out: list[str] = []
    for view in cell.texts:
        block = view.document().begin()
        run = ""
        while block.isValid():
            for it in block:
                frag = it.fragment()
                if frag.isValid() and wanted(frag.charFormat()):
                    run += frag.text()
                else:
                    out.extend(run.split())
                    run = ""
            out.extend(run.split())
            run = ""
            block = block.next()
    return out


def cell_colors(cell: CellWidget) -> str:
    return cell.colors.changed
