"""What a check plays: its settings, its opponents, and every game it plans.

A planned game is a value: the candidate's seat, the board (random from the seed, or
built by the bots), the bots' specs and the rules' parameters, and the ``arena play``
command that plays it again move for move.
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.builtin_bots import STARTUP_MS, command_of, spelling
from arena.errors import ConfigError
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.referee import BotSpec, GameSetup
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.seeds import new_secret
from arena.league.schedule import derive_seed
from arena.rules import PLAYER_LETTERS, Params, random_board

CANDIDATE = "candidate"


class Purpose(enum.StrEnum):
    """What a game of the check is for; the value is part of the game's id and of its seed."""

    CONFORMANCE = "conformance"  # every seat of 2-4 player games
    FORFEIT = "forfeit"  # an opponent forfeits: the candidate plays on
    PASS = "pass"  # the candidate runs out of moves while the others play on
    STRENGTH = "strength"  # the strength gate's 2-player games


@dataclass(frozen=True)
class PlannedGame:
    """One game of the check and what it is for."""

    purpose: Purpose
    players: int
    seat: int  # the candidate's seat
    build: bool  # the bots build the pasture
    seed: int
    specs: tuple[BotSpec, ...]
    params: Params
    # The secret its seats' private seeds derive from: drawn per game, printed in the
    # replay command so that the game replays with the same random choices.
    seed_secret: str = field(default_factory=new_secret)

    @property
    def game_id(self) -> str:
        """The game's id in its record (a strength gate's two seat orders of a board share it)."""
        return f"check-{self.purpose}-{self.seed}"

    def setup(self, tc: TimeControl, grace: float) -> GameSetup:
        """The referee's setup of this game under the check's time control."""
        board = (
            None
            if self.build
            else random_board(self.seed, self.params.tiles * self.players, self.params.contact)
        )
        return GameSetup(
            game_id=self.game_id,
            seed=self.seed,
            params=self.params,
            time_control=tc,
            board=board,
            end_grace_s=grace,
            keep_transcript=True,
            seed_secret=self.seed_secret,
        )

    def describe(self) -> str:
        """``2 players, seat a, random board, seed 7``: the game in a failure's words."""
        where = "building the pasture" if self.build else "random board"
        return f"{self.players} players, seat {PLAYER_LETTERS[self.seat]}, {where}, seed {self.seed}"


@dataclass(frozen=True)
class SprtOptions:
    """The SPRT strength gate: the baseline bot, the hypotheses and the error rates."""

    baseline: tuple[str, ...]
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = None  # None: the number fitted to the bounds (sprt.fitted_max_games)


@dataclass(frozen=True)
class CheckOptions:
    """Everything a check needs: the candidate, how games are played, the opponents, the gates."""

    command: tuple[str, ...]
    cwd: Path
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    seed: int = 1
    conformance_games: int = 24
    time_control: TimeControl = field(default_factory=TimeControl)
    end_grace_s: float = 1.0
    concurrency: int = 2
    opponents: tuple[tuple[str, ...], ...] = ()
    against: tuple[tuple[str, ...], ...] = ()
    games: int = 20
    min_points: float = 0.5
    sprt: SprtOptions | None = None
    conformance: bool = True
    fail_fast: bool = False
    # Where the opponents named on the command line start (--opponent, --against, --sprt):
    # where the user typed it, not the candidate's own folder.
    opponents_cwd: Path = field(default_factory=Path.cwd)


def _spec(
    name: str,
    command: Sequence[str],
    cwd: Path,
    limits: ResourceLimits | None = None,
    sandbox: SandboxPolicy | None = None,
) -> BotSpec:
    return BotSpec(
        name=name,
        command=tuple(command),
        cwd=cwd,
        limits=limits or ResourceLimits(),
        sandbox=sandbox or SandboxPolicy(),
    )


def _candidate(opts: CheckOptions, kept: bool = True) -> BotSpec:
    """The bot under check: the only one held to the resource limits.

    ``kept``: a bot that declares ``multigame`` may keep its process from an earlier game
    and for a later one, as a league keeps it; else it starts afresh for this game and is
    told to exit at its end (its start and exit are tested).
    """
    spec = _spec(CANDIDATE, opts.command, opts.cwd, opts.limits, opts.sandbox)
    return replace(spec, multigame=kept)


def _opponent(opts: CheckOptions, name: str, command: Sequence[str]) -> BotSpec:
    """An opponent of the candidate: no resource limits, its own startup allowance, and
    played in the referee's process if it is one of the arena's built-in bots.

    ``--startup`` is the candidate's: an opponent held to a short one (a Python bot's
    imports take over a second on a loaded machine) would be forfeited, and killed, by
    its own check, with nothing on its stderr to say why.
    """
    spec = _spec(name, command, opts.opponents_cwd, sandbox=opts.sandbox)
    # A built-in opponent plays inside the referee's process: the same lines and moves as
    # its process would give (a replay runs that), without an interpreter to start per game.
    builtin = spelling(tuple(command)) is not None
    return replace(spec, startup_ms=max(STARTUP_MS, opts.time_control.startup_ms), in_process=builtin)


# Every (players, seat, given or built board) of a conformance game.
CONFIGS = [(n, seat, build) for n in (2, 3, 4) for build in (False, True) for seat in range(n)]
SPECIAL_GAMES = 5  # one where an opponent forfeits, four where the bot runs out of moves
MIN_CONFORMANCE_GAMES = len(CONFIGS) + SPECIAL_GAMES


def check_conformance_games(count: int) -> None:
    """Refuse a count of conformance games too small to play every seat and special game once."""
    if count < MIN_CONFORMANCE_GAMES:
        raise ConfigError(
            f"--conformance-games {count!r}: at least {MIN_CONFORMANCE_GAMES} are needed "
            f"({len(CONFIGS)} for every seat of 2-4 player games on a given and a built board, "
            f"{SPECIAL_GAMES} for a forfeiting opponent and for running out of moves)"
        )


def conformance_plan(opts: CheckOptions) -> list[PlannedGame]:
    """Exactly ``conformance_games`` games: every (players, seat, board or build) at least
    once, round again up to the count, then the special games."""
    check_conformance_games(opts.conformance_games)
    opponents = [tuple(o) for o in opts.opponents] or [command_of("random")]
    plan = [_conformance_game(opts, opponents, i) for i in range(opts.conformance_games - SPECIAL_GAMES)]
    plan.append(_forfeit_game(opts))
    plan += [_pass_game(opts, opponents, i) for i in range(4)]
    return plan


def _conformance_game(opts: CheckOptions, opponents: Sequence[Sequence[str]], i: int) -> PlannedGame:
    """The ``i``-th game of the round over every (players, seat, board or build)."""
    n, seat, build = CONFIGS[i % len(CONFIGS)]
    seed = derive_seed(opts.seed, Purpose.CONFORMANCE, i)
    others = [opponents[(i + k) % len(opponents)] for k in range(n - 1)]
    specs = [_opponent(opts, f"opponent{k + 1}", cmd) for k, cmd in enumerate(others)]
    specs.insert(seat, _candidate(opts, kept=not _starts_afresh(i)))
    return PlannedGame(Purpose.CONFORMANCE, n, seat, build, seed, tuple(specs), Params(players=n))


def _starts_afresh(i: int) -> bool:
    """Whether the candidate starts afresh for the ``i``-th conformance game, and is told
    to exit at its end: in the first game of each number of players (and in the game where
    an opponent forfeits, and the first where it runs out of moves)."""
    return i < len(CONFIGS) and CONFIGS[i][1:] == (0, False)


def _forfeit_game(opts: CheckOptions) -> PlannedGame:
    """An opponent forfeits: the candidate plays on alone."""
    seed = derive_seed(opts.seed, Purpose.FORFEIT)
    pair = (_candidate(opts, kept=False), _opponent(opts, "forfeiter", command_of("forfeit")))
    return PlannedGame(Purpose.FORFEIT, 2, 0, False, seed, pair, Params())


def _pass_game(opts: CheckOptions, opponents: Sequence[Sequence[str]], i: int) -> PlannedGame:
    """Herds of 2 sheep allow one move each: seated first or second of three, the
    bot is out of moves while the others still play, whatever it does."""
    seed = derive_seed(opts.seed, Purpose.PASS, i)
    specs = [_opponent(opts, f"opponent{k + 1}", opponents[k % len(opponents)]) for k in range(2)]
    specs.insert(i % 2, _candidate(opts, kept=i > 0))
    return PlannedGame(Purpose.PASS, 3, i % 2, False, seed, tuple(specs), Params(players=3, sheep=2, tiles=1))


def strength_plan(
    opts: CheckOptions, opponent: Sequence[str], name: str, start: int, count: int
) -> list[PlannedGame]:
    """2-player games against ``opponent``, both seat orders on each board."""
    plan = []
    for i in range(start, start + count):
        seed = derive_seed(opts.seed, Purpose.STRENGTH, name, i // 2)
        seat = i % 2
        specs = [_opponent(opts, name, opponent)]
        specs.insert(seat, _candidate(opts))
        plan.append(PlannedGame(Purpose.STRENGTH, 2, seat, False, seed, tuple(specs), Params()))
    return plan


def replay_command(game: PlannedGame, opts: CheckOptions) -> str:
    """The ``arena play`` command that plays this game again, move for move.

    Deterministic bots replay it exactly; only the game's id differs.
    """
    # A built-in opponent by its stable spelling: a command printed in CI then runs on a laptop.
    parts = ["arena", "play"] + [
        shlex.quote(spelling(s.command) or shlex.join(s.command)) for s in game.specs
    ]
    parts += ["--seed", str(game.seed), "--seed-secret", game.seed_secret]
    if game.build:
        parts.append("--build-board")
    if game.params.sheep != 16:
        parts += ["--sheep", str(game.params.sheep)]
    if game.params.tiles != 4:
        parts += ["--tiles", str(game.params.tiles)]
    parts += _time_control_words(opts.time_control)
    limits = opts.limits
    parts += ["--memory-mb", str(limits.memory_mb or 0), "--cpu-seconds", str(limits.cpu_seconds or 0)]
    parts += ["--tasks", str(limits.tasks or 0)]
    if opts.sandbox.mode != "auto":
        parts.append("--sandbox" if opts.sandbox.mode == "bwrap" else "--no-sandbox")
    parts += _cwd_words(game.specs)
    return " ".join(parts)


def _cwd_words(specs: Sequence[BotSpec]) -> list[str]:
    """``--cwd`` for each seat up to the last one that does not start here (none if all do).

    A built-in bot starts anywhere alike, so it counts as here: the command printed on a CI
    runner or by a ladder then names no folder of that machine for it.
    """
    here = Path.cwd()
    away = [i for i, s in enumerate(specs) if s.cwd != here and spelling(s.command) is None]
    if not away:
        return []
    words: list[str] = []
    for s in specs[: away[-1] + 1]:
        words += ["--cwd", "." if spelling(s.command) is not None else shlex.quote(str(s.cwd))]
    return words


def _time_control_words(tc: TimeControl) -> list[str]:
    """The ``arena play`` options of a time control, every value in milliseconds."""
    words = ["--move-time", f"{tc.move_ms}ms" if tc.move_ms is not None else "none"]
    if tc.base_ms is not None:
        words += ["--base", f"{tc.base_ms}ms", "--increment", f"{tc.increment_ms}ms"]
    return [*words, "--startup", f"{tc.startup_ms}ms", "--margin", f"{tc.margin_ms}ms"]
