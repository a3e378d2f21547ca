"""File effects: what the agent created, edited or deleted on a path, rebuilt from its tool
calls and shown as diffs; failed and rejected calls change nothing, an edit that does not fit
the rebuilt file is shown as "could not apply"; branches compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_home import GEMINI, recorded
from codex_items import PATCH, with_items

from explorer.app.effects.apply import effects
from explorer.app.effects.calls import Result, ToolCall, path_calls
from explorer.app.effects.compare import compare_effects, path_effects
from explorer.app.effects.patch import PatchError, apply_hunks, parse_patch
from explorer.app.effects.seen import read_content
from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.cli import main
from explorer.store import Store
from tests.corpus import claude_code_sessions as cc


def imported(store: Store, path: Path) -> int:
    [outcome] = import_paths(store, [path]).conversations
    return outcome.conversation_id


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main.main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _tool_uses(path: Path) -> list[dict[str, Any]]:
    """The tool_use blocks a Claude Code transcript holds, in file order."""
    return [b for r in cc.records(path) if r.get("type") == "assistant"
            for b in r["message"]["content"] if b.get("type") == "tool_use"]


def test_effects_reproduce_what_a_real_claude_code_session_wrote(tmp_path: Path) -> None:
    """The recorded session wrote a file and edited it, read it back, and a subagent read it
    again. What each of those Reads showed is what the rebuilt file says at that point, and
    the file is the written text with the edit applied, worked out from the transcript."""
    own = _tool_uses(cc.original())
    [write] = [b["input"] for b in own if b["name"] == "Write"]
    edits = [b["input"] for b in own if b["name"] == "Edit"]
    expected = write["content"]
    for edit in edits:
        assert expected.count(edit["old_string"]) == 1
        expected = expected.replace(edit["old_string"], edit["new_string"])
    target = write["file_path"]
    reads = [b for path in (cc.original(), *cc.subagents()) for b in _tool_uses(path)
             if b["name"] == "Read" and b["input"]["file_path"] == target]
    with Store(tmp_path / "cc.db") as store:
        conv = imported(store, cc.original())
        calls = path_calls(store, conv, store.conversation(conv).tip_id)
    final = effects(calls)
    [made] = final.files
    assert made.path == target and made.status == "created" and not made.could_not_apply
    assert made.after == expected != write["content"]
    assert len(made.checks) == len(reads) == 2 and all(ok for _, ok in made.checks)
    assert {c.agent for c, _ in made.checks} == {None, "Read the todo list"}  # one a subagent's
    compared = 0
    for i, call in enumerate(calls):
        if call.tool == "Read" and call.input.get("file_path") == target:
            assert call.result is not None and not call.result.is_error
            then = effects(calls[:i]).file(target)
            assert then is not None and read_content(call.result.text) == then.after
            compared += 1
    assert compared == len(reads)
    # the failing calls (a command, a read of a missing file) changed nothing
    failed = [c for c in calls if c.result is not None and c.result.is_error]
    assert [c.tool for c in failed] == ["Bash", "Read"] and final.skipped == []


def _cc(uuid: str, parent: str | None, role: str, content: Any, **extra: Any) -> str:
    line: dict[str, Any] = {
        "parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid,
        "sessionId": "0d5a2b8e-effects", "cwd": "/work/app", "version": "2.1.0",
        "timestamp": f"2026-03-02T10:{len(uuid):02d}:00.000Z",
        "message": {"role": role, "content": content}}
    if role == "assistant":
        line["message"] |= {"id": f"msg_{uuid}", "model": "claude-sonnet-4-5",
                            "usage": {"input_tokens": 10, "output_tokens": 5}}
    return json.dumps(line | extra)


def _call(uuid: str, parent: str, use: str, name: str, args: dict[str, Any]) -> str:
    return _cc(uuid, parent, "assistant", [{"type": "tool_use", "id": use, "name": name,
                                            "input": args}])


def _result(uuid: str, parent: str, use: str, text: str, error: bool = False) -> str:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use, "content": text}
    if error:
        block["is_error"] = True
    return _cc(uuid, parent, "user", [block])


APP = "/work/app/app.py"
WRITTEN = "def total(items):\n    return sum(items)\n\n\nprint(total([1, 2]))\n"


def claude_code_session(folder: Path) -> Path:
    """A session as Claude Code writes it: Write, Edit, a failed Edit, a rejected Write, an
    Edit whose old text is not in the file, then two branches (a rewind) editing on."""
    lines = [
        _cc("u1", None, "user", "Add a total function and use it."),
        _call("a1", "u1", "toolu_w", "Write", {"file_path": APP, "content": WRITTEN}),
        _result("r1", "a1", "toolu_w", f"File created successfully at: {APP}"),
        _call("a2", "r1", "toolu_e1", "Edit", {
            "file_path": APP, "old_string": "return sum(items)",
            "new_string": "return sum(items, start=0)", "replace_all": False}),
        _result("r2", "a2", "toolu_e1", f"The file {APP} has been updated successfully."),
        _call("a3", "r2", "toolu_e2", "Edit", {
            "file_path": APP, "old_string": "print(total([1, 2, 3]))", "new_string": "x"}),
        _result("r3", "a3", "toolu_e2", "<tool_use_error>String to replace not found in file."
                "\nString: print(total([1, 2, 3]))</tool_use_error>", error=True),
        _call("a4", "r3", "toolu_w2", "Write", {"file_path": "/work/app/junk.py",
                                                 "content": "junk\n"}),
        _result("r4", "a4", "toolu_w2", "The user doesn't want to proceed with this tool use. "
                "The tool use was rejected (eg. if it was a file edit, the new_string was NOT "
                "written to the file). STOP what you are doing and wait for the user."),
        _call("a5", "r4", "toolu_e3", "Edit", {
            "file_path": APP, "old_string": "def totl(items):", "new_string": "def t(items):"}),
        _result("r5", "a5", "toolu_e3", f"The file {APP} has been updated successfully."),
        _cc("a6", "r5", "assistant", [{"type": "text", "text": "Done."}]),
        # two branches from here: the person rewound and asked twice
        _cc("u2", "a6", "user", "Name it sum_items."),
        _call("b1", "u2", "toolu_b1", "Edit", {
            "file_path": APP, "old_string": "total", "new_string": "sum_items",
            "replace_all": True}),
        _result("b2", "b1", "toolu_b1", f"The file {APP} has been updated successfully."),
        _call("b3", "b2", "toolu_b3", "Write", {"file_path": "/work/app/README.md",
                                                 "content": "# app\n"}),
        _result("b4", "b3", "toolu_b3", "File created successfully at: /work/app/README.md"),
        _cc("b5", "b4", "assistant", [{"type": "text", "text": "Renamed."}]),
        _cc("u3", "a6", "user", "Print the total of 1, 2 and 3 instead."),
        _call("c1", "u3", "toolu_c1", "MultiEdit", {"file_path": APP, "edits": [
            {"old_string": "[1, 2]", "new_string": "[1, 2, 3]"},
            {"old_string": "print(", "new_string": "print('total:', "}]}),
        _result("c2", "c1", "toolu_c1", f"Applied 2 edits to {APP}"),
        _cc("c3", "c2", "assistant", [{"type": "text", "text": "Changed."}]),
    ]
    path = folder / "0d5a2b8e-effects.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, int, dict[str, int]]:
    db = tmp_path / "fx.db"
    with Store(db) as store:
        conv = imported(store, claude_code_session(tmp_path))
        ends = {store.message(n.id).text: n.id for n in store.skeleton(conv)
                if n.role == "assistant" and store.message(n.id).text}
    return db, conv, ends


def test_effects_write_edit_failed_rejected_and_unapplicable_calls(
        session: tuple[Path, int, dict[str, int]], capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, ends = session
    data = run_json(["effects", str(conv), "--db", str(db), "--at", str(ends["Done."])], capsys)
    [app] = data["files"]
    assert app["path"] == APP and app["status"] == "created"
    assert app["content"] == WRITTEN.replace("return sum(items)", "return sum(items, start=0)")
    assert app["diff"].startswith("--- /dev/null\n+++ b/work/app/app.py\n@@ -0,0 +1,5 @@\n")
    assert "+    return sum(items, start=0)\n" in app["diff"]
    [problem] = app["could_not_apply"]
    assert problem["call"] == "toolu_e3" and "'def totl(items):'" in problem["reason"]
    skipped = {s["call"]: s["reason"] for s in data["skipped"]}
    assert skipped["toolu_e2"].startswith("the call failed: <tool_use_error>String to replace")
    assert skipped["toolu_w2"].startswith("rejected: The user doesn't want to proceed")
    assert main.main(["effects", str(conv), "--db", str(db), "--at", str(ends["Done."])]) == 0
    text = capsys.readouterr().out
    assert "created: /work/app/app.py (3 call(s))" in text
    assert "could not apply: Edit toolu_e3 in message" in text
    assert "changed nothing: Write toolu_w2 on /work/app/junk.py" in text


def test_effects_of_two_branches_compared(
        session: tuple[Path, int, dict[str, int]], capsys: pytest.CaptureFixture[str]) -> None:
    db, conv, ends = session
    renamed, changed = ends["Renamed."], ends["Changed."]
    data = run_json(["effects", str(conv), "--db", str(db), "--at", str(renamed),
                     "--at", str(changed)], capsys)
    files = {f["path"]: f for f in data["files"]}
    assert files["/work/app/README.md"]["where"] == "only in 1"
    assert files["/work/app/README.md"]["in"] == [renamed]
    both = files[APP]
    assert both["in"] == [renamed, changed] and both["where"] == "in 1, 2"
    between = both["diffs"][str(changed)]
    assert "-def sum_items(items):\n+def total(items):\n" in between
    assert "-print(sum_items([1, 2]))\n+print('total:', total([1, 2, 3]))\n" in between
    with Store(db) as store:
        each, compared = compare_effects(store, conv, [changed, renamed])
    assert [f.path for f in compared] == [APP, "/work/app/README.md"]
    assert compared[1].where == "only in 2" and each[0].file(APP) is not None


def test_effects_on_the_demo_are_its_one_edit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store(tmp_path / "d.db") as store:
        conv = load_demo(store)
        tip = store.conversation(conv).tip_id
        assert tip is not None
        rewound = path_effects(store, conv, store.checkpoints(conv)["diagnosed"])
    assert rewound.files == []
    data = run_json(["effects", str(conv), "--db", str(tmp_path / "d.db")], capsys)
    [job] = data["files"]
    assert job["path"] == "jobs/import_orders.py" and job["status"] == "edited"
    assert job["before_seen"] is True  # the Read before the edit showed it whole
    assert ('-    with open(path, newline="") as f:\n'
            '+    with open(path, newline="", encoding=sniff_encoding(path)) as f:\n'
            in job["diff"])


def test_effects_of_codex_patches_on_files_never_seen_whole(tmp_path: Path) -> None:
    """The recorded Codex session with an apply_patch edit written in: the patch's lines are
    the diff, its unchanged line kept as context."""
    source = with_items(tmp_path / "rollout-2026-12-04T23-35-13-patched.jsonl")
    with Store(tmp_path / "codex.db") as store:
        conv = imported(store, source)
        found = path_effects(store, conv, store.conversation(conv).tip_id)
    patched = PATCH.split("\n")[1].removeprefix("*** Update File: ")
    assert [f.path for f in found.files] == [patched] == ["src/app.py"]
    diff = found.files[0].diff()
    assert "(never seen whole)" in diff
    removed, added, kept = (line for line in PATCH.split("\n")[3:6])
    assert f"\n{removed}\n{added}\n{kept}\n" in diff
    assert kept.startswith(" ") and removed.startswith("-") and added.startswith("+")


def test_effects_of_gemini_write_then_replace(tmp_path: Path) -> None:
    with Store(tmp_path / "gem.db") as store:
        conv = imported(store, recorded("gemini_cli", GEMINI))
        calls = path_calls(store, conv, store.conversation(conv).tip_id)
    [write] = [c for c in calls if c.tool == "write_file"]
    [replace] = [c for c in calls if c.tool == "replace"]
    [lead] = effects(calls).files
    assert lead.status == "created" and lead.path == write.input["file_path"]
    assert lead.after == write.input["content"].replace(replace.input["old_string"],
                                                        replace.input["new_string"])
    assert replace.input["new_string"] in lead.after
    assert replace.input["old_string"] not in lead.after


def test_apply_patch_hunks_follow_their_context_and_a_missing_one_is_an_error() -> None:
    [update] = parse_patch("*** Begin Patch\n*** Update File: a.py\n@@ def f():\n"
                           "-    return 1\n+    return 2\n@@\n x = 1\n+y = 2\n*** End Patch\n")
    text = "def g():\n    return 1\n\ndef f():\n    return 1\n\nx = 1\n"
    assert apply_hunks(text, update.hunks) == (
        "def g():\n    return 1\n\ndef f():\n    return 2\n\nx = 1\ny = 2\n")
    with pytest.raises(PatchError, match="hunk 1"):
        apply_hunks("nothing here\n", update.hunks)


def test_reads_show_whole_files_only() -> None:
    assert read_content("1\tone\n2\ttwo\n3\t") == "one\ntwo\n"
    assert read_content("     1→one\n     2→two\n\n<system-reminder>x</system-reminder>") == (
        "one\ntwo")
    assert read_content("<file>\n00001| one\n00002| two\n\n(End of file - total 2 lines)\n"
                        "</file>") == "one\ntwo"
    assert read_content("<file>\n00001| one\n\n(File has more lines. Use 'offset' parameter "
                        "to read beyond line 1)\n</file>") is None
    assert read_content("one\n\n[Showing lines 1-2000 of 4000. Use offset=2001]") is None
    assert read_content("plain text as pi shows it\n") == "plain text as pi shows it\n"


def _tool(n: int, tool: str, args: dict[str, Any], result: str, error: bool = False) -> ToolCall:
    return ToolCall(n, f"call-{n}", tool, args, Result(result, error, n + 1))


def test_effects_read_pi_and_opencode_arguments() -> None:
    """pi names them path/oldText/newText (one edit or an edits list) and shows a read as the
    text itself; OpenCode names them filePath/oldString/newString and numbers a read."""
    pi = [
        _tool(1, "write", {"path": "notes.md", "content": "one\ntwo\n"},
              "Successfully wrote 8 bytes to notes.md"),
        _tool(3, "edit", {"path": "notes.md", "oldText": "two", "newText": "2"},
              "Successfully replaced text in notes.md."),
        _tool(5, "edit", {"path": "notes.md", "edits": [{"oldText": "one", "newText": "1"},
                                                        {"oldText": "three", "newText": "3"}]},
              "Successfully replaced 2 block(s) in notes.md."),
        _tool(7, "read", {"path": "notes.md"}, "one\n2\n"),
    ]
    [notes] = effects(pi).files
    assert notes.after == "one\n2\n" and notes.checks[0][1] is True
    [problem] = notes.could_not_apply  # the second of two edits is not in the file: neither
    assert problem.reason.startswith("edit 2 of 2: its old text is not in the file")
    opencode = [
        _tool(1, "read", {"filePath": "/p/a.ts"}, "<file>\n00001| let a = 1\n00002| \n\n"
              "(End of file - total 2 lines)\n</file>"),
        _tool(3, "edit", {"filePath": "/p/a.ts", "oldString": "1", "newString": "2",
                          "replaceAll": False}, "Edit applied successfully."),
        _tool(5, "edit", {"filePath": "/p/a.ts", "oldString": "2", "newString": "3"},
              "Error: oldString not found in content", error=True),
    ]
    found = effects(opencode)
    [a] = found.files
    assert a.before == "let a = 1\n" and a.after == "let a = 2\n" and a.status == "edited"
    assert a.diff().endswith("-let a = 1\n+let a = 2\n")
    assert [why for _, _, why in found.skipped] == [
        "the call failed: Error: oldString not found in content"]
