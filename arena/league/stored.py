"""The tournament file a results store last ran, read back from the store.

Every run keeps its tournament file's contents with the results (the store's
``meta``, under string keys this module alone knows), so that ``arena
standings``, ``arena report`` and the ladder read a folder without its file,
and a later run knows what changed.  :class:`StoredLeague` reads them once,
tolerant of a damaged store where a reader can go on (a bot list that is not
one reads as no bots) and naming the store where it cannot (a rating that
cannot be used); :func:`record_league` writes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import StoreError
from arena.league.config import (
    DEFAULT_CONFIDENCE,
    DEFAULT_INDIFFERENCE,
    UNTIL_STABLE,
    ContinuousConfig,
    Format,
    TournamentConfig,
    continuous_settings_problem,
)
from arena.league.store import ResultStore
from arena.stats.settings import RatingConfig


@dataclass(frozen=True)
class StoredLeague:
    """What a results store keeps of the tournament file that last ran on it.

    ``file`` is the file's contents as stored (None before any run: an empty store, or
    one written by hand), ``removed`` the bots taken out of the file since their games
    were played (they still count), ``conditions`` how its games were played (the
    board's contents too), ``schedule_version`` how its schedule was made.
    """

    path: Path
    file: Any
    name: str | None
    removed: tuple[str, ...]
    conditions: Mapping[str, Any] | None
    schedule_digest: str | None
    schedule_version: int | None

    @classmethod
    def read(cls, store: ResultStore) -> StoredLeague:
        """Read what ``store`` keeps of its tournament (a value that is not JSON: StoreError)."""
        file = store.get_meta("config")
        name = store.get_meta("name")
        removed = store.get_meta("retired") or []
        conditions = store.get_meta("conditions")
        digest = store.get_meta("schedule_digest")
        version = store.get_meta("schedule_version")
        return cls(
            path=store.path,
            file=file,
            name=None if name is None else str(name),
            removed=tuple(b for b in removed if isinstance(b, str)) if isinstance(removed, list) else (),
            conditions=conditions if isinstance(conditions, dict) else None,
            schedule_digest=digest if isinstance(digest, str) else None,
            schedule_version=version if isinstance(version, int) else None,
        )

    @property
    def raw(self) -> dict[str, Any]:
        """The stored file's contents as a mapping ({} when there is none, or not a mapping)."""
        return self.file if isinstance(self.file, dict) else {}

    def _entries(self) -> list[Any]:
        bots = self.raw.get("bots", [])
        return bots if isinstance(bots, list) else []

    def with_removed(self, names: Sequence[str]) -> list[str]:
        """The bots of the standings of a file with the bots ``names``: those, then the bots
        removed from the stored file, whose games already played still count."""
        return [*names, *(b for b in self.removed if b not in names)]

    def bots(self) -> list[str]:
        """The bots of the stored file's standings (:meth:`with_removed` of its bots).

        A stored file that is not a tournament file's contents is a StoreError, naming the store.
        """
        if not isinstance(self.file or {}, dict) or not isinstance(self.raw.get("bots", []), list):
            raise StoreError(f"{self._where()} is not a tournament file's contents")
        names = [b.get("name") for b in self._entries() if isinstance(b, dict)]
        return self.with_removed([n for n in names if isinstance(n, str)])

    def retired(self) -> list[str]:
        """The bots the last run scheduled no games for: retired in its file (or with
        ``--without``), then the removed ones."""
        marked = [b.get("name") for b in self._entries() if isinstance(b, dict) and b.get("retired") is True]
        return [b for b in [*marked, *self.removed] if isinstance(b, str)]

    def rating(self) -> RatingConfig:
        """The rating settings of the stored file (the defaults where it says none); one that
        cannot be used is a StoreError, naming the store and the value."""
        rating_raw = self.raw.get("rating") or {}
        try:
            values: dict[str, Any] = {
                k: str(v) if k == "model" else float(v) for k, v in dict(rating_raw).items()
            }
            return RatingConfig(**values)
        except (TypeError, ValueError) as e:
            raise StoreError(f"{self._where()} has a rating that cannot be used ({rating_raw!r}): {e}") from None

    def continuous(self) -> ContinuousConfig | None:
        """The stopping settings of a continuous league (those its pair tests need); None for
        another format, or settings that cannot be read."""
        raw = self.raw
        if not (raw.get("format") == Format.CONTINUOUS or raw.get("rounds") == UNTIL_STABLE):
            return None
        try:
            settings = ContinuousConfig(
                confidence=float(raw.get("confidence", DEFAULT_CONFIDENCE)),
                indifference=float(raw.get("indifference", DEFAULT_INDIFFERENCE)),
            )
        except (TypeError, ValueError):
            return None
        return None if continuous_settings_problem(settings) else settings

    def title(self) -> str:
        """The tournament's name: as its last run gave it, else as its file says, else the folder's."""
        return str(self.name or self.raw.get("name") or self.path.parent.name)

    def _where(self) -> str:
        return f"{str(self.path)!r}: the stored tournament"


def record_league(
    store: ResultStore, config: TournamentConfig, removed: Sequence[str], schedule_version: int
) -> None:
    """Keep ``config`` with the results as the file that last ran (with the bots ``removed``
    from it and the version its schedule was made by), for :meth:`StoredLeague.read`."""
    # The order bots joined in, for a continuous league's error spent by arrival: appended
    # to, never reordered (a folder from before it counts its bots as the first roster).
    arrivals = list(store.get_meta("arrivals") or [])
    first_roster = store.get_meta("first_roster")
    arrivals += [name for name in (b.name for b in config.bots) if name not in arrivals]
    store.set_meta(
        arrivals=arrivals,
        first_roster=len(arrivals) if first_roster is None else first_roster,
        config=config.raw,
        conditions=config.play_conditions(),
        digest=config.digest(),
        name=config.name,
        retired=list(removed),
        schedule_version=schedule_version,
    )


def move_bot_folder(store: ResultStore, old: str, new: str) -> bool:
    """Say in the stored file that the bots of folder ``old`` now play from ``new`` (a folder
    moved by hand or by the ladder); whether any bot was.  Nothing else of the file changes,
    so the league resumes as it was."""
    file = StoredLeague.read(store).file
    bots = file.get("bots") if isinstance(file, dict) else None
    if not isinstance(bots, list):
        return False
    moved = False
    for bot in bots:
        if isinstance(bot, dict) and bot.get("cwd") == old:
            bot["cwd"] = new
            moved = True
    if moved:
        store.set_meta(config=file)
    return moved
