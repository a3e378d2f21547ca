"""Pure domain rules of the session tree: messages, parts, paths, turns, trims.

Nothing here touches SQLite, files, the network or Qt, so every SPEC rule can be
checked on plain data.
"""
