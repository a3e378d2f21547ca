"""Errors a person can act on; the CLI prints their message as one line."""

from __future__ import annotations

from explorer.tree.errors import ExplorerError


class StoreError(ExplorerError, ValueError):
    """An operation the rules refuse (not a bug): the message says why."""
