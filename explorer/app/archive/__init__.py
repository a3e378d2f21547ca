"""The archive as a memory for agents: the tools ``convo mcp`` answers over the Model Context
Protocol, read-only unless the person allows writes, every result bounded and redacted (A1)."""
