"""Where the ladder keeps its files: every name of a file or folder it writes, in one place.

In the league's results folder (beside ``results.sqlite`` and ``standings.json``, which the
league writes):

- ``ladder.sqlite``: the ladder's store (:mod:`arena.ladder.store`);
- ``submissions/ID/``: each version's kept ``archive``, and its check's ``job.json``,
  ``result.json`` and ``job.stderr``;
- ``ladder-league.json`` and ``ladder-league.log``: what the league's process is handed (the
  ladder file and the league's budget: the roster it reads from ``ladder.sqlite``) and its log;
  ``ladder-league.yaml`` is the league's file an older arena wrote, removed at start;
- ``ladder-final.yaml`` and ``ladder-final.log``: the final tournament's (``RESULTS-final``,
  beside the results folder, holds its results);
- ``scrimmages/scrimmages.sqlite`` and ``ladder-scrimmage.log``: the scrimmages' requests and
  their games (never the league's: :mod:`arena.ladder.scrimmage_store`) and the log of the
  process that plays them.

Beside the results folder, never in it (no sandbox is ever given a path inside the folder
that holds the stores and the key): ``RESULTS-bots/ID/``, each version unpacked, built,
checked and played.  A ladder of an older arena unpacked a version in its results folder,
``submissions/ID/bot``: the service moves it beside at start (:mod:`arena.ladder.relocate`).

It imports only the league's list of these names (:data:`arena.league.results_folder.LADDER_NAMES`,
which must know each to take the folder for a results folder): every module of the ladder may
use it.
"""

from __future__ import annotations

from pathlib import Path

from arena.league.results_folder import LADDER_NAMES

# What the ladder adds to a results folder: the league's own list, one home for both.  The
# store, the submissions, the league's file of an older arena (now only its config's path),
# what the league's process is handed, its log, the final tournament's file and log, and the
# scrimmages' folder and log.
RESULTS_NAMES = LADDER_NAMES
(
    LADDER_STORE, SUBMISSIONS, LEAGUE_FILE, LEAGUE_JOB_FILE, LEAGUE_LOG, FINAL_FILE, FINAL_LOG, SCRIMMAGES, SCRIMMAGE_LOG,
) = RESULTS_NAMES  # fmt: skip
ARCHIVE_FILE = "archive"  # a version's archive as uploaded, kept to redo its check
JOB_FILE = "job.json"  # what the queue asks of the check's process
RESULT_FILE = "result.json"  # what the check's process found
JOB_STDERR = "job.stderr"
FINAL_SUFFIX = "-final"  # the final's results: RESULTS-final, beside the results folder
STANDINGS_FILE = "standings.json"  # the league's, read by the pages
INCOMING_PREFIX = ".incoming-"  # an upload not numbered yet (a crash leaves only these)
UNPACKED = "bot"  # inside an incoming folder: the archive unpacked
VERSIONS_SUFFIX = "-bots"  # the versions' folders: RESULTS-bots/ID, beside the results folder
OLD_BOT_FOLDER = "bot"  # where a ladder of an older arena unpacked a version: submissions/ID/bot


def submission_folder(results: Path, sid: int) -> Path:
    """Where submission ``sid`` keeps its archive and its check's files."""
    return results / SUBMISSIONS / str(sid)


def versions_folder(results: Path) -> Path:
    """Where each version's unpacked and built folder lives: ``RESULTS-bots``."""
    return results.with_name(results.name + VERSIONS_SUFFIX)


def version_folder(results: Path, sid: int) -> Path:
    """The folder submission ``sid`` is unpacked, built, checked and played in: in the versions'
    folder, unless an older arena left it in the results folder."""
    old = submission_folder(results, sid) / OLD_BOT_FOLDER
    return old if old.is_dir() else versions_folder(results) / str(sid)


def final_folder(results: Path) -> Path:
    """The final tournament's own results folder: ``RESULTS-final``, beside the ladder's."""
    return results.with_name(results.name + FINAL_SUFFIX)
