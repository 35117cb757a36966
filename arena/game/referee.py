"""The referee: one game of Battle Sheep between bots, start to finish.

The referee owns the game state, the clocks and the bots' channels.  It asks
the player to move for a move, checks the answer against the rules and the
clock, and forfeits a bot at the first fault (with a reason from the closed
set in :class:`~arena.game.record.FaultKind`); the game goes on for the others.
Whatever happens, every bot is stopped before :func:`play_game` returns, and
the result is a :class:`~arena.game.record.GameRecord`.
"""

from __future__ import annotations

import datetime as _dt
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from arena.errors import IllegalMoveError, NotationError, ProtocolError
from arena.game import seeds
from arena.game.bothost import BotHost, BotSpec, ProcessChannel
from arena.game.clock import Clock, TimeControl
from arena.game.record import BotFault, Fault, FaultKind, GameRecord, MoveRecord, SeatRecord
from arena.protocol import (
    MULTIGAME,
    PHASE_REQUESTS,
    PROTOCOL_VERSION,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    MoveReply,
    Ready,
    TurnWriter,
    format_message,
    parse_bot_line,
)
from arena.rules import (
    MOVE_PATTERN,
    Board,
    GameState,
    Move,
    Params,
    Phase,
    format_position,
    move_from_match,
    read_move,
)

__all__ = ["BotChannel", "BotHost", "BotSpec", "GameSetup", "ProcessChannel", "Referee", "play_game"]


@dataclass(frozen=True)
class GameSetup:
    """Everything about a game except the bots."""

    game_id: str = "game"
    seed: int = 1
    params: Params = field(default_factory=Params)
    time_control: TimeControl = field(default_factory=TimeControl)
    board: Board | None = None  # None: the bots build the pasture from tiles
    end_grace_s: float = 1.0  # time a bot gets to exit by itself after "end"
    keep_transcript: bool = False
    # The secret each seat's private seed is derived with (:mod:`arena.game.seeds`);
    # None: the referee draws one for this game.  Recorded, for replays.
    seed_secret: str | None = None


class BotChannel(Protocol):
    """What the referee needs from a bot: send, wait for an answer (with a deadline), stop."""

    def send(self, line: str, ply: int | None = None) -> None:
        """Send one line (``ply``: a turn request's, which stamps the ``info`` lines the bot
        sends while it thinks); raise BotFault if the bot cannot take it."""

    def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
        """The answer to the last line sent and the seconds it took; raise BotFault.

        The wait ends ``timeout_s`` after the send, or at ``deadline`` (monotonic) if given.
        """

    def wait(self, until: float) -> None:
        """Block until some bot has written something, or until ``until`` (monotonic)."""

    def pause(self) -> None:
        """Another bot is on move: let this one take no CPU until :meth:`resume`."""

    def resume(self) -> None:
        """Let the bot run again: it is on move, or its game ends."""

    def finish(self, goodbye: str) -> None:
        """Send the end-of-game notice and close the bot's input (it should exit now)."""

    def stop(self, goodbye: str | None, grace_s: float, why: str | None = None) -> None:
        """Say ``goodbye`` (if given), let it exit within ``grace_s``, then kill it.

        ``why`` is the fault it is stopped for, kept with its transcript.
        """

    def seat_facts(self) -> dict[str, object]:
        """Facts for the seat record: reported name, exit, stderr, infos, transcript."""

    def fault_hint(self, fault: Fault) -> str:
        """The likely cause of ``fault`` in one sentence, or "" (asked after the bot stopped)."""

    # A bot process that plays several games (``multigame``, see :mod:`arena.game.bothost`):
    # ``previous_hello`` is the (name, capabilities) its hello gave in an earlier game
    # (None for a fresh process, which is greeted); ``can_stay`` says the arena would
    # keep it for another game, and ``stay`` sends the end notice and keeps it running.
    previous_hello: tuple[str, tuple[str, ...]] | None
    can_stay: bool
    # When this seat's bot was started (or taken, kept, for this game), monotonic: its
    # startup allowance runs from then, so the arena's set-up of the other seats (a
    # sandbox, cgroups, a user namespace's bounds each) is never charged to it.
    seated_at: float

    def renew(self) -> bool:
        """Replace a kept process that ended between games with a fresh one (whose
        ``previous_hello`` is None); False if that cannot be done."""

    def stay(self, goodbye: str, hello: tuple[str, tuple[str, ...]]) -> None:
        """Send the end-of-game notice and keep the bot running for its next game, whose
        ``previous_hello`` is ``hello``."""


# Answers read so far, by their line: the phase, the move's token as sent, the move, and
# its canonical text.  A league's answers repeat (a few thousand distinct lines over
# hundreds of games), and an answer seen before is then read with one look-up.  Only the
# lines the one-match reading below takes are kept: at most about 70 characters each,
# whatever padding a bot sends.  Bounded in number, since a bot chooses the line.
_Answer = tuple[str, str, Move, str]
_ANSWERS: dict[str, _Answer] = {}
_ANSWERS_KEPT = 20_000

_ANSWER_RE = re.compile(rf"(?P<phase>{'|'.join(PHASE_REQUESTS)}) (?:{MOVE_PATTERN})", re.ASCII)

_PHASE_WORDS = {Phase.TILES: "tile", Phase.HERDS: "herd", Phase.MOVES: "move"}  # a turn request's first word

Observer = Callable[[GameState, MoveRecord | None, tuple[int, Fault] | None], None]


class Referee:
    """Plays one game over already-started channels (or startup faults)."""

    def __init__(
        self,
        setup: GameSetup,
        specs: Sequence[BotSpec],
        channels: Sequence[BotChannel | BotFault],
        observer: Observer | None = None,
        on_hello: Callable[[int, str], None] | None = None,
    ) -> None:
        if len(specs) != setup.params.players or len(channels) != len(specs):
            raise ValueError(f"{setup.params.players} players need as many bots, got {len(specs)}")
        self.setup = setup
        self.seed_secret = setup.seed_secret or seeds.new_secret()
        self.specs = specs
        self.channels = list(channels)
        self.observer = observer
        self.on_hello = on_hello  # told each name a bot gives in its hello, as it arrives
        self.faults: dict[int, Fault] = {}
        self.reported: dict[int, str] = {}
        self.capabilities: dict[int, tuple[str, ...]] = {}
        self.multigame: set[int] = set()  # seats told their process stays for another game
        self.ready: set[int] = set()
        self.moves: list[MoveRecord] = []
        self.clocks = [Clock(setup.time_control) for _ in specs]
        self.clocks_left = [c.remaining_ms for c in self.clocks]  # as requests tell them, kept per charge
        self.state = GameState(setup.params, setup.board)
        self.writer = TurnWriter()  # this game's turn requests
        self.since: list[str] = []  # each move as a request's "since" lists it
        self.last_seen = [0] * len(specs)  # moves each player has already been told of

    # -- faults ------------------------------------------------------------------------

    def _forfeit(self, p: int, kind: FaultKind, detail: str) -> None:
        fault = Fault(kind, detail, len(self.moves))
        self.faults[p] = fault
        self.state.forfeit(p)
        ch = self.channels[p]
        if not isinstance(ch, BotFault):
            ch.resume()  # a paused process would take its kill only once it runs again
            ch.stop(None, 0.0, f"{kind.value}: {detail}")  # out of the game: no reason to keep it running
        if self.observer:
            self.observer(self.state, None, (p, fault))

    def _live(self) -> list[int]:
        return [
            p for p, ch in enumerate(self.channels) if not isinstance(ch, BotFault) and p not in self.faults
        ]

    # -- phases of the conversation -----------------------------------------------------

    def _startup(self, started: float) -> None:
        """Handshake with every bot at once: each has the whole allowance from its start.

        Bots are served in the order their answers arrive, so a silent bot never
        eats into the time of another.
        """
        tc = self.setup.time_control
        # Each seat's own allowance: a bot the arena brings (a check's opponent) keeps
        # its own, whatever the bot under test is given.
        allowance = [(self._startup_ms(p) + tc.margin_ms) / 1000 for p in range(len(self.specs))]
        deadlines = [
            (started if isinstance(ch, BotFault) else max(started, ch.seated_at)) + a
            for ch, a in zip(self.channels, allowance, strict=True)
        ]
        for p, ch in enumerate(self.channels):
            if isinstance(ch, BotFault):
                self._forfeit(p, ch.kind, ch.detail)
        waiting: dict[int, str] = {}  # seat -> the answer it owes: "hello" or "ready"

        def greet(p: int) -> None:
            ch = self._channel(p)
            if ch.previous_hello is None:
                ch.send(format_message(Hello(PROTOCOL_VERSION)))
                waiting[p] = "hello"
            else:  # a process kept from an earlier game: its hello still holds
                self.reported[p], self.capabilities[p] = ch.previous_hello
                if self.on_hello:
                    self.on_hello(p, self.reported[p])
                ch.send(format_message(self._game_start(p)))
                waiting[p] = "ready"

        def fault(p: int, f: BotFault) -> None:
            # A kept process that ended between games (it may exit after any "end") is
            # started afresh, with a whole allowance of its own: a game is charged only
            # for what happens in it.
            ch = self._channel(p)
            if f.kind is FaultKind.CRASH and ch.previous_hello is not None and ch.renew():
                deadlines[p] = max(deadlines[p], time.monotonic() + allowance[p])
                try:
                    greet(p)
                    return
                except BotFault as again:
                    f = again
            self._startup_fault(p, f, waiting.pop(p, None))

        for p in self._live():
            try:
                greet(p)
            except BotFault as f:
                fault(p, f)
        while waiting:
            now = time.monotonic()
            answered = False
            for p, owed in list(waiting.items()):
                ch = self._channel(p)
                try:
                    try:
                        line, _ = ch.receive(0, now)  # a poll: only what has already arrived
                    except BotFault as f:
                        if f.kind is FaultKind.TIMEOUT and now < deadlines[p]:
                            continue
                        raise
                    answered = True
                    if owed == "hello":
                        self._check_hello(p, line)
                        ch.send(format_message(self._game_start(p)))
                        waiting[p] = "ready"
                    else:
                        self._check_ready(p, line)
                        self.ready.add(p)
                        del waiting[p]
                except BotFault as f:
                    fault(p, f)
            if waiting and not answered:
                until = min(deadlines[p] for p in waiting)
                self._channel(next(iter(waiting))).wait(min(until, time.monotonic() + 0.02))

    def _channel(self, p: int) -> BotChannel:
        ch = self.channels[p]
        assert not isinstance(ch, BotFault)
        return ch

    def _startup_ms(self, p: int) -> int:
        """Seat ``p``'s startup allowance: its bot's own, else the time control's."""
        own = self.specs[p].startup_ms
        return self.setup.time_control.startup_ms if own is None else own

    def _startup_fault(self, p: int, f: BotFault, owed: str | None = None) -> None:
        if f.kind is FaultKind.TIMEOUT:
            self._forfeit(
                p,
                FaultKind.STARTUP_FAILURE,
                f"no {owed or 'hello/ready'} within the startup allowance "
                f"({self._startup_ms(p)} ms + margin {self.setup.time_control.margin_ms} ms)",
            )
        else:
            self._forfeit(p, f.kind, f.detail)

    def _check_hello(self, p: int, line: str) -> None:
        msg = self._parse(line)
        if not isinstance(msg, HelloReply):
            raise BotFault(FaultKind.PROTOCOL_ERROR, f"expected 'hello 1 NAME', got {line!r}")
        if msg.version != PROTOCOL_VERSION:
            raise BotFault(
                FaultKind.PROTOCOL_ERROR,
                f"speaks protocol version {msg.version}; this referee speaks {PROTOCOL_VERSION}",
            )
        self.reported[p] = msg.name
        self.capabilities[p] = msg.capabilities
        if self.on_hello:
            self.on_hello(p, msg.name)

    def _check_ready(self, p: int, line: str) -> None:
        if not isinstance(self._parse(line), Ready):
            raise BotFault(FaultKind.PROTOCOL_ERROR, f"expected 'ready', got {line!r}")

    @staticmethod
    def _parse(line: str) -> object:
        try:
            return parse_bot_line(line)
        except ProtocolError as e:
            raise BotFault(FaultKind.PROTOCOL_ERROR, str(e)) from None

    def _game_start(self, p: int) -> GameStart:
        s, tc, prm = self.setup, self.setup.time_control, self.setup.params
        if MULTIGAME in self.capabilities.get(p, ()) and self._channel(p).can_stay:
            self.multigame.add(p)
        return GameStart(
            game_id=s.game_id,
            seat=p,
            players=prm.players,
            seed=seeds.seat_seed(self.seed_secret, s.seed, p),
            sheep=prm.sheep,
            tiles=prm.tiles,
            contact=prm.contact,
            hole_border=prm.hole_border,
            move_time=tc.move_ms or 0,
            base_time=tc.base_ms or 0,
            increment=tc.increment_ms,
            names=tuple(spec.name for spec in self.specs),
            multigame=p in self.multigame,
        )

    def _play_turn(self) -> None:
        st = self.state
        p = st.to_move
        ch = self.channels[p]
        assert not isinstance(ch, BotFault)
        phase = _PHASE_WORDS[st.phase]
        clock = self.clocks[p]
        budget = clock.budget_ms()
        if budget <= 0:  # the margin absorbs measuring noise; it is no time to play on
            raise BotFault(FaultKind.TIMEOUT, "its clock ran out")
        timeout_s = (budget + self.setup.time_control.margin_ms) / 1000
        ply = len(self.moves)
        board = st.board
        turn = self.writer.line(
            phase,
            budget,
            ply,
            self.clocks_left,
            self.since[self.last_seen[p] :],
            board.coords,
            board.daisies,
            st.owner,
            st.height,
            st.tiles_left,
            st.forfeited,
            st.last_slide() or (),
        )
        ch.resume()  # the bot on move alone runs (before its clock starts, at the send)
        try:
            ch.send(turn, ply)
            line, elapsed = ch.receive(timeout_s)
        except BotFault as f:
            if f.kind is not FaultKind.TIMEOUT:
                raise
            margin = self.setup.time_control.margin_ms
            raise BotFault(
                FaultKind.TIMEOUT,
                f"no answer to '{phase}' at ply {ply + 1} within {timeout_s * 1000:.0f} ms "
                f"(its clock's {budget} ms + margin {margin} ms)",
            ) from None
        finally:
            ch.pause()
        known = _ANSWERS.get(line)
        if known is None or known[0] != phase:
            known = self._read_answer(line, phase, p, elapsed)
        else:
            self._charge(p, elapsed)
        _, token, move, text = known
        try:
            st.apply(move)  # checks the move once, without generating the others
        except IllegalMoveError as e:
            raise BotFault(FaultKind.ILLEGAL_MOVE, f"{token!r} at ply {ply + 1}: {e.reason}") from None
        record = MoveRecord(p, text, elapsed * 1000)
        self.moves.append(record)
        self.since.append(TurnWriter.since_item(p, text))
        self.last_seen[p] = ply + 1  # "since" never repeats a bot's own move
        if self.observer:
            self.observer(st, record, None)

    def _charge(self, p: int, elapsed: float) -> None:
        """Take the time of ``p``'s answer off its clock: a timeout past its budget."""
        clock = self.clocks[p]
        budget = clock.budget_ms()
        on_time = clock.charge(elapsed * 1000)
        self.clocks_left[p] = clock.remaining_ms  # (charged even when late: others are told it)
        if not on_time:
            raise BotFault(
                FaultKind.TIMEOUT,
                f"answered at ply {len(self.moves) + 1} after {elapsed * 1000:.0f} ms; its clock had "
                f"{budget} ms + margin {self.setup.time_control.margin_ms} ms",
            )

    def _read_answer(self, line: str, phase: str, p: int, elapsed: float) -> _Answer:
        """What a bot's answer says (see ``_ANSWERS``), checked in this order: the
        line, its phase, the clock, the move's notation.  A plain well-formed answer is
        kept in ``_ANSWERS``, so that the next time the same line comes only the clock
        is checked."""
        m = _ANSWER_RE.fullmatch(line)
        if m is None or m["phase"] != phase:
            # Anything but the usual answer (padding, a wrong phase, a bad token): the
            # codec's general reading, which says what is wrong.
            msg = self._parse(line)
            if not isinstance(msg, MoveReply) or msg.phase != phase:
                raise BotFault(FaultKind.PROTOCOL_ERROR, f"expected '{phase} MOVE', got {line!r}")
            self._charge(p, elapsed)
            try:
                move, text = read_move(msg.move)
            except NotationError as e:
                raise BotFault(FaultKind.PROTOCOL_ERROR, f"{e} in line {line!r}") from None
            return (phase, msg.move, move, text)
        # The usual answer, read in one match: it passes every check of the general path
        # (phase word, one space, one token, the notation) with the same result.
        self._charge(p, elapsed)
        token = line[len(phase) + 1 :]
        try:
            move, text = move_from_match(m, token)
        except NotationError as e:
            raise BotFault(FaultKind.PROTOCOL_ERROR, f"{e} in line {line!r}") from None
        known = (phase, token, move, text)
        if len(_ANSWERS) < _ANSWERS_KEPT:
            _ANSWERS[line] = known
        return known

    # -- the game -------------------------------------------------------------------------

    def run(self, started: float | None = None) -> GameRecord:
        """Play the game to its end and return its record; a bot that breaks the rules, the
        protocol or its clock is forfeited and the game goes on for the others."""
        began = time.monotonic() if started is None else started
        wall = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        start_position = format_position(self.state)
        try:
            self._startup(began)
            # From the first turn on, only the bot on move runs: what the others would do
            # meanwhile (an info flood, a busy loop) takes no CPU from it.
            for p in self._live():
                self._channel(p).pause()
            while not self.state.is_over:
                p = self.state.to_move
                try:
                    self._play_turn()
                except BotFault as f:
                    self._forfeit(p, f.kind, f.detail)
            end = format_message(self._game_end())
            for p in self._live():
                self._channel(p).resume()
            live = []
            for p in self._live():  # every bot hears "end" at once; one grace for all of them
                if p in self.multigame:
                    self._channel(p).stay(end, (self.reported[p], self.capabilities[p]))
                else:
                    live.append(self._channel(p))
                    live[-1].finish(end)
            deadline = time.monotonic() + self.setup.end_grace_s
            for bot in live:
                bot.stop(None, max(0.0, deadline - time.monotonic()))
        finally:
            for ch in self.channels:
                if not isinstance(ch, BotFault):
                    ch.stop(None, 0.0)
        return self._record(start_position, began, wall)

    def _game_end(self) -> GameEnd:
        standings = self.state.standings()
        return GameEnd(
            ranks=tuple(s.rank for s in standings),
            hexes=tuple(s.hexes for s in standings),
            groups=tuple(s.largest_group for s in standings),
            daisies=tuple(s.daisies for s in standings),
            faults=tuple(
                self.faults[p].kind.value if p in self.faults else None for p in range(len(standings))
            ),
        )

    def _record(self, start_position: str, began: float, wall: str) -> GameRecord:
        seats = []
        for p, (spec, ch) in enumerate(zip(self.specs, self.channels, strict=True)):
            facts = {} if isinstance(ch, BotFault) else ch.seat_facts()
            fault = self.faults.get(p)
            if fault is not None and not isinstance(ch, BotFault):
                fault = replace(fault, hint=ch.fault_hint(fault))
            seat = SeatRecord(
                name=spec.name,
                command=spec.command,
                reported_name=self.reported.get(p),
                ready=p in self.ready,
                fault=fault,
                **facts,  # type: ignore[arg-type]
            )
            seats.append(seat)
        tc = self.setup.time_control
        return GameRecord(
            game_id=self.setup.game_id,
            seed=self.setup.seed,
            seed_secret=self.seed_secret,
            params=self.setup.params,
            time_control=tc.to_dict(),
            start_position=start_position,
            seats=tuple(seats),
            moves=tuple(self.moves),
            final_position=format_position(self.state),
            standings=tuple(self.state.standings()),
            duration_ms=(time.monotonic() - began) * 1000,
            started_at=wall,
        )


def play_game(
    setup: GameSetup,
    bots: Sequence[BotSpec],
    observer: Observer | None = None,
    host: BotHost | None = None,
    on_hello: Callable[[int, str], None] | None = None,
) -> GameRecord:
    """Play one game and return the record.

    The bots come from ``host`` (kept processes of bots that play several
    games), or are started for this game alone and all stopped before it returns.
    ``on_hello(seat, name)`` hears each name a bot gives in its hello.
    """
    if host is None:
        with BotHost(keep=False) as own:
            return play_game(setup, bots, observer, own, on_hello)
    started = time.monotonic()
    channels: list[BotChannel | BotFault] = list(host.seat(bots, setup.keep_transcript))
    try:
        return Referee(setup, bots, channels, observer, on_hello).run(started)
    finally:
        host.release()
