"""The graph's model, as the graph's modules know it: it lives Qt-free in
:mod:`explorer.app.graph.model` (a big conversation's is built in a process of its own)."""

from explorer.app.graph.model import (
    BOX_H,
    BOX_W,
    COL_W,
    F_ACTIVE,
    F_ARCHIVED,
    F_CHECKPOINT,
    F_CLEAN_BOUNDARY,
    F_COMPACTION,
    F_CONTEXT_START,
    F_DELETED,
    F_ERROR,
    F_FORK,
    F_MERGE,
    F_REWIND,
    F_RUN,
    F_SIDE,
    F_STALE,
    F_TIP,
    F_TOOL_CALL,
    F_TOOL_RESULT,
    MARK_FLAGS,
    ROW_H,
    TEND_FLAGS,
    GraphMarks,
    GraphModel,
    Tending,
    TurnInfo,
    build_model,
    names_by_node,
    node_flags,
    tending_by_node,
)

__all__ = [
    "BOX_H", "BOX_W", "COL_W", "F_ACTIVE", "F_ARCHIVED", "F_CHECKPOINT", "F_CLEAN_BOUNDARY",
    "F_COMPACTION", "F_CONTEXT_START", "F_DELETED", "F_ERROR", "F_FORK", "F_MERGE",
    "F_REWIND", "F_RUN", "F_SIDE", "F_STALE", "F_TIP", "F_TOOL_CALL", "F_TOOL_RESULT",
    "MARK_FLAGS", "ROW_H", "TEND_FLAGS", "GraphMarks", "GraphModel", "Tending", "TurnInfo",
    "build_model", "names_by_node", "node_flags", "tending_by_node",
]
