"""Opponents that ship with the arena, for ``arena check``: ``python -m arena.builtin_bots NAME``.

A bot command spells one ``arena:NAME`` (``arena play arena:random my_bot``):
the same on every machine, where the interpreter's path is not.

``random``   a seeded random legal move (like sample_bots/random_bot.py)
``forfeit``  places its herd at random, then makes an illegal first sheep move:
             the bot under test must play on alone after an opponent forfeits
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from arena.botkit import Turn, run_bot
from arena.errors import ConfigError
from arena.rules import Move, SheepMove


def random_move(turn: Turn) -> Move:
    """A legal move drawn with the turn's seeded generator (the ``random`` bot)."""
    return turn.rng.choice(turn.state.legal_moves())


class Forfeiter:
    """The ``forfeit`` bot: a random herd, then an illegal first sheep move.

    At its first: a strong opponent can leave it no second move (every stack walled in), and
    the check's game where an opponent forfeits would then see no forfeit at all.
    """

    def __call__(self, turn: Turn) -> Move:
        move = random_move(turn)
        if isinstance(move, SheepMove):
            h = turn.state.height[turn.state.board.index[move.source]]
            return SheepMove(move.q, move.r, move.direction, h)  # no sheep left behind: illegal
        return move


BOTS: dict[str, Callable[[Turn], Move]] = {"random": random_move, "forfeit": Forfeiter()}


PREFIX = "arena:"

# The startup allowance a built-in bot keeps in ``arena check`` and ``arena play`` (the
# default time control's), whatever shorter one the bots being tried are given.
STARTUP_MS = 5000


def command_of(name: str) -> tuple[str, ...]:
    """The command that runs built-in bot ``name`` with this arena's interpreter."""
    return (sys.executable, "-m", "arena.builtin_bots", name)


def resolve(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` itself, or the command of the built-in bot it spells (``arena:random``)."""
    if len(argv) != 1 or not argv[0].startswith(PREFIX):
        return argv
    name = argv[0].removeprefix(PREFIX)
    if name not in BOTS:
        raise ConfigError(
            f"bot command {argv[0]!r}: no such built-in bot; there are {', '.join(PREFIX + b for b in BOTS)}"
        )
    return command_of(name)


def spelling(argv: tuple[str, ...]) -> str | None:
    """``arena:NAME`` when ``argv`` runs a built-in bot with this interpreter, else None."""
    name = name_of(argv)
    return None if name is None else PREFIX + name


def name_of(argv: tuple[str, ...]) -> str | None:
    """``NAME`` when ``argv`` runs built-in bot ``NAME`` with this interpreter, else None."""
    if len(argv) == 4 and argv[:3] == command_of("")[:3] and argv[3] in BOTS:
        return argv[3]
    return None


def chooser(name: str) -> Callable[[Turn], Move]:
    """The move function of built-in bot ``name`` (to play it without a process of its own)."""
    if name not in BOTS:
        raise ConfigError(f"no built-in bot named {name!r}; there are {', '.join(BOTS)}")
    return BOTS[name]


def main(argv: list[str]) -> int:
    """Play as the built-in bot named by ``argv``; 2 with a usage line for anything else."""
    if len(argv) != 1 or argv[0] not in BOTS:
        print(f"usage: python -m arena.builtin_bots {{{'|'.join(BOTS)}}}", file=sys.stderr)
        return 2
    run_bot(f"builtin-{argv[0]}", BOTS[argv[0]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
