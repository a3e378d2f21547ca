"""SPEC R1: a credential (NAME_KEY=value) is found from the signs near a key word only; the
scan finds exactly what looking back from every "=" and ":" found, on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.tree import secrets
from explorer.tree.secrets import redact_text


def _every_sign(text: str) -> list[tuple[int, int, str]]:
    """The credentials found by looking back from every sign (the scan before the window)."""
    out = []
    for sign in secrets._ASSIGN.finditer(text):
        at = sign.start()
        key = secrets._NAME_REVERSED.match(text[max(0, at - secrets.KEY_LOOKBACK):at][::-1])
        if key is None:
            continue
        name = key.group(1)[::-1].lower()
        if not any(s in name for s in secrets._STEMS) or not secrets._KEY.search(name):
            continue
        m = secrets._VALUE.match(text, at + 1)
        if m is None:
            continue
        g = next(i for i in (1, 2, 3) if m.group(i) is not None)
        if secrets._plausible(m.group(g)):
            out.append((m.start(g), m.end(g), "credential"))
    return out


PIECES = ["API_KEY", "Api_Token", "PASSWORD", "db_password_prod", "aws_secret_access_key",
          "my.very.long.configuration.name.for.the.service.secret_key", "=", ":", " = ", ": ",
          '"', "'", "hunter2hunter2", "s3cr3t-v4lue", "\n", " ", "x", "İ", "\u212a", "key",
          "token", "pwd", "$HOME", "get_token()", "0123456789"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_R1_credentials_near_key_words_are_all_found(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert secrets._credentials(text) == _every_sign(text)


def test_R1_a_key_name_as_long_as_the_lookback_is_still_found() -> None:
    name = "x" * (secrets.KEY_LOOKBACK - len("_password")) + "_password"
    text = f"{'y = 1, ' * 50}{name}=hunter2hunter2"
    assert redact_text(text)[0].endswith("=[redacted: credential]")
    assert secrets._credentials(text) == _every_sign(text)


def test_R1_text_whose_lower_case_is_longer_is_scanned_whole() -> None:
    text = "İİİ config: API_KEY=hunter2hunter2 and TOKEN: s3cr3t-v4lue"
    found = secrets._credentials(text)
    assert [kind for *_, kind in found] == ["credential", "credential"]
    assert found == _every_sign(text)
