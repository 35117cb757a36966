"""A bot's folder says how it is built and run: its ``bot.toml``, or its main file.

Every place that names a bot takes its folder alone (``arena check my-bot``,
``arena play my-bot other``, a league file's ``path:``, ``arena submit URL my-bot``,
the ladder's form): :func:`resolve` reads the folder's ``bot.toml`` (``command``, and
``build`` if it has one) or, without one, recognises its main file as Halite did
(``MyBot.py``, ``MyBot.c``, ``Cargo.toml``...) and gives the usual build and command,
with the rule it used.  :func:`missing_toolchain` says in one line which program of
a build or a command is not installed (and its Debian package), before anything runs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError

BOT_FILE = "bot.toml"
BOT_FILE_MAX_BYTES = 64 * 1024
BOT_FILE_KEYS = ("command", "build")

# The Debian package of each program the conventions (and the kits) run.
DEBIAN_PACKAGES = {
    "python3": "python3",
    "node": "nodejs",
    "tsc": "node-typescript",
    "cc": "gcc",
    "gcc": "gcc",
    "c++": "g++",
    "g++": "g++",
    "make": "make",
    "javac": "default-jdk-headless",
    "java": "default-jdk-headless",
    "go": "golang-go",
    "cargo": "cargo",
    "rustc": "rustc",
    "mcs": "mono-mcs",
    "mono": "mono-runtime",
}


@dataclass(frozen=True)
class BotFolder:
    """How the bot in ``folder`` is built (``build``, or None) and started (``command``, in
    the folder), and the rule that said so (``bot.toml``, ``MyBot.c (C)``)."""

    folder: Path
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    rule: str

    def describe(self) -> str:
        """One line for the terminal: the folder, the rule, the build and the command."""
        build = f"build {shlex.join(self.build)!r}, " if self.build else ""
        return f"{self.folder}: {self.rule}: {build}run {shlex.join(self.command)!r}"


@dataclass(frozen=True)
class Convention:
    """A main file and what it means: its language, its build and its command."""

    main: str
    language: str
    build: Callable[[Path], tuple[str, ...] | None]
    command: Callable[[Path], tuple[str, ...]]


def _sources(folder: Path, suffix: str) -> tuple[str, ...]:
    """The folder's own files of one language, in a fixed order (what a build compiles)."""
    return tuple(sorted(p.name for p in folder.iterdir() if p.suffix == suffix and p.is_file()))


def _go_build(folder: Path) -> tuple[str, ...]:
    # Go writes its build cache under $HOME, which is the bot's folder outside the sandbox.
    target = "." if (folder / "go.mod").is_file() else "MyBot.go"
    return ("env", "GOCACHE=/tmp/go-cache", "GOTOOLCHAIN=local", "go", "build", "-o", "MyBot", target)


def _cargo_binary(folder: Path) -> tuple[str, ...]:
    """``target/release/NAME``: the one binary of the package that Cargo.toml names."""
    where = folder / "Cargo.toml"
    manifest = _read_toml(where)
    bins = manifest.get("bin")
    name: object = None
    if isinstance(bins, list) and len(bins) == 1 and isinstance(bins[0], dict):
        name = bins[0].get("name")
    else:
        package = manifest.get("package")
        name = package.get("name") if isinstance(package, dict) else None
    if not isinstance(name, str) or not name or "/" in name:
        raise ConfigError(f"{where}: 'package.name' must name the bot's binary (a string), got {name!r}")
    return (f"./target/release/{name}",)


CONVENTIONS = (
    Convention("MyBot.py", "Python", lambda f: None, lambda f: ("python3", "MyBot.py")),
    # A TypeScript bot's compiled MyBot.js goes to build/; one left beside MyBot.ts is its output.
    Convention(
        "MyBot.ts",
        "TypeScript",
        lambda f: ("tsc", "--strict", "--target", "es2020", "--module", "commonjs", "--outDir", "build", "MyBot.ts"),
        lambda f: ("node", "build/MyBot.js"),
    ),
    Convention("MyBot.js", "JavaScript", lambda f: None, lambda f: ("node", "MyBot.js")),
    Convention(
        "MyBot.c",
        "C",
        lambda f: ("cc", "-O2", "-std=c11", "-Wall", "-o", "MyBot", *_sources(f, ".c"), "-lm"),
        lambda f: ("./MyBot",),
    ),
    Convention(
        "MyBot.cpp",
        "C++",
        lambda f: ("g++", "-O2", "-std=c++17", "-Wall", "-o", "MyBot", *_sources(f, ".cpp")),
        lambda f: ("./MyBot",),
    ),
    Convention(
        "MyBot.java",
        "Java",
        lambda f: ("javac", "-encoding", "UTF-8", *_sources(f, ".java")),
        # A heap well below the sandbox's 2 GB and a fast start (protocol/PROTOCOL.md, the JVM).
        lambda f: ("java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", ".", "MyBot"),
    ),
    Convention("MyBot.go", "Go", _go_build, lambda f: ("./MyBot",)),
    Convention(
        "Cargo.toml",
        "Rust",
        lambda f: ("cargo", "build", "--release", "--offline", "--quiet"),
        _cargo_binary,
    ),
    Convention(
        "MyBot.cs",
        "C#",
        lambda f: ("mcs", "-optimize+", "-out:MyBot.exe", *_sources(f, ".cs")),
        lambda f: ("mono", "MyBot.exe"),
    ),
)
LOOKED_FOR = (BOT_FILE, *(c.main for c in CONVENTIONS))


def resolve(folder: Path, shown: str | None = None) -> BotFolder:
    """How to build and run the bot in ``folder``; a ConfigError in one line when its
    ``bot.toml`` is wrong, or when no main file (or more than one) says what it is.
    Messages name the folder as ``shown`` (the ladder's "the archive"), else by its path."""
    label = shown or str(folder)
    if not folder.is_dir():
        raise ConfigError(f"{label}: not a folder")
    if (folder / BOT_FILE).is_file():
        return _from_bot_file(folder, label)
    found = [c for c in CONVENTIONS if (folder / c.main).is_file()]
    if len(found) == 2 and [c.main for c in found] == ["MyBot.ts", "MyBot.js"]:
        found = found[:1]  # MyBot.js is what tsc made of MyBot.ts
    if not found:
        raise ConfigError(f"{label}: no bot here: looked for {', '.join(LOOKED_FOR)}")
    if len(found) > 1:
        raise ConfigError(
            f"{label}: which bot? it has {' and '.join(c.main for c in found)}: keep one main file, "
            f"or say how to build and run it in {BOT_FILE} (looked for {', '.join(LOOKED_FOR)})"
        )
    c = found[0]
    try:
        return BotFolder(folder, c.command(folder), c.build(folder), f"{c.main} ({c.language})")
    except ConfigError as e:
        raise ConfigError(str(e).replace(str(folder), label, 1)) from None


def _read_toml(where: Path) -> dict[str, object]:
    try:
        with where.open("rb") as f:
            data = f.read(BOT_FILE_MAX_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{where}: cannot read it: {e.strerror or e}") from None
    if len(data) > BOT_FILE_MAX_BYTES:
        raise ConfigError(f"{where}: longer than {BOT_FILE_MAX_BYTES} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where}: not TOML: {e}") from None


def _from_bot_file(folder: Path, label: str) -> BotFolder:
    where = Path(label) / BOT_FILE
    try:
        table = _read_toml(folder / BOT_FILE)
    except ConfigError as e:
        raise ConfigError(str(e).replace(str(folder / BOT_FILE), str(where), 1)) from None
    for key in table:
        if key not in BOT_FILE_KEYS:
            raise ConfigError(f"{where}: unknown key {key[:100]!r} (a bot.toml has {' and '.join(BOT_FILE_KEYS)})")
    if "command" not in table:
        raise ConfigError(f"{where}: 'command' is required: how the bot starts in its folder, e.g. command = \"./MyBot\"")
    command = _words(where, "command", table["command"])
    build = _words(where, "build", table["build"]) if "build" in table else None
    return BotFolder(folder, command, build, BOT_FILE)


def _words(where: Path, key: str, value: object) -> tuple[str, ...]:
    """A command: a string split like a shell does, or a list of strings."""
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as e:
            raise ConfigError(f"{where}: {key!r}: cannot split {value[:200]!r} like a shell: {e}") from None
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = list(value)
    else:
        raise ConfigError(f"{where}: {key!r} must be a string or a list of strings, got {repr(value)[:200]}")
    if not words:
        raise ConfigError(f"{where}: {key!r} is empty")
    return tuple(words)


def program_of(argv: Sequence[str]) -> str:
    """The program a command runs: its first word, past ``env NAME=VALUE ...``."""
    words = list(argv)
    if words and Path(words[0]).name == "env":
        words = [w for w in words[1:] if "=" not in w or w.startswith("-")][:1] or words[:1]
    return words[0]


def missing_program(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str | None:
    """The program a command runs when it is not installed (not on PATH), with its Debian
    package in words (``'go' (Debian package golang-go)``); None when it is there, or when
    it is a path (a program in the bot's folder is its build's to make)."""
    program = program_of(argv)
    if "/" in program:
        return None
    path = (env or {}).get("PATH", os.environ.get("PATH", ""))
    if shutil.which(program, path=path) is not None:
        return None
    package = DEBIAN_PACKAGES.get(program)
    return f"{program!r}" + (f" (Debian package {package})" if package else "")


def missing_toolchain(bot: BotFolder, env: Mapping[str, str] | None = None) -> str | None:
    """One line naming the program the build or the command needs that is not installed
    (with its Debian package), or None."""
    for what, argv in (("build", bot.build), ("command", bot.command)):
        missing = None if argv is None else missing_program(argv, env)
        if missing is not None:
            return f"{bot.folder}: its {what} needs {missing}, which is not installed here (not on PATH)"
    return None
