"""One base class for the program's own errors: each boundary catches one thing, one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app.calls.model_setup import SetupError
from explorer.app.comparing.columns import CompareError
from explorer.app.ops.slash import SlashError
from explorer.cli.main import main
from explorer.compaction.ladder import LadderError
from explorer.compaction.summary import SummaryTooLarge
from explorer.compaction.target import TargetError
from explorer.formats.base import FormatError
from explorer.providers.base import ContextOverflow, ProviderError
from explorer.providers.keys import KeyStoreError
from explorer.store import NotFound, StoreError
from explorer.tree.errors import ExplorerError, error_line
from explorer.tree.trim import TrimError


@pytest.mark.parametrize("kind", [
    StoreError, NotFound, FormatError, ProviderError, ContextOverflow, SetupError, LadderError,
    SummaryTooLarge, KeyStoreError, CompareError, SlashError, TrimError, TargetError,
])
def test_every_error_of_the_program_is_an_explorer_error(kind: type[Exception]) -> None:
    assert issubclass(kind, ExplorerError)


def test_a_lookup_error_reads_as_its_message_not_a_quoted_tuple() -> None:
    assert str(NotFound("no conversation 7")) == "no conversation 7"
    assert error_line(StoreError("first line\nsecond line")) == "first line"
    assert error_line(ExplorerError()) == "ExplorerError"


def test_the_command_line_shows_one_line_for_a_missing_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    db = str(tmp_path / "e.db")
    assert main(["--db", db, "demo"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "show", "999"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("convo: error: ") and err.count("\n") == 1 and "'" not in err[:16]
    assert main(["--db", db, "compact", "1", "--tier", "dense", "--provider", "anthropic",
                 "--window", "2000", "--max-tokens", "4096"]) == 1
    assert "output reserve" in capsys.readouterr().err
