"""When submissions close: the ladder file's ``deadline``, the one an organiser set through
the API (it wins over the file's, until cleared), and the final tournament once asked for.

Both are kept in the ladder's store, so a restart keeps them.  It imports nothing of the web
service: the intake refuses with :func:`closed`, the league loop stops for the final with
:func:`final_asked`.
"""

from __future__ import annotations

import datetime as dt
import time

from arena.ladder.contest import deadline_text, parse_deadline
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore

DEADLINE_KEY = "contest.deadline"  # ISO text, or NO_DEADLINE: the organiser's, over the file's
NO_DEADLINE = "none"
FINAL_KEY = "final.asked"  # when the organiser asked for the final (seconds since 1970)


def deadline(ladder: Ladder, store: LadderStore) -> dt.datetime | None:
    """The deadline in force: the organiser's (set through the API), else the ladder file's."""
    kept = store.kept(DEADLINE_KEY)
    if kept is None:
        return ladder.settings.deadline
    if kept == NO_DEADLINE:
        return None
    try:
        return parse_deadline(kept)
    except ValueError:  # written by this module only: a store edited by hand falls back to the file
        return ladder.settings.deadline


def set_deadline(store: LadderStore, when: dt.datetime | None, by: str | None) -> None:
    """Set the deadline in force to ``when`` (None: no deadline, whatever the file says)."""
    store.keep(DEADLINE_KEY, NO_DEADLINE if when is None else when.isoformat())
    store.log(by, "deadline", "ladder", "none" if when is None else deadline_text(when))


def final_asked(store: LadderStore) -> bool:
    """Whether the organiser asked for the final tournament (from then on, for good)."""
    return store.kept(FINAL_KEY) is not None


def ask_final(store: LadderStore, by: str | None) -> bool:
    """Ask for the final tournament; False if it was asked for already."""
    if final_asked(store):
        return False
    store.keep(FINAL_KEY, f"{time.time():.3f}")
    store.log(by, "final-asked", "final", "submissions closed; the final starts once every version has its verdict")
    return True


def closed(ladder: Ladder, store: LadderStore, now: dt.datetime) -> str | None:
    """Why a submission is refused at ``now`` (the final has started, the deadline has
    passed), or None while submissions are open."""
    if final_asked(store):
        return "submissions are closed: the final tournament has started"
    when = deadline(ladder, store)
    if when is not None and now >= when:
        return f"submissions are closed: the deadline ({deadline_text(when)}) has passed"
    return None
