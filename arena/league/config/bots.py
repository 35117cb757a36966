"""The ``bots`` list of a tournament file: each bot's command, folder, environment and sandbox.

A bot is given by its command (``command``, run in ``cwd``) or by its folder alone (``path``,
or a ``cwd`` without ``command``): then its ``bot.toml`` or main file says how it is built
and run (:mod:`arena.game.convention`), and its name defaults to the folder's.

Also :func:`find_program`, which says where a bot's program is before anything runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import ConfigError
from arena.game.convention import BotFolder, resolve
from arena.game.limits import ResourceLimits
from arena.game.sandbox import network
from arena.game.sandbox.bwrap import MODES, SandboxPolicy
from arena.game.turnlog import LogBounds
from arena.league.config.model import BotConfig
from arena.league.config.reader import Reader, beside, kind_of
from arena.league.config.sections import LIMIT_KEYS, LOG_KEYS, read_limits, read_logs
from arena.league.config.yamlfile import Node
from arena.protocol import NAME_RE

BOT_KEYS = {
    "name",
    "path",
    "command",
    "build",
    "cwd",
    "env",
    "limits",
    "sandbox",
    "network",
    "build_network",
    "allow",
    "writable",
    "readable",
    "retired",
    "logs",
}
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class BotDefaults:
    """What the top level of the file sets for every bot that does not say otherwise."""

    cwd: Path
    sandbox: str  # one of the sandbox MODES
    limits: ResourceLimits
    tmp_mb: int
    base_dir: Path  # the tournament file's folder: relative paths start there
    logs: LogBounds = field(default_factory=LogBounds)


def read_bots(top: Reader, defaults: BotDefaults) -> tuple[Node, list[BotConfig]]:
    """``bots``: the list's node (for later messages) and each bot, names unique."""
    bots_node = top.node.value.get("bots")
    if bots_node is None:
        top.fail(top.node, "'bots' is required: a list of bots, each with a name and a command")
    if not isinstance(bots_node.value, list):
        top.fail(bots_node, f"'bots' must be a list, got {kind_of(bots_node.value)}")
    bots: list[BotConfig] = []
    seen: dict[str, int] = {}
    for i, node in enumerate(bots_node.value):
        r = Reader(top.source, node, f"bots[{i}]", BOT_KEYS)
        folder = _read_folder(r, defaults)
        if folder is None or r.has("name"):
            bot_name = r.get("name", str, required=True)
        else:
            bot_name = folder.folder.name
        why = "" if r.has("name") else f" (it is the folder's name {bot_name!r} unless 'name' gives one)"
        r.check("name", bool(NAME_RE.fullmatch(bot_name)), "must be 1-64 of A-Z a-z 0-9 _ . + -" + why)
        if bot_name in seen:
            r.fail(
                node.value["name"], f"bot name {bot_name!r} is used twice (first on line {seen[bot_name]})"
            )
        seen[bot_name] = node.line
        bots.append(_read_bot(r, bot_name, defaults, folder))
    return bots_node, bots


def _read_folder(r: Reader, defaults: BotDefaults) -> BotFolder | None:
    """A bot given by its folder (``path``, or ``cwd`` without ``command``): how it is built
    and run; None for a bot given by its command."""
    if r.has("path"):
        for key in ("command", "cwd"):
            r.check(key, not r.has(key), "and 'path' exclude each other: a bot's folder is where it runs")
        key = "path"
    elif r.has("cwd") and not r.has("command"):
        key = "cwd"
    else:
        return None
    try:
        return resolve(beside(defaults.base_dir, r.get(key, str)))
    except ConfigError as e:
        r.fail(r.node.value[key], f"{r.path(key)!r}: {e}" + ("" if key == "path" else " (or give 'command')"))


def _read_bot(r: Reader, name: str, defaults: BotDefaults, folder: BotFolder | None) -> BotConfig:
    """One entry of ``bots`` whose name is read and unique."""
    command = read_command(r, "command", required=True) if folder is None else folder.command
    assert command is not None
    build = read_command(r, "build") or (folder.build if folder is not None else None)
    if folder is not None:
        cwd = folder.folder
    else:
        cwd = beside(defaults.base_dir, r.get("cwd", str)) if r.has("cwd") else defaults.cwd
    env = _read_env(r)
    limits, tmp_mb = read_limits(r.child("limits", LIMIT_KEYS), defaults.limits, defaults.tmp_mb)
    policy = _read_sandbox(r, defaults, tmp_mb)
    return BotConfig(
        name,
        command,
        cwd,
        build,
        env,
        limits,
        r.node.line,
        policy,
        r.get("build_network", bool, False),
        r.get("retired", bool, False),
        read_logs(r.child("logs", set(LOG_KEYS)), defaults.logs),
    )


def _read_env(r: Reader) -> dict[str, str]:
    """A bot's ``env``: variable names as a shell writes them, values strings or numbers."""
    env = r.get("env", dict, {})
    for k, v in env.items():
        r.check("env", bool(ENV_NAME_RE.fullmatch(k)), f"names a variable {k!r}: use A-Z a-z 0-9 _")
        if not isinstance(v, str | int | float) or isinstance(v, bool):
            r.fail(r.node.value["env"], f"'{r.where}.env.{k}' must be a string, got {v!r}")
    return {k: str(v) for k, v in env.items()}


def _read_sandbox(r: Reader, defaults: BotDefaults, tmp_mb: int) -> SandboxPolicy:
    """A bot's ``sandbox`` mode, ``network``, ``writable`` and ``readable`` paths."""
    mode = r.get("sandbox", str, defaults.sandbox)
    r.check("sandbox", mode in MODES, f"must be one of {', '.join(MODES)}")
    readable = r.get("readable", list, [])
    for item in readable:
        r.check("readable", isinstance(item, str) and bool(item), "must be a list of paths")
    return SandboxPolicy(
        mode=mode,
        network=r.get("network", bool, False),
        allow=_read_allow(r),
        writable=r.get("writable", bool, False),
        tmp_mb=tmp_mb,
        paths=tuple(str(beside(defaults.base_dir, p)) for p in readable),
    )


def _read_allow(r: Reader) -> tuple[str, ...]:
    """A bot's ``allow``: this machine's ``host:port`` pairs its network (or build's) may reach."""
    items = r.get("allow", list, [])
    if not items:
        return ()
    r.check(
        "allow",
        r.get("network", bool, False) or r.get("build_network", bool, False),
        "needs 'network: true' or 'build_network: true' (without the network there is nothing to allow)",
    )
    out = []
    for i, item in enumerate(items):
        node = r.node.value["allow"].value[i]
        if not isinstance(item, str):
            r.fail(node, f"'{r.path('allow')}[{i}]' must be a string host:port, got {item!r}")
        try:
            out.append(str(network.parse_endpoint(item)))
        except ValueError as e:
            r.fail(node, f"'{r.path('allow')}[{i}]': {e}")
    return tuple(out)


def read_command(r: Reader, key: str, required: bool = False) -> tuple[str, ...] | None:
    """A command line: a string split like a shell does, or a list of arguments."""
    value = r.get(key, (str, list), required=required)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as e:
            r.fail(r.node.value[key], f"{r.path(key)!r}: cannot split {value!r} like a shell: {e}")
    else:
        if not all(isinstance(a, str | int | float) and not isinstance(a, bool) for a in value):
            r.fail(r.node.value[key], f"{r.path(key)!r}: every item must be a string")
        argv = [str(a) for a in value]
    r.check(key, bool(argv), "is empty")
    return tuple(argv)


def hide_from_bots(bots: list[BotConfig], output: Path, more: tuple[Path, ...] = ()) -> list[BotConfig]:
    """Mask, in each bot's sandbox, the results folder, the ``more`` folders (the file's
    ``hidden``) and the other bots' folders wherever they lie inside a folder it sees (its own,
    a ``readable`` one); the sandbox leaves alone those holding the bot's own folder."""
    out = []
    for b in bots:
        always = {str(output), *map(str, more)}
        hidden = always | {str(o.cwd) for o in bots if not b.cwd.is_relative_to(o.cwd)}
        # Wherever they are, the results and the other bots' folders are never shown for a path
        # the bot's command names.
        others = always | {str(o.cwd) for o in bots if o.cwd != b.cwd}
        policy = replace(b.sandbox, hidden=tuple(sorted(hidden)), never_shown=tuple(sorted(others)))
        out.append(replace(b, sandbox=policy))
    return out


def find_program(command: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Where a command's program is, or None if it cannot be found or run."""
    program = command[0]
    if "/" in program:
        p = Path(program)
        p = p if p.is_absolute() else cwd / p
        return str(p) if p.is_file() and os.access(p, os.X_OK) else None
    path = (env or {}).get("PATH", os.environ.get("PATH", ""))
    return shutil.which(program, path=path)
