"""Text that a bot controls, made safe to show.

A bot (or its build) chooses every byte it writes.  Before such text reaches a
terminal, a log, a table or an XML report, control characters (escape
sequences that clear a screen, set a title or fake a verdict; NUL; bidi
overrides that reorder what is read) are replaced by visible escapes.
"""

from __future__ import annotations

import json


def printable(text: str) -> str:
    """``text`` with every control or format character written as ``\\xNN``/``\\uNNNN``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ord(ch)) for ch in text)


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# Inside a <script> element the browser looks for "</script" and "<!--" before any JSON
# parser sees the text: a bot's name or info line must never end the element early.
_SCRIPT_UNSAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script type="application/json">``.

    Non-ASCII characters (U+2028 and U+2029 among them) and ``<``, ``>``, ``&`` are
    written as ``\\uNNNN`` escapes, which ``JSON.parse`` reads back unchanged.
    """
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).translate(_SCRIPT_UNSAFE)
