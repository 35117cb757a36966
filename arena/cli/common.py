"""The ``arena`` group and what its commands share.

Only the command line turns :class:`~arena.errors.ArenaError` into exit codes:
every other module raises, and the group reports it in one line.
"""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from arena import __version__
from arena.durations import parse_duration_ms
from arena.errors import ArenaError, ConfigError
from arena.game.build import run_build
from arena.game.clock import TimeControl
from arena.game.convention import BotFolder, missing_toolchain, resolve
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import SandboxPolicy, resolve_mode
from arena.untrusted import printable_lines


class ExitCode(enum.IntEnum):
    """What the exit status of an ``arena`` command means (the same for every command)."""

    OK = 0  # done: every game played, every check passed (or skipped)
    # Done, and something failed: a check, a game the arena could not play, a results
    # file not written, a reader that went away.
    FAILED = 1
    # Not done: a usage or configuration error (a bad option, file, bot command or results
    # folder); click reports its own usage errors with 2 as well.
    ARENA_ERROR = 2
    # Done, nothing failed, but not decided: ``arena check --sprt`` ran out of games (its
    # ``--max-games``) before the test accepted either bound.
    INCONCLUSIVE = 3
    INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as a shell reports it


class ArenaFailure(click.ClickException):
    """An error of the arena itself (bad file, bad option value): exit code 2."""

    exit_code = ExitCode.ARENA_ERROR


class ArenaGroup(click.Group):
    """Turns the arena's own errors into a one-line message and exit code 2; imports a
    command's module only when that command is asked for (see :meth:`add_lazy`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}  # command name -> the module that registers it on import

    def add_lazy(self, module: str, *names: str) -> None:
        """Commands ``names``, registered by ``module`` when it is imported, on first use.

        ``arena check`` then starts without the ladder's web stack or the report's
        templates, and so do its worker processes (a worker started by ``spawn`` imports
        the ``arena`` script again).
        """
        for name in names:
            self.lazy[name] = module

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            importlib.import_module(self.lazy[cmd_name])
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ArenaError as e:
            # A message may quote a bot's text (a fault's line, a record's field).
            raise ArenaFailure(printable_lines(str(e))) from e


def echo_printable(text: str) -> None:
    """Print a line that may hold a bot's text, its control characters made visible."""
    click.echo(printable_lines(text))


class PositionCommand(click.Command):
    """A command whose arguments may start with a negative number.

    The arena writes a position whose board starts left of or above 0,0 as
    ``-2,0:...``; click would take that for an option ``-2``.  Such arguments
    are passed after ``--``, in their order, with the options before them.
    Only for commands whose options take no value (flags), which is what makes
    the split safe.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args and any(_NEGATIVE_NUMBER.match(a) for a in args):
            options = [a for a in args if a.startswith("-") and not _NEGATIVE_NUMBER.match(a)]
            rest = [a for a in args if not (a.startswith("-") and not _NEGATIVE_NUMBER.match(a))]
            args = [*options, "--", *rest]
        return super().parse_args(ctx, args)


_NEGATIVE_NUMBER = re.compile(r"-\d")


def colour_wanted(option: bool | None) -> bool:
    """An explicit --colour/--no-colour wins; else colour a terminal unless NO_COLOR is set."""
    if option is not None:
        return option
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


colour_option = click.option(
    "--colour/--no-colour",
    "--color/--no-color",
    "colour",
    default=None,
    help="Colour the players' stacks (default: on a terminal, unless NO_COLOR is set).",
)


contact_option = click.option(
    "--contact",
    type=click.Choice(["1", "2"]),
    default="1",
    show_default=True,
    help="Hexes of a new tile that must touch the pasture.",
)

_TIME_OPTIONS = [
    click.option(
        "--move-time",
        default="1s",
        show_default=True,
        help="Time per move with a unit, e.g. 500ms or 2s ('none' for a clock only).",
    ),
    click.option("--base", default=None, help="Clock per player, e.g. 10s (with --increment)."),
    click.option("--increment", default="0ms", show_default=True, help="Added to the clock after each move."),
    click.option("--startup", default="5s", show_default=True, help="Allowance from start to 'ready'."),
    click.option("--margin", default="50ms", show_default=True, help="Overrun tolerated before a timeout."),
]


def time_control_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add the time-control options; the command receives one ``time_control`` value."""

    @functools.wraps(f)
    def wrapper(
        *args: Any, move_time: str, base: str | None, increment: str, startup: str, margin: str, **kwargs: Any
    ) -> Any:
        tc = TimeControl(
            move_ms=None if move_time == "none" else parse_duration_ms(move_time, "--move-time"),
            base_ms=None if base is None else parse_duration_ms(base, "--base"),
            increment_ms=parse_duration_ms(increment, "--increment"),
            startup_ms=parse_duration_ms(startup, "--startup"),
            margin_ms=parse_duration_ms(margin, "--margin"),
        )
        return f(*args, time_control=tc, **kwargs)

    for option in reversed(_TIME_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


_LIMIT_OPTIONS = [
    click.option(
        "--memory-mb",
        type=click.IntRange(0),
        default=2048,
        show_default=True,
        help="Memory of each bot as a whole in its sandbox's cgroup; without one, the address "
        "space of each of its processes (0: no limit).",
    ),
    click.option(
        "--cpu-seconds",
        type=click.IntRange(0),
        default=600,
        show_default=True,
        help="CPU time of each bot process (0: no limit).",
    ),
    click.option(
        "--tasks",
        type=click.IntRange(0),
        default=256,
        show_default=True,
        help="Processes and threads of each bot as a whole (0: no limit).",
    ),
]


def limits_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add the bots' resource-limit options; the command receives one ``limits`` value."""

    @functools.wraps(f)
    def wrapper(*args: Any, memory_mb: int, cpu_seconds: int, tasks: int, **kwargs: Any) -> Any:
        limits = ResourceLimits(
            memory_mb=memory_mb or None, cpu_seconds=cpu_seconds or None, tasks=tasks or None
        )
        return f(*args, limits=limits, **kwargs)

    for option in reversed(_LIMIT_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


def sandbox_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add --sandbox/--no-sandbox; the command receives one ``sandbox`` policy.

    Without either flag the bots are sandboxed when bubblewrap works here, and
    a warning says so when it does not.  ``--sandbox`` insists: no sandbox, no
    game (exit 2).
    """

    @functools.wraps(f)
    def wrapper(*args: Any, sandbox: bool | None, **kwargs: Any) -> Any:
        mode = "auto" if sandbox is None else "bwrap" if sandbox else "none"
        policy = SandboxPolicy(mode=mode)
        try:
            _sandboxed, warning = resolve_mode(policy)
        except ConfigError as e:
            raise ConfigError(f"--sandbox: {e}") from None
        if warning:
            click.echo(f"warning: {warning}", err=True)
        return f(*args, sandbox=policy, **kwargs)

    return click.option(
        "--sandbox/--no-sandbox",
        default=None,
        help="Run the bots in the bubblewrap sandbox (required with --sandbox; "
        "default: when bubblewrap works here, with a warning when it does not).",
    )(wrapper)


def options_as(name: str, make: Callable[..., object]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Pass the command one ``name`` value, made by ``make`` from the options named like its parameters.

    A command with many options takes a few values instead (``make`` is typically a frozen
    dataclass).  Put it below the option decorators, just above the function, so that it
    sees the values the other option groups (time control, limits, sandbox) made.
    """
    names = list(inspect.signature(make).parameters)

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            value = make(**{n: kwargs.pop(n) for n in names})
            return f(*args, **{name: value}, **kwargs)

        return wrapper

    return decorate


def bot_folder(argument: str) -> BotFolder | None:
    """The bot folder a bot argument names (built and run as its ``bot.toml`` or main file
    says), or None when the argument is a command line.  A folder that says nothing, or
    whose toolchain is not installed, is a ConfigError in one line."""
    path = Path(argument)
    if not path.is_dir():
        return None
    bot = resolve(path)
    problem = missing_toolchain(bot)
    if problem is not None:
        raise ConfigError(problem)
    return bot


def build_folder(bot: BotFolder, sandbox: SandboxPolicy, timeout_s: float) -> None:
    """Run a bot folder's build in its sandbox, in the folder; a failure is a ConfigError
    naming the folder, with the end of the build's output."""
    if bot.build is None:
        return
    result = run_build(bot.build, bot.folder.resolve(), sandbox, timeout_s)
    if not result.ok:
        tail = "".join(f"\n  {line}" for line in result.tail())
        raise ConfigError(f"{bot.folder}: build {shlex.join(bot.build)!r} {result.why}{tail}")


# Help as wide as the terminal up to 120 columns (click's default stops at 80).
@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Battle Sheep Arena: referee, tournaments and ratings for Battle Sheep bots.

    Positions are written in the one-line position notation, for example
    'a16.../....b16. moves a players=2' (see 'arena show --help'); bots speak
    the protocol in protocol/PROTOCOL.md.
    """
