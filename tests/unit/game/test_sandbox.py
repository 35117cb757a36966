"""The sandbox's settings, its fallback, sandboxed builds and old records.

The attacks of hostile bots on a sandboxed game are in test_sandbox_attacks.py.

The cases that need no process; the others are in tests/system/game/test_sandbox.py.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.game.sandbox import bwrap as sandbox
from arena.game.sandbox import cgroups
from arena.league.config import parse_config

REPO = Path(__file__).resolve().parents[3]
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"


# -- settings ---------------------------------------------------------------------------------


def config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(body))
    return path


def test_sandbox_settings_are_read_per_bot_over_the_top_level(tmp_path: Path) -> None:
    (tmp_path / "bots" / "b").mkdir(parents=True)
    path = config(
        tmp_path,
        """\
        sandbox: bwrap
        limits: {tasks: 64, cpus: 0.5, tmp_mb: 16}
        output: bots/results
        bots:
          - {name: a, command: ./a, cwd: bots, network: true, writable: true, readable: [/srv/tools]}
          - {name: b, command: ./b, cwd: bots/b, sandbox: none, build_network: true, limits: {tmp_mb: 8}}
        """,
    )
    cfg = parse_config(path.read_text(), path)
    a, b = cfg.bots
    assert (a.sandbox.mode, a.sandbox.network, a.sandbox.writable) == ("bwrap", True, True)
    assert a.sandbox.paths == ("/srv/tools",) and a.sandbox.tmp_mb == 16
    assert (a.limits.tasks, a.limits.cpus) == (64, 0.5)
    # The results folder and b's folder lie inside a's: both are hidden from a.
    assert a.sandbox.hidden == tuple(
        sorted([str(tmp_path / "bots" / "b"), str(tmp_path / "bots" / "results")])
    )
    # The results folder is hidden from b wherever b might see it; a's folder holds b's own.
    assert (b.sandbox.mode, b.build_network, b.sandbox.tmp_mb) == ("none", True, 8)
    assert b.sandbox.hidden == (str(tmp_path / "bots" / "results"),)
    assert cfg.build_timeout_ms == 600_000
    assert cfg.build_mb == 1024
    assert parse_config(path.read_text() + "build_mb: 64\n", path).build_mb == 64


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("sandbox: docker\n", "t.yaml:1: 'sandbox' must be one of auto, bwrap, none"),
        (
            "bots:\n  - {name: a, command: x, network: yes-please}\n",
            "t.yaml:2: 'bots[0].network' must be true or false",
        ),
        ("limits: {tasks: 0}\n", "t.yaml:1: 'limits.tasks' must be positive"),
        ("limits: {cpus: 0}\n", "t.yaml:1: 'limits.cpus' must be from 0.01 to 1024 cores"),
        ("limits: {tmp_mb: 100000}\n", "t.yaml:1: 'limits.tmp_mb' must be from 1 to 65536"),
        ("build_timeout: 0s\n", "t.yaml:1: 'build_timeout' must be more than 0"),
        ("build_mb: 0\n", "t.yaml:1: 'build_mb' must be from 1 to 65536 (MiB)"),
        (
            "bots:\n  - {name: a, command: x, readable: [1]}\n",
            "t.yaml:2: 'bots[0].readable' must be a list of paths",
        ),
    ],
)
def test_bad_sandbox_settings_name_file_line_and_key(tmp_path: Path, body: str, message: str) -> None:
    if not body.startswith("bots"):
        body += "bots:\n  - {name: a, command: x}\n  - {name: b, command: y}\n"
    else:
        body += "  - {name: b, command: y}\n"
    path = config(tmp_path, body)
    with pytest.raises(ConfigError) as e:
        parse_config(path.read_text(), path)
    assert str(e.value).startswith(str(path)) and message.split(":", 2)[2].strip() in str(e.value), e.value
    assert f"{path}:{message.split(':')[1]}:" in str(e.value)


# -- when bubblewrap cannot be had -------------------------------------------------------------


def test_required_sandbox_that_cannot_be_had_is_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "bubblewrap is not installed (test)")
    for command in (["play", RANDOM, RANDOM, "--sandbox", "-q"], ["check", RANDOM, "--sandbox", "-q"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, result.output
        assert "sandbox was asked for and cannot be had: bubblewrap is not installed (test)" in result.output


def test_run_refuses_a_required_sandbox_before_any_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "bubblewrap is not installed (test)")
    path = config(
        tmp_path,
        f"""\
        sandbox: bwrap
        bots:
          - {{name: a, command: {json.dumps(RANDOM)}}}
          - {{name: b, command: {json.dumps(RANDOM)}}}
        """,
    )
    result = CliRunner().invoke(main, ["run", str(path), "-q"])
    assert result.exit_code == 2, result.output
    assert f"{path}:3: bot 'a': a sandbox was asked for and cannot be had" in result.output
    assert not (tmp_path / "results").exists()


# -- records ------------------------------------------------------------------------------------


# -- builds -----------------------------------------------------------------------------------


# -- text and links a bot's author controls ---------------------------------------------------


# -- bots in other languages run in the sandbox -----------------------------------------------


def test_the_kit_folder_bound_into_every_sandbox_is_the_one_holding_this_arena() -> None:
    # Computed from a file's place; a module moved a level deeper must not bind another folder.
    import arena
    import arena.botkit

    kit = Path(sandbox.arena_kit_dir())
    assert (kit / "arena" / "__init__.py").resolve() == Path(arena.__file__).resolve()
    assert (kit / "arena" / "botkit.py").resolve() == Path(arena.botkit.__file__).resolve()


# -- cgroups: names another process left behind -------------------------------------------------


@pytest.mark.skipif(cgroups.support() is None, reason="no cgroup the arena may use here")
def test_a_cgroup_left_under_the_next_name_is_passed_over_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # A dead arena's cgroup keeps its pid's name, and the kernel gives that pid out again: the
    # folder is not this arena's to use or remove.  (It once was removed, and the bot then ran
    # without a cgroup.)
    support = cgroups.support()
    assert support is not None
    taken = itertools.count(10**9)  # far from the counter this process uses
    leftover = f"{cgroups.PREFIX}{os.getpid()}-{next(taken)}"
    monkeypatch.setattr(cgroups, "_counter", itertools.count(10**9))
    dirs = [parent / leftover for parent in support.parents.values()]
    for d in dirs:
        d.mkdir()
    try:
        group = support.create(cgroups.CgroupLimits(memory_mb=64, tasks=8, cpus=1))
        try:
            assert group.name == f"{cgroups.PREFIX}{os.getpid()}-{10**9 + 1}"
            assert all(d.is_dir() for d in group.dirs.values())
        finally:
            group.remove()
        assert not any(d.exists() for d in group.dirs.values())
        assert all(d.is_dir() for d in dirs), "another process's cgroup was removed"
    finally:
        for d in dirs:
            d.rmdir()


def test_the_files_hidden_folders_are_masked_for_every_bot_like_the_results(tmp_path: Path) -> None:
    path = config(
        tmp_path,
        """
        name: t
        hidden: [secrets, /srv/keys]
        bots:
          - {name: a, command: ./a}
          - {name: b, command: ./b, cwd: b}
        """,
    )
    a, b = parse_config(path.read_text(), path).bots
    for hidden in (str(tmp_path / "secrets"), "/srv/keys"):
        assert hidden in a.sandbox.hidden and hidden in b.sandbox.hidden and hidden in b.sandbox.never_shown
    with pytest.raises(ConfigError, match=r"t\.yaml:\d+: .*hidden.*must be a list of paths"):
        parse_config("name: t\nhidden: [7]\nbots: [{name: a, command: ./a}, {name: b, command: ./b}]\n", path)


@pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")
def test_a_builds_capped_folder_is_a_tmpfs_of_build_mb_in_place_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "results").mkdir(parents=True)
    policy = sandbox.SandboxPolicy(writable=True, folder_mb=8, hidden=(str(folder / "results"),))
    argv = sandbox.bwrap_command(policy, ["/bin/true"], folder, {}, sandbox.SandboxFds(10, 11, 12), None)
    i = next(j for j, a in enumerate(argv) if a == "--tmpfs" and argv[j + 1] == str(folder))
    assert argv[i - 4 : i + 2] == ["--size", str(8 * 1024 * 1024), "--perms", "0755", "--tmpfs", str(folder)]
    # The host's folder is never bound: the build writes only the tmpfs (filled by the arena);
    # a hidden folder in it was never copied there, so there is nothing to mask.
    assert str(folder) not in [argv[j + 1] for j, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert str(folder / "results") not in argv


@pytest.mark.parametrize("mb", [0, 65537])
def test_a_capped_folder_out_of_bounds_is_refused_naming_build_mb(mb: int) -> None:
    with pytest.raises(ConfigError, match=f"build_mb must be from 1 to 65536, got {mb}"):
        sandbox.SandboxPolicy(folder_mb=mb)
