"""Pictures of compare on the corpus's ChatGPT export: its regeneration, its edited prompt, all
three branches, and four (a fourth made in the app by editing a prompt). Each picture is
checked for what a reader needs: every column present, labels that differ, highlights on
the non-base columns only. With CONVO_UPDATE_SCREENSHOTS=1 they refresh
resources/screenshots/ (run under Xvfb with QT_QPA_PLATFORM=xcb for a real window)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_samples import Samples, import_samples
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.ui.compare.window import CompareWindow

SIZE = (1500, 900)


@pytest.fixture(scope="module")
def samples(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Samples]:
    s = import_samples(corpus_dir, tmp_path_factory.mktemp("shots") / "samples.db")
    yield s
    s.store.close()


def choices(samples: Samples, name: str) -> list[int]:
    a, b = samples.find("chatgpt", "assistant", "Bien sûr, en voici une")
    cool = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    again = samples.one("chatgpt", "user", "parlons français")
    if name == "compare-2-regenerated":
        return [a, b]
    if name == "compare-2-edited":
        return [cool, again]
    if name == "compare-3":
        return [cool, a, b]
    joke = samples.one("chatgpt", "user", "raconte-moi une blague")
    puns = samples.find("chatgpt", "user", "raconte-moi un jeu de mots")
    if puns:
        return [cool, a, b, puns[0]]
    pun = samples.store.edit_prompt(samples.conv["chatgpt"], joke,
                                    "raconte-moi un jeu de mots sur la pluie")
    samples.store.branch(samples.conv["chatgpt"], b)  # back on the regenerated answer
    return [cool, a, b, pun]


def highlighted(image: QImage, w: CompareWindow, col: int, color: QColor) -> int:
    total = 0
    for row in w.cells:
        if not row:
            continue
        cell = row[col]
        origin = cell.mapTo(w, QPoint(0, 0))
        total += sum(image.pixel(x, y) == color.rgb()
                     for x in range(origin.x(), origin.x() + cell.width(), 2)
                     for y in range(origin.y(), min(origin.y() + cell.height(), image.height()),
                                    2))
    return total


@pytest.mark.parametrize("name", ["compare-2-regenerated", "compare-2-edited", "compare-3",
                                  "compare-4"])
def test_compare_pictures_on_the_chatgpt_export(
    qtbot: QtBot, samples: Samples, screenshot_dir: Path, name: str,
) -> None:
    ids = choices(samples, name)
    w = CompareWindow(samples.store, samples.conv["chatgpt"], ids)
    qtbot.addWidget(w)
    w.resize(*SIZE)
    w.show()
    qtbot.waitExposed(w)
    for _ in range(5):
        QApplication.processEvents()
    shot = screenshot_dir / f"{name}.png"
    assert w.grab().save(str(shot))
    image = QImage(str(shot))
    c = w.comparison
    assert c is not None and len(w.headers) == len(ids) == len(c.columns)
    assert len({col.label for col in c.columns}) == len(ids), "labels tell the columns apart"
    assert all(h.isVisible() and h.width() > 200 for h in w.headers)
    marked = QColor(w.colors.changed)
    assert highlighted(image, w, c.base, marked) == 0, "the base column carries no marks"
    if name == "compare-2-regenerated":
        assert c.identical and "identical" in w.status.text()
    else:
        others = [j for j in range(len(ids)) if j != c.base and not c.columns[j].same_as_base]
        assert others and all(highlighted(image, w, j, marked) > 50 for j in others)
