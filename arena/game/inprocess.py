"""A built-in bot played inside the referee's own process: a channel over its bot-kit session.

The arena's own opponents (``arena:random``, ``arena:forfeit``) are Python functions of a
turn.  Started as processes, each costs an interpreter (tens of milliseconds of CPU to
import the rules) and a sandbox; ``arena check`` seats dozens of them.  Played here, the
referee hands each request to the bot's :class:`~arena.botkit.BotSession` and takes its
answer at once: the same lines, the same seeded moves (a replay with ``arena play
arena:random ...`` runs the process and plays them again), no process.

Only the arena's own code runs here: a bot an author wrote always gets a process.
"""

from __future__ import annotations

import io
import time
from collections import deque

from arena import builtin_bots
from arena.botkit import BotSession
from arena.game.record import BotFault, Fault, FaultKind

TRANSCRIPT_KEEP = 60  # lines of the conversation kept for reports, as for a process


class InProcessChannel:
    """A :class:`~arena.game.referee.BotChannel` over built-in bot ``name``'s session.

    Its answer to a line is computed when the line is sent; ``receive`` hands it over,
    with the time the bot took to choose it.
    """

    def __init__(self, name: str, keep_transcript: bool = False) -> None:
        # (A built-in bot writes no info line; its kit's output goes nowhere.)
        self.session = BotSession(f"builtin-{name}", builtin_bots.chooser(name), out=io.StringIO())
        self.answer: tuple[str, float] | None = None
        self.sent_at = self.seated_at = time.monotonic()  # "started" as the channel is made
        self.finished = False
        self.stopped = False
        self.previous_hello: tuple[str, tuple[str, ...]] | None = None  # greeted in every game
        self.can_stay = False
        self.transcript: deque[str] | None = deque(maxlen=TRANSCRIPT_KEEP) if keep_transcript else None

    def _note(self, line: str) -> None:
        if self.transcript is not None:
            self.transcript.append(line)

    def send(self, line: str, ply: int | None = None) -> None:
        """Hand ``line`` to the bot; its answer (if the line asks for one) waits for ``receive``."""
        if self.stopped:
            raise BotFault(FaultKind.CRASH, "was stopped")
        self._note(f"ref> {line}")
        self.sent_at = time.monotonic()
        reply = self.session.handle(line, self.sent_at)
        self.answer = None if reply is None else (reply, time.monotonic() - self.sent_at)

    def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
        """The answer to the last line sent, and the seconds the bot took to choose it."""
        if self.answer is None:
            raise BotFault(FaultKind.TIMEOUT, "the built-in bot had no answer to the last line")
        line, took = self.answer
        self.answer = None
        self._note(f"bot> {line}")
        return line, took

    def wait(self, until: float) -> None:
        """Nothing to wait for: an answer is ready as soon as its line is sent."""

    def pause(self) -> None:
        """Nothing to freeze: it runs only while the referee asks it for an answer."""

    def resume(self) -> None:
        """Nothing was frozen."""

    def finish(self, goodbye: str) -> None:
        """Tell the bot the game has ended."""
        if not self.stopped and not self.finished:
            self.finished = True
            self._note(f"ref> {goodbye}")
            self.session.handle(goodbye)

    def stop(self, goodbye: str | None, grace_s: float, why: str | None = None) -> None:
        """The bot answers nothing more (``why``: the fault it is stopped for, in its transcript)."""
        if self.stopped:
            return
        if goodbye is not None:
            self.finish(goodbye)
        if why is not None:
            self._note(f"---- forfeited: {why}")
        self.stopped = True

    def renew(self) -> bool:
        """Never kept between games, so never renewed."""
        return False

    def stay(self, goodbye: str, hello: tuple[str, tuple[str, ...]]) -> None:
        """Never kept between games (``can_stay`` is False): the game simply ends for it."""
        self.finish(goodbye)

    def seat_facts(self) -> dict[str, object]:
        """Its seat record: no process, so no exit, stderr or sandbox to tell of."""
        facts: dict[str, object] = {
            "exit": "in the referee's process",
            "exited_cleanly": self.finished,
            "isolation": {"sandbox": "none", "limits": "none (in the referee's process)", "network": False},
        }
        if self.transcript is not None:
            facts["transcript"] = tuple(self.transcript)
        return facts

    def fault_hint(self, fault: Fault) -> str:
        """No guess: a built-in bot's fault is its design (``arena:forfeit``)."""
        return ""
