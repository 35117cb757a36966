"""``arena run``'s progress text: elapsed and ETA, leaders among bots that played, the
terminal bar cut to the width, and the summary at the end."""

from __future__ import annotations

import io
import os

import pytest

from arena.cli import progress as progress_module
from arena.cli.progress import Progress, clock_text, cut, leaders, timing
from arena.league.schedule import ScheduledGame
from arena.league.tally import Row, Standings
from arena.tournament import EchoListener, RunListener, RunState
from tests.support.records import fake_game


def row(rank: int, bot: str, score: float, games: int) -> Row:
    return Row(rank, bot, score, score + 10, 1.0, games, 1.5, 0, 0.5, 10.0, 0)


def standings(*rows: Row) -> Standings:
    return Standings(rows=list(rows), games=1, players=2, seat_points=[0.5, 0.5], crosstable={})


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (42, "42s"), (185, "3m05s"), (3720, "1h02m")])
def test_clock_text(seconds: float, text: str) -> None:
    assert clock_text(seconds) == text


def test_eta_follows_this_runs_pace() -> None:
    state = RunState(total=10, done=6, played_now=2, started=100.0)  # 4 played before this run
    assert timing(state, 120.0) == "elapsed 20s, ETA 40s"  # 10 s a game, 4 left
    assert timing(RunState(total=3, started=0.0), 5.0) == "elapsed 5s, ETA ?"
    assert timing(RunState(total=3, done=3, played_now=3, started=0.0), 5.0).endswith("ETA 0s")


def test_leaders_are_only_bots_that_played_and_include_the_loser() -> None:
    st = standings(row(1, "idle", 0.0, 0), row(2, "winner", 5.0, 1), row(3, "loser", -1.0, 1))
    assert leaders(st) == "leaders: winner 5.0, loser -1.0"
    assert leaders(standings(row(1, "idle", 0.0, 0))) == ""


def test_a_bot_chosen_name_is_escaped_in_the_leaders() -> None:
    assert "\x1b" not in leaders(standings(row(1, "evil\x1b[2J", 1.0, 1)))


def test_cut_keeps_within_the_width() -> None:
    assert cut("abcdef", 6) == "abcdef" and cut("abcdefgh", 6) == "abc..." and len(cut("x" * 300, 40)) == 40


def game(i: int) -> ScheduledGame:
    return ScheduledGame(i, f"r1-g{i + 1:03d}", 1, ("ann", "bob"), 7)


def test_plain_lines_end_with_elapsed_and_eta(capsys: pytest.CaptureFixture[str]) -> None:
    state = RunState(total=2, started=0.0)
    p = Progress(quiet=False, tty=False)
    for i in range(2):
        state.done += 1
        state.played_now += 1
        state.standings = standings(row(1, "ann", 2.0, i + 1), row(2, "bob", 1.0, i + 1))
        p.update(
            state, game(i), fake_game(f"r1-g{i + 1:03d}", ["ann", "bob"], [1, 2], fault=1 if i else None)
        )
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert all(" elapsed " in line and ", ETA " in line.rsplit("elapsed", 1)[1] for line in lines), lines
    assert lines[0].startswith("[1/2] r1-g001: 1. ann") and "leaders: ann 2.0, bob 1.0" in lines[1]
    assert p.summary() == "mean game: 0.0 moves, 0.0 s; faults: timeout 1"


@pytest.mark.parametrize("columns", [30, 80, 200])
def test_the_terminal_bar_redraws_in_place_within_the_width(
    columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.StringIO()
    monkeypatch.setattr(progress_module.sys, "stdout", out)
    monkeypatch.setattr(progress_module.shutil, "get_terminal_size", lambda: os.terminal_size((columns, 24)))
    state = RunState(total=50, started=0.0)
    p = Progress(quiet=False, tty=True)
    many = [row(i + 1, f"bot-with-a-long-name-{i}", 10.0 - i, 1) for i in range(8)]
    for i in range(3):
        state.done += 1
        state.played_now += 1
        state.standings = standings(*many)
        p.update(state, game(i), fake_game("g", ["ann", "bob"], [1, 2]))
    p.close()
    text = out.getvalue()
    assert text.count("\n") == 1  # one line in all, redrawn with \r
    draws = [d.removesuffix("\x1b[K") for d in text.rstrip("\n").split("\r") if d]
    assert len(draws) == 3 and all(len(d) <= columns - 1 for d in draws), draws
    assert draws[-1].startswith("3/50 games [#")


@pytest.mark.parametrize("quiet", [False, True], ids=["plain", "quiet"])
def test_progress_is_the_run_s_listener_its_lines_escaped_and_silent_when_quiet(
    capsys: pytest.CaptureFixture[str], quiet: bool
) -> None:
    p: RunListener = Progress(quiet=quiet, tty=False)
    p.say("warning: bot 'evil\x1b[2J': runs unsandboxed")
    p.game_done(RunState(total=1, done=1, started=0.0), game(0), fake_game("r1-g001", ["ann", "bob"], [1, 2]))
    out = capsys.readouterr().out
    if quiet:
        assert out == ""
    else:
        lines = out.splitlines()
        assert "\x1b" not in out and lines[0].startswith("warning: bot 'evil") and lines[0].endswith("unsandboxed")
        assert lines[1].startswith("[1/1] r1-g001: 1. ann")
    assert isinstance(p, Progress) and p.games == 1  # counted for the summary either way


def test_run_tournament_s_two_callables_are_a_listener_too() -> None:
    lines: list[str] = []
    games: list[str] = []
    listener = EchoListener(lines.append, lambda _state, g, _record: games.append(g.game_id))
    listener.say("resuming")
    listener.game_done(RunState(total=1), game(0), fake_game("r1-g001", ["ann", "bob"], [1, 2]))
    EchoListener(lines.append).game_done(RunState(total=1), game(1), fake_game("r1-g002", ["ann", "bob"], [1, 2]))
    assert lines == ["resuming"] and games == ["r1-g001"]
