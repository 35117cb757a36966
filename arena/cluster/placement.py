"""How the bots get onto a Dask worker, and the check that they can run there.

Two placements (``executor.bots`` in the tournament file):

``shared``
    The bots' folders are at the same paths on every worker (a shared or
    copied filesystem).  The arena builds them once, on its own machine, as
    with the local executor: building one shared folder from several workers
    at once would race.  Each worker only checks that every bot's folder and
    program are there.

``upload``
    The arena packs each bot's folder (without version-control and virtual
    environment folders) and sends it with the worker plugin; every worker
    unpacks its own copy, runs the bots' builds in it, in the sandbox, and
    checks the programs.

Either way a worker that fails a check takes no games, and the arena reports
it by name with the reason.  Nothing here imports Dask: it is plain values
and functions, run by :mod:`arena.cluster.worker` on the workers.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.errors import ClusterError, ConfigError
from arena.game.build import DEFAULT_BUILD_MB
from arena.game.referee import BotSpec
from arena.game.sandbox.bwrap import resolve_mode
from arena.league.builds import BotBuild, run_builds
from arena.league.config import TournamentConfig, find_program
from arena.league.executor import GameSettings
from arena.league.private_copies import BotFolder, make_copies

# Never sent: they are large, rebuilt by the bot's build, or none of the bot's business.
SKIPPED_NAMES = frozenset({".git", ".hg", ".svn", ".venv", "__pycache__", ".mypy_cache", ".pytest_cache"})
# Every folder travels inside the worker plugin, to every worker, through the scheduler.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
MAX_UNPACKED_BYTES = 512 * 1024 * 1024  # what a folder may fill on each worker, unpacked


@dataclass(frozen=True)
class Build:
    """One bot's build command, as the tournament file gives it."""

    bot: str
    command: tuple[str, ...]
    network: bool


@dataclass(frozen=True)
class Placement:
    """How the workers get the bots (picklable: it travels in the worker plugin).

    ``folders`` maps each uploaded folder (its path on the arena's machine) to
    its gzipped tar; empty for ``shared``.
    """

    mode: str = "shared"
    folders: Mapping[str, bytes] | None = None
    builds: tuple[Build, ...] = ()
    build_timeout_s: float = 600.0
    build_mb: int = DEFAULT_BUILD_MB


def placement_for(config: TournamentConfig) -> Placement:
    """Pack the bots' folders for ``upload``; nothing for ``shared`` (the arena builds them)."""
    if config.executor.bots == "shared":
        return Placement()
    folders: dict[str, bytes] = {}
    for bot in config.bots:
        key = str(bot.cwd)
        if key in folders:
            continue
        if not bot.cwd.is_dir():
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: cwd {key!r} is not a folder (to upload)"
            )
        problem = upload_problem(bot.cwd, skip=(config.output,))
        if problem is not None:
            raise ClusterError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: cannot upload its folder: {problem}"
            )
        folders[key] = pack_folder(bot.cwd, skip=(config.output,))
        if len(folders[key]) > MAX_UPLOAD_BYTES:
            raise ClusterError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: its folder {key!r} packs to "
                f"{len(folders[key]) // 2**20} MB, more than the {MAX_UPLOAD_BYTES // 2**20} MB "
                "that 'executor.bots: upload' sends; give the bot a smaller folder, or put the "
                "bots on every worker and use 'bots: shared'"
            )
    builds = tuple(Build(b.name, b.build, b.build_network) for b in config.bots if b.build is not None)
    return Placement("upload", folders, builds, config.build_timeout_ms / 1000, config.build_mb)


def _why_not_sent(path: str, st: os.stat_result, root: str) -> str | None:
    """Why one entry of a folder cannot be uploaded, or None."""
    if stat.S_ISLNK(st.st_mode):
        try:
            os.stat(path)
        except OSError as e:
            if e.errno == errno.ELOOP:
                return "a link that loops"
            return None  # a dangling link inside the folder: unpacked as it is
        target = os.path.realpath(path)
        if target != root and not target.startswith(root + os.sep):
            return f"a link to {target!r}, outside the folder"
        return None
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        return "a special file (fifo, socket or device)"
    if st.st_size > 64 * 1024 and st.st_blocks * 512 < st.st_size // 2:
        return f"a sparse file ({st.st_size} bytes, {st.st_blocks * 512} on disk)"
    return None


def upload_problem(folder: Path, skip: Sequence[Path] = ()) -> str | None:
    """Why ``folder`` cannot be uploaded, in one line naming the file, or None; looked at
    before anything is packed: special files, sparse files, links that loop or leave the
    folder, and more than MAX_UNPACKED_BYTES once unpacked."""
    root = os.path.realpath(folder)
    skipped = {os.path.realpath(p) for p in skip}
    total = 0
    for here, dirs, files in os.walk(folder):
        dirs[:] = [
            d
            for d in dirs
            if d not in SKIPPED_NAMES and os.path.realpath(os.path.join(here, d)) not in skipped
        ]
        for name in dirs + [f for f in files if f not in SKIPPED_NAMES]:
            path = os.path.join(here, name)
            try:
                st = os.lstat(path)
            except OSError as e:
                return f"{path!r}: {e.strerror}"
            why = _why_not_sent(path, st, root)
            if why is not None:
                return f"{path!r} is {why}"
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
                if total > MAX_UNPACKED_BYTES:
                    return (
                        f"it holds more than {MAX_UNPACKED_BYTES // 2**20} MB unpacked (reached at {path!r})"
                    )
    return None


def pack_folder(folder: Path, skip: Sequence[Path] = ()) -> bytes:
    """A gzipped tar of ``folder`` (modes kept, so programs stay executable); check it
    with :func:`upload_problem` first."""
    skipped = {os.path.realpath(p) for p in skip}

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        path = folder / info.name
        if Path(info.name).name in SKIPPED_NAMES or os.path.realpath(path) in skipped:
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=".", filter=keep)
    return buffer.getvalue()


def unpack_folders(placement: Placement, into: Path) -> dict[str, Path]:
    """Unpack every uploaded folder under ``into``; each original path -> its copy here."""
    where: dict[str, Path] = {}
    for i, (original, data) in enumerate(sorted((placement.folders or {}).items())):
        target = into / str(i)
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            # "data": no absolute paths, no links out of the folder, no device files.
            tar.extractall(target, filter="data")
        where[original] = target
    return where


def _remapper(where: Mapping[str, Path]) -> Callable[[str], str]:
    # The longest original first: a folder nested in another goes to its own copy.
    pairs = sorted(((Path(k), v) for k, v in where.items()), key=lambda p: len(str(p[0])), reverse=True)

    def remap(path: str) -> str:
        p = Path(path)
        for original, copy in pairs:
            if p.is_relative_to(original):
                return str(copy / p.relative_to(original))
        return path

    return remap


def relocate(settings: GameSettings, where: Mapping[str, Path]) -> GameSettings:
    """The settings with every path inside an uploaded folder moved to its copy."""
    remap = _remapper(where)

    def move(spec: BotSpec) -> BotSpec:
        # The program and every argument that is an absolute path (a script, a class path):
        # the sandbox shows what the command names, so those must name the copies.
        command = tuple(remap(a) if Path(a).is_absolute() else a for a in spec.command)
        sandbox = replace(
            spec.sandbox,
            paths=tuple(remap(p) for p in spec.sandbox.paths),
            hidden=tuple(remap(p) for p in spec.sandbox.hidden),
            never_shown=tuple(remap(p) for p in spec.sandbox.never_shown),
        )
        return replace(spec, cwd=Path(remap(str(spec.cwd))), command=command, sandbox=sandbox)

    return replace(settings, bots={name: move(spec) for name, spec in settings.bots.items()})


def private_copies(placement: Placement, settings: GameSettings, root: Path) -> GameSettings:
    """The settings with each bot that writes its folder given a copy of its own under
    ``root``, as the arena does locally: a bot that builds, and a ``writable`` bot whose
    folder another bot's overlaps.  The sandbox shows the copy at the folder's path
    (``SandboxPolicy.source``), so no bot or build writes another's files on the worker."""
    builders = {b.bot for b in placement.builds}

    def new_root() -> Path:
        if not root.exists():
            root.mkdir(parents=True)
            root.chmod(0o711)  # bot users pass through to their own copy, and list nothing
        return root

    folders = [
        BotFolder(name, spec.cwd, name in builders, spec.sandbox.writable)
        for name, spec in sorted(settings.bots.items())
    ]
    copies = make_copies(folders, new_root)
    bots = {
        name: replace(spec, sandbox=replace(spec.sandbox, source=str(copies[name]))) if name in copies else spec
        for name, spec in sorted(settings.bots.items())
    }
    return replace(settings, bots=bots)


def build_all(placement: Placement, settings: GameSettings) -> str | None:
    """Run the bots' builds in their (relocated) folders, each in the bot's private copy;
    why the first failure failed, or None."""
    builds = []
    for build in placement.builds:
        spec = settings.bots[build.bot]
        builds.append(BotBuild(build.bot, build.command, spec.cwd, spec.sandbox, spec.env, build.network))
    failure = run_builds(builds, placement.build_timeout_s, build_mb=placement.build_mb)
    return None if failure is None else failure.describe(8)


def bot_problem(spec: BotSpec) -> str | None:
    """Why ``spec`` cannot run on this machine (its folder, its program, its sandbox), or None."""
    if not spec.cwd.is_dir():
        return f"bot {spec.name!r}: cwd {str(spec.cwd)!r} is not a folder"
    if find_program(spec.command, Path(spec.sandbox.source or spec.cwd), spec.env) is None:
        return (
            f"bot {spec.name!r}: program {spec.command[0]!r} not found "
            f"(looked in {str(spec.cwd)!r} and PATH) or not executable"
        )
    try:
        resolve_mode(spec.sandbox)
    except ConfigError as e:
        return f"bot {spec.name!r}: {e}"
    return None


def prepare(placement: Placement, settings: GameSettings, scratch: Path) -> tuple[GameSettings, str | None]:
    """Make the bots ready on this worker: the settings to play with, and why not if they are not."""
    if placement.mode == "upload":
        try:
            settings = relocate(settings, unpack_folders(placement, scratch))
        except (OSError, tarfile.TarError) as e:
            return settings, f"cannot unpack the bots' folders into {str(scratch)!r}: {e}"
        try:
            settings = private_copies(placement, settings, scratch / "private")
        except (OSError, ConfigError) as e:
            return settings, str(e)
        failed = build_all(placement, settings)
        if failed is not None:
            return settings, failed
    for spec in settings.bots.values():
        problem = bot_problem(spec)
        if problem is not None:
            return settings, problem
    return settings, None
