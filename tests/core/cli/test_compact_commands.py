"""/context, /compact and /shake on the command line (SPEC §6)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from explorer.compaction.page_geometry import page_geometry
from explorer.store.store import Store
from tests.helpers import run_cli as run


def test_context_shows_every_part_estimated_and_measured(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, db, "context", "1", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"system", "tools", "user", "assistant", "tool_results", "images", "snapshots"} <= set(
        data["parts"]
    )
    assert data["parts"]["images"] > 0 and data["measured_total"] > 0
    assert data["free"] == data["window"] - data["output_reserve"] - (
        data["measured_total"] or data["estimated_total"]
    )


def test_compact_preview_writes_the_pages_the_request_carries(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "preview"
    code, out, _ = run(
        capsys, db, "compact", "1", "--rung", "snapshot", "--preview", str(folder), "--json"
    )
    assert code == 0
    pages = sorted(folder.glob("page-*.png"))
    assert pages and all(p.read_bytes().startswith(b"\x89PNG") for p in pages)
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    sent = [
        hashlib.sha256(__import__("base64").b64decode(block["source"]["data"])).hexdigest()
        for m in request["messages"]
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "image"
    ]
    written = [hashlib.sha256(p.read_bytes()).hexdigest() for p in pages]
    assert all(h in sent for h in written)
    record = json.loads(out)["plan"]
    assert [p["sha256"] for p in record["pages"]] == written
    assert "record" not in json.loads(out), "a preview records nothing"


def test_L5_the_preview_names_the_rule_that_priced_its_pages(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "preview"
    code, out, _ = run(capsys, db, "compact", "1", "--rung", "snapshot", "--preview", str(folder),
                       "--window", "20000")
    assert code == 0
    [line] = [x for x in out.splitlines() if "page price:" in x]
    assert "28 px patches" in line and "(measured: https://" in line
    code, out, _ = run(capsys, db, "compact", "1", "--rung", "snapshot", "--preview", str(folder),
                       "--window", "20000", "--json")
    price = json.loads(out)["page_price"]
    assert price["basis"] == "measured" and price["page"][0] == 1568
    assert price["tokens"] == -(-price["page"][0] // 28) * -(-price["page"][1] // 28)
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    assert plan["target"]["image_rule"]["name"] == price["name"]


def test_compact_without_preview_records_on_the_tip(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, db, "compact", "1", "--rung", "snapshot", "--json")
    assert code == 0 and json.loads(out)["record"] > 0
    with Store(db) as store:
        [rec] = store.compactions(1)
    params = rec["params"]
    g = page_geometry(params["provider"], params["model"], params["tier"])
    assert rec["params"]["font"] == g.font  # the record says how its pages were drawn
    assert rec["params"]["cell"] == [g.cell_width, g.cell_height]
    assert rec["params"]["page"] == [g.page_width, g.page_height]
    assert rec["params"]["spaced_marks"] is g.spaced_marks
    code, out, _ = run(capsys, db, "tree", "1", "--json")
    tip = json.loads(out)["tip"]
    [node] = [n for n in json.loads(out)["nodes"] if n["id"] == tip]
    assert "compaction: snapshot" in node["notes"]


def test_shake_runs_only_the_free_rungs(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, db, "shake", "1", "--json")
    assert code == 0 and json.loads(out)["rungs"] == ["elide", "images"]


def test_a_window_too_small_for_the_reserve_is_one_clear_line(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, db, "compact", "1", "--window", "3000")
    assert code == 1 and err.startswith("convo: error: output reserve") and err.count("\n") == 1


def test_the_settings_tier_is_the_default_for_compact(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.app.preferences import AppPrefs, save_app_prefs

    config = tmp_path / "settings.json"
    monkeypatch.setenv("CONVO_CONFIG", str(config))
    prefs = AppPrefs()
    prefs.tiers["anthropic"] = "legible"
    save_app_prefs(prefs, config)
    pages = {}
    for name, extra in (("default", []), ("dense", ["--tier", "dense"])):
        code, _, _ = run(capsys, db, "compact", "1", "--rung", "snapshot", "--preview",
                           str(tmp_path / name), "--json", *extra)
        assert code == 0
        pages[name] = sorted(p.read_bytes() for p in (tmp_path / name).glob("page-*.png"))
    assert pages["default"] != pages["dense"], "the settings' legible tier drew other pages"
