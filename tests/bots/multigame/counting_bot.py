"""A bot kit bot that declares ``multigame`` and says, per game, which process plays it.

Every game it writes ``process PID game N id GAME_ID`` to stderr and as an
``info`` line, N counting the games this process has begun.  Behaviours, by
argument:

- ``illegal-in=ID``: in game ID, answer its first move with an illegal move;
- ``chatter-after=ID``: after the end of game ID, write a line nobody asked for;
- ``exit-after=ID``: exit after the end of game ID, although kept;
- ``flood-after=ID``: after the end of game ID, write 5000 long ``info`` lines, 5000
  lines nobody asked for and 1 MB of stderr;
- ``no-multigame``: do not declare ``multigame``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from arena.botkit import BotSession, Turn
from arena.rules import Move, parse_move

options = dict(a.split("=", 1) if "=" in a else (a, "") for a in sys.argv[1:])
games = 0
announced = ""


def choose(turn: Turn) -> Move:
    global games, announced
    if announced != turn.game.game_id:
        announced = turn.game.game_id
        games += 1
        note = f"process {os.getpid()} game {games} id {announced}"
        print(note, file=sys.stderr, flush=True)
        turn.log(note)
    if options.get("illegal-in") == turn.game.game_id and turn.request.phase == "move":
        return parse_move("999,999E1")
    return turn.rng.choice(turn.state.legal_moves())


session = BotSession("counting", choose, multigame="no-multigame" not in options)
current = ""
for line in sys.stdin:
    if line.startswith("game "):
        current = line.split("id=", 1)[1].split()[0]
    answer = session.handle(line)
    if answer is not None:
        print(answer, flush=True)
    if line.startswith("end"):
        if options.get("chatter-after") == current:
            print("ready", flush=True)
        if options.get("exit-after") == current:
            sys.exit(0)
        if options.get("flood-after") == current:
            for i in range(5000):
                print(f"info flood {i} " + "x" * 500, flush=False)
                print(f"ready {i}", flush=False)
            sys.stdout.flush()
            sys.stderr.write("flood\n" * 170_000)
            sys.stderr.flush()
    if session.finished:
        break
