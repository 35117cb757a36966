"""Which versions play in the ladder's league, and under which names: the league's config.

A version that passed its check joins the league as ``BOT.vN`` (bot ``BOT``, version ``N``)
and retires the author's previous one: a retired version plays no new games, but its games
already played keep counting in the standings.  The organiser's retire and ban of a bot,
and a banned author, retire its versions too.

The league itself is an ordinary continuous league: :func:`league_config` makes it from the
ladder file's league with one more bot per passed version, in the order they passed their
checks, so each new version only adds a bot at the end and the league grows without
replaying (see :mod:`arena.league.changes`).  The roster lives in ``ladder.sqlite`` and
nowhere else: no file holds it, so no tournament-file limit applies to it, and what a
version adds to the league is its name, its folder and its command (at most
:data:`arena.ladder.intake.MAX_COMMAND_CHARS` characters) whatever text that command holds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.ladder.folders import LEAGUE_FILE
from arena.ladder.names import version_name
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore, Submission
from arena.league.config import TournamentConfig, parse_config
from arena.league.config.reader import beside
from arena.league.config.sections import first_phase_games


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
    It is never less than the league's first phase (every meeting of the bots playing, once):
    however many bots the authors send (one author may send many), the league can start.
    """
    league = ladder.league
    data = dict(league.raw)
    data["output"] = str(ladder.folder)
    data["cwd"] = str(ladder.cwd)
    active = sum(not b.retired for b in league.bots) + sum(e.active for e in entries)
    first = first_phase_games(league.continuous.min_meetings, league.players, league.seat_orders, active)
    data["max_games"] = max(games_before + league.continuous.max_games, first)
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


def league_path(ladder: Ladder) -> Path:
    """The path the league's config is read as: it names no file (an older arena wrote one
    there), but relative paths start beside it and messages name it, as they always did."""
    return ladder.folder / LEAGUE_FILE


def league_config(ladder: Ladder, store: LadderStore, games_before: int = 0) -> TournamentConfig:
    """The league as the store stands now (see :func:`league_data`), validated by the
    tournament file's own reader, with no limit on the number of versions."""
    data = league_data(ladder, roster(store), games_before)
    # UTF-8 as it is (a command of 4,096 non-ASCII characters is not 40 KB of escapes); a
    # character YAML cannot hold as it is (a control character) is escaped.
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1 << 30)
    return parse_config(text, league_path(ladder))


def roster_key(ladder: Ladder, store: LadderStore) -> str:
    """A digest of the league as the store stands now (its budget aside): it changes exactly
    when the league must be started again on a new roster.  Cheap enough to take every poll:
    a version's name and command never change, so its id, whether it plays and its folder say
    all the league takes from it."""
    versions = [(e.sub.id, e.active, str(ladder.version_folder(e.sub.id))) for e in roster(store)]
    return hashlib.sha256(json.dumps(versions).encode()).hexdigest()
