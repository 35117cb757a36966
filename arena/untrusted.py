"""Text that a bot controls, made safe to show: the one place for every escape.

A bot chooses every byte it writes: its ``hello`` name, its ``info`` lines, its
stderr, the move text it sends (quoted back in a fault's detail), and whatever
its build prints.  Before such text reaches a terminal, a Markdown table, a
spreadsheet, an XML report or a web page it goes through one of the functions
here, chosen by where it goes:

- :func:`printable` (a terminal or a log line): control and format characters
  (ESC and the sequences that clear a screen, set a title or fake a verdict;
  NUL; BEL; C1 controls; bidi overrides that reorder what is read; lone
  surrogates) become visible ``\\xNN``/``\\uNNNN`` escapes;
  :func:`printable_lines` does the same but keeps the line breaks;
- :func:`markdown` (a GitHub table cell): no raw HTML, no ``|`` that ends a cell,
  no emphasis, code span or link;
- :func:`csv_cell` (a spreadsheet): no formula (OWASP "CSV injection");
- :func:`xml_text` (a JUnit report): only characters XML 1.0 allows;
- :func:`html` (a web page): no tag, no attribute break.

Each starts from :func:`printable`, so what reaches any output is visible text.
Values the arena writes itself (numbers, fault kinds) need none of this.
"""

from __future__ import annotations

import html as _html
import json
import re

__all__ = ["csv_cell", "html", "markdown", "printable", "printable_lines", "script_json", "xml_text"]


def printable(text: str) -> str:
    """``text`` with every control or format character written as ``\\xNN``/``\\uNNNN``.

    Line breaks and tabs are escaped too: the result is one line.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ord(ch)) for ch in text)


def printable_lines(text: str) -> str:
    """:func:`printable` line by line: the ``\\n`` between lines stay, every other control goes."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# GitHub-flavoured Markdown: a backslash before ASCII punctuation makes it literal;
# '|' must be escaped even inside a code span, or it ends the table cell. '<', '>' and
# '&' become entities, so no tag, comment or entity a bot wrote is ever HTML.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~#!])")
_MARKDOWN_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown(text: str) -> str:
    """``text`` as literal inline Markdown, safe in a GitHub table cell or a heading."""
    safe = _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))
    return re.sub(r"[&<>]", lambda m: _MARKDOWN_ENTITIES[m.group()], safe)


# A spreadsheet evaluates a cell that starts with one of these (OWASP, "CSV Injection");
# tab and carriage return are escaped by printable() already, so they cannot lead.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """``text`` for a CSV cell: printable, and with a leading ``'`` when a spreadsheet would
    read it as a formula (``=1+1``, ``+1+1``, ``-2+3``, ``@SUM(A1)``).

    Only for text: a number the arena writes (``-1.25``) goes in as it is and stays a number.
    """
    safe = printable(text)
    return "'" + safe if safe.lstrip(" ").startswith(_FORMULA_START) else safe


# XML 1.0 allows tab, LF, CR and these ranges; nothing else, not even as &#x1b;.
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` for XML 1.0 text or an attribute: printable lines, nothing XML forbids.

    The XML writer (ElementTree) still escapes ``<``, ``&`` and quotes.
    """
    # printable_lines() leaves only printable characters and '\n'; the second pass
    # states the guarantee in XML's own terms rather than relying on Unicode categories.
    return _XML_ILLEGAL.sub(lambda m: _escape(ord(m.group())), printable_lines(text))


def html(text: str) -> str:
    """``text`` for HTML element text or a quoted attribute value."""
    return _html.escape(printable(text), quote=True)


# Inside a <script> element the browser looks for "</script" and "<!--" before any JSON
# parser sees the text: a bot's name or info line must never end the element early.
_SCRIPT_UNSAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script type="application/json">``.

    Non-ASCII characters (U+2028 and U+2029 among them) and ``<``, ``>``, ``&`` are
    written as ``\\uNNNN`` escapes, which ``JSON.parse`` reads back unchanged.
    """
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).translate(_SCRIPT_UNSAFE)
