"""Standings: what a tournament's stored games say, as tables and files.

The figures themselves are computed in :mod:`arena.tally` (re-exported here).
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabulate import tabulate

from .results_folder import write_atomic
from .store import store_path, write_error

# The computation lives in arena.tally; these names stay importable from here.
from .tally import CLEAR, SORT_KEY
from .tally import Row as Row
from .tally import Standings as Standings
from .tally import compute_standings as compute_standings
from .tally import game_scores as game_scores
from .untrusted import csv_cell, html, markdown, printable

FORMATS = ("plain", "github", "html", "csv", "json")

# How each format escapes the text in it that a bot or a store could choose (bot names,
# fault text); JSON escapes by itself.  Numbers the arena writes go in as they are.
Escape = Callable[[str], str]
ESCAPES: dict[str, Escape] = {"plain": printable, "github": markdown, "html": html, "csv": csv_cell}


def _fault_text(row: Row, escape: Escape) -> str:
    return ", ".join(f"{escape(k)} {v}" for k, v in row.faults_by_kind.items()) or "-"


def table_rows(st: Standings, escape: Escape = printable) -> tuple[list[str], list[list[Any]]]:
    """The standings table, its text cells escaped with ``escape`` (see :data:`LEGEND`)."""
    headers = [
        "rank",
        "bot",
        "rating",
        "mu",
        "95% low",
        "95% high",
        "P(better)",
        "Elo (95%)",
        "games",
        "points",
        "wins",
        "shared",
        "avg place",
        "avg hexes",
        "faults",
    ]
    body = [
        [
            f"{r.rank}?" if r.close else str(r.rank),
            escape(r.bot),
            f"{r.rating:.2f}",
            f"{r.mu:.2f}",
            f"{r.mu_low:.2f}",
            f"{r.mu_high:.2f}",
            "" if r.better_than_next is None else f"{r.better_than_next:.2f}",
            "" if r.elo is None else f"{r.elo[0]:+.0f} ({r.elo[1]:+.0f}..{r.elo[2]:+.0f})",
            r.games,
            f"{r.points:.3f}",
            r.wins,
            r.shared_firsts,
            f"{r.avg_place:.2f}",
            f"{r.avg_hexes:.1f}",
            _fault_text(r, escape),
        ]
        for r in st.rows
    ]
    return headers, body


def legend(st: Standings) -> str:
    """What the columns mean, and how the rows are sorted."""
    model = (
        "TrueSkill fitted to all games at once (their order changes nothing)"
        if st.rating.model == "batch"
        else "TrueSkill rated game after game in schedule order (model: sequential)"
    )
    return (
        f"Ranked by {SORT_KEY}. rating: mu - 3 sigma of the bot's skill, {model}. "
        f"95% low/high: mu's 95% interval. P(better): the probability that the bot's skill is "
        f"above the next one's down; a rank marked ? is within noise of the next "
        f"(P(better) below {CLEAR:.2f}). Elo: the same games as pairwise results, on the Elo "
        f"scale (mean 0), with a 95% interval from resampling boards (batch model only). points: mean share of opponents finished above (a tie "
        f"counts half; 1 is a clean win, 0 last place). wins: outright first places; shared: "
        f"first places shared with another bot. A forfeit ranks the bot below every other "
        f"player of its game."
    )


def seat_line(st: Standings) -> str:
    """The measured first-seat advantage: each seat's mean points (0.5 is fair)."""
    if not st.games:
        return "seat advantage: no games yet"
    letters = "abcd"
    if st.seat_intervals:
        parts = [
            f"{letters[i]} {s:.3f} ({lo:.3f}-{hi:.3f})"
            for i, (s, (lo, hi)) in enumerate(zip(st.seat_scores, st.seat_intervals, strict=False))
        ]
        over = f"; 95% intervals over {st.seat_boards} boards"
    else:
        parts, over = [f"{letters[i]} {s:.3f}" for i, s in enumerate(st.seat_scores)], ""
    return f"mean points by seat (0.500 would be fair{over}): " + ", ".join(parts)


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
        return json.dumps(st.to_json(), indent=1)
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
        text = legend(st)
        parts.append(textwrap.fill(text, 100) if fmt == "plain" else text)
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
