"""What makes a check fast without checking less: the plan's kept and fresh candidate, the
opponents played in the referee's process, the early stop of a bot that never says hello,
and the league pool's view of a plan (no process: the games are played with fakes)."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from arena import builtin_bots
from arena.check import CheckOptions, conformance_plan, judge_conformance
from arena.check.plan import PlannedGame, Purpose, strength_plan
from arena.check.play import HANDSHAKE_FAILURES, EarlyStop, StopReason, pool_games
from arena.check.results import CheckStatus
from arena.game.bothost import KEPT
from arena.game.clock import TimeControl
from arena.game.record import Fault, FaultKind, GameRecord
from arena.game.referee import Referee
from tests.support.fakebot import engine_bot

OPTS = CheckOptions(command=("./bot",), cwd=Path("/bots/mine"), conformance_games=24)


def test_the_candidate_starts_afresh_in_the_first_game_of_each_player_count_and_two_special_games() -> None:
    plan = conformance_plan(OPTS)
    fresh = [g for g in plan if not g.specs[g.seat].multigame]
    # Each ends with "exit now": after a 2-, 3- and 4-player game, after an opponent forfeited,
    # after running out of moves.
    assert [(g.purpose, g.players, g.seat, g.build) for g in fresh] == [
        (Purpose.CONFORMANCE, 2, 0, False),
        (Purpose.CONFORMANCE, 3, 0, False),
        (Purpose.CONFORMANCE, 4, 0, False),
        (Purpose.FORFEIT, 2, 0, False),
        (Purpose.PASS, 3, 0, False),
    ]
    # Every other game may keep a multigame bot's process, as a league does.
    assert all(g.specs[g.seat].multigame for g in strength_plan(OPTS, ("./other",), "other", 0, 4))


def test_built_in_opponents_play_in_the_referees_process_and_others_get_a_process() -> None:
    plan = conformance_plan(OPTS)
    opponents = [s for g in plan for i, s in enumerate(g.specs) if i != g.seat]
    assert opponents and all(s.in_process for s in opponents)
    assert not any(g.specs[g.seat].in_process for g in plan)
    # Opponents given by the user are processes (the forfeiter stays the arena's own).
    own = conformance_plan(replace(OPTS, opponents=(("python3", "their_bot.py"),)))
    in_process = {s.command for g in own for s in g.specs if s.in_process}
    assert in_process == {builtin_bots.command_of("forfeit")}
    # The replay command still names the built-in bot, which `arena play` starts as a process.
    assert all(builtin_bots.spelling(s.command) for s in opponents)


def played_plan() -> tuple[list[PlannedGame], list[GameRecord]]:
    """Every game of the plan played by fakes, with the candidate sound."""
    plan = conformance_plan(OPTS)
    records = []
    for game in plan:
        fixed = replace(game, seed_secret="5" * 32)
        bots = [engine_bot(f"bot{i}") for i in range(game.players)]
        records.append(Referee(fixed.setup(TimeControl(), 0.0), list(game.specs), bots).run())
    return plan, records


def with_candidate(record: GameRecord, seat: int, **changes: object) -> GameRecord:
    seats = list(record.seats)
    seats[seat] = replace(seats[seat], **changes)  # type: ignore[arg-type]
    return replace(record, seats=tuple(seats))


def test_exits_counts_only_the_games_where_the_candidate_was_told_to_exit() -> None:
    plan, records = played_plan()
    kept = [i for i, g in enumerate(plan) if g.specs[g.seat].multigame]
    # A kept process did not exit (it was told to wait for its next game): not held against it.
    for i in kept:
        records[i] = with_candidate(records[i], plan[i].seat, exit=KEPT, exited_cleanly=False)
    results, failure = judge_conformance(plan, records, OPTS)
    exits = next(r for r in results if r.name == "exits")
    assert failure is None and exits.status is CheckStatus.PASS, results
    assert exits.games == len(plan) - len(kept) and f"in {exits.games} games" in exits.detail
    # Told to exit and still running: a failure, as before.
    fresh = next(i for i in range(len(plan)) if i not in kept)
    records[fresh] = with_candidate(records[fresh], plan[fresh].seat, exit="running", exited_cleanly=False)
    results, failure = judge_conformance(plan, records, OPTS)
    assert failure is not None and failure.check == "exits", results


@functools.cache
def one_game() -> tuple[PlannedGame, GameRecord]:
    g = conformance_plan(OPTS)[0]
    bots = [engine_bot(f"bot{i}") for i in range(g.players)]
    return g, Referee(g.setup(TimeControl(), 0.0), list(g.specs), bots).run()


def no_hello(ready: bool = False, fault: bool = True) -> tuple[PlannedGame, GameRecord]:
    """A game whose candidate did (or did not) complete its handshake, with (or without) a fault."""
    g, record = one_game()
    f = Fault(FaultKind.STARTUP_FAILURE, "no hello within the startup allowance", 0) if fault else None
    return g, with_candidate(record, g.seat, ready=ready, fault=f)


def test_a_check_stops_once_the_handshake_failed_a_few_times_and_never_succeeded() -> None:
    early = EarlyStop(stop_at_fault=False)
    for _ in range(HANDSHAKE_FAILURES - 1):
        early.note(*no_hello())
        assert early.reason is None
    early.note(*no_hello())
    assert early.reason is StopReason.HANDSHAKE and early.handshakes_failed == HANDSHAKE_FAILURES


def test_a_handshake_that_succeeded_once_never_stops_the_check() -> None:
    early = EarlyStop(stop_at_fault=False)
    early.note(*no_hello(ready=True, fault=False))
    for _ in range(1, 2 * HANDSHAKE_FAILURES):
        early.note(*no_hello())
    assert early.reason is None


def test_fail_fast_stops_at_the_candidates_first_fault() -> None:
    early = EarlyStop(stop_at_fault=True)
    early.note(*no_hello(ready=True, fault=False))
    assert early.reason is None
    early.note(*no_hello(ready=True, fault=True))
    assert early.reason is StopReason.FAULT


def test_the_pool_sees_each_planned_game_with_its_own_setup_and_bots() -> None:
    opts = replace(OPTS, opponents=(("./a",), ("./b",)))
    plan = conformance_plan(opts) + strength_plan(opts, ("./c",), "other", 0, 4)
    settings, games = pool_games(plan, opts)
    assert [g.index for g in games] == list(range(len(plan)))
    assert len({g.game_id for g in games}) == len(plan)  # a strength pair's two games share a seed
    for g, planned in zip(games, plan, strict=True):
        assert tuple(settings.bots[name] for name in g.seats) == planned.specs
        assert settings.setup(g) == planned.setup(opts.time_control, opts.end_grace_s)
    # The watchdog allows the longest game of the plan: 4 players building the pasture.
    assert settings.params.players == 4 and settings.board == "build"
