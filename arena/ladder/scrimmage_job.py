"""The scrimmages' games, played in a process of its own: ``python -m arena.ladder.scrimmage_job``.

The service (:mod:`arena.ladder.scrimmage_loop`) starts it whenever games are asked for and
none is being played, with the ladder file (as a :class:`~arena.ladder.jobfiles.LeagueJob` in
``scrimmages/job.json``) and its own pid.  It plays the games of ``scrimmages.sqlite`` one at
a time, next the one :meth:`~arena.ladder.scrimmage_store.ScrimmageStore.next_game` names,
and stores each as it ends; it ends when none is left.  It dies with the service (a kill -9
too): a game in flight is lost and played again at the next start, every finished one kept.

Each game is played as the league plays its own: the ladder file's league (clock, limits,
sandbox, hidden folders, board) made by :func:`arena.ladder.roster.league_data` with just the
two bots, through the league's pool of one worker (its watchdog, its bots killed with it),
the house bot built as the league builds it, a bot that writes its folder given a private copy.
Scrimmages are two-player games; the league's player count is for the league.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import Any

import yaml

from arena.errors import ArenaError
from arena.game.record import GameRecord, game_points
from arena.ladder.child import die_with_service
from arena.ladder.jobfiles import LeagueJob
from arena.ladder.league_job import EXIT_ENDED, EXIT_FAILED, EXIT_GONE, EXIT_INTERRUPTED
from arena.ladder.roster import Entry, league_data, league_path
from arena.ladder.scrimmage_store import Scrimmage, ScrimmageGame, ScrimmageStore
from arena.ladder.settings import Ladder, parse_ladder
from arena.ladder.store import LadderStore
from arena.league.config import CONTINUOUS_KEYS, TournamentConfig, parse_config
from arena.league.executor import GamePool
from arena.league.listener import Lines
from arena.league.schedule import ScheduledGame
from arena.tournament import game_settings, prepare_bots, private_copies
from arena.untrusted import printable

PLAYERS = 2
LINGER_S = 30.0  # with no game left, how long the process waits for the next request before it ends
LINGER_POLL_S = 0.2
FAILURE_CHARS = 2000  # of a failure's text, kept for the asker's page


def _echo(line: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", flush=True)


def scrimmage_data(ladder: Ladder, store: LadderStore, s: Scrimmage) -> dict[str, Any]:
    """The tournament file of scrimmage ``s``'s games, as data: the league's, with its two bots."""
    entries = []
    for sid in (s.mine_sid, s.other_sid):
        sub = None if sid is None else store.submission(sid)
        if sid is not None and sub is None:
            raise ArenaError(f"scrimmage {s.id}: version {sid} is no longer in the ladder's store")
        if sub is not None:
            entries.append(Entry(sub, True))
    data = league_data(ladder, entries)
    for key in CONTINUOUS_KEYS:
        data.pop(key, None)
    data.pop("executor", None)  # played here, on the ladder's own machine, beside the league
    data.update(format="round_robin", rounds=1, players=PLAYERS, concurrency=1)
    data.pop("seat_orders", None)
    data["bots"] = [b for b in data["bots"] if isinstance(b, dict) and b.get("name") in (s.mine, s.other)]
    for b in data["bots"]:
        b.pop("retired", None)  # an author's own retired version may still play their scrimmage
    return data


def scrimmage_config(ladder: Ladder, store: LadderStore, s: Scrimmage) -> TournamentConfig:
    """Scrimmage ``s``'s games as a tournament, validated by the tournament file's own reader."""
    text = yaml.safe_dump(scrimmage_data(ladder, store, s), sort_keys=False, allow_unicode=True, width=1 << 30)
    return parse_config(text, league_path(ladder))


def play_one(config: TournamentConfig, game: ScrimmageGame) -> tuple[GameRecord | None, str | None]:
    """Play ``game`` under ``config``: its record, or why the arena could not play it."""
    records: list[GameRecord] = []
    with private_copies(config) as config:
        prepare_bots(config, Lines(_echo))
        pool = GamePool(game_settings(config), 1)
        try:
            scheduled = ScheduledGame(index=game.n - 1, game_id=game.game_id, round=1, seats=game.seats, seed=game.seed)
            given_up = pool.run([scheduled], lambda _g, record: records.append(record), lambda _g, why, _retry: _echo(why.splitlines()[0]), retries=1)
        finally:
            pool.shutdown()
    if records:
        return records[0], None
    return None, (given_up[0][1] if given_up else "the game was not played")[:FAILURE_CHARS]


def _next(scrimmages: ScrimmageStore, linger_s: float) -> tuple[Scrimmage, ScrimmageGame] | None:
    """The next game to play, waiting up to ``linger_s`` for one to be asked for: a request soon
    after the last game is then played without starting this process again (seconds)."""
    until = time.monotonic() + linger_s
    while (nxt := scrimmages.next_game()) is None and time.monotonic() < until:
        time.sleep(LINGER_POLL_S)
    return nxt


def play_all(ladder: Ladder, store: LadderStore, scrimmages: ScrimmageStore, linger_s: float = LINGER_S) -> int:
    """Play every game asked for, one at a time, until none has been asked for ``linger_s``;
    how many were played."""
    played = 0
    while (nxt := _next(scrimmages, linger_s)) is not None:
        s, game = nxt
        try:
            record, failure = play_one(scrimmage_config(ladder, store, s), game)
        except ArenaError as e:  # a version gone, a house bot that does not build...
            record, failure = None, str(e)[:FAILURE_CHARS]
        except Exception:  # the arena's own failure: said on the asker's page, not retried forever
            record, failure = None, traceback.format_exc()[-FAILURE_CHARS:]
        points = None if record is None else game_points(record)
        scrimmages.finish(game, None if record is None else record.to_json(), points, failure, time.time())
        _echo(f"scrimmage {s.id} game {game.n}: " + (printable(failure.splitlines()[0]) if failure else "played"))
        played += 1
    return played


def main(argv: list[str]) -> int:
    """Play the scrimmages of the ladder job ``argv[0]`` for the service of pid ``argv[1]``."""
    watch = die_with_service(int(argv[1]))
    if watch is None:
        return EXIT_GONE
    try:
        job = LeagueJob.read(Path(argv[0]))
        ladder = parse_ladder(job.ladder_text, job.ladder_path)
        store = LadderStore.open(ladder.folder)
        scrimmages = ScrimmageStore.open(ladder.folder)
        try:
            played = play_all(ladder, store, scrimmages)
        finally:
            scrimmages.close()
            store.close()
    except KeyboardInterrupt:
        _echo("interrupted: finished games are saved")
        return EXIT_INTERRUPTED
    except ArenaError as e:
        _echo(f"error: {printable(str(e))}")
        return EXIT_FAILED
    finally:
        watch.end_group_if_gone()
    _echo(f"{played} scrimmage games played; none left")
    return EXIT_ENDED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
