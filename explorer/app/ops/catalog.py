"""Every operation, declared once (O1). Order: the order ``convo ops`` lists them."""

from __future__ import annotations

from explorer.app.ops.spec import OpSpec

OPERATIONS: tuple[OpSpec, ...] = (
    # -- the tree (T2–T8) -----------------------------------------------------------------
    OpSpec("branch", "Branch here", "make the message the tip; writes no message", "tree",
           cli="branch", shortcut="Ctrl+B", menu=True, context="branch"),
    OpSpec("edit", "Edit prompt…", "an edited sibling of a prompt, made the tip", "tree",
           cli="edit", shortcut="Ctrl+Shift+E", menu=True, context="edit"),
    OpSpec("fork", "Fork from here…", "copy the path to the message into a new conversation",
           "tree", cli="fork", slash="fork", shortcut="Ctrl+Shift+K", menu=True,
           context="fork"),
    OpSpec("checkpoint", "Set checkpoint…", "label a clean turn boundary", "tree",
           cli="checkpoint", slash="checkpoint", shortcut="Ctrl+Shift+P", menu=True,
           context="checkpoint"),
    OpSpec("rewind", "Rewind to checkpoint…", "the tip back to a label, with a digest", "tree",
           cli="rewind", slash="rewind", shortcut="Ctrl+Shift+R", menu=True, context="rewind"),
    OpSpec("trim", "Trim", "start the active context at a recent turn boundary", "tree",
           cli="trim", window_absent="command line only for now: the compaction preview "
           "shows what a trim-like cut keeps"),
    OpSpec("archive", "Archive branch", "fold a branch off the active path into a marker",
           "tree", cli="archive", slash="archive", shortcut="Ctrl+Shift+A", menu=True,
           context="archive"),
    OpSpec("unarchive", "Unarchive branch", "unfold an archived branch", "tree",
           cli="unarchive", slash="unarchive", menu=True, context="unarchive"),
    OpSpec("delete", "Delete branch", "tombstone a branch off the active path (undo restores)",
           "tree", cli="delete", slash="delete", shortcut="Ctrl+Del", menu=True,
           context="delete"),
    OpSpec("purge", "Purge deleted branches", "remove deleted branches for good", "tree",
           cli="purge", window_absent="command line only: the window purges what was deleted "
           "more than the days set in Settings ago, at its start"),
    OpSpec("star", "Prefer this path ★", "prefer the path to the message at every branch point",
           "tree", cli="star", slash="star", shortcut="Ctrl+Shift+S", menu=True,
           context="star"),
    OpSpec("label", "Name branch…", "name the branch at the message", "tree", cli="label",
           slash="label", shortcut="Ctrl+Shift+N", menu=True, context="label"),
    OpSpec("note", "Note…", "a note on the message", "tree", cli="note", slash="note",
           shortcut="Ctrl+Shift+O", menu=True, context="note"),
    OpSpec("merge", "Merge branch back after the tip",
           "one message after the tip carrying the branch's digest", "tree", cli="merge",
           slash="merge", shortcut="Ctrl+Shift+G", menu=True, context="merge"),
    OpSpec("undo", "Undo", "take back the last tree action or model call", "tree", cli="undo",
           slash="undo", shortcut="Ctrl+Z", menu=True),
    OpSpec("redo", "Redo", "make the action undone last again, exactly", "tree", cli="redo",
           slash="redo", shortcut="Ctrl+Shift+Z", menu=True),
    # -- model calls ----------------------------------------------------------------------
    OpSpec("send", "Send", "send a prompt on the active path and store the answer", "model",
           cli="send", slash="send"),
    OpSpec("rerun", "Edit and run…", "edit a prompt into a sibling and run it", "model",
           cli="rerun", context="rerun"),
    OpSpec("regenerate", "Regenerate answer", "a sibling answer to the same prompt", "model",
           cli="regenerate", context="regenerate"),
    OpSpec("replay", "Replay a stale branch onto its edited prompt…",
           "send the old branch's later prompts again on the edited one", "model",
           cli="replay", slash="replay", menu=True, context="replay"),
    OpSpec("fanout", "Ask several models…", "one prompt, an answer from each model", "model",
           cli="fanout", slash="fanout", shortcut="Ctrl+Shift+F", menu=True, context="fanout"),
    OpSpec("probe", "Probe…", "the same prompt after the full context and each rung's, "
           "with a recall quiz", "model", cli="probe",
           elsewhere="the compaction preview's Probe… button"),
    # -- compaction -----------------------------------------------------------------------
    OpSpec("compact", "Compaction preview…", "the ladder's plan; Apply records it", "compaction",
           cli="compact", slash="compact", shortcut="Ctrl+Shift+M", menu=True),
    OpSpec("shake", "Shake", "the free rungs only: elision and image dropping", "compaction",
           cli="shake", slash="shake"),
    # -- in and out -----------------------------------------------------------------------
    OpSpec("demo", "Load the demo", "the bundled demo conversation", "data", cli="demo",
           window_absent="the window loads it into an empty database at its start"),
    OpSpec("import", "Import…", "import transcripts: files, folders, zips", "data",
           cli="import", shortcut="Ctrl+O", menu=True),
    OpSpec("sync", "Find my conversations…", "import what the agents wrote since the last sync",
           "data", cli="sync", menu=True),
    OpSpec("export", "Export conversation…", "the conversation or a branch, in a format",
           "data", cli="export", slash="export", shortcut="Ctrl+E", menu=True, context="export"),
    OpSpec("handoff", "Continue in", "write the branch as a new session of an agent", "data",
           cli="handoff", context="continue_in"),
)

BY_ID = {op.id: op for op in OPERATIONS}


def op(op_id: str) -> OpSpec:
    return BY_ID[op_id]
