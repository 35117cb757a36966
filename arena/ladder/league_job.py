"""The ladder's league, played in a process of its own: ``python -m arena.ladder.league_job``.

The service (:mod:`arena.ladder.league`) starts it on the league's file and stops it with
SIGINT (like Ctrl-C ends ``arena run``: the games finished are kept, those in flight are
abandoned) whenever the roster changes, then starts it again on the new file: the league
resumes where it was, with the new bot added.  It dies with the service, a kill -9 too.
Its output (the run's own lines) goes to ``ladder-league.log``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena.errors import ArenaError
from arena.ladder.child import die_with_service
from arena.league.config import load_config
from arena.tournament import play_held
from arena.untrusted import printable

EXIT_ENDED = 0  # the league stopped choosing games: settled, or at its budget
EXIT_FAILED = 1  # the arena could not play it (a bad file, a house bot that does not build...)
EXIT_GONE = 3  # the service was gone before the league started
EXIT_INTERRUPTED = 130  # stopped by the service


def _echo(line: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", flush=True)


def main(argv: list[str]) -> int:
    """Play the league file ``argv[0]`` for the service of pid ``argv[1]``."""
    watch = die_with_service(int(argv[1]))
    if watch is None:
        return EXIT_GONE
    try:
        config = load_config(Path(argv[0]))
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
