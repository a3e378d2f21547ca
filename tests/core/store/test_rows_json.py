"""Stored metadata is compact JSON with sorted keys, whichever encoder wrote it."""

from __future__ import annotations


def test_rows_json_is_compact_sorted_and_falls_back_for_what_the_fast_encoder_refuses() -> None:
    import json

    from explorer.store.rows import dumps

    assert dumps({"b": 1, "a": "é", "n": [1.5, None]}) == '{"a":"é","b":1,"n":[1.5,null]}'
    assert dumps({2: "int key"}) == '{"2":"int key"}'  # refused by msgspec: json writes it
    lone = dumps({"s": "\ud800"})  # a lone surrogate cannot be UTF-8: json writes it
    assert lone is not None and json.loads(lone) == {"s": "\ud800"}
    assert dumps({}) is None and dumps(None) is None
