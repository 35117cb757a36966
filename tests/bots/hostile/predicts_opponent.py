#!/usr/bin/env python3
"""Attack: predict the opponent's moves from the seed the referee sent.

The bot kit seeds a bot's ``turn.rng`` from the seed of its ``game`` message and its
seat, and the sample random bot plays ``turn.rng.choice(legal_moves)``.  Were every
seat sent the same seed, this bot could rebuild its opponent's generator and know
each of its moves before it is made.  At every turn it predicts the opponent's reply
to its own move, checks the last prediction against the position it is now given, and
reports the tally (its last report is the game's).  Only replies with 6 or more choices
count: a guess is then right by chance at most a sixth of the time.
"""

import random

from _common import report  # (first: it puts the arena checkout on the path)

from arena.botkit import Turn, run_bot
from arena.rules import Move, format_position

opponent_rng: random.Random | None = None
expected: str | None = None  # the position after the predicted reply
hits = tries = 0


def choose(turn: Turn) -> Move:
    global opponent_rng, expected, hits, tries
    if opponent_rng is None:
        opponent_rng = random.Random(turn.game.seed * 4 + (1 - turn.seat))
    if expected is not None:
        tries += 1
        hits += format_position(turn.state) == expected
        report(attack="predict", hits=hits, tries=tries)
    move = turn.rng.choice(turn.state.legal_moves())
    after = turn.state.copy()
    after.apply(move)
    expected = None
    if not after.is_over and after.to_move not in (turn.seat, -1):
        choices = after.legal_moves()
        reply = opponent_rng.choice(choices)
        if len(choices) < 6:
            return move
        after.apply(reply)
        expected = format_position(after)
    return move


run_bot("predictor", choose, multigame=False)
