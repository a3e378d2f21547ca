"""L8 on the command line: ``convo compact CONV --loss-report [--json]``, ``--pin``/``--unpin``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.store.store import Store
from tests.corpus import claude_code_sessions as cc
from tests.helpers import run_cli as run

KEYS = {"kind", "text", "destination", "page", "line", "read_back", "pinned", "message"}


def report(capsys: pytest.CaptureFixture[str], db: Path, conv: str = "1") -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, db, "compact", conv, "--rung", "snapshot", "--loss-report",
                         "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def check_shape(data: dict) -> None:  # type: ignore[type-arg]
    assert data["items"] and all(set(i) >= KEYS for i in data["items"])
    assert sum(c["total"] for c in data["counts"].values()) == len(data["items"])
    for kind, c in data["counts"].items():
        assert c["total"] == sum(1 for i in data["items"] if i["kind"] == kind)
    for i in data["items"]:
        if i["destination"] == "page":
            assert i["page"] >= 1 and i["line"] >= 1 and isinstance(i["read_back"], bool)
        else:
            assert i["page"] is None and i["line"] is None


def test_L8_loss_report_on_the_demo_lists_items_with_destinations(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = report(capsys, db)
    check_shape(data)
    assert data["rung"] == "snapshot"
    assert {"verbatim", "fact_sheet"} <= {i["destination"] for i in data["items"]}
    code, out, _ = run(capsys, db, "compact", "1", "--rung", "snapshot", "--loss-report")
    assert code == 0 and out.splitlines()[0].startswith("loss report (snapshot): ")
    assert any(line.strip().startswith(("1 path", f"{data['counts']['path']['total']} paths"))
               for line in out.splitlines()[1:8])
    with Store(db) as s:
        assert not s.compactions(1)  # a report records nothing


def test_L8_a_pin_survives_reopening_and_reaches_the_request_body(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lost = next(i for i in report(capsys, db)["items"]
                if i["destination"] in ("page", "nowhere") and i["kind"] != "number")
    code, out, _ = run(capsys, db, "compact", "1", "--pin", lost["text"], "--pin", "gone-zzz")
    assert code == 0 and "2 pinned string(s)" in out
    with Store(db) as s:  # reopened: the pins are in the file
        assert s.pins(1) == [lost["text"], "gone-zzz"]
    data = report(capsys, db)
    again = next(i for i in data["items"] if i["text"] == lost["text"])
    assert (again["destination"], again["pinned"]) == ("fact_sheet", True)
    assert {p["text"]: p["state"] for p in data["pins"]}["gone-zzz"] == "stale"
    folder = tmp_path / "p"
    assert run(capsys, db, "compact", "1", "--rung", "snapshot", "--preview", str(folder))[0] == 0
    body = (folder / "request.json").read_text(encoding="utf-8")
    assert json.dumps(f"pinned: {lost['text']}")[1:-1] in body
    assert run(capsys, db, "compact", "1", "--unpin", "gone-zzz")[0] == 0
    code, _, err = run(capsys, db, "compact", "1", "--unpin", "gone-zzz")
    assert code != 0 and "is not pinned" in err


def test_L8_a_conversation_with_nothing_to_compact_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "e.db"
    with Store(path) as s:
        conv = s.create_conversation("empty")
    code, _, err = run(capsys, path, "compact", str(conv), "--loss-report")
    assert code != 0 and "nothing to compact" in err


def test_L8_loss_report_on_a_real_agent_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recorded Claude Code fork: its paths, its command and the numbers it quoted."""
    db = tmp_path / "s.db"
    code, _, err = run(capsys, db, "import", str(cc.fork()))
    assert code == 0, err
    with Store(db) as s:
        conv = max(s.conversations(), key=lambda c: c.message_count).id
    data = report(capsys, db, str(conv))
    check_shape(data)
    counts = {kind: {k: v for k, v in c.items() if v} for kind, c in data["counts"].items()}
    assert counts == {  # worked out from the session: nothing it said is lost
        "command": {"total": 1, "page_read_back": 1},  # ls -1, on its page
        "path": {"total": 6, "verbatim": 1, "fact_sheet": 5},
        "number": {"total": 3, "fact_sheet": 3},
    }
    on_pages = [i for i in data["items"] if i["destination"] == "page"]
    assert [(i["kind"], i["text"]) for i in on_pages] == [("command", "ls -1")]
    assert not [i for i in data["items"] if i["destination"] == "nowhere"]


FIXTURE = Path(__file__).parents[1] / "formats" / "claude_code" / "fixtures"
TASK = ("Let's keep the cache. Fix src/app/server.py, then commit "
        "9fceb02d0ae598e95dc970b74767f19372d61af8 with timeout_ms 4500.")


def test_L8_after_the_fact_an_imported_summary_is_compared_with_what_it_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (FIXTURE / "compact_boundary.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    records[0]["message"]["content"] = TASK
    records[3]["message"]["content"] = ("This session is being continued. Summary: fixing "
                                        "src/app/server.py with a 4500 ms timeout.")
    session = tmp_path / "11111111-2222-3333-4444-555555555555.jsonl"
    session.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    db = tmp_path / "a.db"
    code, _, err = run(capsys, db, "import", str(session))
    assert code == 0, err
    code, out, err = run(capsys, db, "compact", "1", "--loss-report", "--applied", "--json")
    assert code == 0, err
    (report,) = json.loads(out)["applied"]
    assert report["origin"] == "claude_code" and report["replaced_messages"] == 2
    where = {i["text"]: i["destination"] for i in report["items"]}
    assert where["src/app/server.py"] == "summary"
    assert where["4500"] == "summary"
    assert where["9fceb02d0ae598e95dc970b74767f19372d61af8"] == "nowhere"
    assert where["Let's keep the cache."] == "nowhere"
    assert sum(c["total"] for c in report["counts"].values()) == len(report["items"])
    code, out, _ = run(capsys, db, "compact", "1", "--loss-report", "--applied")
    assert "compaction 1 at message 3 (claude_code)" in out and "1 path: 1 in the summary" in out


def test_L8_after_the_fact_an_applied_summary_covers_the_middle_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from explorer.tree.model import Message, Part

    db = tmp_path / "b.db"
    with Store(db) as s:
        conv = s.create_conversation("t")
        ids = []
        for text in ("task: build it", TASK, "done with src/app/server.py", "next step"):
            ids += s.append_turn(conv, [
                Message(None, None, "user", [Part("text", text)]),
                Message(None, None, "assistant", [Part("text", "ok")])])
        split = {"middle_first_id": ids[2], "middle_last_id": ids[3]}
        s.add_compaction(conv, ids[-1], "summary", {"applied": True}, {"split": split},
                         "Kept the cache; the timeout is 4500.")
    code, out, err = run(capsys, db, "compact", str(conv), "--loss-report", "--applied",
                         "--json")
    assert code == 0, err
    (report,) = json.loads(out)["applied"]
    assert report["replaced_messages"] == 2
    where = {i["text"]: i["destination"] for i in report["items"]}
    assert where == {"Let's keep the cache.": "nowhere", "src/app/server.py": "nowhere",
                     "9fceb02d0ae598e95dc970b74767f19372d61af8": "nowhere", "4500": "summary"}


def test_L8_the_summary_rung_is_reported_without_a_model_call(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    code, out, err = run(capsys, db, "compact", "1", "--rung", "summary", "--loss-report",
                         "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["rung"] == "summary"
    check_shape(data)
    assert "summary_request" in {i["destination"] for i in data["items"]}
    assert not {"page", "fact_sheet"} & {i["destination"] for i in data["items"]}
