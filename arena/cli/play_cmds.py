"""``arena play`` (one game between bot commands) and ``arena replay``."""

from __future__ import annotations

import math
import os
import re
import shlex
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import click
from tabulate import tabulate

from arena import builtin_bots
from arena.cli.common import (
    bot_folder,
    build_folder,
    colour_option,
    colour_wanted,
    contact_option,
    limits_options,
    main,
    sandbox_options,
    time_control_options,
)
from arena.durations import parse_duration_ms
from arena.errors import ArenaError, ConfigError
from arena.game.botproc import limits_note
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.proctree import adopt_orphans
from arena.game.record import Fault, GameRecord, MoveRecord, fault_evidence, written_at
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.seeds import SECRET_BYTES, is_secret
from arena.protocol import NAME_RE
from arena.rules import PLAYER_LETTERS, Board, GameState, Params, parse_board_file, random_board, render
from arena.textfile import BOARD_FILE_MAX_BYTES, RECORD_FILE_MAX_BYTES, read_text
from arena.untrusted import printable

INTERPRETERS = (
    "python",
    "python3",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "java",
    "sh",
    "bash",
    "deno",
    "bun",
)


def bot_name(argv: tuple[str, ...]) -> str:
    """A short name for a command: its script for an interpreter, else its program.

    Only the characters the protocol allows in a name are kept (the names go
    to every bot in the ``game`` message).
    """
    if len(argv) == 1 and argv[0].startswith(builtin_bots.PREFIX):
        return bot_name((argv[0].removeprefix(builtin_bots.PREFIX),))
    words = [a for a in argv if not a.startswith("-")]
    program = Path(argv[0]).name
    if program.startswith(INTERPRETERS) and len(words) > 1:
        name = Path(words[1]).stem
    else:
        name = Path(program).stem or program
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:60] or "bot"


def bot_specs(
    commands: tuple[str, ...],
    cwd: Path,
    limits: ResourceLimits | None = None,
    sandbox: SandboxPolicy | None = None,
) -> list[BotSpec]:
    """Specs for bot command strings (or bot folders), named after their program (or folder);
    repeats get #2, #3."""
    specs = []
    seen: Counter[str] = Counter()
    for command in commands:
        folder = bot_folder(command)
        if folder is not None:
            base = re.sub(r"[^A-Za-z0-9_.+-]", "_", folder.folder.resolve().name)[:60] or "bot"
            seen[base] += 1
            name = base if seen[base] == 1 else f"{base}_{seen[base]}"
            specs.append(
                BotSpec(
                    name=name,
                    command=folder.command,
                    cwd=folder.folder.resolve(),
                    limits=limits or ResourceLimits(),
                    sandbox=sandbox or SandboxPolicy(),
                )
            )
            continue
        try:
            argv = tuple(shlex.split(command))
        except ValueError as e:  # an unclosed quote
            raise ConfigError(f"bot command {command!r}: cannot split it like a shell: {e}") from None
        if not argv:
            raise ConfigError(f"empty bot command {command!r}")
        base = bot_name(argv)
        argv = builtin_bots.resolve(argv)
        seen[base] += 1
        name = base if seen[base] == 1 else f"{base}_{seen[base]}"
        specs.append(
            BotSpec(
                name=name,
                command=argv,
                cwd=cwd,
                limits=limits or ResourceLimits(),
                sandbox=sandbox or SandboxPolicy(),
            )
        )
    return specs


def named_seats(specs: list[BotSpec], names: tuple[str, ...]) -> list[BotSpec]:
    """``specs`` with the first ``len(names)`` seats renamed (``--name``, in seat order)."""
    if len(names) > len(specs):
        raise click.UsageError(f"{len(names)} --name options for {len(specs)} seats")
    for name in names:
        if not NAME_RE.fullmatch(name):
            raise ConfigError(f"--name {name!r}: a name is 1-64 of A-Z a-z 0-9 _ . + -")
    return [replace(s, name=names[i]) if i < len(names) else s for i, s in enumerate(specs)]


def seats_in(specs: list[BotSpec], cwds: tuple[Path, ...]) -> list[BotSpec]:
    """``specs`` with the first ``len(cwds)`` seats starting in those folders (``--cwd``)."""
    if len(cwds) > len(specs):
        raise click.UsageError(f"{len(cwds)} --cwd options for {len(specs)} seats")
    return [replace(s, cwd=cwds[i].resolve()) if i < len(cwds) else s for i, s in enumerate(specs)]


def show_fault_evidence(record: GameRecord, names: list[str] | None = None) -> None:
    """Under the table, each faulty seat's evidence: the hint, its first lines, its stderr."""
    for p, seat in enumerate(record.seats):
        evidence = fault_evidence(seat)
        if not evidence:
            continue
        name = names[p] if names else seat.name
        click.echo(f"\n{PLAYER_LETTERS[p]} {printable(name)}: {seat.fault.kind.value if seat.fault else ''}")
        for line in evidence:
            click.echo(f"  {printable(line)}")


def standings_table(record: GameRecord, names: list[str] | None = None) -> str:
    """The ranking of one game, with the figures that decided it (``names``: shown per seat)."""
    rows = []
    for s in sorted(record.standings, key=lambda s: (s.rank, s.player)):
        seat = record.seats[s.player]
        why = f"{seat.fault.kind.value}: {printable(seat.fault.detail)}" if seat.fault else ""
        rows.append(
            [
                s.rank,
                f"{PLAYER_LETTERS[s.player]} {printable(names[s.player] if names else seat.name)}",
                s.hexes,
                s.largest_group,
                s.daisies,
                why,
            ]
        )
    return tabulate(rows, headers=["rank", "seat", "hexes", "group", "daisies", "fault"])



def _seed_secret(value: str | None) -> str | None:
    """``--seed-secret``: hex of the length the arena draws, or a usage error naming it."""
    if value is None:
        return None
    if not is_secret(value.lower()):
        raise click.BadParameter(f"must be {2 * SECRET_BYTES} hex digits, got {value!r}")
    return value.lower()

@main.command("play")
@click.argument("bots", nargs=-1, required=True, metavar="BOT BOT [...]")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of the board and of the bots' randomness (default: a fresh one, printed).",
)
@click.option(
    "--seed-secret",
    metavar="HEX",
    default=None,
    callback=lambda _ctx, _param, value: _seed_secret(value),
    help="The secret each seat's private seed is derived with (32 hex digits; default: a fresh "
    "one). With --seed, replays a game exactly, bots' random choices included: arena check "
    "prints both for the game it failed.",
)
@click.option(
    "--board",
    "board_opt",
    default="random",
    show_default=True,
    metavar="random|FILE",
    help="A random board from the seed, or a board file (at most 1 MiB, 1024 hexes).",
)
@click.option("--build-board", is_flag=True, help="The bots build the pasture from tiles first.")
@time_control_options
@limits_options
@sandbox_options
@click.option(
    "--sheep", type=click.IntRange(1, 999), default=16, show_default=True, help="Sheep in each player's herd."
)
@click.option("--tiles", type=click.IntRange(1, 64), default=4, show_default=True, help="Tiles per player.")
@contact_option
@click.option("--hole-border", is_flag=True, help="Herds may start next to enclosed holes.")
@click.option(
    "--save",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the game record (JSON) here.",
)
@click.option(
    "--name",
    "names",
    multiple=True,
    metavar="NAME",
    help="Name a seat, in seat order (repeat: --name alice --name bob); "
    "by default a seat shows the name its bot gives in hello.",
)
@click.option(
    "--cwd",
    "cwds",
    multiple=True,
    metavar="FOLDER",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The folder a seat's bot starts in, in seat order (repeat: --cwd mybot --cwd .); "
    "seats without one start in the current folder.",
)
@click.option(
    "--build-timeout", default="10m", show_default=True, help="Longest a bot folder's build may run."
)
@click.option("--quiet", "-q", is_flag=True, help="Do not show the board after every move.")
@colour_option
def play_cmd(
    bots: tuple[str, ...],
    seed: int | None,
    seed_secret: str | None,
    board_opt: str,
    build_board: bool,
    time_control: TimeControl,
    limits: ResourceLimits,
    sandbox: SandboxPolicy,
    sheep: int,
    tiles: int,
    contact: str,
    hole_border: bool,
    save: Path | None,
    names: tuple[str, ...],
    cwds: tuple[Path, ...],
    build_timeout: str,
    quiet: bool,
    colour: bool | None,
) -> None:
    """Play one game between 2 to 4 bots and show the result.

    Each BOT is a bot's folder (built first, then run as its bot.toml or its main
    file MyBot.py, MyBot.c, Cargo.toml... says), a command line, quoted as one
    argument, for example 'python3 sample_bots/random_bot.py' or
    './sample_bots/c/greedy', or a bot that ships with the arena: arena:random,
    arena:forfeit. The same
    bot may fill several seats; the first command plays first. A seat is
    shown under the name its bot gives in hello (its command's until then),
    or the one --name gives it.

    Exits 0 when the game was played to its end, whatever the bots did (a bot
    that cannot even be started is forfeited); 2 when the arena itself could
    not run the game.
    """
    if not 2 <= len(bots) <= 4:
        raise click.UsageError(f"a game needs 2 to 4 bots, got {len(bots)}")
    params = Params(
        players=len(bots), sheep=sheep, tiles=tiles, contact=int(contact), hole_border=hole_border
    )
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    board = _board(board_opt, build_board, seed, params)
    _build_folders(bots, sandbox, build_timeout)
    specs = seats_in(named_seats(bot_specs(bots, Path.cwd(), limits, sandbox), names), cwds)
    # A built-in bot keeps the default startup allowance, as in the check whose replay
    # command this may be: ``--startup`` is for the bots being tried.
    own = max(time_control.startup_ms, builtin_bots.STARTUP_MS)
    specs = [replace(s, startup_ms=own) if builtin_bots.spelling(s.command) else s for s in specs]
    setup = GameSetup(
        game_id=f"play-{seed}",
        seed=seed,
        params=params,
        time_control=time_control,
        board=board,
        seed_secret=seed_secret,
    )
    click.echo(f"seed {seed}, {time_control.describe()}")
    note = limits_note(limits, sandbox)
    if note:
        click.echo(note)
    screen = GameScreen([s.name for s in specs], len(names), quiet, colour_wanted(colour))
    adopt_orphans()  # what a bot leaves running stays below us: found without a scan of /proc
    record = play_game(setup, specs, screen.observe, on_hello=screen.on_hello)
    # Saved under the names shown (--name, else the hello name), which arena replay shows too.
    seats = tuple(replace(s, name=n) for s, n in zip(record.seats, screen.shown, strict=True))
    record = replace(record, seats=seats)
    screen.show_seats()
    click.echo("")
    click.echo(standings_table(record, screen.shown))
    show_fault_evidence(record, screen.shown)
    if save is not None:
        save.write_text(record.to_json(indent=1) + "\n", encoding="utf-8")
        click.echo(f"saved to {save}")


def _build_folders(bots: tuple[str, ...], sandbox: SandboxPolicy, timeout: str) -> None:
    """Build each bot folder among the seats once, before the game, saying how."""
    built: set[Path] = set()
    for argument in bots:
        folder = bot_folder(argument)
        if folder is None or folder.folder.resolve() in built:
            continue
        built.add(folder.folder.resolve())
        click.echo(folder.describe())
        build_folder(folder, sandbox, parse_duration_ms(timeout, "--build-timeout") / 1000)


def _board(board_opt: str, build_board: bool, seed: int, params: Params) -> Board | None:
    """The board of ``--board`` (random from the seed, or a file); None when the bots build it."""
    if build_board:
        if board_opt != "random":
            raise click.UsageError("--build-board and --board FILE exclude each other")
        return None
    if board_opt == "random":
        return random_board(seed, params.tiles * params.players, params.contact)
    text = read_text(board_opt, "board file", BOARD_FILE_MAX_BYTES)
    return parse_board_file(text, board_opt)


class GameScreen:
    """What ``arena play`` shows while the game goes on: the seats once, then every move and forfeit."""

    def __init__(self, shown: list[str], named: int, quiet: bool, colour: bool) -> None:
        # What each seat is called on screen: --name, else its hello name once it gives one.
        self.shown = shown
        self.named = named  # seats before this one were named by --name
        self.quiet = quiet
        self.colour = colour
        self.seats_shown = False

    def on_hello(self, p: int, name: str) -> None:
        """A bot said its name: shown from now on, unless --name named its seat."""
        if p >= self.named:
            self.shown[p] = name

    def show_seats(self) -> None:
        """``a=alice vs b=bob``, once."""
        if not self.seats_shown:
            self.seats_shown = True
            click.echo(" vs ".join(f"{PLAYER_LETTERS[i]}={printable(n)}" for i, n in enumerate(self.shown)))

    def observe(self, state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        """The referee's observer: a move with the board after it, or a forfeit."""
        if self.quiet:
            return
        self.show_seats()
        if move is not None:
            click.echo(
                f"\n{PLAYER_LETTERS[move.player]} {printable(self.shown[move.player])}: "
                f"{printable(move.move)}  ({move.ms:.0f} ms)"
            )
            click.echo(render(state, colour=self.colour))
        elif fault is not None:
            p, f = fault
            click.echo(
                f"\n{PLAYER_LETTERS[p]} {printable(self.shown[p])} forfeits: {f.kind.value}: {printable(f.detail)}"
            )


def load_record(path: Path) -> GameRecord:
    """A saved game record; an error names the file."""
    text = read_text(path, "game record", RECORD_FILE_MAX_BYTES)
    try:
        return GameRecord.from_json(text)
    except ArenaError as e:
        raise ArenaError(f"{path}: {e}") from None


def _replay_header(record: GameRecord) -> None:
    # A record is a file anyone may hand over, its names and texts chosen by whoever wrote it.
    click.echo(
        f"game {printable(record.game_id)}, seed {record.seed}: "
        + " vs ".join(f"{PLAYER_LETTERS[i]}={printable(s.name)}" for i, s in enumerate(record.seats))
    )


def _show_position(
    record: GameRecord, ply: int, move: MoveRecord | None, state: GameState, colour: bool
) -> None:
    if move is not None:
        click.echo(
            f"\nply {ply}: {PLAYER_LETTERS[move.player]} {printable(record.seats[move.player].name)} "
            f"plays {printable(move.move)} ({move.ms:.0f} ms)"
        )
    else:
        click.echo("\nstart")
    click.echo(render(state, colour=colour))
    _show_written(record, ply)
    for p, f in record.faults:
        if f.ply == ply:
            name, detail = printable(record.seats[p].name), printable(f.detail)
            click.echo(f"{PLAYER_LETTERS[p]} {name} forfeits: {f.kind.value}: {detail}")
            for line in fault_evidence(record.seats[p]):
                click.echo(f"  {printable(line)}")


def _show_written(record: GameRecord, ply: int) -> None:
    """Each seat's info and stderr lines sent while this move was chosen, every line escaped."""
    for w in written_at(record, ply):
        click.echo(f"{PLAYER_LETTERS[w.seat]} {printable(record.seats[w.seat].name)} wrote:")
        for line in w.infos:
            click.echo(f"  info   {printable(line)}")
        for line in w.stderr:
            click.echo(f"  stderr {printable(line)}")
        if w.dropped:
            click.echo(f"  ({w.dropped} more bytes on stderr this turn, past what a turn keeps)")


# What the keys do while stepping (click.getchar gives an arrow key as its escape sequence).
STEP_KEYS = {
    "back": ("\x1b[D", "\x1bOD", "b", "p", "\x7f", "\x08"),
    "first": ("\x1b[H", "\x1bOH", "\x1b[1~", "\x1b[7~", "g"),
    "last": ("\x1b[F", "\x1bOF", "\x1b[4~", "\x1b[8~", "G"),
    "jump": ("j", ":"),
    "quit": ("q", "Q", "\x1b", "\x03", "\x04"),
}
STEP_HELP = "-- Right/space: next, Left/b: back, Home/g: first, End/G: last, j: go to ply, q: quit --"


def step_action(key: str) -> str:
    """What a key pressed while stepping does: any key not listed moves forward."""
    return next((action for action, keys in STEP_KEYS.items() if key in keys), "next")


def show_replay(record: GameRecord, step: bool, delay: float, colour: bool) -> None:
    """Print a game position by position; with ``step``, keys move back and forth."""
    _replay_header(record)
    positions = list(record.positions())
    last = len(positions) - 1
    ply = 0
    while True:
        move, state = positions[ply]
        _show_position(record, ply, move, state, colour)
        if not step:
            if ply == last:
                break
            ply += 1
            if delay:
                time.sleep(delay)
            continue
        click.echo(STEP_HELP + (" (last position)" if ply == last else ""), nl=False)
        action = step_action(click.getchar())
        click.echo("")
        if action == "quit":
            return
        if action == "next" and ply == last:
            break
        if action == "jump":
            ply = click.prompt(f"go to ply (0-{last})", type=click.IntRange(0, last), default=ply)
        else:
            ply = {"next": ply + 1, "back": max(0, ply - 1), "first": 0, "last": last}[action]
    click.echo("")
    click.echo(standings_table(record))


def _html_name(record: GameRecord) -> Path:
    return Path(re.sub(r"[^A-Za-z0-9_.+-]", "_", record.game_id) + ".html")


MAX_DELAY_S = 60.0


def _finite(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if not math.isfinite(value):  # FloatRange lets NaN through
        raise click.BadParameter(f"{value!r} is not a number of seconds")
    return value


def _has_terminal() -> bool:
    """Whether a key press can be read: from standard input, or from the controlling terminal."""
    if sys.stdin.isatty():
        return True
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY))
    except OSError:
        return False
    return True


@main.command("replay", short_help="Step through a saved game, or write its replay as an HTML page.")
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.argument("game_id", required=False)
@click.option(
    "--step",
    is_flag=True,
    help="Step with the keys: Right/space next, Left back, Home/End, j to jump to a ply (needs a terminal).",
)
@click.option(
    "--delay",
    type=click.FloatRange(0, MAX_DELAY_S),
    default=0.0,
    callback=_finite,
    help=f"Seconds to pause between moves (0 to {MAX_DELAY_S:g}).",
)
@click.option("--html", is_flag=True, help="Write the game's replay viewer as one HTML page instead.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --html: the page to write (default: GAME_ID.html here).",
)
@colour_option
def replay_cmd(
    source: Path,
    game_id: str | None,
    step: bool,
    delay: float,
    html: bool,
    output: Path | None,
    colour: bool | None,
) -> None:
    """Step through a saved game, or write its replay as an HTML page (--html).

    SOURCE is a game record (JSON, from 'arena play --save'), or a tournament's
    results folder (or its tournament file) followed by the GAME_ID that
    'arena games' lists. The HTML page needs nothing else (no network): a hex
    board to step through with the arrow keys, Home/End and space.
    """
    if step and not _has_terminal():
        raise click.UsageError(
            "--step waits for a key press, and there is no terminal here; use --delay SECONDS"
        )
    if game_id is None:
        if source.is_dir() or source.suffix in (".yaml", ".yml", ".sqlite"):
            raise click.UsageError(
                f"{str(source)!r} holds a tournament's games: give a GAME_ID too (see 'arena games {source}')"
            )
        record = load_record(source)
    else:
        from arena.cli.tournament_cmds import load_from_results

        record = load_from_results(source, game_id)
    try:
        record.replay()  # the record must lead to its own final position: checked before showing it
    except ArenaError as e:
        raise ArenaError(f"{source}: {e}") from None
    if output is not None and not html:
        raise click.UsageError("--output is for --html")
    if html:
        from arena.cli.report_cmds import write_page
        from arena.report import replay_page

        target = output or _html_name(record)
        write_page(target, replay_page(record))
        click.echo(f"wrote {target}; open it in a browser")
        return
    show_replay(record, step, delay, colour_wanted(colour))
