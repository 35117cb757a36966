#!/usr/bin/env python3
"""A Monte Carlo Tree Search bot (UCT) for every phase and 2 to 4 players.

Each turn it grows a fresh search tree from the position it is given (the kit
is stateless, so nothing is kept between turns) until its time is up:

1. *select*: from the root, walk down fully expanded nodes, at each one picking
   the child with the best UCB1 score **for the player to move there**;
2. *expand*: add one untried move as a new child;
3. *simulate*: finish the game at random (:func:`lay_tiles`, then the engine's
   fast ``random_playout``);
4. *back up*: add every player's reward to each node on the path.

A finished game is worth, to each player, the share of opponents they beat
(a tie counts half): 1.0 for a clear win, 0.0 for last place.  Keeping one
reward per player makes the search work for 3 and 4 players as well
("max-n" flavoured UCT).  The answer is the most visited root move.

In the moving phase the tree only tries a few ways to split each stack (see
:func:`candidates`); playouts still play every legal move.  Every random draw
comes from ``turn.rng``, so a replay repeats the game as long as each turn
gets the same number of iterations (which depends on the machine's speed).
Good places to start improving it: smarter playouts, a better guess at the
time a turn deserves, or keeping the tree between turns.
"""

from __future__ import annotations

import gc
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import (
    ORIENTATIONS,
    Direction,
    GameState,
    Move,
    Phase,
    SheepMove,
    TilePlacement,
    random_playout,
)

EXPLORATION = 0.8  # the UCB1 constant; rewards lie in [0, 1]
TIME_FRACTION = 0.4  # at most this share of the time given for an answer...
RESERVE_MS = 40.0  # ...minus this, kept for parsing, Python overhead and the pipe
MIN_MOVES_LEFT = 10  # with a clock, spread it over at least this many moves


class Node:
    """A position in the search tree and the statistics of the games through it."""

    __slots__ = ("children", "move", "player", "reward", "state", "untried", "visits")

    def __init__(self, state: GameState, move: Move | None, rng: random.Random) -> None:
        self.state = state
        self.move = move  # the move that led here from the parent (None at the root)
        self.player = state.to_move  # who chooses among the children (-1: game over)
        self.untried = candidates(state)
        rng.shuffle(self.untried)  # expand in a random order
        self.children: list[Node] = []
        self.visits = 0
        self.reward = [0.0] * state.players  # summed over visits, one total per player

    def select(self) -> Node:
        """The child with the best UCB1 score for the player to move here."""
        p = self.player
        log_n = math.log(self.visits)
        return max(
            self.children,
            key=lambda c: c.reward[p] / c.visits + EXPLORATION * math.sqrt(log_n / c.visits),
        )


def candidates(state: GameState) -> list[Move]:
    """The moves the search tries: every legal move, except how many sheep to split off.

    A stack of 16 can split 15 ways in each direction, some 90 moves in all,
    too many to tell apart in a few hundred playouts.  Trying only 1 sheep,
    about half, and all but one keeps the tree narrow enough to look ahead.
    """
    if state.phase is not Phase.MOVES:
        return state.legal_moves()
    coords, height = state.board.coords, state.height
    moves: list[Move] = []
    for src, d, _dest in state.slides(state.to_move):
        h = height[src]
        moves.extend(SheepMove(*coords[src], Direction(d), k) for k in sorted({1, h // 2, h - h // 2, h - 1}))
    return moves


def lay_tiles(state: GameState, rng: random.Random) -> None:
    """Finish the building phase at random, several times faster than random_playout.

    Listing every legal tile for every tile laid is what makes a playout slow
    (up to 60 ms with 4 players); drawing spots near the pasture until one is
    legal is not.
    """
    while state.phase is Phase.TILES and state.board.coords:
        for _ in range(100):
            q, r = rng.choice(state.board.coords)  # a new tile touching (q, r) has its
            dq, dr = rng.randint(-3, 1), rng.randint(-2, 2)  # anchor within these offsets
            move: Move = TilePlacement(q + dq, r + dr, rng.choice(ORIENTATIONS))
            if state.why_illegal(move) is None:
                break
        else:  # unlucky draws (or a crowded variant): pick from the full list
            move = rng.choice(state.legal_moves())
        state.apply(move)


def rewards(state: GameState) -> list[float]:
    """Each player's reward for a finished game: the share of opponents beaten, ties half."""
    # Rank 1 is best; tied players share a rank.  Hexes held (and forfeits) decide
    # most games; only a tie needs standings() and its slower tiebreaks.
    keys = [(not f, n) for f, n in zip(state.forfeited, state.hexcount, strict=True)]
    if len(set(keys)) == len(keys):
        ranks = [1 + sum(k > mine for k in keys) for mine in keys]
    else:
        ranks = [s.rank for s in state.standings()]
    others = len(ranks) - 1
    return [(sum(r > mine for r in ranks) + 0.5 * (ranks.count(mine) - 1)) / others for mine in ranks]


def iterate(root: Node, rng: random.Random) -> None:
    """One round of selection, expansion, random playout and backup."""
    node = root
    path = [root]
    while not node.untried and node.children:  # fully expanded: go down
        node = node.select()
        path.append(node)
    if node.untried:  # expand one new child
        state = node.state.copy()
        move = node.untried.pop()
        state.apply(move)
        child = Node(state, move, rng)
        node.children.append(child)
        path.append(child)
        node = child
    end = node.state.copy()
    lay_tiles(end, rng)
    random_playout(end, rng)  # does nothing if the game is already over
    result = rewards(end)
    for n in path:
        n.visits += 1
        for p, r in enumerate(result):
            n.reward[p] += r


def moves_left(state: GameState, me: int) -> int:
    """At most how many more answers this game will ask of ``me``."""
    if state.phase is Phase.MOVES:  # each move splits off at least one sheep
        return sum(state.height[i] - 1 for i in state.movable[me])
    return state.tiles_left[me] + state.params.sheep  # tiles, the herd, then its moves


def deadline(turn: Turn) -> float:
    """The ``time.monotonic()`` at which to stop thinking."""
    stop = turn.deadline(TIME_FRACTION, RESERVE_MS)
    clock = turn.request.clocks[turn.seat]
    if clock is not None:  # a clock must last the game: take a share of what is left
        share = clock / max(MIN_MOVES_LEFT, moves_left(turn.state, turn.seat)) + turn.game.increment
        stop = min(stop, turn.received + max(0.0, share - RESERVE_MS) / 1000)
    return stop


def quick_pick(state: GameState, moves: list[Move]) -> Move:
    """A move without search: split a stack about in half, else the first legal move."""

    def balance(m: Move) -> int:
        if not isinstance(m, SheepMove):
            return 0
        return -abs(state.height[state.board.index[(m.q, m.r)]] - 2 * m.count)

    return max(moves, key=balance)


def choose(turn: Turn) -> Move:
    moves = turn.state.legal_moves()
    if len(moves) == 1:
        turn.log("only move")
        return moves[0]
    stop = deadline(turn)
    root = Node(turn.state, None, turn.rng)
    slowest = 0.0  # the longest iteration so far: do not start one that would end late
    while (now := time.monotonic()) + slowest < stop:
        iterate(root, turn.rng)
        slowest = max(slowest, time.monotonic() - now)
    if not root.children:  # no time for a single iteration
        turn.log("no time to search")
        return quick_pick(turn.state, moves)
    best = max(root.children, key=lambda c: (c.visits, c.reward[turn.seat]))
    win = best.reward[turn.seat] / best.visits
    turn.log(f"{root.visits} iterations, {len(moves)} moves, best {best.move} win {win:.0%}")
    assert best.move is not None
    return best.move


if __name__ == "__main__":
    # The tree is many small objects and no reference cycles: the cyclic garbage
    # collector would only stop the search for tens of ms to scan it.
    gc.disable()
    run_bot("mcts", choose)
