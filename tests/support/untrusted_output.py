"""What the unit and the system tests of untrusted output share."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from arena.game.record import GameRecord, StderrTurn
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.rules import random_board
from tests.support.fakebot import ScriptedChannel, engine_bot, scripted

HOSTILE = [
    "\x1b]0;title\x07\x1b[2J\x1b[32mPASS every check",
    "nul\x00byte",
    "bell\x07",
    "c1\x9b31mcsi",
    "rtl\u202eexe.txt",
    "zero\u200bwidth",
    "lone\ud800surrogate",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a|b",
    "a\\|b",
    "`code`|",
    "**bold** _em_ [link](http://x)",
    "=1+1",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\t=1+1",
    "\r=1+1",
    " =1+1",
    "line\nbreak",
    "&amp; &lt;",
]


def controls(text: str) -> list[str]:
    """Every character a terminal could act on (a line break is allowed)."""
    return [repr(ch) for ch in text if not ch.isprintable() and ch != "\n"]


def assert_terminal_safe(text: str) -> None:
    assert not controls(text), (controls(text), text)


def markdown_cells(line: str) -> list[str]:
    """A GitHub table row's cells: split on each '|' that no backslash escapes."""
    cells, cell, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            cell += line[i : i + 2]
            i += 2
            continue
        if line[i] == "|":
            cells.append(cell)
            cell = ""
        else:
            cell += line[i]
        i += 1
    cells.append(cell)
    return cells[1:-1]  # a row starts and ends with '|'


def assert_markdown_safe(text: str, rows: int) -> None:
    """No raw HTML, and every table row has as many cells as its header."""
    assert_terminal_safe(text)
    assert "<" not in text and ">" not in text, text
    tables = re.findall(r"(?:^\|.*\n?)+", text, flags=re.M)
    assert tables, text
    seen = 0
    for table in tables:
        lines = table.strip("\n").split("\n")
        width = len(markdown_cells(lines[0]))
        for line in lines:
            assert len(markdown_cells(line)) == width, (line, width)
        seen += len(lines) - 2
    assert seen >= rows, text


def hostile_record(game_id: str, names: tuple[str, str], line: str) -> GameRecord:
    """A real game (fake bots, no processes) whose second bot answers ``line`` and forfeits, its
    seats then renamed ``names`` and given hostile stderr, info and hello names."""
    specs = [BotSpec(name="a", command=("fake", "a")), BotSpec(name="b", command=("fake", "b"))]
    bad = ScriptedChannel(scripted(["hello 1 x", "ready", line]))
    record = Referee(GameSetup(board=random_board(5, 8), seed=5), specs, [engine_bot("a"), bad]).run()
    assert record.seats[1].fault is not None and line[:5] in record.seats[1].fault.detail
    seats = tuple(
        replace(
            s,
            name=n,
            reported_name=HOSTILE[0],
            stderr_tail=line,
            infos=(line,),
            info_plies=(0,),
            stderr_turns=(StderrTurn(-1, (line,)), StderrTurn(0, tuple(HOSTILE))),
        )
        for s, n in zip(record.seats, names, strict=True)
    )
    return replace(record, game_id=game_id, seats=seats)


def hostile_line(i: int) -> str:
    return "move " + HOSTILE[i % len(HOSTILE)].replace("\n", " ")


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    names = [n.replace("\n", " ") for n in HOSTILE]  # one line each: a name is a line of YAML
    pairs = [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))]
    pairs.append((names[1], "-9 only lost"))  # a negative score in the tables, beside a '-' name
    return [hostile_record(f"r1-g{i:03}", pair, hostile_line(i)) for i, pair in enumerate(pairs)]
