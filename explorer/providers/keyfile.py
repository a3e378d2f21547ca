"""An encrypted key file, for machines without a system keyring (a headless Linux box).

Never used unless chosen (``convo keys set PROVIDER --encrypted-file``), and never a plain
file: each key is encrypted with a key derived from a passphrase (scrypt, then Fernet:
AES-128-CBC with an HMAC), and the passphrase itself is never stored. It is asked for
when a key is saved and read from ``$CONVO_KEYS_PASSPHRASE`` when a key is needed, so a
key in the file is usable only where that variable is set. The file sits beside the
settings file (``keys.enc``), is written atomically and readable by its owner only.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from explorer.providers.settings import settings_path
from explorer.tree.errors import ExplorerError

PASSPHRASE_VAR = "CONVO_KEYS_PASSPHRASE"
FILE_NAME = "keys.enc"
SCRYPT = {"n": 2**15, "r": 8, "p": 1}


class KeyFileError(ExplorerError):
    """The key file cannot be used (the message never holds a key or the passphrase)."""


def key_file_path() -> Path:
    return settings_path().with_name(FILE_NAME)


def stored_providers(path: Path | None = None) -> list[str]:
    """Providers with a key in the file (readable without the passphrase)."""
    data = _load(path or key_file_path())
    return sorted(data.get("keys", {})) if data else []


def read_key(provider: str, passphrase: str | None = None,
             path: Path | None = None) -> str | None:
    """The provider's key, or None when the file has none. Raises KeyFileError when the
    file has one but the passphrase is missing or wrong."""
    data = _load(path or key_file_path())
    token = (data or {}).get("keys", {}).get(provider)
    if not token:
        return None
    phrase = passphrase if passphrase is not None else os.environ.get(PASSPHRASE_VAR)
    if not phrase:
        raise KeyFileError(f"the {provider} key is in the encrypted key file; set "
                           f"${PASSPHRASE_VAR} to its passphrase to use it")
    fernet = _fernet(phrase, data or {})
    from cryptography.fernet import InvalidToken

    try:
        return str(fernet.decrypt(token.encode("ascii")).decode("utf-8"))
    except (InvalidToken, ValueError):
        raise KeyFileError(f"${PASSPHRASE_VAR} does not unlock the encrypted key file") from None


def write_key(provider: str, key: str, passphrase: str, path: Path | None = None) -> Path:
    """Encrypt ``key`` into the file (one passphrase for the whole file)."""
    if not passphrase:
        raise KeyFileError("the passphrase is empty")
    path = path or key_file_path()
    data = _load(path) or {"version": 1, "kdf": "scrypt", **SCRYPT,
                           "salt": base64.b64encode(os.urandom(16)).decode("ascii"), "keys": {}}
    for other in data["keys"]:  # one passphrase: it must open what is there already
        read_key(other, passphrase, path)
        break
    token = _fernet(passphrase, data).encrypt(key.encode("utf-8")).decode("ascii")
    data["keys"][provider] = token
    _save(path, data)
    return path


def delete_key(provider: str, path: Path | None = None) -> bool:
    path = path or key_file_path()
    data = _load(path)
    if not data or provider not in data.get("keys", {}):
        return False
    del data["keys"][provider]
    _save(path, data)
    return True


def _fernet(passphrase: str, data: dict[str, Any]) -> Any:
    try:
        from cryptography.fernet import Fernet
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
    except ImportError:
        raise KeyFileError("the encrypted key file needs the 'cryptography' package") from None
    kdf = Scrypt(salt=base64.b64decode(data["salt"]), length=32, n=int(data["n"]),
                 r=int(data["r"]), p=int(data["p"]))
    return Fernet(base64.urlsafe_b64encode(kdf.derive(passphrase.encode("utf-8"))))


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise KeyFileError(f"{path} is unreadable ({type(e).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise KeyFileError(f"{path} is not a key file")
    return data


def _save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
