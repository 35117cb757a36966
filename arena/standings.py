"""Standings: what a tournament's stored games say, as tables and files.

A player's *score* in one game is the share of opponents it beat, a tie
counting half: (beaten + tied / 2) / (players - 1).  It is 1 for a clean win
and 0 for last place, whatever the number of players.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from .config import RatingConfig
from .rating import conservative, rate_games
from .record import GameRecord
from .results_folder import write_atomic
from .store import store_path, write_error
from .untrusted import csv_cell, html, markdown, printable

FORMATS = ("plain", "github", "html", "csv", "json")

# How each format escapes the text in it that a bot or a store could choose (bot names,
# fault text); JSON escapes by itself.  Numbers the arena writes go in as they are.
Escape = Callable[[str], str]
ESCAPES: dict[str, Escape] = {"plain": printable, "github": markdown, "html": html, "csv": csv_cell}


def game_scores(rec: GameRecord) -> list[float]:
    ranks = rec.ranking
    n = len(ranks)
    return [
        (sum(r > mine for r in ranks) + 0.5 * (sum(r == mine for r in ranks) - 1)) / (n - 1) for mine in ranks
    ]


@dataclass
class Row:
    """One bot's line in the standings."""

    rank: int
    bot: str
    score: float  # conservative rating, mu - 3 sigma
    mu: float
    sigma: float
    games: int
    avg_place: float
    wins: int
    avg_score: float
    avg_hexes: float
    faults: int
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    unsandboxed: int = 0  # games it played outside the sandbox (records before the sandbox count)
    network: bool = False  # it had the machine's network in some game


@dataclass
class Standings:
    rows: list[Row]
    games: int
    players: int
    seat_scores: list[float]  # mean score of each seat
    crosstable: dict[str, dict[str, tuple[float, int]]]  # bot -> opponent -> (points, games), 2 players

    def to_json_rows(self) -> list[dict[str, Any]]:
        return [
            {
                **asdict(r),
                "score": round(r.score, 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "avg_place": round(r.avg_place, 3),
                "avg_score": round(r.avg_score, 3),
                "avg_hexes": round(r.avg_hexes, 2),
            }
            for r in self.rows
        ]


def compute_standings(
    records: Sequence[GameRecord], bots: Sequence[str], rating: RatingConfig | None = None
) -> Standings:
    """Standings after ``records`` (in schedule order) for ``bots`` (every entrant)."""
    ratings = rate_games(records, bots, rating)
    names = list(dict.fromkeys([*bots, *ratings]))
    games: Counter[str] = Counter()
    places: defaultdict[str, float] = defaultdict(float)
    wins: Counter[str] = Counter()
    scores: defaultdict[str, float] = defaultdict(float)
    hexes: Counter[str] = Counter()
    faults: defaultdict[str, Counter[str]] = defaultdict(Counter)
    unsandboxed: Counter[str] = Counter()
    networked: set[str] = set()
    players = records[0].params.players if records else 2
    seat_totals = [0.0] * players
    seat_games = [0] * players
    cross: dict[str, dict[str, tuple[float, int]]] = defaultdict(dict)
    for rec in records:
        sc = game_scores(rec)
        for seat, (s, st) in enumerate(zip(rec.seats, rec.standings, strict=True)):
            games[s.name] += 1
            places[s.name] += st.rank
            wins[s.name] += st.rank == 1
            scores[s.name] += sc[seat]
            hexes[s.name] += st.hexes
            if s.fault is not None:
                faults[s.name][s.fault.kind.value] += 1
            if not s.sandboxed:
                unsandboxed[s.name] += 1
            if s.isolation.get("network"):
                networked.add(s.name)
            if seat < players and rec.params.players == players:
                seat_totals[seat] += sc[seat]
                seat_games[seat] += 1
        if rec.params.players == 2:
            a, b = (s.name for s in rec.seats)
            for me, other, points in ((a, b, sc[0]), (b, a, sc[1])):
                p, g = cross[me].get(other, (0.0, 0))
                cross[me][other] = (p + points, g + 1)
    rows = []
    for n in names:
        r = ratings[n]
        g = games[n]
        rows.append(
            Row(
                0,
                n,
                conservative(r),
                r.mu,
                r.sigma,
                g,
                places[n] / g if g else 0.0,
                wins[n],
                scores[n] / g if g else 0.0,
                hexes[n] / g if g else 0.0,
                sum(faults[n].values()),
                dict(sorted(faults[n].items())),
                unsandboxed[n],
                n in networked,
            )
        )
    rows.sort(key=lambda r: (-r.score, -r.mu, r.bot))
    for i, row in enumerate(rows, 1):
        row.rank = i
    return Standings(
        rows,
        len(records),
        players,
        [t / g if g else 0.0 for t, g in zip(seat_totals, seat_games, strict=True)],
        dict(cross),
    )


def _fault_text(row: Row, escape: Escape) -> str:
    return ", ".join(f"{escape(k)} {v}" for k, v in row.faults_by_kind.items()) or "-"


def table_rows(st: Standings, escape: Escape = printable) -> tuple[list[str], list[list[Any]]]:
    """The standings table, its text cells escaped with ``escape``."""
    headers = [
        "rank",
        "bot",
        "score",
        "mu",
        "sigma",
        "games",
        "avg place",
        "wins",
        "avg score",
        "avg hexes",
        "faults",
    ]
    body = [
        [
            r.rank,
            escape(r.bot),
            f"{r.score:.2f}",
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            r.games,
            f"{r.avg_place:.2f}",
            r.wins,
            f"{r.avg_score:.3f}",
            f"{r.avg_hexes:.1f}",
            _fault_text(r, escape),
        ]
        for r in st.rows
    ]
    return headers, body


def seat_line(st: Standings) -> str:
    """The measured first-seat advantage: each seat's mean score (0.5 is fair)."""
    if not st.games:
        return "seat advantage: no games yet"
    letters = "abcd"
    parts = [f"{letters[i]} {s:.3f}" for i, s in enumerate(st.seat_scores)]
    return "mean score by seat (0.500 would be fair): " + ", ".join(parts)


def isolation_line(st: Standings, escape: Escape = printable) -> str:
    """How the bots ran: in the sandbox or not, and which had the network."""
    loose = [f"{escape(r.bot)} {r.unsandboxed}/{r.games}" for r in st.rows if r.unsandboxed]
    net = [escape(r.bot) for r in st.rows if r.network]
    text = (
        "WARNING: games played WITHOUT a sandbox: " + ", ".join(loose)
        if loose
        else "sandbox: every game in bubblewrap"
    )
    if net:
        text += "; with the network: " + ", ".join(net)
    return text


def crosstable_rows(st: Standings, escape: Escape = printable) -> tuple[list[str], list[list[str]]]:
    bots = [r.bot for r in st.rows]
    body = []
    for b in bots:
        line = [escape(b)]
        for o in bots:
            if o == b:
                line.append("")
            else:
                p, g = st.crosstable.get(b, {}).get(o, (0.0, 0))
                line.append(f"{p:g}/{g}" if g else "-")
        body.append(line)
    return ["", *map(escape, bots)], body


def render(st: Standings, fmt: str) -> str:
    """The standings in one of :data:`FORMATS`."""
    if fmt == "json":
        return json.dumps(st.to_json_rows(), indent=1)
    escape = ESCAPES[fmt]
    headers, body = table_rows(st, escape)
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow([h.replace(" ", "_") for h in headers])
        w.writerows(body)
        return out.getvalue().rstrip("\n")
    # 'unsafehtml': the cells are escaped here already, as every other format's are.
    tablefmt = {"plain": "simple", "github": "github", "html": "unsafehtml"}[fmt]
    parts = [tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True)]
    if fmt != "html":
        parts.append(seat_line(st))
        if st.games:
            parts.append(isolation_line(st, escape))
    if st.players == 2 and st.crosstable:
        ch, cb = crosstable_rows(st, escape)
        if fmt == "html":
            parts.append(tabulate(cb, headers=ch, tablefmt=tablefmt, disable_numparse=True))
        else:
            parts.append(
                "crosstable (points of the row's bot against the column's / games):\n"
                + tabulate(cb, headers=ch, tablefmt=tablefmt, disable_numparse=True)
            )
    return "\n\n".join(parts)


def write_files(folder: Path, title: str, st: Standings, total: int) -> None:
    """standings.md and standings.json beside the store, for people and tools.

    Raises :class:`~arena.store.ResultsWriteError` when a file cannot be written (a full disk).
    """
    md = f"# {markdown(title)}\n\n{st.games} of {total} games played.\n\n{render(st, 'github')}\n"
    for name, text in (("standings.md", md), ("standings.json", render(st, "json") + "\n")):
        path = folder / name
        try:
            write_atomic(path, text)
        except OSError as e:
            kept = f"every finished game is kept in {str(store_path(folder))!r}"
            raise write_error(f"writing {str(path)!r}", e, kept) from e
