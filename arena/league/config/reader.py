"""Typed reading of one mapping of a tournament file, every error naming ``file:line: key``.

:class:`Reader` wraps a mapping :class:`~arena.league.config.yamlfile.Node`: it
refuses unknown keys (with a "did you mean" hint), checks each value's type and
turns a failed check into a :class:`~arena.errors.ConfigError` that says where.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

from arena.durations import parse_duration_ms
from arena.errors import ConfigError
from arena.league.config.yamlfile import Node, plain

# Keys are short ('mu', 'cwd', 'tau'): one letter wrong in two scores 0.5, under difflib's
# usual 0.6, and those are the typos a hint is for.
KEY_HINT_CUTOFF = 0.5
_TYPE_NAMES: dict[type, str] = {
    int: "a whole number",
    str: "a string",
    bool: "true or false",
    float: "a number",
    list: "a list",
    dict: "a mapping",
}


class Reader:
    """Typed access to a mapping node; every error says file, line and key."""

    def __init__(self, source: str, node: Node, where: str, allowed: set[str]) -> None:
        self.source = source
        self.node = node
        self.where = where
        if not isinstance(node.value, dict):
            self.fail(node, f"expected a mapping of keys, got {kind_of(node.value)}")
        for key, value in node.value.items():
            if key not in allowed:
                hint = did_you_mean(key, allowed, cutoff=KEY_HINT_CUTOFF)
                self.fail(
                    value, f"unknown key {self.path(key)!r}{hint}; allowed: {', '.join(sorted(allowed))}"
                )

    def path(self, key: str) -> str:
        """The dotted name of ``key`` in the file (``bots[0].limits.memory_mb``)."""
        return f"{self.where}.{key}" if self.where else key

    def fail(self, node: Node, message: str) -> NoReturn:
        """Raise a ConfigError for ``node``: ``file:line: message``."""
        raise ConfigError(f"{self.source}:{node.line}: {message}")

    def has(self, key: str) -> bool:
        """Whether the mapping gives ``key``."""
        return key in self.node.value

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False
    ) -> Any:
        """The value of ``key`` as plain data, checked to be of ``kind`` (``default`` if absent)."""
        if key not in self.node.value:
            if required:
                self.fail(self.node, f"{self.path(key)!r} is required")
            return default
        n = self.node.value[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        value = n.value if not isinstance(n.value, dict | list) else plain(n)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
            self.fail(n, f"{self.path(key)!r} must be {names}, got {value!r}")
        return value

    def line(self, key: str) -> int:
        """The line of ``key``, or of the mapping when it is absent."""
        return int(self.node.value[key].line) if key in self.node.value else self.node.line

    def child(self, key: str, allowed: set[str]) -> Reader | None:
        """A reader of the mapping under ``key`` (None when it is absent)."""
        if key not in self.node.value:
            return None
        return Reader(self.source, self.node.value[key], self.path(key), allowed)

    def check(self, key: str, ok: bool, message: str) -> None:
        """Fail at ``key`` (or at the mapping, when absent) with ``'key' message`` unless ``ok``."""
        if not ok:
            node = self.node.value.get(key, self.node)
            self.fail(node, f"{self.path(key)!r} {message}")

    def duration(self, key: str, default: str | None) -> int:
        """A duration (``300ms``, ``2s``, ``10m`` or seconds as a number) in milliseconds."""
        value = self.get(key, (str, int, float), default)
        try:
            return parse_duration_ms(value, self.path(key))
        except ConfigError as e:
            self.fail(self.node.value.get(key, self.node), str(e))


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` naming the choice closest to ``word``, or "" when none is close.

    Closeness is :func:`difflib.get_close_matches`' ratio, at least ``cutoff``; of choices
    equally close it names the last in alphabetical order, whatever order they come in.
    """
    close = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def kind_of(value: Any) -> str:
    """What a value is, for a message: ``a mapping``, ``a list`` or its repr."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def beside(base_dir: Path, written: str) -> Path:
    """A path as written in the file (``~`` allowed), resolved relative to the file's folder."""
    return (base_dir / os.path.expanduser(written)).resolve()
