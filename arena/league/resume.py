"""Reopening a results folder: what a run of a tournament file may play on top of what is stored.

A results store keeps the file that last ran on it (:mod:`arena.league.stored`) and the
schedule it made.  Run again, the same file plays what is left; a changed one is compared
with the stored one (:mod:`arena.league.changes`): a change to how games are played is
refused once games were played (old and new games would not compare), while bots may be
added, removed or retired and the run-only keys may change, the games played kept and new
ones scheduled.  :func:`resume` applies these rules to a store and says what it found as
values (the notes to show); it never prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import ConfigError
from arena.league import changes as league_changes
from arena.league.config import (
    LEGACY_DEFAULT_SEAT_ORDERS,
    RUN_ONLY_KEYS,
    Format,
    TournamentConfig,
)
from arena.league.continuous import CONTINUOUS_ID
from arena.league.schedule import ScheduledGame, make_schedule
from arena.league.store import ResultStore
from arena.league.stored import StoredLeague, record_league

# Version 2: 4-player seat orders 'balanced' by default, a gauntlet's boards from the field.
SCHEDULE_VERSION = 2


def schedule_for(config: TournamentConfig, version: int = SCHEDULE_VERSION) -> list[ScheduledGame]:
    """The games of the file's bots that are not retired (as if the others were not there),
    as schedule ``version`` makes them (a results folder keeps its own)."""
    active = [b.name for b in config.bots if not b.retired]
    challengers = [c for c in config.challengers if c in active]
    if config.challengers and not challengers:
        return []  # a gauntlet whose challengers are all retired has nobody left to play
    mode = config.seat_orders
    if version < 2 and "seat_orders" not in config.raw:
        mode = LEGACY_DEFAULT_SEAT_ORDERS.get(config.players, mode)
    return make_schedule(
        active,
        config.players,
        config.rounds,
        config.seed,
        mode,
        challengers,
        boards="field" if version >= 2 else "group",
    )


@dataclass(frozen=True)
class Resumed:
    """What reopening a store with a file found: the lines to tell the user (the file's
    changes since the last run and what became of the schedule, the bots now retired)."""

    notes: tuple[str, ...] = ()


def resume(store: ResultStore, config: TournamentConfig) -> Resumed:
    """Make ``store`` the results of ``config``: its schedule is what is left of the stored one
    with the file's changes applied, and the file is stored as the one that last ran.

    A change to how games are played, once games were played, is a ConfigError naming each
    changed key; the store is then left as it was.
    """
    stored = StoredLeague.read(store)
    old = stored.file
    if old == config.raw and stored.conditions == config.play_conditions() and stored.schedule_digest is not None:
        # The same file, played the same way: the stored schedule is the one it makes
        # (which takes a 100,000-game league longer to make than to resume).
        return Resumed()
    # A folder started before schedule version 2 keeps making its games as it did.
    version = stored.schedule_version or (1 if old is not None else SCHEDULE_VERSION)
    if config.format == Format.CONTINUOUS:
        schedule, notes = _continuous_schedule(config, store, stored)
    elif old is None:
        schedule, notes = schedule_for(config, version), ()
    else:
        schedule, notes = _changed_schedule(config, store, stored, schedule_for(config, version))
    removed = sorted(
        {*stored.removed, *league_changes.removed_bots(stored.raw, config.raw)} - {b.name for b in config.bots}
    )
    record_league(store, config, removed, version)
    store.set_schedule(schedule)
    return Resumed(notes)


def _changed_schedule(
    config: TournamentConfig, store: ResultStore, stored: StoredLeague, fresh: list[ScheduledGame]
) -> tuple[list[ScheduledGame], tuple[str, ...]]:
    """The schedule after the file changed: refused (naming the key) when the change alters
    how games are played and games were played; else played games kept, new ones added."""
    finished = store.finished_ids()
    changes = _allowed_changes(config, stored, finished)
    merged = league_changes.merge_schedule(store.schedule(), finished, fresh)
    return merged.schedule, _change_notes(config, changes, merged.describe())


def _continuous_schedule(
    config: TournamentConfig, store: ResultStore, stored: StoredLeague
) -> tuple[list[ScheduledGame], tuple[str, ...]]:
    """A continuous league's stored schedule (it plans its games as it goes), without the
    unplayed games of bots no longer scheduled or of another format."""
    finished = store.finished_ids()
    changes = None if stored.file is None else _allowed_changes(config, stored, finished)
    active = {b.name for b in config.bots if not b.retired}
    schedule = store.schedule()
    kept = [
        g
        for g in schedule
        if g.game_id in finished or (CONTINUOUS_ID.fullmatch(g.game_id) and active.issuperset(g.seats))
    ]
    if changes is None or stored.file == config.raw:
        return kept, ()
    dropped = len(schedule) - len(kept)
    outcome = f"kept {len(finished)}" + (f", dropped {dropped} unplayed" if dropped else "")
    return kept, _change_notes(config, changes, outcome)


def _allowed_changes(
    config: TournamentConfig, stored: StoredLeague, finished: set[str]
) -> league_changes.FileChanges:
    """How the file changed since the stored one; raises ConfigError when that alters how
    games are played and games were played."""
    old = stored.raw
    changes = league_changes.compare_files(old, config.raw)
    old_board = (stored.conditions or {}).get("board_contents")
    if old_board != config.play_conditions().get("board_contents") and old.get("board") == config.raw.get(
        "board"
    ):
        changes.refused.append(f"board: the contents of {config.raw.get('board')!r} changed")
    if finished and changes.refused:
        listing = "\n".join(f"  {c}" for c in changes.refused)
        raise ConfigError(
            f"{config.path} changed since the results in {str(config.output)!r} were started:\n"
            f"{listing}\nand that changes how games are played, so old and new games would not "
            "compare. Run with --restart to start over, or set another 'output'. (Bots may be "
            "added, removed or retired, and rounds, challengers and "
            f"{', '.join(sorted(RUN_ONLY_KEYS - {'rounds'}))} may change between runs.)"
        )
    return changes


def _change_notes(config: TournamentConfig, changes: league_changes.FileChanges, outcome: str) -> tuple[str, ...]:
    """The notes of a changed file: what changed and ``outcome``, then each bot now retired."""
    listing = "\n".join(f"  {c}" for c in [*changes.refused, *changes.allowed])
    retired: Sequence[str] = [b.name for b in config.bots if b.retired] + changes.removed
    return (
        f"note: {config.path} changed since the last run:\n{listing}\n{outcome}",
        *(f"note: {name!r} is retired: no new games; its games already played still count" for name in retired),
    )
