"""SQLite persistence of the session tree: schema, migrations, queries, one writer."""

from explorer.store.errors import StoreError
from explorer.store.reads import NotFound
from explorer.store.store import Store

__all__ = ["NotFound", "Store", "StoreError"]
