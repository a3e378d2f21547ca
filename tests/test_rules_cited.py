"""Every rule id that code or a test cites is defined in ``tests/RULES.md``.

A citation is a rule-shaped word (a family letter and one digit: ``T4``, ``V2``, ``W1``) in
a module's or a test's text, a test's name, or a test file's name. The families are the ones
``RULES.md`` groups; a citation of an id it lacks names the file and line to fix.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "tests" / "RULES.md"
FAMILIES = "TPCLVXSRHAWEO"
CITED = re.compile(rf"(?<![A-Za-z0-9])([{FAMILIES}][1-9])(?![0-9A-Za-z])")
DEFINED = re.compile(rf"^- \*\*([{FAMILIES}][1-9])\. ", re.MULTILINE)


def defined() -> set[str]:
    return set(DEFINED.findall(RULES.read_text(encoding="utf-8")))


def citations() -> dict[str, list[str]]:
    """Each cited id, with the places (file:line) that cite it."""
    found: dict[str, list[str]] = {}
    for folder in (REPO / "explorer", REPO / "tests"):
        for path in sorted(folder.rglob("*.py")):
            if path == Path(__file__):
                continue
            rel = path.relative_to(REPO)
            for rule in CITED.findall(path.stem):
                found.setdefault(rule, []).append(f"{rel} (its name)")
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for rule in CITED.findall(line):
                    found.setdefault(rule, []).append(f"{rel}:{n}")
    return found


def test_rules_md_defines_each_id_once() -> None:
    ids = DEFINED.findall(RULES.read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert {"T1", "T8", "P2", "C4", "L7", "V2", "X1", "S1", "R1", "W1", "E1", "O1"} <= set(ids)


def test_every_cited_rule_is_defined() -> None:
    known = defined()
    cited = citations()
    assert len(cited["V2"]) > 50 and cited["W1"]  # the finder reads names and text
    unknown = {rule: places[:3] for rule, places in cited.items() if rule not in known}
    assert not unknown, f"cited but not in tests/RULES.md: {unknown}"


def test_the_citation_finder_sees_names_and_text(tmp_path: Path) -> None:
    assert CITED.findall("def test_T4_a_fork_copies() -> None:  # see (V2) and W1.") == [
        "T4", "V2", "W1"]
    assert CITED.findall("T02 X11 Z0 sha1 A10 [A-Z0-9] 0T4") == []
    assert "T4" in defined() and "Q1" not in defined()
