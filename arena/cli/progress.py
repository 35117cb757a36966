"""``arena run``'s progress: a bar redrawn in place on a terminal, plain lines elsewhere.

Every plain line ends with the elapsed time and the ETA, so a CI log or a file
read later says how far the run was; the terminal bar is cut to the terminal's
width (a wrapped line cannot be redrawn in place, and would print one line per game).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections import Counter

import click

from arena.cli.common import echo_printable
from arena.game.record import GameRecord
from arena.league.game_summary import GameSummary
from arena.league.schedule import ScheduledGame
from arena.league.tally import Standings
from arena.tournament import RunState
from arena.untrusted import printable

PLAIN_LEADERS_EVERY_S = 5.0
BAR_CELLS = 20


def clock_text(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``: short enough for a progress line."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def timing(state: RunState, now: float) -> str:
    """``elapsed 1m02s, ETA 3m10s``: the ETA from this run's pace (games played before it cost nothing)."""
    elapsed = now - state.started
    left = state.total - state.done
    if left == 0:
        eta = "0s"
    elif state.played_now == 0:
        eta = "?"
    else:
        eta = clock_text(elapsed / state.played_now * left)
    return f"elapsed {clock_text(elapsed)}, ETA {eta}"


def leaders(standings: Standings | None, n: int = 3) -> str:
    """The best ``n`` among the bots that have played (a bot with no games has no place yet)."""
    if standings is None:
        return ""
    played = [r for r in standings.rows if r.games > 0][:n]
    if not played:
        return ""
    return "leaders: " + ", ".join(f"{printable(r.bot)} {r.rating:.1f}" for r in played)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns (every character here takes one: printable() made them so)."""
    return text if len(text) <= width else text[: max(0, width - 3)] + "..."


def game_line(game: GameSummary) -> str:
    """``1. alpha 14  2. beta 9 (timeout)``: a game's ranking in one line."""
    parts = []
    for _player, seat in sorted(enumerate(game.seats), key=lambda ps: (ps[1].rank, ps[0])):
        note = f" ({seat.fault.kind.value})" if seat.fault else ""
        parts.append(f"{seat.rank}. {printable(seat.name)} {seat.hexes}{note}")
    return "  ".join(parts)


class Progress:
    """Follows a run game by game (the CLI's :class:`arena.tournament.RunListener`); says at
    the end how long games were and what went wrong."""

    def __init__(self, quiet: bool, tty: bool) -> None:
        self.quiet = quiet
        self.tty = tty
        self.drawn = False
        self.last_plain = -PLAIN_LEADERS_EVERY_S
        self.games = 0
        self.moves = 0
        self.seconds = 0.0
        self.faults: Counter[str] = Counter()

    def say(self, line: str) -> None:
        """Print one of the run's lines (nothing when quiet), a bot's text in it made visible."""
        if not self.quiet:
            echo_printable(line)

    def game_done(self, state: RunState, game: ScheduledGame, record: GameRecord) -> None:
        """A game finished: :meth:`update`."""
        self.update(state, game, record)

    def update(self, state: RunState, game: ScheduledGame, record: GameRecord) -> None:
        """Count a finished game, and show how far the run is (a bar on a terminal, else a line)."""
        self.games += 1
        self.moves += len(record.moves)
        self.seconds += record.duration_ms / 1000
        self.faults.update(f.kind.value for _p, f in record.faults)
        if self.quiet:
            return
        now = time.monotonic()
        if self.tty:
            self._draw(state, now)
            return
        line = f"[{state.done}/{state.total}] {printable(game.game_id)}: {game_line(GameSummary.of(record, game.index))}"
        if now - self.last_plain >= PLAIN_LEADERS_EVERY_S or state.done == state.total:
            top = " ".join(t for t in (leaders(state.standings), state.note) if t)
            line += f"   {top}" if top else ""
            self.last_plain = now
        click.echo(f"{line}   {timing(state, now)}")

    def _draw(self, state: RunState, now: float) -> None:
        filled = BAR_CELLS * state.done // max(1, state.total)
        bar = "#" * filled + "-" * (BAR_CELLS - filled)
        # The count first: on a narrow terminal it is what survives the cut.
        text = (
            f"{state.done}/{state.total} games [{bar}] {timing(state, now)}  "
            f"{leaders(state.standings)} {state.note}"
        )
        # One column spare: a line that fills the last column wraps on some terminals.
        width = shutil.get_terminal_size().columns - 1
        sys.stdout.write("\r" + cut(text.rstrip(), width) + "\x1b[K")
        sys.stdout.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line, if one is drawn, so that what follows starts on its own line."""
        if self.drawn:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.drawn = False

    def summary(self) -> str:
        """``mean game: 41.0 moves, 2.3 s; faults: timeout 2, crash 1`` for the games played now."""
        if not self.games:
            return "no games played in this run"
        faults = ", ".join(f"{kind} {n}" for kind, n in self.faults.most_common()) or "none"
        return (
            f"mean game: {self.moves / self.games:.1f} moves, {self.seconds / self.games:.1f} s; "
            f"faults: {faults}"
        )
