"""What the check queue and a version's check process hand each other, as values.

The queue (:mod:`arena.ladder.queue`) writes a :class:`CheckJob` as ``job.json`` in the
submission's folder and starts ``python -m arena.ladder.job`` on that folder; the job writes
a :class:`CheckResult` as ``result.json``, which the queue reads back and stores.  Each is a
frozen dataclass with ``to_json`` and ``from_json``: no module knows the other's keys.

The job carries the ladder file's text as the service read it, so that a version is checked
under the settings the service shows, even if the file was edited since.

The league's process (:mod:`arena.ladder.league_job`) is handed a :class:`LeagueJob` the same
way, as ``ladder-league.json`` in the results folder: the ladder file and the league's budget,
never the roster (which it reads from ``ladder.sqlite``), so that the file stays as small as
the ladder file however many versions have played.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import LadderError
from arena.ladder.folders import JOB_FILE, LEAGUE_JOB_FILE, RESULT_FILE
from arena.ladder.store import State
from arena.league.results_folder import write_atomic


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LadderError(f"{what}: a list of strings expected, got {value!r:.80}")
    return tuple(value)


def _object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise LadderError(f"{str(path)!r}: cannot read it: {e}") from None
    if not isinstance(data, dict):
        raise LadderError(f"{str(path)!r}: a JSON object expected")
    return data


@dataclass(frozen=True)
class CheckJob:
    """One version to build and check: the ladder file (its path, for the paths it names, and
    its text), the version's folder, its command and build, and the check's seed."""

    ladder_path: Path
    ladder_text: str
    bot: Path
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "ladder": str(self.ladder_path),
            "ladder_text": self.ladder_text,
            "bot": str(self.bot),
            "command": list(self.command),
            "build": None if self.build is None else list(self.build),
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckJob:
        """The job :meth:`to_json` wrote; LadderError naming the key that is wrong."""
        try:
            seed = data["seed"]
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise LadderError(f"job 'seed': a whole number expected, got {seed!r:.80}")
            texts = {k: data[k] for k in ("ladder", "ladder_text", "bot")}
            for key, value in texts.items():
                if not isinstance(value, str):
                    raise LadderError(f"job {key!r}: a string expected, got {value!r:.80}")
            build = data["build"]
            return cls(
                ladder_path=Path(texts["ladder"]),
                ladder_text=texts["ladder_text"],
                bot=Path(texts["bot"]),
                command=_strings(data["command"], "job 'command'"),
                build=None if build is None else _strings(build, "job 'build'"),
                seed=seed,
            )
        except KeyError as e:
            raise LadderError(f"job: no {e.args[0]!r}") from None

    def write(self, folder: Path) -> None:
        """Write it as ``folder/job.json``."""
        (folder / JOB_FILE).write_text(json.dumps(self.to_json()), encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> CheckJob:
        """The job of ``folder/job.json``."""
        return cls.from_json(_object(folder / JOB_FILE))


@dataclass(frozen=True)
class CheckResult:
    """What became of a version: passed or failed, the line that says why, the check's report
    (None: the build failed first) and the build's log (None: no build)."""

    state: State
    reason: str
    report: dict[str, Any] | None
    build_log: str | None

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state.value, "reason": self.reason, "report": self.report, "build_log": self.build_log}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        """The result :meth:`to_json` wrote; LadderError naming the key that is wrong."""
        try:
            state, reason, report, log = data["state"], data["reason"], data["report"], data["build_log"]
        except KeyError as e:
            raise LadderError(f"result: no {e.args[0]!r}") from None
        if state not in (State.PASSED.value, State.FAILED.value):
            raise LadderError(f"result 'state': 'passed' or 'failed' expected, got {state!r:.80}")
        if not isinstance(reason, str):
            raise LadderError(f"result 'reason': a string expected, got {reason!r:.80}")
        if report is not None and not isinstance(report, dict):
            raise LadderError(f"result 'report': an object expected, got {report!r:.80}")
        if log is not None and not isinstance(log, str):
            raise LadderError(f"result 'build_log': a string expected, got {log!r:.80}")
        return cls(State(state), reason, report, log)

    def write(self, folder: Path) -> None:
        """Write it as ``folder/result.json``, in one step (the queue never reads half of it)."""
        tmp = folder / (RESULT_FILE + ".part")
        tmp.write_text(json.dumps(self.to_json()), encoding="utf-8")
        tmp.replace(folder / RESULT_FILE)

    @classmethod
    def read(cls, folder: Path) -> CheckResult:
        """The result of ``folder/result.json``."""
        return cls.from_json(_object(folder / RESULT_FILE))


@dataclass(frozen=True)
class LeagueJob:
    """The league to play: the ladder file (its path and its text, as the service read it) and
    the games the league had when its roster last changed (its ``max_games`` counts from there)."""

    ladder_path: Path
    ladder_text: str
    games_before: int

    def to_json(self) -> dict[str, Any]:
        return {"ladder": str(self.ladder_path), "ladder_text": self.ladder_text, "games_before": self.games_before}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LeagueJob:
        """The job :meth:`to_json` wrote; LadderError naming the key that is wrong."""
        try:
            path, text, before = data["ladder"], data["ladder_text"], data["games_before"]
        except KeyError as e:
            raise LadderError(f"league job: no {e.args[0]!r}") from None
        for key, value in (("ladder", path), ("ladder_text", text)):
            if not isinstance(value, str):
                raise LadderError(f"league job {key!r}: a string expected, got {value!r:.80}")
        if not isinstance(before, int) or isinstance(before, bool) or before < 0:
            raise LadderError(f"league job 'games_before': a whole number expected, got {before!r:.80}")
        return cls(Path(path), text, before)

    def write(self, folder: Path) -> Path:
        """Write it as ``folder/ladder-league.json``, in one step; return its path."""
        path = folder / LEAGUE_JOB_FILE
        write_atomic(path, json.dumps(self.to_json()))
        return path

    @classmethod
    def read(cls, path: Path) -> LeagueJob:
        """The job of the file ``path``."""
        return cls.from_json(_object(path))
