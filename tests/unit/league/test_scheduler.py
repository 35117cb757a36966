"""A league's format as a scheduler: a round robin is planned whole when its folder opens and
gives no more games; a continuous league plans its next games as it goes, within its budget."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.league.config import TournamentConfig, load_config
from arena.league.resume import resume
from arena.league.scheduler import ContinuousScheduler, RoundRobin, league_scheduler
from arena.league.store import ResultStore


def league(tmp_path: Path, extra: str) -> TournamentConfig:
    listing = "".join(f"  - name: {b}\n    command: [{sys.executable}]\n" for b in ("a", "b", "c"))
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: t\nseed: 4\nplayers: 2\nsandbox: none\noutput: {tmp_path / 'out'}\n{extra}bots:\n{listing}"
    )
    return load_config(path)


def test_a_round_robin_counts_its_stored_games_and_plans_no_more(tmp_path: Path) -> None:
    config = league(tmp_path, "rounds: 2\n")
    with ResultStore.create(config.output) as store:
        resume(store, config)
        scheduler = league_scheduler(config, store)
        assert isinstance(scheduler, RoundRobin) and not scheduler.open_ended
        assert scheduler.total(store.schedule_size()) == 12
        assert scheduler.describe(12, 5) == "12 games, 5 to play"
        assert scheduler.next_games(4) == []
        assert scheduler.note() == "" and scheduler.stopped() is None and scheduler.pair_tests([]) is None


def test_a_continuous_league_plans_whole_sets_within_its_budget_and_says_when_it_stops(tmp_path: Path) -> None:
    config = league(tmp_path, "format: continuous\nmax_games: 6\nconfidence: 0.9\n")
    with ResultStore.create(config.output) as store:
        resume(store, config)
        scheduler = league_scheduler(config, store)
        assert isinstance(scheduler, ContinuousScheduler) and scheduler.open_ended
        assert scheduler.total(0) == 6 and scheduler.total(8) == 8  # a lowered budget plays what was planned
        assert scheduler.describe(6, 0) == (
            "continuous league: until every adjacent pair is settled at 90% (ordered, or tied within "
            "20 Elo), at most 6 games"
        )
        first = scheduler.next_games(1)
        assert [g.game_id for g in first] == ["c1-g001", "c1-g002"]  # a set: both seat orders
        assert scheduler.stopped() is None
        assert len(scheduler.next_games(3)) == 4  # whole sets: every meeting once
        assert scheduler.next_games(1) == []  # a fourth set would pass max_games
        assert scheduler.stopped() == "budget of 6 games spent"  # no game finished: no pair to name
