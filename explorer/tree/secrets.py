"""Secrets found in text, and the text with each replaced by ``[redacted: kind]`` (SPEC R1).

A secret drawn into a snapshot page can never be searched for again, so everything meant for
sharing or sending (pages, summaries, request bodies, exports, hand-backs) passes through
here first; the stored conversation and the native export keep the exact text.

The rules are this module's own. ``detect-secrets`` was tried and left out: it misses the
current OpenAI project keys and Anthropic's keys, reports a capture group rather than the
span to replace (``ghp`` for a whole GitHub token, a private key's header without its body),
and costs about 0.4 ms of CPU per line, minutes for a long session.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from explorer.tree.model import Message, Part

PLACEHOLDER = "[redacted: {kind}]"


@dataclass(frozen=True)
class Rule:
    """One kind of secret: a pattern, and which group is the secret (0: the whole match)."""

    kind: str
    pattern: re.Pattern[str]
    groups: tuple[int, ...] = (0,)

    def span(self, m: re.Match[str]) -> tuple[int, int, str] | None:
        """The secret's span in match ``m`` (the first of the rule's groups that matched)."""
        for g in self.groups:
            if m.group(g) is not None:
                return m.start(g), m.end(g), m.group(g)
        return None


def _rule(kind: str, pattern: str, groups: int | tuple[int, ...] = 0) -> Rule:
    return Rule(kind, re.compile(pattern), groups if isinstance(groups, tuple) else (groups,))


_KEYWORDS = (r"password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
             r"private[_-]?key|credentials?")
# Order matters where patterns overlap: the first rule to claim a span names it.
RULES: tuple[Rule, ...] = (
    _rule("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
          r"[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    _rule("anthropic-key", r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_\-]{20,}"),
    _rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{32,}"),
    _rule("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    _rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})"),
    _rule("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    _rule("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    _rule("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}"),
    _rule("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    _rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _rule("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,}"),
    _rule("jwt", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    _rule("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@\"'<>]+:([^\s@/\"'<>]+)@", 1),
    _rule("bearer-token", r"\b[Bb]earer\s+([A-Za-z0-9\-._~+/]{20,}=*)", 1),
    # NAME_KEY=value, NAME_TOKEN: value, password = "two words" (shell, dotenv, YAML, code)
    _rule("credential", r"(?i)\b[A-Za-z0-9_.\-]*(?:" + _KEYWORDS + r")s?(?:_[A-Za-z0-9]+)?"
          r"[\"']?\s*(?:=|:)\s*(?:\"([^\"\n\\]{4,})\"|'([^'\n\\]{4,})'"
          r"|([^\s\"'`\\,;)\]}]{6,}))", (1, 2, 3)),
)

_NOT_A_VALUE = re.compile(
    r"^(?:\$|%|<|\{|\[redacted|\*{3}|x{4}|\.\.\.|(?:true|false|null|none|required|optional"
    r"|string|bytes|redacted|hidden|changeme|example)$)", re.IGNORECASE)
# code, not a value: a call or attribute (get_token(), self.key), a snake_case name, a number
_CODE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*[.(\[]|[a-z]+(?:_[a-z0-9]+)+$|[\d.,]+$)")


@dataclass(frozen=True)
class Finding:
    """One secret replaced: its kind and where (never its value)."""

    kind: str
    message_id: Hashable | None = None
    part_index: int | None = None


def _plausible(rule: Rule, value: str) -> bool:
    """An assignment's value that is a real secret, not a placeholder or a variable name."""
    if rule.kind != "credential":
        return True
    return not (_NOT_A_VALUE.match(value) or _CODE.match(value))


def find_spans(text: str) -> list[tuple[int, int, str]]:
    """The spans of ``text`` that are secrets, left to right, without overlaps."""
    spans: list[tuple[int, int, str]] = []
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            found = rule.span(m)
            if found is None or not _plausible(rule, found[2]):
                continue
            start, end, _ = found
            if not any(start < e and s < end for s, e, _ in spans):
                spans.append((start, end, rule.kind))
    return sorted(spans)


def redact_text(text: str) -> tuple[str, list[str]]:
    """``text`` with every secret replaced by ``[redacted: kind]``, and the kinds replaced."""
    if not text:
        return text, []
    spans = find_spans(text)
    if not spans:
        return text, []
    out: list[str] = []
    last = 0
    for start, end, kind in spans:
        out.append(text[last:start])
        out.append(PLACEHOLDER.format(kind=kind))
        last = end
    out.append(text[last:])
    return "".join(out), [kind for _, _, kind in spans]


def redact_messages(messages: Sequence[Message]) -> tuple[list[Message], list[Finding]]:
    """The messages with secrets replaced in every text-bearing part; unchanged messages are
    the same objects. Images cannot be read, so a secret in a screenshot stays."""
    out: list[Message] = []
    found: list[Finding] = []
    for m in messages:
        parts: list[Part] | None = None
        for i, p in enumerate(m.parts):
            if p.kind == "image" or not p.text:
                continue
            text, kinds = redact_text(p.text)
            if not kinds:
                continue
            if parts is None:
                parts = list(m.parts)
            parts[i] = replace(p, text=text, meta={**p.meta, "redacted_secrets": kinds})
            found += [Finding(k, m.id, i) for k in kinds]
        out.append(m if parts is None else replace(m, parts=parts))
    return out, found


def describe(found: Sequence[Finding]) -> str:
    """One line for notes: how many of which kind, and in which messages (no values)."""
    kinds = Counter(f.kind for f in found)
    where = sorted({str(f.message_id) for f in found if f.message_id is not None},
                   key=lambda s: (len(s), s))
    what = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    shown = ", ".join(where[:12]) + (f" and {len(where) - 12} more" if len(where) > 12 else "")
    return (f"redacted {len(found)} secret(s) ({what})"
            + (f" in message(s) {shown}" if where else "") + "; --no-redact sends them")


class SecretRedactor:
    """The :class:`~explorer.compaction.target.Redactor` every shared or sent context uses."""

    def __call__(self, messages: Sequence[Message], notes: list[str]) -> list[Message]:
        out, found = redact_messages(messages)
        if found:
            notes.append(describe(found))
        return out
