"""The versions an older arena unpacked inside the results folder, moved out of it at start.

An older arena unpacked, built and played each version in ``submissions/ID/bot``, inside the
folder that holds ``ladder.sqlite`` (the session key among it), ``results.sqlite`` and their
``-wal`` files.  A sandbox shows a bot its own folder, and masks the results folder only when
the bot's folder is not inside it: where the results folder lies in a folder every sandbox
shows (``/opt``, a ``readable`` one), such a version read the stores.  So, before the service
checks or plays anything, each such folder is moved to the versions' folder beside the results
folder (``RESULTS-bots/ID``), where new versions go, and the league's stored tournament is told
its new place (the league refuses a bot whose folder changed once it has games): the league
then resumes as it was, with no sandbox ever given a path inside the results folder.

Crash-safe: the league is told first, then the folder moves; started again, the move is done.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.errors import LadderError
from arena.ladder.folders import OLD_BOT_FOLDER, SUBMISSIONS, versions_folder
from arena.ladder.store import LadderStore
from arena.league.store import STORE_NAME, ResultStore
from arena.league.stored import move_bot_folder


def move_old_versions(results: Path, store: LadderStore) -> list[int]:
    """Move every version folder an older arena left in ``results`` (``submissions/ID/bot``)
    to ``RESULTS-bots/ID``; the ids moved.  LadderError, naming the folder, when one cannot be
    moved (another file system, a folder already at the new place): the service does not start
    with a version inside its results folder."""
    moved = []
    for old in sorted((results / SUBMISSIONS).glob(f"*/{OLD_BOT_FOLDER}")):
        sid = old.parent.name
        if not sid.isdigit() or old.is_symlink() or not old.is_dir():
            continue
        new = versions_folder(results) / sid
        if os.path.lexists(new):
            raise LadderError(
                f"{str(old)!r}: version {sid} of an older arena lies in the results folder, and "
                f"{str(new)!r}, where it must go, exists already: stop the service, and remove one"
            )
        _tell_league(results, old, new)
        new.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(old, new)
        except OSError as e:
            raise LadderError(
                f"{str(old)!r}: version {sid} of an older arena lies in the results folder (its bots "
                f"could read the ladder's stores) and cannot be moved to {str(new)!r}: "
                f"{e.strerror or e}; stop the service and move it there yourself"
            ) from None
        store.log(None, "moved", f"submission {sid}", "its folder moved out of the results folder")
        moved.append(int(sid))
    return moved


def _tell_league(results: Path, old: Path, new: Path) -> None:
    """Say in the league's stored tournament that the bot of folder ``old`` now plays from ``new``."""
    if not (results / STORE_NAME).is_file():
        return
    with ResultStore.create(results) as league:  # the store there, opened to write
        move_bot_folder(league, str(old), str(new))
