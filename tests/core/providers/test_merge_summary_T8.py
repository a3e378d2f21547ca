"""Merge back with a model summary, over real HTTP on loopback (the summary request is sent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_server import ProviderServer, ServerState

from explorer.cli.main import main


def test_T8_merge_carries_a_model_summary_when_a_provider_is_set(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "demo"]) == 0
    capsys.readouterr()
    code = main(["--db", db, "merge", "11", "--into", "24", "--provider", "openai-compatible",
                 "--base-url", server.url + "/v1", "--model", "local", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    change = json.loads(out)
    assert change["changed"]["how"] == "summary" and change["changed"]["merged_from"] == 11
    [hit] = state.hits_to("/v1/chat/completions")
    assert hit.body is not None and "chardet" in json.dumps(hit.body)  # the side branch was sent
    assert main(["--db", db, "show", "1", "--json"]) == 0
    shown = json.loads(capsys.readouterr()[0])
    last = shown["path"][-1]
    assert last["id"] == change["changed"]["created"][0]
    assert "SUMMARY: the task, the decisions" in last["parts"][0]["text"]


def test_T8_a_failed_summary_falls_back_to_the_digest_and_says_so(
    tmp_path: Path, server: ProviderServer, state: ServerState,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "demo"]) == 0
    state.faults.extend(["401"] * 3)  # refused, never retried
    capsys.readouterr()
    code = main(["--db", db, "merge", "11", "--into", "24", "--provider", "openai-compatible",
                 "--base-url", server.url + "/v1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["changed"]["how"] == "digest"
    assert "the summary failed" in err
