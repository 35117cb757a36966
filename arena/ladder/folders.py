"""Where the ladder keeps its files: every name of a file or folder it writes, in one place.

In the league's results folder (beside ``results.sqlite`` and ``standings.json``, which the
league writes):

- ``ladder.sqlite``: the ladder's store (:mod:`arena.ladder.store`);
- ``submissions/ID/``: each version's kept ``archive``, and its check's ``job.json``,
  ``result.json`` and ``job.stderr``;
- ``ladder-league.yaml`` and ``ladder-league.log``: the league's file and its process's log;
- ``ladder-final.yaml`` and ``ladder-final.log``: the final tournament's (``RESULTS-final``,
  beside the results folder, holds its results).

Beside the results folder, never in it (no sandbox is ever given a path inside the folder
that holds the stores and the key): ``RESULTS-bots/ID/``, each version unpacked, built,
checked and played.  A ladder of an older arena unpacked a version in its results folder,
``submissions/ID/bot``: a version already there stays there.

It imports nothing: every module of the ladder may use it.
"""

from __future__ import annotations

from pathlib import Path

LADDER_STORE = "ladder.sqlite"
SUBMISSIONS = "submissions"
ARCHIVE_FILE = "archive"  # a version's archive as uploaded, kept to redo its check
JOB_FILE = "job.json"  # what the queue asks of the check's process
RESULT_FILE = "result.json"  # what the check's process found
JOB_STDERR = "job.stderr"
LEAGUE_FILE = "ladder-league.yaml"
LEAGUE_LOG = "ladder-league.log"
FINAL_FILE = "ladder-final.yaml"  # the final tournament's file, written once when it starts
FINAL_LOG = "ladder-final.log"
FINAL_SUFFIX = "-final"  # the final's results: RESULTS-final, beside the results folder
STANDINGS_FILE = "standings.json"  # the league's, read by the pages
INCOMING_PREFIX = ".incoming-"  # an upload not numbered yet (a crash leaves only these)
UNPACKED = "bot"  # inside an incoming folder: the archive unpacked
VERSIONS_SUFFIX = "-bots"  # the versions' folders: RESULTS-bots/ID, beside the results folder
OLD_BOT_FOLDER = "bot"  # where a ladder of an older arena unpacked a version: submissions/ID/bot
# What the ladder adds to a results folder (the league's own list, results_folder.LADDER_NAMES,
# must hold each: a test says so).
RESULTS_NAMES = (LADDER_STORE, SUBMISSIONS, LEAGUE_FILE, LEAGUE_LOG, FINAL_FILE, FINAL_LOG)


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
