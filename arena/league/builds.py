"""Running the bots' builds before a league plays: one runner for the arena's own machine
(``arena run``) and for each Dask worker that unpacked uploaded bots.

Each build runs once, in its bot's sandbox and (when it has one) private copy, to its end or
its deadline; the first that fails stops the rest and comes back as a value, which each side
words for where it is (the tournament file's line, or the worker's report).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.game.build import DEFAULT_BUILD_MB, BuildResult, run_build
from arena.game.sandbox.bwrap import SandboxPolicy


@dataclass(frozen=True)
class BotBuild:
    """One bot's build: its command, run in ``cwd`` (or the sandbox's private copy shown there)."""

    bot: str
    command: tuple[str, ...]
    cwd: Path
    sandbox: SandboxPolicy
    env: Mapping[str, str]
    network: bool


@dataclass(frozen=True)
class BuildFailure:
    """The build that failed, and how."""

    build: BotBuild
    result: BuildResult

    def describe(self, lines: int = 15) -> str:
        """``bot 'x': build 'make' exit 2:`` then the last ``lines`` of its output, indented."""
        b = self.build
        tail = "\n".join("  " + line for line in self.result.tail(lines))
        return f"bot {b.bot!r}: build {' '.join(b.command)!r} {self.result.why}:\n{tail}"


def run_builds(
    builds: Sequence[BotBuild],
    timeout_s: float,
    starting: Callable[[BotBuild], None] = lambda _b: None,
    build_mb: int = DEFAULT_BUILD_MB,
) -> BuildFailure | None:
    """Run ``builds`` in order (the same command in the same folder once), ``starting`` told
    of each as it starts, each leaving at most ``build_mb`` MiB in its folder; the first
    failure (the rest are not run), or None."""
    done: set[tuple[Path, tuple[str, ...]]] = set()
    for build in builds:
        folder = Path(build.sandbox.source) if build.sandbox.source is not None else build.cwd
        if (folder, build.command) in done:
            continue
        starting(build)
        result = run_build(
            build.command, build.cwd, build.sandbox, timeout_s, build.env, network=build.network, build_mb=build_mb
        )
        if not result.ok:
            return BuildFailure(build, result)
        done.add((folder, build.command))
    return None
