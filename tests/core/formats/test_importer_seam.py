"""The seam between formats and their readers is typed: the registry's table states what
each format can do (mypy checks each package against those protocols), and nothing probes a
module for a function by name."""

from __future__ import annotations

import ast
from pathlib import Path

from explorer.formats.registry import IMPORTERS, capabilities, formats

EXPLORER = Path(__file__).resolve().parents[3] / "explorer"
SEAM = {"sniff", "read", "can_tail", "read_tail", "read_changed", "reads_twice"}


def test_the_table_names_every_format_by_its_own_constant() -> None:
    table = formats()
    assert list(table) == list(IMPORTERS)
    for name, caps in table.items():
        assert caps.name == name and capabilities(caps.importer) is caps


def test_the_agent_formats_tail_and_the_databases_read_changes() -> None:
    table = formats()
    assert {n for n, c in table.items() if c.tail is not None} == {
        "claude_code", "pi", "codex", "gemini_cli", "copilot_cli", "qwen_code", "kimi_cli",
        "aider"}
    assert {n for n, c in table.items() if c.changes is not None} == {
        "llm", "opencode", "cursor", "goose", "crush"}
    assert {n for n, c in table.items() if c.two_pass is not None} == {"claude_code"}


def test_nothing_probes_a_module_for_an_importer_function() -> None:
    probes = []
    for path in EXPLORER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"getattr", "hasattr"} and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in SEAM):
                probes.append(f"{path.relative_to(EXPLORER)}:{node.lineno}")
    assert probes == []
