"""The codec of the bot protocol: every message, formatted and parsed.

The written specification is ``protocol/PROTOCOL.md``; this module is its
executable form, shared by the referee and the Python bot kit.  It imports
nothing but the arena's error family, and treats moves as opaque tokens (the
referee hands them to the rules engine).

Referee to bot (a request needs exactly one answer line)::

    hello 1                                    request, answer: hello 1 NAME [CAP ...]
    game id=.. seat=a players=2 seed=7 ...     request, answer: ready
    tile|herd|move time=.. clocks=.. ...       request, answer: tile|herd|move MOVE
    end ranks=1;2 ...                          notice, no answer; the bot exits

Bot to referee, besides answers: ``info TEXT`` at any time, recorded only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import ne

from arena.errors import ProtocolError

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 4096  # longest line a bot may send, newline excluded
PHASE_REQUESTS = ("tile", "herd", "move")
NAME_RE = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
_TOKEN_RE = re.compile(r"[\x21-\x7e]+")
_LETTERS = "abcd"


# --- values -------------------------------------------------------------------


# The capability a bot declares in its hello to play several games in one process.
MULTIGAME = "multigame"


@dataclass(frozen=True, slots=True)
class Hello:
    """``hello VERSION``: the referee opens; the bot answers with :class:`HelloReply`."""

    version: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class HelloReply:
    """``hello VERSION NAME [CAPABILITY ...]``."""

    version: int
    name: str
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameStart:
    """``game KEY=VALUE ...``: everything fixed for the whole game.

    Times are milliseconds; 0 means "no such limit".
    """

    game_id: str
    seat: int
    players: int
    seed: int
    sheep: int = 16
    tiles: int = 4
    contact: int = 1
    hole_border: bool = False
    move_time: int = 0
    base_time: int = 0
    increment: int = 0
    names: tuple[str, ...] = ()
    # The referee keeps this process for more games (the bot declared ``multigame``):
    # after ``end`` it waits for the next ``game`` instead of exiting.
    multigame: bool = False


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """``tile|herd|move KEY=VALUE ...``: the whole state and the clocks.

    ``clocks`` holds each player's remaining clock in ms, or None without a
    clock.  ``since`` lists ``(player, move)`` played since this bot's last
    request.  ``stacks`` holds ``(q, r, player, sheep)``; ``daisies``
    ``(q, r, count)`` for hexes that show any.
    """

    phase: str
    time: int
    ply: int
    clocks: tuple[int | None, ...]
    since: tuple[tuple[int, str], ...]
    board: tuple[tuple[int, int], ...]
    stacks: tuple[tuple[int, int, int, int], ...]
    tiles: tuple[int, ...]
    forfeited: tuple[int, ...] = ()
    daisies: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MoveReply:
    """``tile|herd|move MOVE``: the answer to a turn request."""

    phase: str
    move: str


@dataclass(frozen=True, slots=True)
class Ready:
    """``ready``: the answer to ``game``."""


@dataclass(frozen=True, slots=True)
class Info:
    """``info TEXT``: a line a bot may send at any time, recorded but never an answer."""

    text: str


@dataclass(frozen=True, slots=True)
class GameEnd:
    """``end KEY=VALUE ...``: the final ranking; the bot should exit."""

    ranks: tuple[int, ...]
    hexes: tuple[int, ...]
    groups: tuple[int, ...]
    daisies: tuple[int, ...]
    faults: tuple[str | None, ...] = field(default=())


BotMessage = HelloReply | Ready | MoveReply | Info
RefereeMessage = Hello | GameStart | TurnRequest | GameEnd


# --- formatting ----------------------------------------------------------------


def _join(items: Sequence[str]) -> str:
    return ";".join(items) if items else "-"


def format_message(msg: RefereeMessage | BotMessage) -> str:
    """One protocol line for ``msg``, without the newline."""
    if isinstance(msg, TurnRequest):
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
        return (
            f"game id={msg.game_id} seat={_LETTERS[msg.seat]} players={msg.players} "
            f"seed={msg.seed} sheep={msg.sheep} tiles={msg.tiles} contact={msg.contact} "
            f"holeborder={int(msg.hole_border)} movetime={msg.move_time} "
            f"base={msg.base_time} increment={msg.increment} names={_join_names(msg.names)}"
            + (" multigame=1" if msg.multigame else "")
        )
    if isinstance(msg, GameEnd):
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
    raise TypeError(f"not a protocol message: {msg!r}")


def _join_names(names: Sequence[str]) -> str:
    return ",".join(names) if names else "-"


class TurnWriter:
    """One game's turn requests, written from the position itself.

    The line is exactly what ``format_message(TurnRequest(...))`` writes for the same
    position (tests hold the two equal), but a referee writes one per ply and that
    line stands between a bot's answer and the next bot's request.  So nothing is
    built that the line does not need: the board's and the daisies' text are kept
    until the board changes, each hex's stack text is kept, and only the hexes whose
    stack changed since the last request are written again.

    ``since`` items come from :meth:`since_item`; ``owner`` and ``height`` are per
    hex in board order (owner -1: no stack), as :class:`~arena.rules.GameState`
    keeps them; ``daisies`` is the board's count per hex in the same order.
    """

    __slots__ = (
        "_board_text",
        "_clocks",
        "_clocks_text",
        "_coords",
        "_daisies",
        "_daisies_text",
        "_height",
        "_hex_texts",
        "_owner",
        "_texts",
        "_tiles",
        "_tiles_text",
    )

    def __init__(self) -> None:
        self._coords: tuple[tuple[int, int], ...] | None = None
        self._daisies: Sequence[int] | None = None
        self._board_text = "-"
        self._daisies_text = "-"
        self._hex_texts: list[str] = []
        self._owner: list[int] = []
        self._height: list[int] = []
        self._texts: list[str] = []  # per hex: its stack's text, or "" for none
        self._clocks: list[float | None] = []
        self._clocks_text = "-"
        self._tiles: list[int] = []
        self._tiles_text = "-"

    @staticmethod
    def since_item(player: int, move: str) -> str:
        return f"{_LETTERS[player]}:{move}"

    def _new_board(self, coords: tuple[tuple[int, int], ...], daisies: Sequence[int]) -> None:
        self._coords, self._daisies = coords, daisies
        self._hex_texts = [f"{q},{r}" for q, r in coords]
        self._board_text = _join(self._hex_texts)
        self._daisies_text = _join([f"{h},{n}" for h, n in zip(self._hex_texts, daisies, strict=True) if n])
        size = len(coords)
        self._owner, self._height, self._texts = [-1] * size, [0] * size, [""] * size

    def _stacks(self, owner: Sequence[int], height: Sequence[int], hint: Sequence[int]) -> str:
        kept_owner, kept_height, texts, hexes = self._owner, self._height, self._texts, self._hex_texts
        for i in hint:  # the hexes the caller says changed (a move's two)
            kept_owner[i], kept_height[i] = owner[i], height[i]
        changed: Iterable[int] = hint
        if kept_height != height or kept_owner != owner:  # (two comparisons in C)
            # No hint, or a wrong one: every hex whose stack differs, found by loops in C.
            hexes_at = range(len(height))
            changed = {
                *hint,
                *compress(hexes_at, map(ne, height, kept_height)),
                *compress(hexes_at, map(ne, owner, kept_owner)),
            }
            kept_owner[:], kept_height[:] = owner, height
        for i in changed:
            o = owner[i]
            texts[i] = f"{hexes[i]},{_LETTERS[o]},{height[i]}" if o >= 0 else ""
        return ";".join(filter(None, texts)) or "-"

    def line(
        self,
        phase: str,
        time: int,
        ply: int,
        clocks: Sequence[float | None],
        since: Sequence[str],
        coords: tuple[tuple[int, int], ...],
        daisies: Sequence[int],
        owner: Sequence[int],
        height: Sequence[int],
        tiles: Sequence[int],
        forfeited: Sequence[bool],
        changed: Sequence[int] = (),
    ) -> str:
        """The request line (no newline) for the position given.

        ``changed`` may name hexes (indexes) whose stack changed since the last line,
        as :meth:`~arena.rules.GameState.last_slide` does after a move: a hint that
        saves looking at every hex.  It is checked, so a wrong or short one costs
        time, never a wrong line.
        """
        if coords is not self._coords or daisies is not self._daisies:
            self._new_board(coords, daisies)
        if clocks != self._clocks:  # the same from ply to ply without a running clock
            self._clocks = list(clocks)
            self._clocks_text = ";".join(["-" if c is None else str(int(c)) for c in clocks]) or "-"
        if tiles != self._tiles:  # the same from ply to ply once the pasture is laid
            self._tiles = list(tiles)
            self._tiles_text = ";".join(map(str, tiles)) or "-"
        forfeit = "".join([_LETTERS[p] for p, out in enumerate(forfeited) if out]) if True in forfeited else "-"
        return (
            f"{phase} time={time} ply={ply} clocks={self._clocks_text} since={';'.join(since) or '-'} "
            f"board={self._board_text} stacks={self._stacks(owner, height, changed)} "
            f"tiles={self._tiles_text} forfeit={forfeit} daisies={self._daisies_text}"
        )


# --- parsing -------------------------------------------------------------------


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
    if not re.fullmatch(r"-?\d{1,19}", value) or not minimum <= int(value) < 2**63:
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
    if head in PHASE_REQUESTS:
        since = []
        for item in _items(_need(f, "since", line)):
            who, sep, move = item.partition(":")
            if not sep:
                raise _fail(f"since entry {item!r} needs PLAYER:MOVE", line)
            since.append((_player(who, "since", line), move))
        forfeit = f.get("forfeit", "-")
        return TurnRequest(
            phase=head,
            time=_int(_need(f, "time", line), "time", line),
            ply=_int(f.get("ply", "0"), "ply", line),
            clocks=tuple(
                None if c == "-" else _int(c, "clocks", line) for c in _need(f, "clocks", line).split(";")
            ),
            since=tuple(since),
            board=tuple(
                (_int(q, "board", line, -(10**6)), _int(r, "board", line, -(10**6)))
                for q, r in (_numbers(i, 2, "board", line) for i in _items(_need(f, "board", line)))
            ),
            stacks=tuple(
                (
                    _int(q, "stacks", line, -(10**6)),
                    _int(r, "stacks", line, -(10**6)),
                    _player(p, "stacks", line),
                    _int(n, "stacks", line, 1),
                )
                for q, r, p, n in (_numbers(i, 4, "stacks", line) for i in _items(_need(f, "stacks", line)))
            ),
            tiles=tuple(_int(t, "tiles", line) for t in _items(f.get("tiles", "-"))),
            forfeited=() if forfeit == "-" else tuple(_player(c, "forfeit", line) for c in forfeit),
            daisies=tuple(
                (
                    _int(q, "daisies", line, -(10**6)),
                    _int(r, "daisies", line, -(10**6)),
                    _int(n, "daisies", line),
                )
                for q, r, n in (_numbers(i, 3, "daisies", line) for i in _items(f.get("daisies", "-")))
            ),
        )
    if head == "end":

        def ints(key: str) -> tuple[int, ...]:
            return tuple(_int(x, key, line) for x in _items(f.get(key, "-")))

        return GameEnd(
            ranks=ints("ranks"),
            hexes=ints("hexes"),
            groups=ints("groups"),
            daisies=ints("daisies"),
            faults=tuple(None if x == "-" else x for x in f.get("faults", "-").split(";")),
        )
    raise _fail(f"unknown message {head!r}", line)
