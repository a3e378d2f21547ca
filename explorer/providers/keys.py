"""API keys: the system keyring first (one entry per provider), then the encrypted key file
if one was chosen, then environment variables.

A headless box often has no keyring backend (keyring then picks its ``fail.Keyring``); that is
reported in the returned status, and the fallbacks are used, never a crash. Nothing is ever
written to a plain file: without a keyring a key is stored only when the encrypted key file
is asked for (``keyfile``). A key is handed out only wrapped in :class:`Secret`, and no
status, log line or error quotes it.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from explorer.providers import keyfile
from explorer.providers.base import PROVIDER_KINDS, Secret
from explorer.tree.errors import ExplorerError

log = logging.getLogger(__name__)
SERVICE = "conversation-explorer"
# A custom base URL never gets OPENAI_API_KEY: a key for OpenAI is not sent to another server.
ENV_VARS: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


class KeyStoreError(ExplorerError):
    """The keyring cannot store or delete a key (the message never holds the key)."""


@dataclass(frozen=True)
class KeyStatus:
    """Where a provider's key comes from, and whether the keyring works at all."""

    provider: str
    source: str | None  # "keyring", "file", "environment" or None
    keyring_available: bool
    backend: str
    env_var: str
    note: str = ""

    def line(self) -> str:
        where = {"keyring": "in the system keyring",
                 "file": "in the encrypted key file",
                 "environment": f"from ${self.env_var}"}.get(self.source or "", "not set")
        text = f"{self.provider}: key {where}"
        return f"{text} ({self.note})" if self.note else text

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _keyring() -> ModuleType:
    """The ``keyring`` package, imported on first use: importing it scans the installed
    packages for backends (about 0.1 s), which the window's start does not need.
    ``keys.keyring`` stays patchable: a module set there is the one used."""
    module = globals().get("keyring")
    if module is None:
        import keyring
        import keyring.backends.fail
        import keyring.errors

        globals()["keyring"] = module = keyring
    return module


def __getattr__(name: str) -> Any:
    if name == "keyring":
        return _keyring()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_provider(provider: str) -> None:
    if provider not in PROVIDER_KINDS:
        raise ValueError(f"unknown provider {provider!r}; expected one of "
                         f"{', '.join(PROVIDER_KINDS)}")


def backend_state() -> tuple[bool, str, str]:
    """(usable, backend name, note) for the current keyring backend."""
    keyring = _keyring()
    try:
        backend = keyring.get_keyring()
    except Exception as e:  # a broken backend configuration must not stop the program
        return False, "none", f"the keyring could not be loaded ({type(e).__name__})"
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, keyring.backends.fail.Keyring):
        return False, name, ("no system keyring backend is available; keys are read from "
                             "environment variables (or an encrypted key file, if chosen)")
    return True, name, ""


def _from_keyring(provider: str) -> tuple[str | None, str]:
    usable, _, note = backend_state()
    if not usable:
        return None, note
    try:
        return _keyring().get_password(SERVICE, provider), ""
    except Exception as e:  # locked or broken keyrings raise all sorts of errors
        log.warning("keyring read failed for %s: %s", provider, type(e).__name__)
        return None, f"the keyring could not be read ({type(e).__name__}); using the environment"


def resolve_key(provider: str) -> tuple[Secret | None, KeyStatus]:
    """The provider's key (keyring, then environment) and where it came from."""
    _check_provider(provider)
    usable, backend, backend_note = backend_state()
    value, note = _from_keyring(provider)
    env_var = ENV_VARS[provider]
    source: str | None = "keyring" if value else None
    if not value:
        try:
            value = keyfile.read_key(provider)
        except keyfile.KeyFileError as e:
            note = str(e)
        if value:
            source, note, backend_note = "file", "", ""
    if not value:
        value = os.environ.get(env_var) or None
        source = "environment" if value else None
    status = KeyStatus(provider, source, usable, backend, env_var, note or backend_note)
    return (Secret(value) if value else None), status


def key_status(provider: str) -> KeyStatus:
    return resolve_key(provider)[1]


def set_key(provider: str, key: str, passphrase: str | None = None) -> KeyStatus:
    """Store ``key`` in the keyring, or with a ``passphrase`` in the encrypted key file;
    :class:`KeyStoreError` if there is no usable keyring and no passphrase was given."""
    _check_provider(provider)
    if not key.strip():
        raise KeyStoreError("the key is empty")
    if passphrase is not None:
        try:
            keyfile.write_key(provider, key.strip(), passphrase)
        except keyfile.KeyFileError as e:
            raise KeyStoreError(str(e)) from None
        return key_status(provider)
    if not backend_state()[0]:
        raise KeyStoreError(
            f"no system keyring backend on this machine, so the key was not stored: set "
            f"${ENV_VARS[provider]} instead, or keep it in an encrypted file "
            f"(convo keys set {provider} --encrypted-file)")
    try:
        _keyring().set_password(SERVICE, provider, key.strip())
    except Exception as e:
        raise KeyStoreError(f"the keyring refused the key ({type(e).__name__})") from None
    return key_status(provider)


def delete_key(provider: str) -> KeyStatus:
    """Remove the provider's key from the encrypted key file and the keyring (the
    environment is left alone)."""
    _check_provider(provider)
    try:
        in_file = keyfile.delete_key(provider)
    except keyfile.KeyFileError as e:
        raise KeyStoreError(str(e)) from None
    usable, _, note = backend_state()
    if not usable:
        if in_file:
            return key_status(provider)
        raise KeyStoreError(f"no {provider} key is stored ({note})")
    keyring = _keyring()
    try:
        keyring.delete_password(SERVICE, provider)
    except keyring.errors.PasswordDeleteError:
        if in_file:
            return key_status(provider)
        raise KeyStoreError(f"no {provider} key is stored in the keyring") from None
    except Exception as e:
        raise KeyStoreError(f"the keyring could not delete the key ({type(e).__name__})") from None
    return key_status(provider)
