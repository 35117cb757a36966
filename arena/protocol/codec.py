"""Protocol lines to message values and back.

:func:`format_message` writes any message as its line; :func:`parse_bot_line` reads what
a bot sends (the referee's side, once per move, so its common case is one regex) and
:func:`parse_referee_line` what the referee sends (the bot kit's side).  Every line that
cannot be read raises :class:`~arena.errors.ProtocolError` quoting it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from arena.errors import ProtocolError
from arena.protocol.messages import (
    NAME_RE,
    PHASE_REQUESTS,
    SEAT_LETTERS,
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

__all__ = ["format_message", "join_items", "parse_bot_line", "parse_referee_line"]

_TOKEN_RE = re.compile(r"[\x21-\x7e]+")
_INT_RE = re.compile(r"-?\d{1,19}")  # compiled once: a request holds hundreds of numbers
_LETTERS = SEAT_LETTERS
_MIN_COORD = -(10**6)  # the least coordinate read in a request (board, stacks, daisies)


# --- formatting ----------------------------------------------------------------


def join_items(items: Sequence[str]) -> str:
    """The protocol's list: ``items`` separated by ``;``, or ``-`` for none."""
    return ";".join(items) if items else "-"


_join = join_items


def _join_names(names: Sequence[str]) -> str:
    return ",".join(names) if names else "-"


def format_message(msg: RefereeMessage | BotMessage) -> str:
    """One protocol line for ``msg``, without the newline."""
    if isinstance(msg, TurnRequest):
        return _format_turn(msg)
    if isinstance(msg, Hello):
        return f"hello {msg.version}"
    if isinstance(msg, HelloReply):
        return " ".join(["hello", str(msg.version), msg.name, *msg.capabilities])
    if isinstance(msg, Ready):
        return "ready"
    if isinstance(msg, MoveReply):
        return f"{msg.phase} {msg.move}"
    if isinstance(msg, Info):
        return f"info {msg.text}".rstrip()
    if isinstance(msg, GameStart):
        return _format_game(msg)
    if isinstance(msg, GameEnd):
        return _format_end(msg)
    raise TypeError(f"not a protocol message: {msg!r}")


def _format_turn(msg: TurnRequest) -> str:
    parts = [
        msg.phase,
        f"time={msg.time}",
        f"ply={msg.ply}",
        "clocks=" + _join(["-" if c is None else str(c) for c in msg.clocks]),
        "since=" + _join([f"{_LETTERS[p]}:{m}" for p, m in msg.since]),
        "board=" + _join([f"{q},{r}" for q, r in msg.board]),
        "stacks=" + _join([f"{q},{r},{_LETTERS[p]},{n}" for q, r, p, n in msg.stacks]),
        "tiles=" + _join([str(t) for t in msg.tiles]),
        "forfeit=" + ("".join(_LETTERS[p] for p in msg.forfeited) or "-"),
        "daisies=" + _join([f"{q},{r},{n}" for q, r, n in msg.daisies]),
    ]
    return " ".join(parts)


def _format_game(msg: GameStart) -> str:
    return (
        f"game id={msg.game_id} seat={_LETTERS[msg.seat]} players={msg.players} "
        f"seed={msg.seed} sheep={msg.sheep} tiles={msg.tiles} contact={msg.contact} "
        f"holeborder={int(msg.hole_border)} movetime={msg.move_time} "
        f"base={msg.base_time} increment={msg.increment} names={_join_names(msg.names)}"
        + (" multigame=1" if msg.multigame else "")
    )


def _format_end(msg: GameEnd) -> str:
    return (
        "end ranks="
        + _join([str(x) for x in msg.ranks])
        + " hexes="
        + _join([str(x) for x in msg.hexes])
        + " groups="
        + _join([str(x) for x in msg.groups])
        + " daisies="
        + _join([str(x) for x in msg.daisies])
        + " faults="
        + _join([f or "-" for f in msg.faults])
    )


# --- reading fields --------------------------------------------------------------


def _fail(what: str, line: str) -> ProtocolError:
    return ProtocolError(f"{what} in line {line!r}")


def _tokens(line: str) -> list[str]:
    """Split a line into tokens; only printable ASCII and single spaces are allowed."""
    text = line.rstrip("\r\n")
    if not text.isascii():
        raise _fail("non-ASCII text", line)
    tokens = text.split()
    for t in tokens:
        if not _TOKEN_RE.fullmatch(t):
            raise _fail(f"control character in token {t!r}", line)
    if not tokens:
        raise _fail("empty line", line)
    return tokens


def _int(value: str, key: str, line: str, minimum: int = 0) -> int:
    # At most 2**63 - 1: every number fits a signed 64-bit integer in any language.
    if not _INT_RE.fullmatch(value) or not minimum <= int(value) < 2**63:
        raise _fail(f"{key} must be a whole number >= {minimum}, got {value!r}", line)
    return int(value)


def _player(value: str, key: str, line: str) -> int:
    if len(value) != 1 or value not in _LETTERS:
        raise _fail(f"{key} must be a player letter a-d, got {value!r}", line)
    return _LETTERS.index(value)


def _fields(tokens: Sequence[str], line: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tokens:
        key, sep, value = t.partition("=")
        if not sep or not key:
            raise _fail(f"expected KEY=VALUE, got {t!r}", line)
        out[key] = value  # unknown keys are kept and ignored: newer referees may add some
    return out


def _need(fields: Mapping[str, str], key: str, line: str) -> str:
    if key not in fields:
        raise _fail(f"missing {key}=", line)
    return fields[key]


def _items(value: str) -> list[str]:
    return [] if value in ("", "-") else value.split(";")


def _numbers(item: str, count: int, key: str, line: str) -> list[str]:
    parts = item.split(",")
    if len(parts) != count:
        raise _fail(f"{key} entry {item!r} needs {count} comma-separated parts", line)
    return parts


# --- the bot's lines (the referee's side) ----------------------------------------

_MOVE_LINE = re.compile(r"(tile|herd|move) ([\x21-\x7e]+)\r?\n?")


def parse_bot_line(line: str) -> BotMessage:
    """Read a line a bot sent (the referee's side)."""
    m = _MOVE_LINE.fullmatch(line)  # the answer to nearly every request: one regex, no split
    if m is not None:
        return MoveReply(m[1], m[2])
    if line.startswith("info") and (len(line) == 4 or line[4] in " \t\r\n"):
        return Info(line[5:].rstrip("\r\n") if len(line) > 4 else "")
    tokens = _tokens(line)
    head, args = tokens[0], tokens[1:]
    if head == "hello":
        if len(args) < 2:
            raise _fail("hello needs a version and a name", line)
        version = _int(args[0], "version", line, 1)
        if not NAME_RE.fullmatch(args[1]):
            raise _fail(f"bot name {args[1]!r} must be 1-64 of A-Z a-z 0-9 _ . + -", line)
        return HelloReply(version, args[1], tuple(args[2:]))
    if head == "ready":
        if args:
            raise _fail("ready takes nothing after it", line)
        return Ready()
    if head in PHASE_REQUESTS:
        if len(args) != 1:
            raise _fail(f"{head} needs exactly one move token", line)
        return MoveReply(head, args[0])
    raise _fail(f"unknown message {head!r} (expected hello, ready, tile, herd, move or info)", line)


# --- the referee's lines (the bot's side) ----------------------------------------


def parse_referee_line(line: str) -> RefereeMessage:
    """Read a line the referee sent (the bot's side)."""
    tokens = _tokens(line)
    head, args = tokens[0], tokens[1:]
    if head == "hello":
        if not args:
            raise _fail("hello needs a version", line)
        return Hello(_int(args[0], "version", line, 1))
    f = _fields(args, line)
    if head == "game":
        return _game_start(f, line)
    if head in PHASE_REQUESTS:
        return _turn_request(head, f, line)
    if head == "end":
        return _game_end(f, line)
    raise _fail(f"unknown message {head!r}", line)


def _game_start(f: Mapping[str, str], line: str) -> GameStart:
    names_text = f.get("names", "-")
    return GameStart(
        game_id=_need(f, "id", line),
        seat=_player(_need(f, "seat", line), "seat", line),
        players=_int(_need(f, "players", line), "players", line, 2),
        seed=_int(_need(f, "seed", line), "seed", line),
        sheep=_int(f.get("sheep", "16"), "sheep", line, 1),
        tiles=_int(f.get("tiles", "4"), "tiles", line, 1),
        contact=_int(f.get("contact", "1"), "contact", line, 1),
        hole_border=f.get("holeborder", "0") == "1",
        move_time=_int(f.get("movetime", "0"), "movetime", line),
        base_time=_int(f.get("base", "0"), "base", line),
        increment=_int(f.get("increment", "0"), "increment", line),
        names=() if names_text == "-" else tuple(names_text.split(",")),
        multigame=f.get("multigame", "0") == "1",
    )


def _turn_request(phase: str, f: Mapping[str, str], line: str) -> TurnRequest:
    # The fields are read in this order so that a line with several faults names the same one.
    since = _since(_need(f, "since", line), line)
    forfeit = f.get("forfeit", "-")
    return TurnRequest(
        phase=phase,
        time=_int(_need(f, "time", line), "time", line),
        ply=_int(f.get("ply", "0"), "ply", line),
        clocks=_clocks(_need(f, "clocks", line), line),
        since=since,
        board=_board(_need(f, "board", line), line),
        stacks=_stacks(_need(f, "stacks", line), line),
        tiles=tuple(_int(t, "tiles", line) for t in _items(f.get("tiles", "-"))),
        forfeited=() if forfeit == "-" else tuple(_player(c, "forfeit", line) for c in forfeit),
        daisies=_daisies(f.get("daisies", "-"), line),
    )


def _clocks(value: str, line: str) -> tuple[int | None, ...]:
    return tuple(None if c == "-" else _int(c, "clocks", line) for c in value.split(";"))


def _since(value: str, line: str) -> tuple[tuple[int, str], ...]:
    since = []
    for item in _items(value):
        who, sep, move = item.partition(":")
        if not sep:
            raise _fail(f"since entry {item!r} needs PLAYER:MOVE", line)
        since.append((_player(who, "since", line), move))
    return tuple(since)


def _board(value: str, line: str) -> tuple[tuple[int, int], ...]:
    return tuple(
        (_int(q, "board", line, _MIN_COORD), _int(r, "board", line, _MIN_COORD))
        for q, r in (_numbers(i, 2, "board", line) for i in _items(value))
    )


def _stacks(value: str, line: str) -> tuple[tuple[int, int, int, int], ...]:
    return tuple(
        (
            _int(q, "stacks", line, _MIN_COORD),
            _int(r, "stacks", line, _MIN_COORD),
            _player(p, "stacks", line),
            _int(n, "stacks", line, 1),
        )
        for q, r, p, n in (_numbers(i, 4, "stacks", line) for i in _items(value))
    )


def _daisies(value: str, line: str) -> tuple[tuple[int, int, int], ...]:
    return tuple(
        (_int(q, "daisies", line, _MIN_COORD), _int(r, "daisies", line, _MIN_COORD), _int(n, "daisies", line))
        for q, r, n in (_numbers(i, 3, "daisies", line) for i in _items(value))
    )


def _ints(f: Mapping[str, str], key: str, line: str) -> tuple[int, ...]:
    return tuple(_int(x, key, line) for x in _items(f.get(key, "-")))


def _game_end(f: Mapping[str, str], line: str) -> GameEnd:
    return GameEnd(
        ranks=_ints(f, "ranks", line),
        hexes=_ints(f, "hexes", line),
        groups=_ints(f, "groups", line),
        daisies=_ints(f, "daisies", line),
        faults=tuple(None if x == "-" else x for x in f.get("faults", "-").split(";")),
    )
