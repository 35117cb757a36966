"""YAML for tournament files: plain data only, every value with its line.

The file is composed (never constructed as a whole) by a loader that keeps to
plain data: no tags beyond the standard scalar, list and mapping ones (``!foo``
and ``!!python/...`` are refused, never looked up), no aliases (``*name``: a
recursive one loops and a few nested ones expand a billion-fold), a bounded
nesting depth and bounded values.  Each error names the file and the line.
"""

from __future__ import annotations

from typing import Any

import yaml

from arena.errors import ConfigError

MAX_DEPTH = 32  # nesting of lists and mappings; a tournament file needs 4
MAX_VALUE_CHARS = 16 * 1024  # one scalar (a command line, a path...)

_STANDARD = "tag:yaml.org,2002:"
# Tags a value may carry explicitly (``!!str 1``); implicit resolution gives only these and timestamps.
ALLOWED_TAGS = frozenset(_STANDARD + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))


class Node:
    """A YAML value with the line it came from (mappings and lists hold Nodes)."""

    __slots__ = ("line", "value")

    def __init__(self, value: Any, line: int) -> None:
        self.value = value
        self.line = line


class _Refused(yaml.YAMLError):
    """A document that is valid YAML but more than plain data."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _PlainDataLoader(yaml.SafeLoader):
    """Composes a document of plain data, refusing aliases, custom tags and deep nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose the next node as PyYAML does, after refusing what is more than plain data."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(line, f"alias *{event.anchor} is not allowed: write the value out")
        tag = getattr(event, "tag", None)
        if tag not in (None, "!") and tag not in ALLOWED_TAGS:
            raise _Refused(
                line, f"tag {_written(tag)!r} is not allowed: only plain strings, numbers, lists and mappings"
            )
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_VALUE_CHARS:
            raise _Refused(line, f"a value of {len(event.value)} characters; at most {MAX_VALUE_CHARS}")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(line, f"values nested more than {MAX_DEPTH} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_nodes(text: str, source: str) -> Node | None:
    """The document in ``text`` as :class:`Node` values (None when it is empty)."""
    try:
        loader = _PlainDataLoader(text)  # reading starts here: a control character fails at once
    except yaml.YAMLError as e:
        raise ConfigError(f"{_where(e, text, source)}: not valid YAML: {_problem(e)}") from None
    try:
        root = loader.get_single_node()
        return None if root is None else _to_nodes(root, source, loader)
    except _Refused as e:
        raise ConfigError(f"{source}:{e.line}: {e.message}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{_where(e, text, source)}: not valid YAML: {_problem(e)}") from None
    finally:
        loader.dispose()


def plain(node: Node) -> Any:
    """The value of ``node`` as plain Python data (dicts, lists, scalars)."""
    if isinstance(node.value, dict):
        return {k: plain(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [plain(v) for v in node.value]
    return node.value


def _to_nodes(node: yaml.Node, source: str, loader: yaml.SafeLoader) -> Node:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Node] = {}
        keylines: dict[str, int] = {}
        for k, v in node.value:
            kline = k.start_mark.line + 1
            if not isinstance(k, yaml.ScalarNode):
                raise ConfigError(f"{source}:{kline}: keys must be names, got a {k.id}")
            # The key as written: 'on' and 'yes' stay names, not YAML 1.1 booleans.
            key = k.value
            if key in out:
                raise ConfigError(
                    f"{source}:{kline}: key {key!r} is given twice (first on line {keylines[key]})"
                )
            out[key] = _to_nodes(v, source, loader)
            keylines[key] = kline
        return Node(out, line)
    if isinstance(node, yaml.SequenceNode):
        return Node([_to_nodes(v, source, loader) for v in node.value], line)
    try:
        value = loader.construct_object(node)
    except (yaml.YAMLError, ValueError, ArithmeticError, LookupError, TypeError) as e:
        # '!!int abc', '!!int' of nothing, or an integer of more digits than Python converts.
        why = str(e).split(";")[0]
        raise ConfigError(
            f"{source}:{line}: cannot read {node.value[:80]!r} as {_written(node.tag)}: {why}"
        ) from None
    if isinstance(value, str) and "\x00" in value:
        raise ConfigError(f"{source}:{line}: a value holds a NUL character: {value[:80]!r}")
    return Node(value, line)


def _written(tag: str) -> str:
    """A tag as it is written in a file: ``!!int``, ``!foo``."""
    return "!!" + tag.removeprefix(_STANDARD) if tag.startswith(_STANDARD) else tag


def _where(error: yaml.YAMLError, text: str, source: str) -> str:
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return f"{source}:{mark.line + 1}"
    position = getattr(error, "position", None)  # a ReaderError (a control character) has only this
    if isinstance(position, int):
        return f"{source}:{text.count(chr(10), 0, position) + 1}"
    return source


def _problem(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None)
    if problem:
        return str(problem)
    reason = getattr(error, "reason", None)
    character = getattr(error, "character", None)
    if reason is not None and isinstance(character, str):
        return f"{reason}: character {character!r}"
    return str(error).splitlines()[0]
