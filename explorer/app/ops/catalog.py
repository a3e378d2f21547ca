"""Every operation, declared once (O1). Order: the order ``convo ops`` lists them."""

from __future__ import annotations

from explorer.app.ops.spec import OpSpec

CONV, TEND = "Conversation", "Conversation/Tend branch"
"""The menu bar's places: a menu, or a menu's submenu."""

OPERATIONS: tuple[OpSpec, ...] = (
    # -- the tree (T2–T8) -----------------------------------------------------------------
    OpSpec("branch", "Branch here", "make the message the tip; writes no message", "tree",
           cli="branch", shortcut="Ctrl+B", menu=CONV, context=True),
    OpSpec("edit", "Edit prompt…", "an edited sibling of a prompt, made the tip", "tree",
           cli="edit", shortcut="Ctrl+Shift+E", menu=CONV, context=True),
    OpSpec("fork", "Fork from here…", "copy the path to the message into a new conversation",
           "tree", cli="fork", slash="fork", shortcut="Ctrl+Shift+K", menu=CONV,
           context=True),
    OpSpec("checkpoint", "Set checkpoint…", "label a clean turn boundary", "tree",
           cli="checkpoint", slash="checkpoint", shortcut="Ctrl+Shift+P", menu=CONV,
           context=True),
    OpSpec("rewind", "Rewind to checkpoint…", "the tip back to a label, with a digest", "tree",
           cli="rewind", slash="rewind", shortcut="Ctrl+Shift+R", menu=CONV, context=True),
    OpSpec("trim", "Trim", "start the active context at a recent turn boundary", "tree",
           cli="trim", window_absent="command line only for now: the compaction preview "
           "shows what a trim-like cut keeps"),
    OpSpec("archive", "Archive branch", "fold a branch off the active path into a marker",
           "tree", cli="archive", slash="archive", shortcut="Ctrl+Shift+A", menu=TEND,
           context=True, whole_turn=True),
    OpSpec("unarchive", "Unarchive branch", "unfold an archived branch", "tree",
           cli="unarchive", slash="unarchive", menu=TEND, context=True),
    OpSpec("delete", "Delete branch", "tombstone a branch off the active path (undo restores)",
           "tree", cli="delete", slash="delete", shortcut="Ctrl+Del", menu=TEND,
           context=True, whole_turn=True),
    OpSpec("purge", "Purge deleted branches", "remove deleted branches for good", "tree",
           cli="purge", window_absent="command line only: the window purges what was deleted "
           "more than the days set in Settings ago, at its start"),
    OpSpec("star", "Prefer this path ★", "prefer the path to the message at every branch point",
           "tree", cli="star", slash="star", shortcut="Ctrl+Shift+S", menu=TEND,
           context=True),
    OpSpec("label", "Name branch…", "name the branch at the message", "tree", cli="label",
           slash="label", shortcut="Ctrl+Shift+N", menu=TEND, context=True),
    OpSpec("note", "Note…", "a note on the message", "tree", cli="note", slash="note",
           shortcut="Ctrl+Shift+O", menu=TEND, context=True),
    OpSpec("merge", "Merge branch back after the tip",
           "one message after the tip carrying the branch's digest", "tree", cli="merge",
           slash="merge", shortcut="Ctrl+Shift+G", menu=TEND, context=True),
    OpSpec("undo", "Undo", "take back the last tree action or model call", "tree", cli="undo",
           slash="undo", shortcut="Ctrl+Z", menu="Edit"),
    OpSpec("redo", "Redo", "make the action undone last again, exactly", "tree", cli="redo",
           slash="redo", shortcut="Ctrl+Shift+Z", menu="Edit"),
    # -- model calls ----------------------------------------------------------------------
    OpSpec("send", "Send", "send a prompt on the active path and store the answer", "model",
           cli="send", slash="send"),
    OpSpec("rerun", "Edit and run…", "edit a prompt into a sibling and run it", "model",
           cli="rerun", context=True),
    OpSpec("regenerate", "Regenerate answer", "a sibling answer to the same prompt", "model",
           cli="regenerate", context=True),
    OpSpec("replay", "Replay a stale branch onto its edited prompt…",
           "send the old branch's later prompts again on the edited one", "model",
           cli="replay", slash="replay", menu=TEND, context=True),
    OpSpec("fanout", "Ask several models…", "one prompt, an answer from each model", "model",
           cli="fanout", slash="fanout", shortcut="Ctrl+Shift+F", menu=TEND, context=True),
    OpSpec("probe", "Probe…", "the same prompt after the full context and each rung's, "
           "with a recall quiz", "model", cli="probe",
           elsewhere="the compaction preview's Probe… button"),
    # -- compaction -----------------------------------------------------------------------
    OpSpec("compact", "Compaction preview…", "the ladder's plan; Apply records it", "compaction",
           cli="compact", slash="compact", shortcut="Ctrl+Shift+M", menu=CONV),
    OpSpec("shake", "Shake", "the free rungs only: elision and image dropping", "compaction",
           cli="shake", slash="shake"),
    # -- in and out -----------------------------------------------------------------------
    OpSpec("demo", "Load the demo", "the bundled demo conversation", "data", cli="demo",
           window_absent="the window loads it into an empty database at its start"),
    OpSpec("import", "Import…", "import transcripts: files, folders, zips", "data",
           cli="import", shortcut="Ctrl+O", menu="File"),
    OpSpec("sync", "Find my conversations…", "import what the agents wrote since the last sync",
           "data", cli="sync", menu="File"),
    OpSpec("export", "Export conversation…", "the conversation or a branch, in a format",
           "data", cli="export", slash="export", shortcut="Ctrl+E", menu="File", context=True),
    OpSpec("handoff", "Continue in", "write the branch as a new session of an agent", "data",
           cli="handoff", context=True),
    OpSpec("share", "Share branch…", "one self-contained HTML page of a branch, with its cost "
           "and a map; secrets, paths and e-mail addresses reviewed first", "data", cli="share",
           menu="File", context=True),
)

BY_ID = {op.id: op for op in OPERATIONS}


def op(op_id: str) -> OpSpec:
    return BY_ID[op_id]
