"""A scripted bot without a process, for testing the referee's side of the protocol."""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.botkit import BotSession, Turn
from arena.game.record import BotFault, Fault, FaultKind
from arena.rules import Move

Answer = str | BotFault | tuple[str, float]


class ScriptedChannel:
    """A BotChannel whose answers come from a function of the request line.

    The function returns the answer line, ``(line, seconds_taken)`` to pretend
    the bot took that long, or a BotFault to raise.  Every line the referee
    sends is kept in ``received``.
    """

    def __init__(self, answer: Callable[[str], Answer]) -> None:
        self.answer = answer
        self.received: list[str] = []
        self.goodbye: str | None = None
        self.stopped = False
        self.previous_hello: tuple[str, tuple[str, ...]] | None = None  # a fresh "process"
        self.can_stay = False
        self.seated_at = time.monotonic()
        self.paused = False  # the referee froze it (another bot is on move)

    def send(self, line: str, ply: int | None = None) -> None:
        assert not self.stopped, "the referee wrote to a stopped bot"
        self.received.append(line)
        self.sent_at = time.monotonic()
        self.pending: Answer | None = None

    def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
        # The answer "arrives" seconds_taken after the send; asked before that, it is late.
        if self.pending is None:
            self.pending = self.answer(self.received[-1])
        result = self.pending
        if isinstance(result, BotFault):
            raise result
        text, elapsed = (result, 0.0) if isinstance(result, str) else result
        # (timeout_s itself, not sent_at + timeout_s - sent_at: that rounds differently per run)
        limit = timeout_s if deadline is None else deadline - self.sent_at
        if elapsed > limit:
            raise BotFault(FaultKind.TIMEOUT, "no answer in time")
        self.pending = None
        return text, elapsed

    def wait(self, until: float) -> None:
        time.sleep(max(0.0, min(until - time.monotonic(), 0.01)))

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False

    def finish(self, goodbye: str) -> None:
        if not self.stopped:
            self.goodbye = goodbye

    def stop(self, goodbye: str | None, grace_s: float, why: str | None = None) -> None:
        if not self.stopped and goodbye is not None:
            self.goodbye = goodbye
        self.stopped = True

    def renew(self) -> bool:
        return False

    def stay(self, goodbye: str, hello: tuple[str, tuple[str, ...]]) -> None:
        self.goodbye = goodbye
        self.previous_hello = hello

    def seat_facts(self) -> dict[str, object]:
        return {"exit": "exit 0", "exited_cleanly": self.goodbye is not None}

    def fault_hint(self, fault: Fault) -> str:
        return ""


def engine_bot(name: str = "fake", choose: Callable[[Turn], Move] | None = None) -> ScriptedChannel:
    """A fake bot that plays through the Python bot kit (random moves by default)."""

    def pick(turn: Turn) -> Move:
        return turn.rng.choice(turn.state.legal_moves())

    session = BotSession(name, choose or pick)

    def answer(line: str) -> str:
        reply = session.handle(line)
        assert reply is not None, f"the kit had no answer to {line!r}"
        return reply

    return ScriptedChannel(answer)


def scripted(lines: list[str]) -> Callable[[str], Answer]:
    """Answers taken in order from ``lines``."""
    queue = list(lines)

    def answer(_line: str) -> Answer:
        return queue.pop(0)

    return answer
