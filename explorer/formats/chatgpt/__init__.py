"""ChatGPT data exports (zip, ``conversations.json``, unpacked folder).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.chatgpt.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
