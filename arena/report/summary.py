"""What a report shows, computed from a results folder's games: values, no HTML.

Standings come from :class:`arena.league.tally.StandingsBuilder`, once per number
of players (a 2-player and a 4-player game do not rate alike); the rest (who
beat whom, ratings game by game, one line per game, the settings) is here.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.game.clock import TimeControl
from arena.game.record import FaultKind, GameRecord
from arena.league.rating import conservative, environment, rate_game
from arena.league.standings import fit_warning, isolation_line, seat_line
from arena.league.tally import Standings, StandingsBuilder
from arena.rules import PLAYER_LETTERS
from arena.stats.settings import RatingConfig

Pairwise = dict[str, dict[str, tuple[float, int]]]  # bot -> opponent -> (points, games met)


@dataclass(frozen=True)
class PlayerGroup:
    """Everything about the games of one number of players."""

    players: int
    standings: Standings
    pairwise: Pairwise
    # bot -> [(games of this group rated so far, its rating mu - 3 sigma after them)]
    history: dict[str, list[tuple[int, float]]]
    fault_kinds: tuple[str, ...]  # the kinds of fault that happened, in FaultKind order
    seat_text: str
    isolation_text: str
    warning: str | None = None  # the rating fit did not converge


@dataclass(frozen=True)
class GameRow:
    """One line of the games table."""

    index: int  # place in the schedule order of the finished games
    game_id: str
    round: int | None
    players: int
    seats: tuple[str, ...]
    result: str  # "1. ann 12  2. bob 9"
    winners: tuple[str, ...]  # the bots ranked first
    moves: int
    faults: tuple[str, ...]  # "b bob: timeout: answered after 260 ms"
    fault_kinds: tuple[str, ...]


@dataclass(frozen=True)
class ReportData:
    """A whole report: the tournament, its progress, and its games."""

    name: str
    written_at: str
    done: int
    total: int
    running: bool
    settings: tuple[tuple[str, str], ...]
    config_text: str  # the tournament file as run, as JSON
    groups: tuple[PlayerGroup, ...]
    games: tuple[GameRow, ...]
    records: Iterable[GameRecord]  # read again for the page: a sequence, or a store's records
    bots: tuple[str, ...]


class RatingHistory:
    """Each bot's conservative rating after every game it played, games added in schedule
    order: a bot's list starts with its initial rating at the game before its first (a bot
    that joined the league late starts where it joined), and is empty until it plays."""

    def __init__(self, bots: Sequence[str], rating: RatingConfig | None) -> None:
        self.env = environment(rating or RatingConfig())
        self.ratings = {b: self.env.create_rating() for b in bots}
        self.history: dict[str, list[tuple[int, float]]] = {b: [] for b in bots}
        self.count = 0

    def add(self, rec: GameRecord) -> None:
        self.count += 1
        for seat in rec.seats:
            if not self.history.setdefault(seat.name, []):
                start = self.ratings.setdefault(seat.name, self.env.create_rating())
                self.history[seat.name].append((self.count - 1, conservative(start)))
        rate_game(self.env, self.ratings, rec)
        for seat in rec.seats:
            self.history[seat.name].append((self.count, conservative(self.ratings[seat.name])))


def rating_history(
    records: Iterable[GameRecord], bots: Sequence[str], rating: RatingConfig | None
) -> dict[str, list[tuple[int, float]]]:
    """Each bot's conservative rating after every game it played (records in schedule order)."""
    history = RatingHistory(bots, rating)
    for rec in records:
        history.add(rec)
    return history.history


class _GroupBuilder:
    """One number of players' games, added one at a time: its standings and rating history."""

    def __init__(self, bots: Sequence[str], rating: RatingConfig | None) -> None:
        self.standings = StandingsBuilder(bots, rating)
        self.history = RatingHistory(bots, rating)

    def add(self, rec: GameRecord) -> None:
        self.standings.add(rec)
        self.history.add(rec)

    def group(self, players: int, retired: Sequence[str]) -> PlayerGroup:
        st = self.standings.standings(retired)
        seen = {k for row in st.rows for k in row.faults_by_kind}
        return PlayerGroup(
            players=players or st.players,
            standings=st,
            pairwise={me: {o: (c.points, c.games) for o, c in row.items()} for me, row in st.crosstable.items()},
            history=self.history.history,
            fault_kinds=tuple(k.value for k in FaultKind if k.value in seen),
            seat_text=seat_line(st),
            isolation_text=isolation_line(st) if st.games else "",
            warning=fit_warning(st),
        )


def _groups(
    builders: Mapping[int, _GroupBuilder], bots: Sequence[str], rating: RatingConfig | None, retired: Sequence[str]
) -> list[PlayerGroup]:
    """One group per number of players that the games have (the entrants' group if none yet)."""
    if not builders:
        return [_GroupBuilder(bots, rating).group(0, retired)]
    return [builders[players].group(players, retired) for players in sorted(builders)]


def game_row(index: int, rec: GameRecord, rounds: Mapping[str, int]) -> GameRow:
    order = sorted(rec.standings, key=lambda s: (s.rank, s.player))
    names = [s.name for s in rec.seats]
    return GameRow(
        index=index,
        game_id=rec.game_id,
        round=rounds.get(rec.game_id),
        players=rec.params.players,
        seats=tuple(names),
        result="  ".join(f"{s.rank}. {names[s.player]} {s.hexes}" for s in order),
        winners=tuple(names[s.player] for s in order if s.rank == 1),
        moves=len(rec.moves),
        faults=tuple(f"{PLAYER_LETTERS[p]} {names[p]}: {f.kind.value}: {f.detail}" for p, f in rec.faults),
        fault_kinds=tuple(f.kind.value for _p, f in rec.faults),
    )


def _time_control_text(tc: Mapping[str, Any]) -> str:
    try:
        control = TimeControl(**tc)
    except (ArenaError, TypeError):
        return json.dumps(dict(tc))
    return f"{control.describe()}; startup {control.startup_ms} ms, margin {control.margin_ms} ms"


def settings(raw: Mapping[str, Any], last: GameRecord | None) -> list[tuple[str, str]]:
    """The settings a reader needs first, from the tournament file and the games as played
    (``last``: the last game's record, if any)."""
    rows: list[tuple[str, str]] = []

    def add(label: str, value: Any) -> None:
        if value is not None and value != "":
            rows.append((label, value if isinstance(value, str) else json.dumps(value)))

    add("players per game", raw.get("players"))
    add("format", raw.get("format", "round_robin"))
    add("rounds", raw.get("rounds"))
    add("seed", raw.get("seed"))
    add("board", raw.get("board", "random"))
    if last is not None:
        add("time control", _time_control_text(last.time_control))
        p = last.params
        add(
            "rules",
            f"{p.sheep} sheep and {p.tiles} tiles per player, contact {p.contact}, "
            f"herds on hole borders {'allowed' if p.hole_border else 'not allowed'}",
        )
    elif "time_control" in raw:
        add("time control", raw["time_control"])
    add("sandbox", raw.get("sandbox", "auto"))
    add("concurrency", raw.get("concurrency"))
    add("multigame", raw.get("multigame"))
    return rows


def build_report_data(
    name: str,
    records: Iterable[GameRecord],
    bots: Sequence[str],
    total: int,
    raw_config: Mapping[str, Any] | None = None,
    rounds: Mapping[str, int] | None = None,
    rating: RatingConfig | None = None,
    running: bool = False,
    retired: Sequence[str] = (),
) -> ReportData:
    """The report of a tournament's finished ``records`` (in schedule order) out of ``total``;
    ``retired`` bots are marked.

    ``records`` is read once here, a record at a time and none kept, and once more when
    the page is written (its games' replays): a league's store can be passed as it is
    (:class:`arena.report.StoredRecords`), whatever its size.
    """
    raw = dict(raw_config or {})
    names = dict.fromkeys(bots)
    builders: dict[int, _GroupBuilder] = {}
    rows = []
    last = None
    for i, rec in enumerate(records, 1):
        names.update(dict.fromkeys(s.name for s in rec.seats))
        builder = builders.get(rec.params.players)
        if builder is None:  # a 2-player and a 4-player game do not rate alike
            builder = builders[rec.params.players] = _GroupBuilder(bots, rating)
        builder.add(rec)
        rows.append(game_row(i, rec, rounds or {}))
        last = rec
    return ReportData(
        name=name,
        written_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace("+00:00", " UTC"),
        done=len(rows),
        total=max(total, len(rows)),
        running=running,
        settings=tuple(settings(raw, last)),
        config_text=json.dumps(raw, indent=1, sort_keys=True, default=str),
        groups=tuple(_groups(builders, bots, rating, retired)),
        games=tuple(rows),
        records=records,
        bots=tuple(names),
    )
