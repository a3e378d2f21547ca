"""What a shared page could give away besides secrets: absolute paths and e-mail addresses.

A home folder's path names its owner (``/home/alice``, ``/Users/alice``,
``C:\\Users\\alice``); other absolute paths tell how a machine is laid out; an e-mail address
names a person. Secrets are found by the redaction rules (R1, :mod:`explorer.tree.secrets`).
Each category is kept or redacted as the person decides: a home folder becomes ``~``, another
path and an address become ``[redacted: path]`` and ``[redacted: e-mail]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from explorer.tree import secrets

SECRETS, HOME, PATHS, EMAILS = "secrets", "home-paths", "other-paths", "emails"
CATEGORIES = (SECRETS, HOME, PATHS, EMAILS)
DEFAULTS: dict[str, bool] = {SECRETS: True, HOME: True, PATHS: False, EMAILS: False}
"""Redact (True) or keep, when the person accepts the defaults (``--yes``)."""
NAMES = {SECRETS: "secrets", HOME: "home-folder paths", PATHS: "other absolute paths",
         EMAILS: "e-mail addresses"}

_SEP = r"(?:\\\\|\\)"  # one backslash, or two inside JSON text
HOME_RE = re.compile(
    r"(?<![\w.~:/\\-])(?:/home/[^/\s\"'`<>]+|/Users/[^/\s\"'`<>]+|/root(?=[/\s\"'`<>]|$)|"
    rf"[A-Za-z]:{_SEP}Users{_SEP}[^\\/\s\"'`<>]+)")
PATH_RE = re.compile(
    r"(?<![\w.~:/\\\-=@])/(?:[\w.@%+~-]+/)+[\w.@%+~-]*|"
    rf"(?<![\w])[A-Za-z]:{_SEP}(?:[^\\\s\"'`<>|*?]+{_SEP})+[^\\\s\"'`<>|*?]*")
EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")


def home_paths(text: str) -> Iterator[str]:
    if "/" in text or "\\" in text:
        yield from (m.group(0) for m in HOME_RE.finditer(text))


def other_paths(text: str) -> Iterator[str]:
    """Absolute paths outside a home folder (a home folder's are :func:`home_paths`)."""
    if "/" not in text and "\\" not in text:
        return
    for m in PATH_RE.finditer(text):
        if not HOME_RE.match(m.group(0)):
            yield m.group(0)


def emails(text: str) -> Iterator[str]:
    if "@" in text:
        yield from (m.group(0) for m in EMAIL_RE.finditer(text))


FINDERS: dict[str, Callable[[str], Iterator[str]]] = {
    HOME: home_paths, PATHS: other_paths, EMAILS: emails}


def redact(text: str, redacting: Mapping[str, bool]) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with each category the person chose redacted; what was replaced, as
    (category, kind) pairs (a secret's kind; never its value)."""
    done: list[tuple[str, str]] = []
    if redacting.get(SECRETS):
        text, kinds = secrets.redact_text(text)
        done += [(SECRETS, k) for k in kinds]
    if redacting.get(EMAILS) and "@" in text:
        text, n = EMAIL_RE.subn("[redacted: e-mail]", text)
        done += [(EMAILS, "e-mail")] * n
    if redacting.get(PATHS) and ("/" in text or "\\" in text):
        text = PATH_RE.sub(lambda m: _other(m, done), text)
    if redacting.get(HOME) and ("/" in text or "\\" in text):
        text, n = HOME_RE.subn("~", text)
        done += [(HOME, "home path")] * n
    return text, done


def _other(m: re.Match[str], done: list[tuple[str, str]]) -> str:
    if HOME_RE.match(m.group(0)):
        return m.group(0)
    done.append((PATHS, "path"))
    return "[redacted: path]"
