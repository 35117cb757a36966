"""A bot's folder says how it is built and run: its bot.toml, else its one main file; a folder
that says nothing, or two things, or a bot.toml that is wrong, is one line naming the file,
the key or the files looked for; a toolchain that is not installed is one line too."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.game.convention import LOOKED_FOR, missing_toolchain, program_of, resolve


def folder_with(tmp_path: Path, files: dict[str, str]) -> Path:
    bot = tmp_path / "bot"
    for name, text in files.items():
        (bot / name).parent.mkdir(parents=True, exist_ok=True)
        (bot / name).write_text(text, encoding="utf-8")
    bot.mkdir(exist_ok=True)
    return bot


CARGO = '[package]\nname = "sheepy"\nversion = "0.1.0"\n'

RULES = [
    pytest.param({"MyBot.py": ""}, None, ("python3", "MyBot.py"), "MyBot.py (Python)", id="python"),
    pytest.param({"MyBot.js": ""}, None, ("node", "MyBot.js"), "MyBot.js (JavaScript)", id="javascript"),
    pytest.param(
        {"MyBot.ts": "", "sheep.ts": ""},
        ("tsc", "--strict", "--target", "es2020", "--module", "commonjs", "--outDir", "build", "MyBot.ts"),
        ("node", "build/MyBot.js"),
        "MyBot.ts (TypeScript)",
        id="typescript",
    ),
    pytest.param(
        {"MyBot.c": "", "util.c": "", "util.h": ""},
        ("cc", "-O2", "-std=c11", "-Wall", "-o", "MyBot", "MyBot.c", "util.c", "-lm"),
        ("./MyBot",),
        "MyBot.c (C)",
        id="c",
    ),
    pytest.param(
        {"MyBot.cpp": "", "board.cpp": ""},
        ("g++", "-O2", "-std=c++17", "-Wall", "-o", "MyBot", "MyBot.cpp", "board.cpp"),
        ("./MyBot",),
        "MyBot.cpp (C++)",
        id="cpp",
    ),
    pytest.param(
        {"MyBot.java": "", "Board.java": ""},
        ("javac", "-encoding", "UTF-8", "Board.java", "MyBot.java"),
        ("java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", ".", "MyBot"),
        "MyBot.java (Java)",
        id="java",
    ),
    pytest.param(
        {"MyBot.go": ""},
        ("env", "GOCACHE=/tmp/go-cache", "GOTOOLCHAIN=local", "go", "build", "-o", "MyBot", "MyBot.go"),
        ("./MyBot",),
        "MyBot.go (Go)",
        id="go-file",
    ),
    pytest.param(
        {"MyBot.go": "", "go.mod": "module mybot\n"},
        ("env", "GOCACHE=/tmp/go-cache", "GOTOOLCHAIN=local", "go", "build", "-o", "MyBot", "."),
        ("./MyBot",),
        "MyBot.go (Go)",
        id="go-module",
    ),
    pytest.param(
        {"Cargo.toml": CARGO, "src/main.rs": ""},
        ("cargo", "build", "--release", "--offline", "--quiet"),
        ("./target/release/sheepy",),
        "Cargo.toml (Rust)",
        id="rust",
    ),
    pytest.param(
        {"Cargo.toml": CARGO + '\n[[bin]]\nname = "the-bot"\npath = "src/main.rs"\n'},
        ("cargo", "build", "--release", "--offline", "--quiet"),
        ("./target/release/the-bot",),
        "Cargo.toml (Rust)",
        id="rust-bin",
    ),
    pytest.param(
        {"MyBot.cs": "", "Board.cs": ""},
        ("mcs", "-optimize+", "-out:MyBot.exe", "Board.cs", "MyBot.cs"),
        ("mono", "MyBot.exe"),
        "MyBot.cs (C#)",
        id="csharp",
    ),
]


@pytest.mark.parametrize(("files", "build", "command", "rule"), RULES)
def test_a_folder_without_bot_toml_is_known_by_its_main_file(
    tmp_path: Path, files: dict[str, str], build: tuple[str, ...] | None, command: tuple[str, ...], rule: str
) -> None:
    bot = resolve(folder_with(tmp_path, files))
    assert (bot.build, bot.command, bot.rule) == (build, command, rule)
    assert f"{rule}: " in bot.describe() and "run " in bot.describe()


def test_a_typescript_bot_s_compiled_mybot_js_beside_it_is_no_second_bot(tmp_path: Path) -> None:
    bot = resolve(folder_with(tmp_path, {"MyBot.ts": "", "MyBot.js": ""}))
    assert bot.rule == "MyBot.ts (TypeScript)"


def test_bot_toml_wins_over_a_main_file_and_takes_strings_or_lists(tmp_path: Path) -> None:
    toml = 'command = ["java", "-jar", "my bot.jar"]\nbuild = "make -s all"\n'
    bot = resolve(folder_with(tmp_path, {"bot.toml": toml, "MyBot.c": ""}))
    assert (bot.command, bot.build, bot.rule) == (("java", "-jar", "my bot.jar"), ("make", "-s", "all"), "bot.toml")
    only = resolve(folder_with(tmp_path / "x", {"bot.toml": "command = './run --fast'"}))
    assert (only.command, only.build) == (("./run", "--fast"), None)


def test_two_main_files_are_one_line_naming_them_and_what_was_looked_for(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {"MyBot.py": "", "MyBot.c": ""})
    with pytest.raises(ConfigError) as e:
        resolve(folder)
    assert str(e.value) == (
        f"{folder}: which bot? it has MyBot.py and MyBot.c: keep one main file, or say how to build and run it "
        f"in bot.toml (looked for {', '.join(LOOKED_FOR)})"
    )


def test_a_folder_with_no_bot_is_one_line_naming_every_file_looked_for(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {"bot.py": "", "Makefile": ""})
    with pytest.raises(ConfigError) as e:
        resolve(folder)
    assert str(e.value) == (
        f"{folder}: no bot here: looked for bot.toml, MyBot.py, MyBot.ts, MyBot.js, MyBot.c, MyBot.cpp, "
        "MyBot.java, MyBot.go, Cargo.toml, MyBot.cs"
    )
    assert "\n" not in str(e.value)
    with pytest.raises(ConfigError, match="not a folder"):
        resolve(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("command = ", "bot.toml: not TOML: ", id="not-toml"),
        pytest.param('comand = "./x"\n', "bot.toml: unknown key 'comand' (a bot.toml has command and build)", id="typo"),
        pytest.param('build = "make"\n', "bot.toml: 'command' is required: how the bot starts in its folder", id="no-command"),
        pytest.param("command = 3\n", "bot.toml: 'command' must be a string or a list of strings, got 3", id="number"),
        pytest.param('command = ["./x", 1]\n', "bot.toml: 'command' must be a string or a list of strings, got ['./x', 1]", id="list-of-number"),
        pytest.param('command = ""\n', "bot.toml: 'command' is empty", id="empty"),
        pytest.param('command = "./x"\nbuild = []\n', "bot.toml: 'build' is empty", id="empty-build"),
        pytest.param("command = \"'unclosed\"\n", "bot.toml: 'command': cannot split \"'unclosed\" like a shell", id="quote"),
    ],
)
def test_a_wrong_bot_toml_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    folder = folder_with(tmp_path, {"bot.toml": text, "MyBot.py": ""})
    with pytest.raises(ConfigError) as e:
        resolve(folder)
    assert str(e.value).startswith(f"{folder}/{message}"), str(e.value)
    assert "\n" not in str(e.value)


def test_a_wrong_bot_toml_is_named_as_the_caller_shows_the_folder(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {"bot.toml": "command = \n"})
    with pytest.raises(ConfigError) as e:
        resolve(folder, shown="the archive")
    assert str(e.value).startswith("the archive/bot.toml: not TOML: ") and str(tmp_path) not in str(e.value)


def test_a_bot_toml_that_is_not_utf8_or_too_long_is_refused(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    (folder / "bot.toml").write_bytes(b'command = "\xff"\n')
    with pytest.raises(ConfigError, match=r"bot.toml: not UTF-8 text"):
        resolve(folder)
    (folder / "bot.toml").write_text("# " + "x" * 70_000 + '\ncommand = "./x"\n')
    with pytest.raises(ConfigError, match=r"bot.toml: longer than 65536 bytes"):
        resolve(folder)


def test_a_cargo_toml_without_a_package_name_is_one_line(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {"Cargo.toml": "[package]\nversion = '1'\n"})
    with pytest.raises(ConfigError) as e:
        resolve(folder)
    assert str(e.value) == f"{folder}/Cargo.toml: 'package.name' must name the bot's binary (a string), got None"


def test_a_missing_toolchain_is_one_line_naming_the_program_and_its_debian_package(tmp_path: Path) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    go = resolve(folder_with(tmp_path, {"MyBot.go": ""}))
    assert missing_toolchain(go, {"PATH": str(empty)}) == (
        f"{go.folder}: its build needs 'go' (Debian package golang-go), which is not installed here (not on PATH)"
    )
    toml = resolve(folder_with(tmp_path / "t", {"bot.toml": 'command = "mono MyBot.exe"\n'}))
    assert missing_toolchain(toml, {"PATH": str(empty)}) == (
        f"{toml.folder}: its command needs 'mono' (Debian package mono-runtime), which is not installed here (not on PATH)"
    )
    own = resolve(folder_with(tmp_path / "o", {"bot.toml": 'command = "./MyBot"\nbuild = "./build.sh"\n'}))
    assert missing_toolchain(own, {"PATH": str(empty)}) is None  # the folder's own programs: the build's to make
    tool = empty / "go"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert missing_toolchain(go, {"PATH": str(empty)}) is None


def test_the_program_of_a_command_is_past_env_assignments() -> None:
    assert program_of(("env", "GOCACHE=/tmp/c", "go", "build")) == "go"
    assert program_of(("/usr/bin/env", "A=1", "B=2", "cc", "x.c")) == "cc"
    assert program_of(("make", "-s")) == "make"
