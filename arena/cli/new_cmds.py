"""``arena new LANG [FOLDER]``: a starter bot in one of the kits' languages."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.common import main
from arena.errors import ConfigError
from arena.kitfiles import KITS, kit_files, kit_language

DEFAULT_FOLDER = "my-bot"


def write_kit(language: str, folder: Path) -> list[str]:
    """Write the kit into ``folder`` (new or empty); the files written."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(f"{folder}: already exists and is not an empty folder; choose a new one")
    files = kit_files(language)
    for name, resource in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(resource.read_bytes())
    return [name for name, _ in files]


@main.command("new")
@click.argument("language", metavar="LANG")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def new_cmd(language: str, folder: Path | None) -> None:
    """Write a starter bot in LANG to FOLDER (default: my-bot).

    LANG is one of python, javascript, typescript, c, cpp, java, go, rust, csharp.
    The bot plays legal moves with a one-move lookahead; its kit speaks the whole
    protocol, so you change only the strategy. The folder's README says how to build,
    run, test and submit it; its bot.toml tells every arena command how, so
    'arena check FOLDER' needs nothing else.
    """
    key = kit_language(language)
    folder = folder or Path(DEFAULT_FOLDER)
    names = write_kit(key, folder)
    click.echo(f"wrote a {KITS[key][0]} bot in {folder}/: {', '.join(names)}")
    click.echo(f"next: read {folder}/README.md, then: arena check {folder}")


__all__ = ["new_cmd", "write_kit"]
