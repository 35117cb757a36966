"""Which versions play in the ladder's league, and under which names: the league's file.

A version that passed its check joins the league as ``BOT.vN`` (bot ``BOT``, version ``N``)
and retires the author's previous one: a retired version plays no new games, but its games
already played keep counting in the standings.  The organiser's retire and ban of a bot,
and a banned author, retire its versions too.

The league itself is an ordinary continuous league: :func:`league_file` writes it as a
tournament file (``ladder-league.yaml`` in the results folder), the ladder file's league with
one more bot per passed version, in the order they passed their checks, so each new version
only adds a bot at the end and the league grows without replaying (see
:mod:`arena.league.changes`).  ``arena run`` could play that file as well as the service does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.ladder.folders import LEAGUE_FILE
from arena.ladder.names import version_name
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore, Submission
from arena.league.config.reader import beside
from arena.league.results_folder import write_atomic

HEADER = (
    "# Written by `arena serve` from the ladder file and the versions that passed their checks;\n"
    "# rewritten whenever one joins or is retired. Edit the ladder file, not this one.\n"
)


def league_name(sub: Submission) -> str:
    """The name version ``sub`` plays under in the league: ``BOT.vN``."""
    return version_name(sub.bot, sub.version)


@dataclass(frozen=True)
class Entry:
    """One passed version in the league: its submission, and whether it plays new games."""

    sub: Submission
    active: bool

    @property
    def name(self) -> str:
        return league_name(self.sub)


def roster(store: LadderStore) -> list[Entry]:
    """Every passed version in the order they passed (their submission ids), each bot's
    newest active unless the bot is retired or banned or its author is banned."""
    passed = store.passed()
    flags = store.bot_flags()
    banned_authors = {a.name for a in store.authors() if a.banned}
    newest: dict[str, int] = {}
    for s in passed:
        newest[s.bot] = max(newest.get(s.bot, 0), s.version)
    out = []
    for s in sorted(passed, key=lambda s: s.id):
        retired_through, bot_banned = flags.get(s.bot, (0, False))
        active = (
            s.version == newest[s.bot]
            and s.version > retired_through
            and not bot_banned
            and s.author not in banned_authors
        )
        out.append(Entry(s, active))
    return out


def league_data(ladder: Ladder, entries: list[Entry], games_before: int = 0) -> dict[str, Any]:
    """The league's tournament file as data: the ladder file's league, with absolute paths,
    then one bot per passed version.

    The ladder's ``max_games`` is a budget per roster: the league plays at most that many
    games more than the ``games_before`` it had when the roster last changed, so a ladder that
    spent its budget on two bots it cannot tell apart still plays the next version's games.
    """
    data = dict(ladder.league.raw)
    data["output"] = str(ladder.folder)
    data["cwd"] = str(ladder.cwd)
    data["max_games"] = games_before + ladder.league.continuous.max_games
    # The versions' folders lie outside the results folder: masked in every sandbox as a whole
    # (the house bots' folder may hold it), versions checked but not playing included.
    written = [str(beside(ladder.league.path.parent, p)) for p in data.get("hidden") or []]
    data["hidden"] = [*written, str(ladder.versions_folder)]
    bots: list[Any] = list(data.get("bots") or [])
    for e in entries:
        bot: dict[str, Any] = {
            "name": e.name,
            "command": list(e.sub.command),
            # Built by its check already, there; the sandbox shows the bot only that folder.
            "cwd": str(ladder.version_folder(e.sub.id)),
        }
        if not e.active:
            bot["retired"] = True
        bots.append(bot)
    data["bots"] = bots
    return data


def league_text(ladder: Ladder, store: LadderStore, games_before: int = 0) -> str:
    """The text of the league's file as the store stands now (see :func:`league_data`)."""
    data = league_data(ladder, roster(store), games_before)
    return HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=False)


def write_league_file(ladder: Ladder, text: str) -> Path:
    """Write the league's file (in one step) and return its path."""
    path = ladder.folder / LEAGUE_FILE
    write_atomic(path, text)
    return path
