"""A ladder file: a tournament file plus a ``ladder:`` section, read by the same reader.

Every error names the file, the line and the key (``ladder.quotas.versions_per_hour``);
the keys are documented in ``tournaments/README.md`` and ``tournaments/ladder.yaml``.
"""

from __future__ import annotations

import datetime as dt
import enum
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena import builtin_bots
from arena.check import MIN_CONFORMANCE_GAMES, CheckOptions, SprtOptions
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.ladder import folders
from arena.ladder.contest import FINAL_KEYS, FinalSettings, read_deadline, read_final
from arena.ladder.scrimmage_keys import SCRIMMAGE_KEYS, ScrimmageSettings, read_scrimmage
from arena.league.config import TournamentConfig, parse_config
from arena.league.config.reader import Reader, beside
from arena.league.config.yamlfile import load_nodes
from arena.textfile import TOURNAMENT_FILE_MAX_BYTES, read_text

LADDER_KEY = "ladder"
LADDER_KEYS = {"check", "quotas", "archive", "submit", "deadline", "final", "scrimmage"}
CHECK_KEYS = {"conformance_games", "fail_fast", "against", "games", "min_points", "sprt", "concurrency", "timeout"}
SPRT_KEYS = {"baseline", "elo0", "elo1", "alpha", "beta", "max_games"}
QUOTA_KEYS = {"versions_per_hour", "versions_per_day", "mb_per_day"}
ARCHIVE_KEYS = {"max_mb", "unpacked_mb", "files", "ratio", "depth"}
MB = 1024 * 1024


class SubmitPolicy(enum.StrEnum):
    """Who may submit (``ladder.submit``); authors are added by the organiser either way."""

    AUTHORS = "authors"  # every author the organiser added
    ADMINS = "admins"  # only admin tokens (the organiser's own house bots)
    NOBODY = "nobody"  # submissions closed


@dataclass(frozen=True)
class ArchiveLimits:
    """The hard limits of one uploaded archive (``ladder.archive``)."""

    max_bytes: int = 16 * MB  # the archive as uploaded
    unpacked_bytes: int = 128 * MB  # every file's bytes, counted while writing
    files: int = 5000  # entries of any kind, folders included
    ratio: int = 100  # unpacked bytes per archive byte
    depth: int = 16  # folders from the top to a file


@dataclass(frozen=True)
class Quotas:
    """What one author may submit (``ladder.quotas``); admins have none."""

    versions_per_hour: int = 6
    versions_per_day: int = 30
    bytes_per_day: int = 256 * MB


@dataclass(frozen=True)
class CheckGate:
    """The check a version must pass (``ladder.check``): ``arena check``'s own options."""

    conformance_games: int = MIN_CONFORMANCE_GAMES
    fail_fast: bool = True
    against: tuple[tuple[str, ...], ...] = ()
    games: int = 20
    min_points: float = 0.5
    sprt: SprtOptions | None = None
    concurrency: int = 2
    timeout_ms: int = 30 * 60_000  # the build and the whole check of one version


@dataclass(frozen=True)
class LadderSettings:
    """The ``ladder:`` section, as values."""

    check: CheckGate = field(default_factory=CheckGate)
    quotas: Quotas = field(default_factory=Quotas)
    archive: ArchiveLimits = field(default_factory=ArchiveLimits)
    submit: SubmitPolicy = SubmitPolicy.AUTHORS
    deadline: dt.datetime | None = None  # when submissions close (UTC); the admin API may change it
    final: FinalSettings = field(default_factory=FinalSettings)
    scrimmage: ScrimmageSettings = field(default_factory=ScrimmageSettings)


@dataclass(frozen=True)
class Ladder:
    """A whole ladder file: its league and its ladder settings."""

    league: TournamentConfig
    settings: LadderSettings
    # Where the league's bots start (the file's ``cwd``): the check's opponents start there too.
    cwd: Path
    text: str = ""  # the file as read: each version's check reads it again from here

    @property
    def folder(self) -> Path:
        """The league's results folder: ``ladder.sqlite`` and ``submissions/`` live there."""
        return self.league.output

    @property
    def versions_folder(self) -> Path:
        """Where each version's unpacked and built folder lives (``ID/``, its submission's id):
        beside the results folder (``RESULTS-bots``), never in it, so that no sandbox is ever
        given a path inside the folder that holds the ladder's stores and key."""
        return folders.versions_folder(self.folder)

    def version_folder(self, sid: int) -> Path:
        """The folder submission ``sid`` is unpacked, built, checked and played in.  A ladder
        made by an older arena kept it in its results folder (``submissions/ID/bot``), until the
        service moves it beside at start (:mod:`arena.ladder.relocate`)."""
        return folders.version_folder(self.folder, sid)

    def check_options(self, command: tuple[str, ...], bot_cwd: Path, seed: int) -> CheckOptions:
        """The check of one submitted version: the ladder's gate under the league's clock and limits."""
        gate = self.settings.check
        default = self.league.bots[0]
        # The opponents start in the league's folder (the shipped ladder's: the repository's
        # root): the results and the versions are masked there, as in the league.  The version
        # checked lies in the versions' folder, so the other versions in it are masked one by one
        # (where a sandbox shows the folder around them, as /opt).
        others = sorted(str(p) for p in _entries(self.versions_folder) if p != bot_cwd)
        hidden = (str(self.folder), str(self.versions_folder), *others)
        sandbox = replace(
            SandboxPolicy(), mode=default.sandbox.mode, tmp_mb=default.sandbox.tmp_mb, hidden=hidden, never_shown=hidden
        )
        return CheckOptions(
            command=command,
            cwd=bot_cwd,
            limits=default.limits,
            sandbox=sandbox,
            seed=seed,
            conformance_games=gate.conformance_games,
            time_control=self.league.time_control,
            end_grace_s=self.league.end_grace_ms / 1000,
            concurrency=gate.concurrency,
            against=gate.against,
            games=gate.games,
            min_points=gate.min_points,
            sprt=gate.sprt,
            fail_fast=gate.fail_fast,
            opponents_cwd=self.cwd,
        )


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:  # not made yet
        return []


def load_ladder(path: str | Path) -> Ladder:
    """Read and validate a ladder file; raise ConfigError naming file, line and key."""
    path = Path(path)
    return parse_ladder(read_text(path, "ladder file", TOURNAMENT_FILE_MAX_BYTES), path)


def parse_ladder(text: str, path: Path) -> Ladder:
    """The league (the tournament file's own reader) and its ``ladder:`` section."""
    league = parse_config(text, path, extra_keys=frozenset({LADDER_KEY}))
    source = str(path)
    root = load_nodes(text, source)
    assert root is not None  # parse_config refused an empty file
    top = Reader(source, root, "", set(root.value))
    cwd = beside(path.resolve().parent, top.get("cwd", str, "."))
    section = top.child(LADDER_KEY, LADDER_KEYS)
    if section is None:
        top.fail(root, f"a ladder file needs a {LADDER_KEY!r} section (`ladder: {{}}` takes the defaults)")
    return Ladder(league, read_settings(section), cwd, text)


def read_settings(section: Reader) -> LadderSettings:
    """The ``ladder:`` mapping, every part optional."""
    check = section.child("check", CHECK_KEYS)
    quotas = section.child("quotas", QUOTA_KEYS)
    archive = section.child("archive", ARCHIVE_KEYS)
    submit = section.get("submit", str, SubmitPolicy.AUTHORS.value)
    section.check(
        "submit", submit in {p.value for p in SubmitPolicy}, f"must be one of {', '.join(SubmitPolicy)}"
    )
    return LadderSettings(
        check=CheckGate() if check is None else _read_check(check),
        quotas=Quotas() if quotas is None else _read_quotas(quotas),
        archive=ArchiveLimits() if archive is None else _read_archive(archive),
        submit=SubmitPolicy(submit),
        deadline=read_deadline(section),
        final=read_final(section.child("final", FINAL_KEYS)),
        scrimmage=read_scrimmage(section.child("scrimmage", SCRIMMAGE_KEYS)),
    )


def _whole(r: Reader, key: str, default: int, low: int, high: int) -> int:
    value = r.get(key, int, default)
    r.check(key, low <= value <= high, f"must be from {low} to {high}, got {value!r}")
    return int(value)


def _number(r: Reader, key: str, default: float, low: float, high: float) -> float:
    value = r.get(key, (int, float), default)
    r.check(key, low <= value <= high, f"must be from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _command(r: Reader, key: str, written: object) -> tuple[str, ...]:
    if not isinstance(written, str):
        r.check(key, False, f"must hold commands as strings, got {written!r}")
    assert isinstance(written, str)
    try:
        argv = tuple(shlex.split(written))
    except ValueError as e:
        r.check(key, False, f"cannot split {written!r} like a shell: {e}")
    r.check(key, bool(argv), "holds an empty command")
    return builtin_bots.resolve(argv)


def _read_check(r: Reader) -> CheckGate:
    against = r.get("against", (list, str), [])
    against = [against] if isinstance(against, str) else against
    sprt = r.child("sprt", SPRT_KEYS)
    return CheckGate(
        conformance_games=_whole(
            r, "conformance_games", MIN_CONFORMANCE_GAMES, MIN_CONFORMANCE_GAMES, 10_000
        ),
        fail_fast=r.get("fail_fast", bool, True),
        against=tuple(_command(r, "against", a) for a in against),
        games=_whole(r, "games", 20, 2, 100_000),
        min_points=_number(r, "min_points", 0.5, 0.0, 1.0),
        sprt=None if sprt is None else _read_sprt(sprt),
        concurrency=_whole(r, "concurrency", 2, 1, 64),
        timeout_ms=_positive_duration(r, "timeout", "30m"),
    )


def _positive_duration(r: Reader, key: str, default: str) -> int:
    ms = r.duration(key, default)
    r.check(key, ms > 0, "must be more than 0")
    return ms


def _read_sprt(r: Reader) -> SprtOptions:
    baseline = _command(r, "baseline", r.get("baseline", str, required=True))
    elo0 = _number(r, "elo0", 0.0, -1000.0, 1000.0)
    elo1 = _number(r, "elo1", 50.0, -1000.0, 1000.0)
    r.check("elo1", elo1 > elo0, f"must be above elo0 ({elo0:g}), got {elo1:g}")
    max_games = r.get("max_games", int, None)
    r.check("max_games", max_games is None or 2 <= max_games <= 100_000, "must be from 2 to 100000")
    return SprtOptions(
        baseline,
        elo0,
        elo1,
        _number(r, "alpha", 0.05, 0.001, 0.5),
        _number(r, "beta", 0.05, 0.001, 0.5),
        max_games,
    )


def _read_quotas(r: Reader) -> Quotas:
    per_hour = _whole(r, "versions_per_hour", Quotas.versions_per_hour, 1, 10_000)
    per_day = _whole(r, "versions_per_day", Quotas.versions_per_day, 1, 100_000)
    r.check("versions_per_day", per_day >= per_hour, f"must be at least versions_per_hour ({per_hour})")
    mb = _whole(r, "mb_per_day", Quotas.bytes_per_day // MB, 1, 1_000_000)
    return Quotas(per_hour, per_day, mb * MB)


def _read_archive(r: Reader) -> ArchiveLimits:
    d = ArchiveLimits()
    max_mb = _whole(r, "max_mb", d.max_bytes // MB, 1, 4096)
    unpacked_mb = _whole(r, "unpacked_mb", d.unpacked_bytes // MB, 1, 65536)
    r.check("unpacked_mb", unpacked_mb >= max_mb, f"must be at least max_mb ({max_mb})")
    return ArchiveLimits(
        max_bytes=max_mb * MB,
        unpacked_bytes=unpacked_mb * MB,
        files=_whole(r, "files", d.files, 1, 1_000_000),
        ratio=_whole(r, "ratio", d.ratio, 1, 100_000),
        depth=_whole(r, "depth", d.depth, 1, 256),
    )
