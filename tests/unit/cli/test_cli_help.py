"""Every ``arena`` command and option says what it is for, and ``arena --help`` cuts no summary."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from arena.check import MIN_CONFORMANCE_GAMES
from arena.cli import main


def commands(cmd: click.Command = main, path: tuple[str, ...] = ("arena",)) -> Iterator[tuple[str, click.Command]]:
    yield " ".join(path), cmd
    if isinstance(cmd, click.Group):  # (by name: the arena's group imports a command when asked for it)
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            assert sub is not None, name
            yield from commands(sub, (*path, name))


COMMANDS = dict(commands())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_and_option_has_a_help_text(name: str) -> None:
    cmd = COMMANDS[name]
    assert (cmd.help or "").strip(), f"{name}: no help text"
    options = [p for p in cmd.get_params(click.Context(cmd)) if isinstance(p, click.Option) and not p.hidden]
    missing = [p.opts[0] for p in options if not (p.help or "").strip()]
    assert not missing, f"{name}: options without a help text: {missing}"


def test_the_walk_sees_every_command_and_their_options() -> None:
    assert {"arena run", "arena standings", "arena check", "arena play", "arena replay"} <= set(COMMANDS)
    check_options = {o for p in COMMANDS["arena check"].params for o in p.opts}
    assert {"--alpha", "--beta", "--conformance-games"} <= check_options


@pytest.mark.parametrize("columns", [60, 80, 200])
def test_arena_help_cuts_no_command_summary(columns: int) -> None:
    result = CliRunner().invoke(main, ["--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    listed = result.output.split("Commands:")[1]
    assert "..." not in listed, listed
    for name, cmd in ((n, COMMANDS[f"arena {n}"]) for n in main.list_commands(click.Context(main))):
        # each summary whole: its words in order
        summary = " ".join(listed.split(f"\n  {name} ", 1)[1].split("\n  ")[0].split())
        first = re.sub(r"\s+", " ", cmd.short_help or (cmd.help or "").split(".")[0])
        assert summary.startswith(first.split(".")[0]), (name, summary)


def test_conformance_games_says_and_accepts_its_real_range() -> None:
    option = next(p for p in COMMANDS["arena check"].params if p.name == "conformance_games")
    assert isinstance(option.type, click.IntRange)
    assert (option.type.min, option.type.max) == (MIN_CONFORMANCE_GAMES, 10_000)
    assert f"{MIN_CONFORMANCE_GAMES} to 10000" in (option.help or "")
    ctx = click.Context(COMMANDS["arena check"])
    assert option.type.convert(str(MIN_CONFORMANCE_GAMES), option, ctx) == MIN_CONFORMANCE_GAMES
    with pytest.raises(click.BadParameter):
        option.type.convert(str(MIN_CONFORMANCE_GAMES - 1), option, ctx)
