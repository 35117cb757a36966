"""PROTOCOL.md's token syntax table, row by row, against the referee's own reader.

The table is the bot author's contract: each documented line must be read exactly
as documented (``parse_bot_line`` for the line, ``parse_move`` for its move token:
the two steps the referee takes), so the page cannot drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.errors import NotationError, ProtocolError
from arena.protocol import Info, MoveReply, parse_bot_line
from arena.rules import parse_move

PROTOCOL = Path(__file__).resolve().parents[3] / "protocol" / "PROTOCOL.md"
HEADER = "| the bot writes | the referee reads |"


def documented_rows() -> list[tuple[str, str]]:
    text = PROTOCOL.read_text(encoding="utf-8")
    table = text[text.index(HEADER) :].split("\n\n", 1)[0].splitlines()[2:]
    rows = []
    for line in table:
        m = re.fullmatch(r"\| `(.*)` \| (.*) \|", line)
        assert m is not None, f"a row of the token table that cannot be read: {line!r}"
        # Written with visible escapes for the characters a page cannot show.
        rows.append((m[1].replace("\\t", "\t").replace("\\r", "\r"), m[2].strip("`")))
    return rows


def read_as_the_referee_does(line: str) -> str:
    try:
        msg = parse_bot_line(line + "\n")
        if isinstance(msg, Info):
            return "info"
        assert isinstance(msg, MoveReply)
        return f"{msg.phase} {parse_move(msg.move)}"
    except (ProtocolError, NotationError):
        return "protocol_error"


def test_the_table_is_there_and_covers_accepting_and_refusing() -> None:
    verdicts = [v for _line, v in documented_rows()]
    assert len(verdicts) >= 10 and "protocol_error" in verdicts and "info" in verdicts


@pytest.mark.parametrize(("line", "verdict"), documented_rows(), ids=lambda v: repr(v))
def test_each_documented_line_is_read_as_documented(line: str, verdict: str) -> None:
    assert read_as_the_referee_does(line) == verdict
