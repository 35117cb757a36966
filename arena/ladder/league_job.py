"""The ladder's league, played in a process of its own: ``python -m arena.ladder.league_job``.

The service (:mod:`arena.ladder.league`) starts it on a :class:`~arena.ladder.jobfiles.LeagueJob`
(the ladder file and the league's budget) and stops it with SIGINT (like Ctrl-C ends
``arena run``: the games finished are kept, those in flight are abandoned) whenever the roster
changes, then starts it again: the league resumes where it was, with the new bot added.  The
job makes its league from the ladder file and the roster it reads from ``ladder.sqlite``
(:func:`arena.ladder.roster.league_config`), so no version's data passes through a file.
It dies with the service, a kill -9 too.  Its output (the run's own lines) goes to
``ladder-league.log``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena.errors import ArenaError
from arena.ladder.child import die_with_service
from arena.ladder.jobfiles import LeagueJob
from arena.ladder.roster import league_config
from arena.ladder.settings import parse_ladder
from arena.ladder.store import LadderStore
from arena.league.config import TournamentConfig, load_config
from arena.tournament import play_held
from arena.untrusted import printable

EXIT_ENDED = 0  # the league stopped choosing games: settled, or at its budget
EXIT_FAILED = 1  # the arena could not play it (a bad file, a house bot that does not build...)
EXIT_GONE = 3  # the service was gone before the league started
EXIT_INTERRUPTED = 130  # stopped by the service


def _echo(line: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", flush=True)


def league_of(job: LeagueJob) -> TournamentConfig:
    """The league ``job`` plays: the ladder file's, with the versions ``ladder.sqlite`` holds."""
    ladder = parse_ladder(job.ladder_text, job.ladder_path)
    store = LadderStore.open(ladder.folder)
    try:
        return league_config(ladder, store, job.games_before)
    finally:
        store.close()


def config_of(path: Path) -> TournamentConfig:
    """The tournament ``path`` names: a league job (``ladder-league.json``), or a tournament file
    written whole (the final's ``ladder-final.yaml``, one bot per author: it does not grow)."""
    if path.suffix == ".json":
        return league_of(LeagueJob.read(path))
    return load_config(path)


def main(argv: list[str]) -> int:
    """Play the league job or tournament file ``argv[0]`` for the service of pid ``argv[1]``."""
    watch = die_with_service(int(argv[1]))
    if watch is None:
        return EXIT_GONE
    try:
        config = config_of(Path(argv[0]))
        state = play_held(config, _echo)
    except KeyboardInterrupt:
        _echo("interrupted: finished games are saved")
        return EXIT_INTERRUPTED
    except ArenaError as e:
        _echo(f"error: {printable(str(e))}")
        return EXIT_FAILED
    finally:
        watch.end_group_if_gone()
    _echo(f"{state.done}/{state.total} games; stopped: {printable(state.stopped or 'every game played')}")
    return EXIT_ENDED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
