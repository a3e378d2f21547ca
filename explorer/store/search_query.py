"""What a person types into search, read as full-text terms and filters.

Words are matched as words, ``"a phrase"`` as a phrase, ``pars*`` as a prefix; the rest is
never FTS syntax (a stray quote or ``NEAR`` is just text). Filters narrow by what the store
knows of a message: ``role:user``, ``tool:Bash`` (a message that called it), ``source:codex``,
``project:shop`` (the folder the session ran in), ``after:2026-11-01`` and ``before:…``,
``conv:12``. ``convo search``, Ctrl+F and the agents' ``search`` all read queries this way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from explorer.store.errors import StoreError

_TOKEN = re.compile(r'(\w+):"([^"]*)"|"([^"]*)"?|(\S+)')
KEYS = ("role", "tool", "source", "project", "after", "before", "conv")
_PROJECT = "(json_extract(c.meta, '$.cwd') LIKE ? OR c.source_path LIKE ?)"


class QueryError(StoreError):
    """A filter the query cannot mean (a date that is not one, an unknown conversation id)."""


@dataclass
class Query:
    terms: list[str] = field(default_factory=list)  # FTS5 strings, each quoted
    where: list[str] = field(default_factory=list)  # SQL over m (message), c (conversation)
    params: list[object] = field(default_factory=list)
    # What the filters say of a whole conversation, over c alone: the sessions a search too big
    # to rank walks (store.search_plan) are those that can hold a message the filters allow.
    scope: list[str] = field(default_factory=list)
    scope_params: list[object] = field(default_factory=list)
    by_date: bool = False  # the scope asks each session for its first or last message

    @property
    def match(self) -> str:
        return " ".join(self.terms)


def parse(text: str) -> Query:
    q = Query()
    for keyed, keyed_value, phrase, word in _TOKEN.findall(text):
        if keyed and keyed.lower() in KEYS:
            _filter(q, keyed.lower(), keyed_value)
        elif phrase:
            q.terms.append(_quoted(phrase))
        elif word:
            key, sep, value = word.partition(":")
            if sep and key.lower() in KEYS and value:
                _filter(q, key.lower(), value)
            elif word.endswith("*") and len(word) > 1:
                q.terms.append(_quoted(word.rstrip("*")) + "*")
            else:
                q.terms.append(_quoted(word))
    return q


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def plain(text: str, conversation: int | None = None) -> Query:
    """Every word of ``text`` as a word to match, nothing read as a filter (the agents'
    ``search``), in one conversation when given; control characters, which SQLite reads as
    the string's end, are spaces."""
    words = "".join(" " if ord(ch) < 32 else ch for ch in text).split()
    q = Query(terms=[_quoted(w) for w in words])
    if conversation is not None:
        _filter(q, "conv", str(conversation))
    return q


def _scoped(q: Query, sql: str, *params: object) -> None:
    q.scope.append(sql)
    q.scope_params.extend(params)


def _filter(q: Query, key: str, value: str) -> None:
    if key == "role":
        q.where.append("m.role = ?")
        q.params.append(value.lower())
    elif key == "tool":
        q.where.append("EXISTS (SELECT 1 FROM parts t WHERE t.message_id = m.id "
                       "AND t.kind = 'tool_use' AND lower(t.tool_name) = ?)")
        q.params.append(value.lower())
    elif key == "source":
        q.where.append("c.source_format LIKE ?")
        q.params.append(value.lower().replace("-", "_") + "%")
        _scoped(q, q.where[-1], q.params[-1])
    elif key == "project":
        q.where.append(_PROJECT)
        q.params += [f"%{value}%", f"%{value}%"]
        _scoped(q, _PROJECT, f"%{value}%", f"%{value}%")
    elif key in ("after", "before"):
        q.where.append(f"m.created_at {'>=' if key == 'after' else '<'} ?")
        q.params.append(_day(value))
        q.by_date = True
        # the conversation's newest (oldest) message, one step of messages_conversation_time
        _scoped(q, f"(SELECT {'max' if key == 'after' else 'min'}(t.created_at) FROM messages t "
                f"WHERE t.conversation_id = c.id) {'>=' if key == 'after' else '<'} ?",
                q.params[-1])
    elif key == "conv":
        if not value.isdigit():
            raise QueryError(f"conv:{value} is not a conversation id")
        q.where.append("m.conversation_id = ?")
        q.params.append(int(value))
        _scoped(q, "c.id = ?", int(value))


def _day(value: str) -> float:
    """A date (``2026-11-01``, or with a time) as the store's seconds since the epoch (UTC)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(f"{value} is not a date (write it as 2026-11-01)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
