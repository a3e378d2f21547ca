"""Start ``convo`` through its entry point and report the moment of the first painted frame.

    python tests/ui/first_frame_child.py --db DB [convo options]

Prints one JSON line when the window has painted once: the process's CPU seconds, its
resident memory, whether the conversation's loads are still to start, and the modules
imported so far; then exits without running the app.
The start-up tests and the scale benchmark read it.
"""

from __future__ import annotations

import json
import os
import resource
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget


class Painted(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.done = True
        return False


def report_first_frame(*_args: object) -> int:
    """Stands in for ``QApplication.exec``: wait for the first paint, report, exit."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window = next(w for w in app.topLevelWidgets() if isinstance(w, QWidget) and w.isVisible())
    painted = Painted()
    window.installEventFilter(painted)
    while not painted.done:
        app.processEvents()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    opening = getattr(window, "first_open", None)  # the conversation opens after this frame
    print(json.dumps({"cpu_s": usage.ru_utime + usage.ru_stime, "rss_mb": rss,
                      "opens_after": bool(opening is not None and opening.pending),
                      "pycache_prefix": sys.pycache_prefix, "modules": sorted(sys.modules)}))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    QApplication.exec = report_first_frame  # type: ignore[method-assign,assignment]
    from explorer.cli.main import main

    main(sys.argv[1:])
