"""Fixtures: the fake provider server, a store, test retry policies, an in-memory keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from helpers import MemoryKeyring
from provider_seed import Waits
from provider_server import ProviderServer, ServerState, trust_server

from explorer.providers.http import HttpPolicy
from explorer.store import Store


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def policy(waits: Waits) -> HttpPolicy:
    return HttpPolicy(connect_timeout=5, read_timeout=5, max_attempts=3, backoff=0.5,
                      max_delay=30, waiter=waits)


@pytest.fixture
def state() -> ServerState:
    return ServerState()


@pytest.fixture
def server(state: ServerState) -> Iterator[ProviderServer]:
    """The loopback stand-in for every provider, trusted with their keys in the settings
    file as a person trusts a proxy (a provider's key goes only to its own host, or to a
    URL named for it)."""
    srv = ProviderServer(state).start()
    trust_server(srv)
    yield srv
    srv.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "t.db") as s:
        yield s


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
