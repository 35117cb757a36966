"""Reopening a results folder with a tournament file: the same file resumes, a grown or shrunk
one keeps the games played and says what changed (as values: resume never prints), and a
change to how games are played is refused, naming the key, with the store left as it was."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import TournamentConfig, load_config
from arena.league.resume import Resumed, resume, schedule_for
from arena.league.store import ResultStore
from arena.league.stored import StoredLeague
from tests.support.store_helpers import fake_record


def league(tmp_path: Path, bots: tuple[str, ...] = ("a", "b", "c"), extra: str = "") -> TournamentConfig:
    listing = "".join(f"  - name: {b}\n    command: [{sys.executable}]\n" for b in bots)
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: t\nseed: 4\nplayers: 2\nsandbox: none\noutput: {tmp_path / 'out'}\n{extra}bots:\n{listing}"
    )
    return load_config(path)


def play_first(store: ResultStore, games: int) -> None:
    rng = random.Random(3)
    for g in list(store.unfinished())[:games]:
        store.save_game(g, fake_record(g, rng))


def test_a_new_folder_gets_the_file_s_schedule_and_keeps_the_file_with_nothing_to_say(tmp_path: Path) -> None:
    config = league(tmp_path, extra="rounds: 2\n")
    with ResultStore.create(config.output) as store:
        assert resume(store, config) == Resumed()
        assert store.schedule() == schedule_for(config)
        stored = StoredLeague.read(store)
        assert stored.file == config.raw and stored.name == "t" and stored.schedule_version == 2
        assert resume(store, config) == Resumed()  # the same file again: the same schedule
        assert store.schedule() == schedule_for(config)


def test_a_grown_league_keeps_its_games_and_says_what_changed_and_who_is_retired(tmp_path: Path) -> None:
    config = league(tmp_path)
    with ResultStore.create(config.output) as store:
        resume(store, config)
        play_first(store, 2)
        played = store.finished_ids()
        grown = league(tmp_path, ("a", "b", "c", "d"))
        assert resume(store, grown).notes == (
            f"note: {grown.path} changed since the last run:\n  bots[3] added ('d')\nkept 2, scheduled 6 new",
        )
        assert played <= {g.game_id for g in store.schedule()}
        assert {g.game_id for g in store.schedule()} >= {g.game_id for g in schedule_for(grown)} - played
        shrunk = league(tmp_path, ("a", "b", "d"))
        notes = resume(store, shrunk).notes
        assert notes[-1] == "note: 'c' is retired: no new games; its games already played still count"
        assert StoredLeague.read(store).removed == ("c",)
        assert not any("c" in g.seats for g in store.unfinished())


@pytest.mark.parametrize("fmt", ["rounds: 1\n", "format: continuous\n"], ids=["round-robin", "continuous"])
def test_a_change_to_how_games_are_played_after_a_game_is_refused_naming_the_key(tmp_path: Path, fmt: str) -> None:
    config = league(tmp_path, extra=fmt + "time_control: {move: 200ms}\n")
    with ResultStore.create(config.output) as store:
        resume(store, config)
        if fmt.startswith("format"):  # a continuous league plans its games as it goes
            (tmp_path / "rr").mkdir()
            store.extend_schedule(schedule_for(league(tmp_path / "rr", extra="rounds: 1\n"))[:2])
        play_first(store, 1)
        before = store.schedule()
        slower = league(tmp_path, extra=fmt + "time_control: {move: 300ms}\n")
        with pytest.raises(ConfigError) as err:
            resume(store, slower)
        assert "time_control.move: '200ms' -> '300ms'" in str(err.value)
        assert "--restart" in str(err.value)
        assert store.schedule() == before
        assert StoredLeague.read(store).file == config.raw
