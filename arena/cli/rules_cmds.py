"""``arena perft``, ``arena show`` and ``arena board``: the rules engine at the prompt."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from arena.cli.common import ExitCode, PositionCommand, colour_option, colour_wanted, contact_option, main
from arena.rules import (
    BOARD_FILE_HELP,
    GameState,
    Params,
    divide,
    format_board_file,
    format_position,
    parse_board_file,
    parse_position,
    perft,
    random_board,
    render,
)
from arena.textfile import BOARD_FILE_MAX_BYTES, read_text

# Each ply multiplies the work by the number of moves (30 to 200): the publisher's start
# takes seconds at depth 4 and minutes at 5, so 12 is already far beyond any run that ends.
MAX_PERFT_DEPTH = 12


@main.command("perft", cls=PositionCommand)
@click.argument("position")
@click.argument("depth", type=click.IntRange(0, MAX_PERFT_DEPTH))
@click.option("--divide", "split", is_flag=True, help="Also print the count under each first move.")
def perft_cmd(position: str, depth: int, split: bool) -> None:
    """Count the leaf positions DEPTH plies below POSITION.

    POSITION is in the position notation (it may start with a negative
    coordinate, '-2,0:...'), or 'start' for the publisher's game with an empty
    table, or 'random:SEED:PLAYERS' for a random board with no herds yet.
    A finished game adds no leaves; a skipped turn is no ply.

    DEPTH is 0 to 12; the work grows about 30-200 times per ply (the
    publisher's start: seconds at 4, minutes at 5). Ctrl-C stops (exit 130).
    """
    state = _position_argument(position)
    started = time.perf_counter()
    try:
        if split:
            total = 0
            for move, count in divide(state, depth):
                click.echo(f"{move}: {count}")
                total += count
            click.echo("")
        else:
            total = perft(state, depth)
    except KeyboardInterrupt:
        elapsed = time.perf_counter() - started
        click.echo(f"\ninterrupted after {elapsed:.1f}s: perft({depth}) did not finish", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    elapsed = time.perf_counter() - started
    click.echo(f"perft({depth}) = {total}")
    click.echo(f"{elapsed:.3f}s, {total / elapsed if elapsed else 0:,.0f} leaves/s", err=True)


def _position_argument(text: str) -> GameState:
    if text == "start":
        return GameState(Params())
    if text.startswith("random:"):
        parts = text.split(":")
        if len(parts) != 3 or not all(p.isdigit() and len(p) <= 20 for p in parts[1:]):
            raise click.BadParameter(f"expected random:SEED:PLAYERS (whole numbers), got {text[:60]!r}")
        players = int(parts[2])
        params = Params(players=players)
        return GameState(params, random_board(int(parts[1]), params.tiles * players))
    return parse_position(text)


@main.command("show", cls=PositionCommand)
@click.argument("position")
@colour_option
def show_cmd(position: str, colour: bool | None) -> None:
    """Draw POSITION as a hex board in the terminal.

    A POSITION may start with a negative coordinate ('-2,0:...'): it is still
    read as the position, not as an option.

    \b
    The position notation, fields separated by spaces:
      BOARD PHASE TURN [OPTIONS]
    BOARD  rows separated by '/', top row first, each row from the same q;
           '_' no pasture, '.' empty pasture, 'a16' a stack of 16 of player a,
           a number after '_' or '.' repeats it ('.3' = '...');
           an optional 'Q,R:' prefix gives the first cell's coordinates.
    PHASE  tiles | herds | moves | over
    TURN   the player to move, a-d ('-' when over)
    OPTIONS players=N sheep=N tiles=N contact=1|2 holeborder=0|1
           left=N,N (tiles still held) forfeit=LETTERS daisies=Q,R:N;Q,R:N
    Example: 'a16.../....b16. moves a players=2'
    """
    state = _position_argument(position)
    click.echo(render(state, colour=colour_wanted(colour)))
    click.echo(format_position(state))


@main.command("board")
@click.option("--seed", type=int, default=1, show_default=True, help="Same seed, same board.")
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Players the board is for."
)
@click.option("--tiles", type=click.IntRange(1, 64), default=4, show_default=True, help="Tiles per player.")
@contact_option
@click.option(
    "--file",
    "file_",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read this board file instead of generating one (at most 1 MiB, 1024 hexes).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["all", "file", "picture", "position"]),
    default="all",
    show_default=True,
    help="What to print: the board file, the picture, the position, or all three.",
)
@colour_option
def board_cmd(
    seed: int, players: int, tiles: int, contact: str, file_: Path | None, fmt: str, colour: bool | None
) -> None:
    """Print a random board (or check and show a board file).

    \b
    Save one with:  arena board --seed 7 --format file > my.board
    """
    params = Params(players=players, tiles=tiles, contact=int(contact))
    if file_ is not None:
        board = parse_board_file(read_text(file_, "board file", BOARD_FILE_MAX_BYTES), str(file_))
    else:
        board = random_board(seed, players * tiles, params.contact)
    state = GameState(params, board)
    if fmt in ("all", "file"):
        if fmt == "all":
            click.echo(f"# board file ({board.size} hexes)")
        click.echo(format_board_file(board), nl=False)
    if fmt in ("all", "picture"):
        if fmt == "all":
            click.echo("# picture")
        click.echo(render(state, colour=colour_wanted(colour)))
    if fmt in ("all", "position"):
        if fmt == "all":
            click.echo("# position")
        click.echo(format_position(state))


board_cmd.help = (board_cmd.help or "") + "\n\n\b\n" + BOARD_FILE_HELP
