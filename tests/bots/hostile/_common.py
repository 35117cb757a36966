"""What every hostile bot shares: it plays random legal moves with the bot kit, and
reports what its attack found as one ``BSA-REPORT {json}`` line on stderr (the
referee keeps the stderr tail with the seat record, where the test reads it).

An attack runs once, at startup (before ``hello``) or at the bot's first turn.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

REPORT_PREFIX = "BSA-REPORT "
# The test's marker (``python -X bsa_marker=...``): children and exec'd programs carry it
# in their command lines, so the test finds whatever the attack left running.
MARKER = sys._xoptions.get("bsa_marker", "bsa-hostile")


def report(**facts: object) -> None:
    print(REPORT_PREFIX + json.dumps(facts, sort_keys=True, default=str), file=sys.stderr, flush=True)


def outcome(action: Callable[[], object]) -> str:
    """``ok`` if ``action`` succeeded, else the errno's name (``EROFS``, ``EACCES``...)."""
    try:
        action()
    except OSError as e:
        return errno.errorcode.get(e.errno or 0, type(e).__name__)
    except Exception as e:
        return type(e).__name__
    return "ok"


def read(path: str, limit: int = 4096) -> str:
    """A file's first bytes as text, or ``!ERRNO`` when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError as e:
        return "!" + errno.errorcode.get(e.errno or 0, "OSError")


def visible_pids() -> list[int]:
    return sorted(int(e) for e in os.listdir("/proc") if e.isdigit())


def probe_pids(upto: int = 65536) -> list[int]:
    """Every pid that answers ``kill(pid, 0)``: processes /proc might not list."""
    found = []
    for pid in range(1, upto):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        found.append(pid)
    return found


def play(name: str, attack: Callable[[], None], at: str = "start") -> None:
    """Run ``attack`` at ``start`` or at the first ``turn``, then play random legal moves."""
    if at == "start":
        attack()
    pending = at == "turn"

    def choose(turn: Turn) -> Move:
        nonlocal pending
        if pending:
            pending = False
            attack()
        return turn.rng.choice(turn.state.legal_moves())

    # One process per game: each attack runs (and reports) in every game it is meant for.
    run_bot(name, choose, multigame=False)
