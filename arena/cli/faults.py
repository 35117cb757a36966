"""The evidence under the faults of a results folder, for ``arena run``'s end and ``arena games``.

A listing names each fault; this module adds what a bot author needs to fix it (the arena's
hint, the bot's first lines, its stderr tail: :func:`arena.game.record.fault_evidence`),
for a bounded number of faults, each line escaped for the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

import click

from arena.game.record import fault_evidence
from arena.league.game_summary import GameSummary
from arena.league.store import ResultStore
from arena.rules import PLAYER_LETTERS
from arena.untrusted import printable

SHOWN_FAULTS = 8  # faults shown with their evidence; the listing has the rest


def first_faults(games: Iterable[GameSummary]) -> list[tuple[str, int]]:
    """(game id, seat) of the first fault of each bot and kind, in schedule order."""
    seen: set[tuple[str, str]] = set()
    firsts = []
    for g in games:
        for p, f in g.faults:
            key = (g.seats[p].name, f.kind.value)
            if key not in seen:
                seen.add(key)
                firsts.append((g.game_id, p))
    return firsts


def print_fault_evidence(store: ResultStore, faults: list[tuple[str, int]], where: str) -> None:
    """Each of ``faults`` (game id, seat) with its evidence, at most :data:`SHOWN_FAULTS` of them."""
    for game_id, p in faults[:SHOWN_FAULTS]:
        seat = store.record(game_id).seats[p]
        if seat.fault is None:
            continue
        click.echo(
            f"\n{printable(game_id)} {PLAYER_LETTERS[p]} {printable(seat.name)}: "
            f"{seat.fault.kind.value}: {printable(seat.fault.detail)}"
        )
        for line in fault_evidence(seat):
            click.echo(f"  {printable(line)}")
    if len(faults) > SHOWN_FAULTS:
        click.echo(f"\n({len(faults) - SHOWN_FAULTS} more: arena games {where} --fault any)")


def fault_json(store: ResultStore, game_id: str, seat: int) -> dict[str, object]:
    """The hint, first stdout lines and stderr tail of one seat's fault, for ``--format json``."""
    record_seat = store.record(game_id).seats[seat]
    fault = record_seat.fault
    return {
        "hint": fault.hint if fault else "",
        "stdout_head": list(record_seat.stdout_head),
        "stderr_tail": "\n".join(record_seat.stderr_tail.splitlines()[-10:])[-2048:],
    }
