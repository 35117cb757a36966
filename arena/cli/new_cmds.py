"""``arena new LANG [FOLDER]``: a starter bot in one of the kits' languages."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import click

from arena.cli.common import main
from arena.errors import ConfigError

# The kits' folders (kits/ in the repository, arena/kits in the package), by the names a user
# types; the first name of each is its folder.
LANGUAGES = {
    "python": ("python", "Python", ("py",)),
    "javascript": ("javascript", "JavaScript (Node.js)", ("js", "node")),
    "typescript": ("typescript", "TypeScript", ("ts",)),
    "c": ("c", "C", ()),
    "cpp": ("cpp", "C++", ("c++",)),
    "java": ("java", "Java", ()),
    "go": ("go", "Go", ("golang",)),
    "rust": ("rust", "Rust", ("rs",)),
    "csharp": ("csharp", "C# (Mono)", ("cs", "c#")),
}
DEFAULT_FOLDER = "my-bot"


def kit_language(name: str) -> str:
    """The kit a user means by ``name`` (``js``, ``C++``...); one line listing them otherwise."""
    wanted = name.lower()
    for key, (_folder, _title, aliases) in LANGUAGES.items():
        if wanted == key or wanted in aliases:
            return key
    raise ConfigError(f"no kit for {name!r}: the languages are {', '.join(LANGUAGES)}")


def kit_files(language: str) -> list[tuple[str, Traversable]]:
    """Every file of a kit, as (path inside the kit, its resource), in a fixed order."""
    root = resources.files("arena").joinpath("kits", LANGUAGES[language][0])
    files: list[tuple[str, Traversable]] = []

    def walk(node: Traversable, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            else:
                files.append((prefix + child.name, child))

    walk(root, "")
    return files


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
    click.echo(f"wrote a {LANGUAGES[key][1]} bot in {folder}/: {', '.join(names)}")
    click.echo(f"next: read {folder}/README.md, then: arena check {folder}")


__all__ = ["kit_language", "new_cmd", "write_kit"]
