"""The final tournament: after the deadline, each author's last passing version plays a
round robin (or a gauntlet of the ladder's best seeds against all) of ``ladder.final.rounds``.

The organiser asks for it (``POST /api/final`` or ``arena serve LADDER --final``); from then
on submissions are refused and the ladder's league stops (:mod:`arena.ladder.deadline`).
Once every version sent has its verdict, :class:`FinalLoop` freezes the field: each author
not banned, with the newest version that passed of their bots still playing (the ladder's
roster), seeded by the ladder's standings.  The final is an ordinary tournament file,
``ladder-final.yaml`` in the ladder's results folder, with the ladder's league settings (the
executor, pool or Dask cluster, the clock, the limits, the sandbox), each author's version
as one bot named after its author, and its own results folder beside the ladder's,
``RESULTS-final`` (so ``arena standings RESULTS-final --format csv`` has a row per author,
each team, and ``teams.csv`` there its members).
It is played like the league, in a child process (:mod:`arena.ladder.league_job`): a
restart, a kill -9 too, resumes it from its store, every game finished kept and none
played twice.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.ladder.child import end_child, start_child
from arena.ladder.child_loop import ChildLoop, LoopStatus
from arena.ladder.contest import FinalFormat
from arena.ladder.deadline import final_asked
from arena.ladder.folders import FINAL_FILE, FINAL_LOG, STANDINGS_FILE, final_folder
from arena.ladder.league_job import EXIT_ENDED
from arena.ladder.names import version_name
from arena.ladder.roster import roster
from arena.ladder.settings import LADDER_KEY, Ladder
from arena.ladder.store import LadderStore
from arena.league import results_folder
from arena.league.config import CONTINUOUS_KEYS
from arena.league.config.reader import beside
from arena.league.results_folder import write_atomic
from arena.league.store import STORE_NAME, ResultStore
from arena.untrusted import csv_cell

TEAMS_FILE = "teams.csv"  # in the final's results folder: each team's members, to grade from
ENTRIES_KEY = "final.entries"  # the field, frozen when the final's file is written
ENDED_KEY = "final.ended"  # when the final's league ended by itself
POLL_S = 2.0
RETRY_AFTER_S = 60.0  # after a final that failed, before it is tried again
STOP_GRACE_S = 30.0
HEADER = (
    "# Written by `arena serve` when the organiser started the final tournament: each author's\n"
    "# last passing version, seeded by the ladder's standings. `arena standings` reads its results.\n"
)
# The league's keys a final does not take: it is a round robin or a gauntlet of its own bots.
NOT_FINAL_KEYS = frozenset({LADDER_KEY, "name", "format", "rounds", "challengers", "bots", "output", "cwd", "hidden", *CONTINUOUS_KEYS})


@dataclass(frozen=True)
class FinalEntry:
    """One author (a team) in the final: the version that plays for it, its seed, its members."""

    author: str  # also its name in the final's standings
    bot: str
    version: int
    sid: int  # its submission
    seed: int  # 1: the ladder's best
    ladder_rank: int | None  # its place in the ladder's standings (None: no game there yet)
    command: tuple[str, ...]
    members: tuple[str, ...] = ()  # the team's members whose token stood when the field froze

    @property
    def version_name(self) -> str:
        return version_name(self.bot, self.version)


def final_entries(store: LadderStore, ladder_rows: list[dict[str, Any]]) -> list[FinalEntry]:
    """Each author's newest version still playing in the ladder, seeded by ``ladder_rows``
    (the ladder's standings, best first), then by the order they passed."""
    newest: dict[str, Any] = {}
    for e in roster(store):
        if e.active and (e.sub.author not in newest or e.sub.id > newest[e.sub.author].id):
            newest[e.sub.author] = e.sub
    ranks = {str(r.get("bot")): i + 1 for i, r in enumerate(ladder_rows)}
    subs = sorted(newest.values(), key=lambda s: (ranks.get(version_name(s.bot, s.version), len(ranks) + 1), s.id))
    return [
        FinalEntry(
            s.author,
            s.bot,
            s.version,
            s.id,
            seed,
            ranks.get(version_name(s.bot, s.version)),
            tuple(s.command),
            tuple(m.name for m in store.members_of(s.author) if not m.revoked),
        )
        for seed, s in enumerate(subs, 1)
    ]


def teams_csv(entries: list[FinalEntry]) -> str:
    """The final's ``teams.csv``: a line per team (its name is its bot's in the final's
    standings, the key to join them on) with its members, its version and its seed."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["team", "members", "version", "seed"])
    for e in entries:
        w.writerow([csv_cell(e.author), csv_cell(" ".join(e.members)), csv_cell(e.version_name), e.seed])
    return out.getvalue()


def needed(ladder: Ladder) -> int:
    """How many authors the final needs: enough for one game."""
    return ladder.league.players


def final_data(ladder: Ladder, entries: list[FinalEntry]) -> dict[str, Any]:
    """The final's tournament file as data: the ladder's league settings, one bot per entry in
    seed order, its own results folder."""
    f = ladder.settings.final
    data = _absolute(ladder, {k: v for k, v in ladder.league.raw.items() if k not in NOT_FINAL_KEYS})
    data["name"] = f"{ladder.league.name}-final"[:64]
    data["format"] = f.format.value
    data["rounds"] = f.rounds
    if f.format is FinalFormat.GAUNTLET:
        # The best seeds, leaving the others enough to fill a game's other seats.
        top = max(1, min(f.top, len(entries) - (ladder.league.players - 1)))
        data["challengers"] = [e.author for e in entries[:top]]
    data["output"] = str(final_folder(ladder.folder))
    data["cwd"] = str(ladder.cwd)
    written = [str(beside(ladder.league.path.parent, p)) for p in ladder.league.raw.get("hidden") or []]
    data["hidden"] = [*written, str(ladder.folder), str(ladder.versions_folder)]
    data["bots"] = [
        # Built by its check already, in its folder; the sandbox shows the bot only that folder.
        {"name": e.author, "command": list(e.command), "cwd": str(ladder.version_folder(e.sid))}
        for e in entries
    ]
    return data


def _absolute(ladder: Ladder, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the paths the ladder file wrote beside itself made absolute: the final's
    file lies in the results folder, and a relative path would be read beside it."""
    base = ladder.league.path.parent

    def at(p: Any) -> Any:
        return str(beside(base, p)) if isinstance(p, str) else p

    board = data.get("board")
    if isinstance(board, str) and board not in ("random", "build"):
        data["board"] = at(board)
    executor = data.get("executor")
    if isinstance(executor, dict) and isinstance(executor.get("security"), dict):
        data["executor"] = {**executor, "security": {k: at(v) for k, v in executor["security"].items()}}
    return data


def final_text(ladder: Ladder, entries: list[FinalEntry]) -> str:
    """The text of the final's tournament file."""
    return HEADER + yaml.safe_dump(final_data(ladder, entries), sort_keys=False, allow_unicode=False)


def kept_entries(store: LadderStore) -> list[FinalEntry]:
    """The final's field as frozen when it started ([] before)."""
    kept = store.kept(ENTRIES_KEY)
    if not kept:
        return []
    return [
        FinalEntry(**{**e, "command": tuple(e["command"]), "members": tuple(e.get("members") or ())})
        for e in json.loads(kept)
    ]


@dataclass(frozen=True)
class FinalProgress:
    """How far the final has played: games finished of its whole schedule."""

    done: int
    total: int


def final_progress(ladder: Ladder) -> FinalProgress:
    """The final's games finished and scheduled (0 of 0 before it started)."""
    folder = final_folder(ladder.folder)
    if not (folder / STORE_NAME).is_file():
        return FinalProgress(0, 0)
    with ResultStore.open(folder) as results:
        return FinalProgress(results.count(), results.schedule_size())


class FinalLoop(ChildLoop):
    """The thread that starts the final once asked for, plays it in a child process, and
    resumes it after a restart; it holds the final's results folder while the service runs
    (states: "not asked", "waiting", "playing", "ended" or "failed")."""

    def __init__(self, ladder: Ladder, store: LadderStore) -> None:
        super().__init__(
            "ladder-final", LoopStatus("not asked", "the organiser has not started the final", time.time()), POLL_S
        )
        self.ladder = ladder
        self.store = store
        self._held = contextlib.ExitStack()
        self._holding = False
        self._retry_at = 0.0

    def stop(self, timeout_s: float = STOP_GRACE_S + 15) -> None:
        """Stop the final (finished games kept) and the loop."""
        super().stop(timeout_s)

    def _noted(self, state: str, detail: str) -> None:
        if state not in ("not asked", "stopped"):
            self.store.log(None, f"final-{state}", "final", detail)

    def _failed(self, e: Exception) -> None:
        self._set("failed", f"the final could not start: {e!r}")
        self._retry_at = time.time() + RETRY_AFTER_S

    def _on_stop(self) -> None:
        self._held.close()

    def _step(self) -> None:
        if not final_asked(self.store):
            return
        path = self.ladder.folder / FINAL_FILE
        if not path.is_file() and not self._freeze(path):
            return
        if self.store.kept(ENDED_KEY):
            self._set("ended", self._ended_detail())
            return
        if self._proc is not None:
            code = self._proc.poll()
            if code is None:
                return
            self._proc = None
            if code == EXIT_ENDED:
                self.store.keep(ENDED_KEY, f"{time.time():.3f}")
                self._set("ended", self._ended_detail())
            else:
                self._retry_at = time.time() + RETRY_AFTER_S
                self._set("failed", f"the final ended with exit code {code}: see {FINAL_LOG}; tried again in a minute")
            return
        if time.time() < self._retry_at:
            return
        self._launch(path)

    def _freeze(self, path: Path) -> bool:
        """Write the final's file once every version has its verdict; whether it is written."""
        pending = self.store.pending()
        if pending:
            paused = " (the ladder is paused: resume it to check them)" if self.store.paused() else ""
            self._set("waiting", f"{len(pending)} version(s) wait for their check; the final starts once each has its verdict{paused}")
            return False
        entries = final_entries(self.store, _ladder_rows(self.ladder.folder))
        if len(entries) < needed(self.ladder):
            self._set("waiting", f"the final needs at least {needed(self.ladder)} authors with a version that passed; it has {len(entries)}")
            return False
        self.store.keep(ENTRIES_KEY, json.dumps([asdict(e) for e in entries]))
        self.store.keep(ENDED_KEY, "")  # a final played again from nothing has not ended
        write_atomic(path, final_text(self.ladder, entries))
        self.store.log(None, "final-frozen", "final", f"{len(entries)} authors: " + ", ".join(e.author for e in entries)[:1000])
        return True

    def _launch(self, path: Path) -> None:
        folder = final_folder(self.ladder.folder)
        if not self._holding:  # held from the first start to the service's end
            self._held.enter_context(results_folder.hold(folder, str(path)))
            self._holding = True
            write_atomic(folder / TEAMS_FILE, teams_csv(kept_entries(self.store)))
        log = self.ladder.folder / FINAL_LOG
        with log.open("ab") as out:
            self._proc = start_child("arena.ladder.league_job", [str(path)], out)
        p = final_progress(self.ladder)
        self._set("playing", f"the final is playing: {p.done} of {p.total or 'its'} games finished")

    def _ended_detail(self) -> str:
        p = final_progress(self.ladder)
        return f"the final has ended: {p.done} games played"

    def _halt(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            end_child(proc, STOP_GRACE_S)


def _ladder_rows(folder: Path) -> list[dict[str, Any]]:
    """The ladder's standings rows, best first ([] before its first game)."""
    with contextlib.suppress(OSError, ValueError, TypeError):
        rows = json.loads((folder / STANDINGS_FILE).read_text(encoding="utf-8")).get("rows") or []
        return [r for r in rows if isinstance(r, dict)]
    return []
