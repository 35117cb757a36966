"""Text that a bot controls, made safe to show.

A bot (or its build) chooses every byte it writes.  Before such text reaches a
terminal, a log, a table or an XML report, control characters (escape
sequences that clear a screen, set a title or fake a verdict; NUL; bidi
overrides that reorder what is read) are replaced by visible escapes.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every control or format character written as ``\\xNN``/``\\uNNNN``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ord(ch)) for ch in text)


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
