"""Run by test_window_scale_V3 in a process of its own (a device scale is set before Qt
starts): the window at 1024×700 on the demo, its geometry read back as JSON."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QApplication

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.transcript.header_card import HeaderCard
from explorer.ui.window.main_window import MainWindow


def spin(ms: int) -> None:
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.005)


def main(folder: Path) -> None:
    app = QApplication.instance() or QApplication([])
    with Store(folder / "demo.db") as s:
        load_demo(s)
    store = Store(folder / "demo.db")
    w = MainWindow(store, QSettings(str(folder / "w.ini"), QSettings.Format.IniFormat))
    w.resize(1024, 700)
    w.show()
    w.open_conversation(1)
    spin(1500)
    graph_before, width_before = w.graph.width(), w.width()
    active = set(store.path_ids(store.conversation(1).tip_id or 0))
    w.reveal(next(n.id for n in store.skeleton(1) if n.id not in active))
    spin(800)
    overlaps = []
    for mid in w.transcript.message_ids():
        card = w.transcript.card_for(mid)
        if isinstance(card, HeaderCard) and card.isVisible():
            role = card.header.find("role")
            overlaps += [(mid, i.name) for i in card.header.items
                         if role is not None and i is not role and i.shown
                         and i.rect.width() > 0 and i.rect.intersects(role.rect)]
    title = w.context_panel.title
    print(json.dumps({
        "ratio": app.devicePixelRatio(), "width": [width_before, w.width()],
        "graph": [graph_before, w.graph.width()], "overlaps": overlaps,
        "title_whole": title.text() == title.full, "title": title.full}))
    w.close()
    store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
