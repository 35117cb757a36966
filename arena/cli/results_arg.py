"""The RESULTS argument of ``arena standings``, ``games``, ``replay`` and ``report``: a results
folder, its store file, or the tournament file that wrote it, opened with its bots."""

from __future__ import annotations

from pathlib import Path

from arena.errors import ConfigError
from arena.league.config import load_config
from arena.league.store import STORE_NAME, ResultStore, store_path
from arena.league.stored import StoredLeague
from arena.stats.settings import RatingConfig


def open_results(target: Path) -> tuple[ResultStore, list[str], RatingConfig]:
    """A results folder, its store file, or the tournament file that wrote it."""
    if target.suffix in (".yaml", ".yml"):
        config = load_config(target)
        if not store_path(config.output).is_file():
            raise ConfigError(
                f"{target}: tournament {config.name!r} has no results yet in {str(config.output)!r} "
                f"(run 'arena run {target}')"
            )
        store = ResultStore.open(config.output)
        try:
            stored = StoredLeague.read(store)
            if stored.name is not None and stored.name != config.name:
                raise ConfigError(
                    f"{target}: its output {str(config.output)!r} holds the results of tournament "
                    f"{stored.name!r}, not of {config.name!r}"
                )
        except BaseException:
            store.close()
            raise
        return store, stored.with_removed([b.name for b in config.bots]), config.rating
    if target.is_file() and target.suffix != ".sqlite":
        raise ConfigError(
            f"{str(target)!r} is not results: give a results folder, its {STORE_NAME}, "
            "or the tournament file (.yaml or .yml) that wrote it"
        )
    store = ResultStore.open(target)
    try:
        stored = StoredLeague.read(store)
        return store, stored.bots(), stored.rating()
    except BaseException:
        store.close()
        raise
