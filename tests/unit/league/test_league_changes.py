"""A league that lives: bots added, removed or retired keep every game played, and only
the new meetings are scheduled; a change to how games are played is refused by key."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arena.league.changes import compare_files, identity, merge_schedule
from arena.league.schedule import ScheduledGame, make_schedule

BOTS = ["ann", "bob", "cid", "dan"]


def league(bots: list[str], rounds: int = 2, players: int = 2) -> list[ScheduledGame]:
    return make_schedule(bots, players, rounds, seed=7)


@pytest.mark.parametrize("players", [2, 3])
def test_adding_a_bot_keeps_every_game_and_schedules_only_its_meetings(players: int) -> None:
    old = league(BOTS, players=players)
    finished = {g.game_id for g in old[: len(old) // 2]}  # half played: a run stopped midway
    fresh = league([*BOTS, "eve"], players=players)
    merged = merge_schedule(old, finished, fresh)
    # Every old game (played or not) is still there, at the same place and under the same id.
    assert merged.schedule[: len(old)] == old
    new = merged.schedule[len(old) :]
    assert all("eve" in g.seats for g in new) and merged.scheduled == len(new)
    assert {identity(g) for g in merged.schedule} == {identity(g) for g in fresh}
    assert len(merged.schedule) == len(fresh)  # the same games as a league started with eve
    assert merged.kept == len(finished) and merged.dropped == 0
    ids = [g.game_id for g in merged.schedule]
    assert len(set(ids)) == len(ids)
    assert [g.index for g in merged.schedule] == list(range(len(fresh)))
    assert merged.describe() == f"kept {len(finished)}, scheduled {len(new)} new"


def test_a_league_started_afresh_gets_the_usual_schedule() -> None:
    fresh = league(BOTS)
    assert merge_schedule([], set(), fresh).schedule == fresh


def test_removing_a_bot_drops_its_unplayed_games_and_keeps_the_played_ones() -> None:
    old = league(BOTS)
    played = [g for g in old if "dan" in g.seats][:2]
    finished = {g.game_id for g in played}
    merged = merge_schedule(old, finished, league(BOTS[:3]))
    assert [g for g in merged.schedule if "dan" in g.seats] == played
    assert merged.dropped == sum("dan" in g.seats for g in old) - 2 and merged.scheduled == 0
    assert "dropped" in merged.describe()


def test_bringing_a_removed_bot_back_schedules_only_what_it_has_not_played() -> None:
    old = league(BOTS)
    finished = {g.game_id for g in old}
    without_dan = merge_schedule(old, finished, league(BOTS[:3])).schedule
    back = merge_schedule(without_dan, finished, league(BOTS))
    assert back.scheduled == 0 and back.schedule == old


FILE: dict[str, Any] = {
    "name": "t",
    "seed": 1,
    "rounds": 2,
    "time_control": {"move": "200ms"},
    "bots": [{"name": n, "command": f"./{n}"} for n in BOTS],
}


def changed(edit: Any) -> dict[str, Any]:
    new = copy.deepcopy(FILE)
    edit(new)
    return new


@pytest.mark.parametrize(
    ("edit", "refused", "allowed"),
    [
        (lambda f: f["bots"].append({"name": "eve", "command": "./eve"}), [], ["bots[4] added ('eve')"]),
        (lambda f: f["bots"].pop(1), [], ["bots: 'bob' removed (its games already played are kept)"]),
        (lambda f: f["bots"][2].update(retired=True), [], ["bots[2].retired: added (True)"]),
        (lambda f: f.update(rounds=5), [], ["rounds: 2 -> 5"]),
        (lambda f: f["time_control"].update(move="1s"), ["time_control.move: '200ms' -> '1s'"], []),
        (lambda f: f["bots"][1].update(command="./bob2"), ["bots[1].command: './bob' -> './bob2'"], []),
        (lambda f: f.update(seed=2), ["seed: 1 -> 2"], []),
        (lambda f: f.update(players=3), ["players: added (3)"], []),
        (
            lambda f: f["bots"].reverse(),
            ["bots: reordered (ann, bob, cid, dan -> dan, cid, bob, ann)"],
            [],
        ),
        # A round robin turned into a continuous league is a change of format, however spelt.
        (lambda f: f.update(rounds="until_stable"), ["rounds: 2 -> 'until_stable'"], []),
        (lambda f: f.update(format="continuous"), ["format: added ('continuous')"], []),
    ],
    ids=[
        "added",
        "removed",
        "retired",
        "rounds",
        "time-control",
        "command",
        "seed",
        "players",
        "reordered",
        "until-stable",
        "format",
    ],
)
def test_each_change_is_named_and_judged(edit: Any, refused: list[str], allowed: list[str]) -> None:
    changes = compare_files(FILE, changed(edit))
    assert changes.refused == refused and changes.allowed == allowed
