"""My Battle Sheep bot: the strategy.  sheep.py speaks the protocol and knows the rules.

The strategy looks one move ahead: it plays each legal move on a copy of the
position, scores the result, and answers the best (ties drawn from the game's
seed, so a replay replays my moves).  Change ``score`` (or all of ``choose``).
"""

from __future__ import annotations

from sheep import End, Game, Position, Rng, Turn, log, run

NAME = "my-python-bot"


def score(before: Position, move: str, after: Position, me: str) -> int:
    """How good ``after`` (``move`` played on ``before``) is for me: higher is better."""
    if before.phase == "tile":
        return before.tile_contact(move)  # a compact pasture: the most edges shared
    # Herds and sheep: the stacks I can still move, minus those of my opponents.
    others = {s.player for s in after.stacks.values() if s.player != me}
    return 2 * after.mobility(me) - sum(after.mobility(p) for p in others)


def choose(game: Game, turn: Turn, rng: Rng) -> str:
    """The move to answer ``turn`` with (without the phase word)."""
    position = turn.position
    best, best_score, ties = "", 0, 0
    for move in position.legal_moves():
        s = score(position, move, position.play(move), game.seat)
        if not best or s > best_score:
            best, best_score, ties = move, s, 1
        elif s == best_score:
            ties += 1
            if rng.below(ties) == 0:  # each of the equal moves is as likely
                best = move
    return best


def on_end(game: Game, end: End) -> None:
    """The game is over: its result, in seat order."""
    seat = ord(game.seat) - ord("a")
    log(f"{NAME}: game {game.id} over, my rank {end.ranks[seat]} with {end.hexes[seat]} hexes")


if __name__ == "__main__":
    run(NAME, choose, on_end)
