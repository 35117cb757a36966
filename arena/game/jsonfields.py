"""Typed access to JSON data (a game record) whose every error names the field.

A record may come from anywhere (a file a user hands to ``arena replay``, a
store a bot could once write to): each field is checked for its type as it is
read, so a wrong one is a :class:`~arena.errors.RecordError` saying which,
never a ``KeyError`` or ``TypeError`` later.
"""

from __future__ import annotations

from typing import Any

from arena.errors import RecordError

_MISSING: Any = object()
_NAMES = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


class Fields:
    """The fields of one JSON object; ``where`` names it in errors (``seats[1]``)."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise RecordError(f"{where} must be an object, got {_show(data)}")
        self.data = data
        self.where = where

    def get(self, key: str, kinds: type | tuple[type, ...], default: Any = _MISSING) -> Any:
        """The value of ``key``, which must be one of ``kinds`` (a bool is no number)."""
        if key not in self.data:
            if default is _MISSING:
                raise RecordError(f"{self.where}.{key} is missing")
            return default
        value = self.data[key]
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(_NAMES.get(k, k.__name__) for k in kinds)
            raise RecordError(f"{self.where}.{key} must be {names}, got {_show(value)}")
        return value

    def items(self, key: str, kind: type) -> list[Any]:
        """The list under ``key``, each item of type ``kind``."""
        values: list[Any] = self.get(key, list)
        for i, v in enumerate(values):
            if not isinstance(v, kind):
                raise RecordError(
                    f"{self.where}.{key}[{i}] must be {_NAMES.get(kind, kind.__name__)}, got {_show(v)}"
                )
        return values

    def strings(self, key: str, default: Any = _MISSING) -> tuple[str, ...]:
        """The list of strings under ``key``, as a tuple."""
        if key not in self.data and default is not _MISSING:
            return tuple(default)
        return tuple(self.items(key, str))


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
