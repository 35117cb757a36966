"""The worked game in protocol/PROTOCOL.md is exactly what the referee sends."""

from __future__ import annotations

import re
from pathlib import Path

from arena.game.clock import TimeControl
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.rules import Params
from tests.support.fakebot import ScriptedChannel, scripted

SPEC = Path(__file__).resolve().parents[3] / "protocol" / "PROTOCOL.md"


def transcript_lines() -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    section = text.split("## 7. A complete game", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None, "section 7 lost its transcript"
    return [line for line in block.group(1).splitlines() if line.startswith(("> ", "< "))]


def test_worked_transcript_is_what_the_referee_says() -> None:
    lines = transcript_lines()
    to_bot = [line[2:] for line in lines if line.startswith("> ")]
    answers = [line[2:] for line in lines if line.startswith("< ") and not line.startswith("< info")]
    a = ScriptedChannel(scripted(answers))
    b = ScriptedChannel(
        scripted(["hello 1 other", "ready", "tile 2,0A", "herd 3,1", "move 3,1W1", "move 3,1W1"])
    )
    setup = GameSetup(
        game_id="demo",
        seed=7,
        params=Params(players=2, sheep=3, tiles=1),
        time_control=TimeControl(move_ms=1000),
        board=None,
        seed_secret="0" * 32,  # each seat's seed comes from the game's seed and this
    )
    specs = [BotSpec("example", ("example",)), BotSpec("other", ("other",))]
    record = Referee(setup, specs, [a, b]).run()
    assert [*a.received, a.goodbye] == to_bot
    assert record.ranking == [1, 1]
    assert [s.hexes for s in record.standings] == [3, 3]
    assert [s.largest_group for s in record.standings] == [2, 2]
