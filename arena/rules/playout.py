"""Random playouts: finish a game with random legal moves, fast.

Used by the benchmark and by Monte Carlo bots.  In the moving phase each turn
picks one open slide (stack and direction) uniformly, then a uniform number of
sheep to split off; building and herd phases pick uniformly among legal moves.
"""

from __future__ import annotations

import random

from arena.rules.moves import Move
from arena.rules.state import GameState, Phase


def random_playout(state: GameState, rng: random.Random) -> int:
    """Play ``state`` to the end in place; return the number of plies played.

    The plies are not recorded, so afterwards nothing can be undone (the
    history is cleared): play out a :meth:`~GameState.copy` to keep one.
    """
    plies = 0
    while state.phase in (Phase.TILES, Phase.HERDS):
        moves: list[Move] = state.legal_moves()
        state.apply(moves[int(rng.random() * len(moves))])
        plies += 1
    # The inline plies below skip the record an undo would need.
    state.clear_history()
    if state.phase is not Phase.MOVES:
        return plies
    rays = state.board.rays
    owner = state.owner
    height = state.height
    movable = state.movable
    hexcount = state.hexcount
    n = state.params.players
    done = [state.forfeited[p] or state.out[p] for p in range(n)]
    active = n - sum(done)
    p = state.to_move
    rand = rng.random
    while active:
        if done[p]:
            p = (p + 1) % n
            continue
        slides = []
        for src in movable[p]:
            base = src * 6
            for d in range(6):
                dest = -1
                for j in rays[base + d]:
                    if owner[j] >= 0:
                        break
                    dest = j
                if dest >= 0:
                    slides.append((src, dest))
        if not slides:
            done[p] = True
            state.out[p] = not state.forfeited[p]
            active -= 1
            p = (p + 1) % n
            continue
        src, dest = slides[int(rand() * len(slides))]
        h = height[src]
        k = 1 + int(rand() * (h - 1))
        # The slide of GameState.apply(), without its checks, record and turn passing
        height[src] = h - k
        owner[dest] = p
        height[dest] = k
        hexcount[p] += 1
        if h - k == 1:
            movable[p].remove(src)
        if k >= 2:
            movable[p].append(dest)
        plies += 1
        p = (p + 1) % n
    state.phase = Phase.OVER
    state.to_move = -1
    return plies
