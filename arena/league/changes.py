"""A league that lives: what a changed tournament file does to the games already played.

A game's identity is what it plays: its round, its seats in order and its
board's seed (the seed follows from the tournament's seed, the round and the
meeting, not from the game's place in the schedule). So when bots are added,
the games already played are still games of the new schedule, and only the new
meetings are scheduled, after every game already there (whose places, and so
the ratings computed in schedule order, stay as they were). A bot that is
removed or retired is no longer scheduled; its games already played stay.

What may change between runs: the bots (added, removed, ``retired``), the
rounds, the challengers of a gauntlet, and the run's own settings
(``RUN_ONLY_KEYS``). Anything else changes how games are played, and is
refused, naming the key that changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.league.config import RUN_ONLY_KEYS, UNTIL_STABLE
from arena.league.schedule import ScheduledGame

# Keys that change which games are played, not how any game is played.
SCHEDULE_KEYS = frozenset({"rounds", "challengers"})
# A bot's own keys that may change between runs: whether it is scheduled, and how much of its
# stderr a record keeps (neither changes how its games are played).
BOT_SCHEDULE_KEYS = frozenset({"retired", "logs"})

_ID_RE = re.compile(r"r(\d+)-g(\d+)")


def identity(game: ScheduledGame) -> tuple[int, tuple[str, ...], int]:
    """What a game plays: its round, its seats in order and its board's seed."""
    return (game.round, game.seats, game.seed)


@dataclass(frozen=True)
class Merged:
    """The schedule after a change, and what the change did to it."""

    schedule: list[ScheduledGame]
    kept: int  # games already played, kept as they are
    scheduled: int  # new games
    dropped: int  # unplayed games no longer scheduled (a bot removed, fewer rounds)

    def describe(self) -> str:
        """``kept 48, scheduled 40 new`` (and what was dropped, if anything)."""
        text = f"kept {self.kept}, scheduled {self.scheduled} new"
        return text + (f", dropped {self.dropped} unplayed" if self.dropped else "")


def merge_schedule(
    old: Sequence[ScheduledGame], finished: set[str], fresh: Sequence[ScheduledGame]
) -> Merged:
    """The new schedule: every played game where it was, the old unplayed games ``fresh``
    still has, then ``fresh``'s other games appended under new ids."""
    wanted = {identity(g) for g in fresh}
    kept = [g for g in old if g.game_id in finished or identity(g) in wanted]
    have = {identity(g) for g in kept}
    used: dict[int, int] = {}  # round -> the highest game number used in it
    for g in old:
        m = _ID_RE.fullmatch(g.game_id)
        if m:
            used[int(m[1])] = max(used.get(int(m[1]), 0), int(m[2]))
    ids = {g.game_id for g in old} | finished
    index = max((g.index for g in old), default=-1) + 1
    schedule = list(kept)
    for g in fresh:
        if identity(g) in have:
            continue
        number = used.get(g.round, 0)
        game_id = ""
        while not game_id or game_id in ids:
            number += 1
            game_id = f"r{g.round}-g{number:03d}"
        used[g.round] = number
        ids.add(game_id)
        schedule.append(ScheduledGame(index, game_id, g.round, g.seats, g.seed))
        index += 1
    played = sum(1 for g in kept if g.game_id in finished)
    return Merged(schedule, played, len(schedule) - len(kept), len(old) - len(kept))


@dataclass(frozen=True)
class FileChanges:
    """How a tournament file changed since its results were started."""

    refused: list[str]  # changes to how games are played
    allowed: list[str]  # changes to which games are played, or to the run
    added: list[str]  # bots
    removed: list[str]  # bots no longer in the file


def compare_files(old: Mapping[str, Any], new: Mapping[str, Any]) -> FileChanges:
    """The changes between two tournament files (as data), key by key."""
    refused: list[str] = []
    allowed: list[str] = []
    for key in sorted((set(old) | set(new)) - {"bots"}):
        before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
        changes = describe_changes(before, after, key)
        # 'rounds: until_stable' is a continuous league: to or from it is a change of format.
        of_format = key == "rounds" and (before == UNTIL_STABLE) != (after == UNTIL_STABLE)
        schedule_only = key in RUN_ONLY_KEYS or key in SCHEDULE_KEYS
        (allowed if schedule_only and not of_format else refused).extend(changes)
    old_bots = _bots(old)
    new_bots = _bots(new)
    added = [name for name in new_bots if name not in old_bots]
    removed = [name for name in old_bots if name not in new_bots]
    positions = {name: i for i, name in enumerate(new_bots)}
    for name in added:
        allowed.append(f"bots[{positions[name]}] added ({name!r})")
    for name in removed:
        allowed.append(f"bots: {name!r} removed (its games already played are kept)")
    staying_old = [n for n in old_bots if n in new_bots]
    staying_new = [n for n in new_bots if n in old_bots]
    if staying_old != staying_new:
        # The order of a meeting's bots is its seat order and part of its board's seed.
        refused.append(f"bots: reordered ({', '.join(staying_old)} -> {', '.join(staying_new)})")
    for name in staying_new:
        before, after = old_bots[name], new_bots[name]
        where = f"bots[{positions[name]}]"
        for key in sorted(set(before) | set(after)):
            changes = describe_changes(before.get(key, _ABSENT), after.get(key, _ABSENT), f"{where}.{key}")
            (allowed if key in BOT_SCHEDULE_KEYS else refused).extend(changes)
    return FileChanges(refused, allowed, added, removed)


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


def removed_bots(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The bots of ``old`` that ``new`` no longer names."""
    return [name for name in _bots(old) if name not in _bots(new)]


def _bots(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    bots = raw.get("bots") or []
    return {b["name"]: b for b in bots if isinstance(b, dict) and isinstance(b.get("name"), str)}


def describe_changes(old: Any, new: Any, prefix: str = "") -> list[str]:
    """What differs between two values of a tournament file, key by key:
    ``time_control.move: '200ms' -> '1s'``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            key = f"{prefix}.{k}" if prefix else k
            if k not in old:
                out.append(f"{key}: added ({new[k]!r})")
            elif k not in new:
                out.append(f"{key}: removed (was {old[k]!r})")
            else:
                out.extend(describe_changes(old[k], new[k], key))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            c
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for c in describe_changes(a, b, f"{prefix}[{i}]")
        ]
    if old is _ABSENT:
        return [f"{prefix}: added ({new!r})"]
    if new is _ABSENT:
        return [f"{prefix}: removed (was {old!r})"]
    return [] if old == new else [f"{prefix}: {old!r} -> {new!r}"]
