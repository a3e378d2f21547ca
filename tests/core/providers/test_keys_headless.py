"""Keys on a machine without a keyring (headless Linux): ``convo keys set`` says what to do
in one line and stores nothing; the explicitly chosen encrypted key file keeps the key
encrypted with a passphrase, never as plain text."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from explorer.cli.main import main
from explorer.providers import keyfile
from explorer.providers.keys import delete_key, resolve_key

SECRET = "sk-ant-headless-0123456789abcdef"


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    for name in ("ANTHROPIC_API_KEY", keyfile.PASSPHRASE_VAR):
        monkeypatch.delenv(name, raising=False)
    yield Path(os.environ["CONVO_CONFIG"]).parent
    keyring.set_keyring(previous)


def keys(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str,
         *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["keys", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_keys_set_without_a_keyring_explains_and_stores_nothing(
    headless: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(headless.iterdir())
    code, out, err = keys(monkeypatch, capsys, SECRET + "\n", "set", "anthropic")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and "$ANTHROPIC_API_KEY" in err and "--encrypted-file" in err
    assert sorted(headless.iterdir()) == before, "no file of any kind was written"
    assert SECRET not in out + err


def test_the_encrypted_key_file_is_explicit_encrypted_and_needs_the_passphrase(
    headless: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(keyfile.PASSPHRASE_VAR, "correct horse")
    code, out, err = keys(monkeypatch, capsys, SECRET + "\n", "set", "anthropic",
                          "--encrypted-file")
    assert code == 0 and "encrypted key file" in out and "CONVO_KEYS_PASSPHRASE" in err
    path = keyfile.key_file_path()
    assert path.parent == headless and path.stat().st_mode & 0o777 == 0o600
    assert SECRET.encode() not in path.read_bytes() and b"correct horse" not in path.read_bytes()
    key, status = resolve_key("anthropic")
    assert key is not None and key.reveal() == SECRET and status.source == "file"
    monkeypatch.setenv(keyfile.PASSPHRASE_VAR, "wrong")
    key, status = resolve_key("anthropic")
    assert key is None and "does not unlock" in status.note
    code, _, err = keys(monkeypatch, capsys, "sk-other\n", "set", "openai", "--encrypted-file")
    assert code == 1 and "does not unlock" in err, "one passphrase for the whole file"
    monkeypatch.delenv(keyfile.PASSPHRASE_VAR)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    key, status = resolve_key("anthropic")
    assert key is not None and key.reveal() == "from-env" and status.source == "environment"
    assert "CONVO_KEYS_PASSPHRASE" in status.note
    delete_key("anthropic")
    assert keyfile.stored_providers() == []


def test_no_passphrase_and_no_terminal_is_refused(
    headless: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = keys(monkeypatch, capsys, SECRET + "\n", "set", "anthropic",
                        "--encrypted-file")
    assert code == 1 and "CONVO_KEYS_PASSPHRASE" in err and len(err.strip().splitlines()) == 1
    assert not keyfile.key_file_path().exists()
