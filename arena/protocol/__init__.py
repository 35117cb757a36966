"""The codec of the bot protocol: every message, formatted and parsed.

The written specification is ``protocol/PROTOCOL.md``; this package is its
executable form, shared by the referee and the Python bot kit.  It imports
nothing but the arena's error family, and treats moves as opaque tokens (the
referee hands them to the rules engine).

- :mod:`~arena.protocol.messages`: the messages as frozen values, and the shared
  constants (version, longest line, phase names, bot-name pattern).
- :mod:`~arena.protocol.codec`: :func:`format_message` (a message to its line) and
  the parsers, :func:`parse_bot_line` (the referee's side) and
  :func:`parse_referee_line` (the bot's side).
- :mod:`~arena.protocol.turns`: :class:`TurnWriter`, the referee's per-ply turn
  request, written from the position without building a message.

Referee to bot (a request needs exactly one answer line)::

    hello 1                                    request, answer: hello 1 NAME [CAP ...]
    game id=.. seat=a players=2 seed=7 ...     request, answer: ready
    tile|herd|move time=.. clocks=.. ...       request, answer: tile|herd|move MOVE
    end ranks=1;2 ...                          notice, no answer; the bot exits

Bot to referee, besides answers: ``info TEXT`` at any time, recorded only.
"""

from __future__ import annotations

from arena.protocol.codec import format_message, parse_bot_line, parse_referee_line
from arena.protocol.messages import (
    MAX_LINE_BYTES,
    MULTIGAME,
    NAME_RE,
    PHASE_REQUESTS,
    PROTOCOL_VERSION,
    BotMessage,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    Info,
    MoveReply,
    Ready,
    RefereeMessage,
    TurnRequest,
)
from arena.protocol.turns import TurnWriter

__all__ = [
    "MAX_LINE_BYTES",
    "MULTIGAME",
    "NAME_RE",
    "PHASE_REQUESTS",
    "PROTOCOL_VERSION",
    "BotMessage",
    "GameEnd",
    "GameStart",
    "Hello",
    "HelloReply",
    "Info",
    "MoveReply",
    "Ready",
    "RefereeMessage",
    "TurnRequest",
    "TurnWriter",
    "format_message",
    "parse_bot_line",
    "parse_referee_line",
]
