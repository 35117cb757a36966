"""Standings rendered: a :class:`~arena.league.tally.Standings` as tables, text and files.

Rendering only: the figures are computed in :mod:`arena.league.tally`, and imported from there.
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

from arena.league.neighbours import PairTests
from arena.league.results_folder import write_atomic
from arena.league.store import store_path, write_error
from arena.league.tally import CLEAR, SORT_KEY, Pairwise, Row, Standings, probability_text
from arena.stats import ELO_TOLERANCE, TOLERANCE
from arena.untrusted import csv_cell, html, markdown, printable

FORMATS = ("plain", "github", "html", "csv", "json")

# How each format escapes the text in it that a bot or a store could choose (bot names,
# fault text); JSON escapes by itself.  Numbers the arena writes go in as they are.
Escape = Callable[[str], str]
ESCAPES: dict[str, Escape] = {"plain": printable, "github": markdown, "html": html, "csv": csv_cell}


def _fault_text(row: Row, escape: Escape) -> str:
    return ", ".join(f"{escape(k)} {v}" for k, v in row.faults_by_kind.items()) or "-"


def _counts_text(counts: tuple[int, ...] | None) -> str:
    return "" if counts is None else " ".join(map(str, counts))


RETIRED_MARK = "(retired)"  # beside a bot that gets no new games (see the legend)
PTNML = "Ptnml(0-2)"  # fastchess's and fishtest's name for the pentanomial counts


def _bot_text(row: Row, escape: Escape) -> str:
    return escape(row.bot) + (f" {RETIRED_MARK}" if row.retired else "")


# The plain table's columns, the first kept longest when it must fit a terminal narrower
# than it: the rank, rating and P(better) (what a ? means), what the games were, then the
# finer figures (--wide shows all).
KEEP_ORDER = (
    "rank", "bot", "rating", "P(better)", "games", "points", "W-D-L", "faults", "Elo (95%)",
    PTNML, "wins", "shared", "avg place", "mu", "95% low", "95% high", "avg hexes",
)  # fmt: skip


def table_rows(st: Standings, escape: Escape = printable, split: bool = False) -> tuple[list[str], list[list[Any]]]:
    """The standings table, its text cells escaped with ``escape`` (see :func:`legend`).

    ``split``: the table for tools (CSV): numbers in cells of their own (the rank, a
    ``sure`` column for the ? mark, the Elo and its interval, W, D, L, each pentanomial
    count, a retired column) instead of text cells that join them.
    """
    pairs = st.players == 2
    tests = st.pair_tests if split else None
    headers = [
        "rank",
        *(["sure"] if split else []),
        "bot",
        "rating",
        "mu",
        "95% low",
        "95% high",
        "P(better)",
        *(["elo", "elo_low", "elo_high"] if split else ["Elo (95%)"]),
        "games",
        *(["W", "D", "L"] if split else ["W-D-L"]),
        *(([f"ptnml {p}" for p in ("0", "0.5", "1", "1.5", "2")] if split else [PTNML]) if pairs else []),
        "points",
        "wins",
        "shared",
        "avg place",
        "avg hexes",
        "faults",
        *(["retired"] if split else []),
        *(["pair_test"] if tests is not None else []),
    ]
    body = []
    for r in st.rows:
        penta = r.pentanomial or (0,) * 5
        if split:
            # sure: ordered above the next row with P(better) >= CLEAR; the last row has no next.
            rank: list[Any] = [r.rank, "" if r.better_than_next is None else str(not r.close).lower()]
            better = probability_text(r.better_than_next, 4)
            elo = ["", "", ""] if r.elo is None else [f"{x:.1f}" for x in r.elo]
        else:
            rank = [f"{r.rank}?" if r.close else str(r.rank)]
            better = probability_text(r.better_than_next)
            elo = ["" if r.elo is None else f"{r.elo[0]:+.0f} ({r.elo[1]:+.0f}..{r.elo[2]:+.0f})"]
        body.append(
            [
                *rank,
                escape(r.bot) if split else _bot_text(r, escape),
                f"{r.rating:.2f}",
                f"{r.mu:.2f}",
                f"{r.mu_low:.2f}",
                f"{r.mu_high:.2f}",
                better,
                *elo,
                r.games,
                *(list(r.wdl) if split else ["-".join(map(str, r.wdl))]),
                *((list(penta) if split else [_counts_text(r.pentanomial)]) if pairs else []),
                f"{r.points:.3f}",
                r.wins,
                r.shared_firsts,
                f"{r.avg_place:.2f}",
                f"{r.avg_hexes:.1f}",
                _fault_text(r, escape),
                *([str(r.retired).lower()] if split else []),
                *([_pair_cell(tests, r)] if tests is not None else []),
            ]
        )
    return headers, body


def _pair_cell(tests: PairTests, row: Row) -> str:
    """The CSV's ``pair_test``: how the row's bot and the next one down still in the league
    stand by their test; empty for the last of them and for a retired bot."""
    standing = None if row.retired else tests.verdict_of(row.bot)
    return "" if standing is None else standing.value


def pairs_line(st: Standings, fmt: str) -> str | None:
    """A continuous league's ``pairs at 95%: ordered a > b; ...`` for ``fmt`` (plain, github
    or html), bot names escaped; None for other leagues or before any pair."""
    if st.pair_tests is None or not st.pair_tests.pairs:
        return None
    if fmt == "html":  # the whole line: its own '>' too
        return f"<p>{html(st.pair_tests.line())}</p>"
    # Mid-line, the line's own '>' and '~' are plain text in Markdown: only the names are escaped.
    return st.pair_tests.line(ESCAPES[fmt]) or None


def plain_table(headers: list[str], body: list[list[Any]]) -> str:
    """A table for the terminal: columns two spaces apart, a rule under the headers."""
    cells = [list(map(str, headers)), *([str(c) for c in row] for row in body)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def fitted_table(headers: list[str], body: list[list[Any]], width: int) -> tuple[str, list[str]]:
    """The plain table in ``width`` columns if it can be: the columns last in
    :data:`KEEP_ORDER` left out one by one until it fits (rank, bot and rating stay).
    Returns the table and the headers left out."""
    keep = list(range(len(headers)))
    rank = {h: KEEP_ORDER.index(h) if h in KEEP_ORDER else len(KEEP_ORDER) for h in headers}
    while True:
        table = plain_table([headers[i] for i in keep], [[row[i] for i in keep] for row in body])
        if len(keep) <= 3 or max(map(len, table.splitlines())) <= width:
            return table, [h for i, h in enumerate(headers) if i not in keep]
        keep.remove(max(keep, key=lambda i: (rank[headers[i]], i)))


def wrap(text: str, width: int) -> str:
    """``text`` wrapped to ``width`` columns at spaces only (never inside a word or at a hyphen)."""
    return textwrap.fill(text, max(20, width), break_long_words=False, break_on_hyphens=False)


def legend(st: Standings) -> str:
    """What the columns mean, and how the rows are sorted."""
    model = (
        "TrueSkill fitted to all games at once (their order changes nothing)"
        if st.rating.model == "batch"
        else "TrueSkill rated game after game in schedule order (model: sequential)"
    )
    wdl = (
        "W-D-L: games won, drawn (a shared place is a draw), lost. "
        f"{PTNML}: board pairs (the two games of one board, seats swapped) in which the bot scored "
        "0, 0.5, 1, 1.5 and 2 points. "
        if st.players == 2
        else "W-D-L: against each opponent in each game, placed ahead, in the same place, behind. "
    )
    retired = (
        f" {RETIRED_MARK}: removed from the league or retired, it plays no new games; its games played still count."
        if any(r.retired for r in st.rows)
        else ""
    )
    better = (
        "from the joint posterior of the two bots' skills (correlated through their games), the "
        "field's spread told by the games, not assumed (so close bots with few games stay unsure)"
        if st.rating.model == "batch"
        else "from the two bots' Gaussians"
    )
    return (
        f"Ranked by {SORT_KEY}. rating: mu - 3 sigma of the bot's skill, {model}: a cautious "
        f"floor, low for a bot with few games whatever its rank. "
        f"95% low/high: mu's 95% interval, the field's unknown level included (as a distance from "
        f"the field's mean it is wider than 95% needs). P(better): the probability that the bot's skill is "
        f"above the next one's down, {better}; it compares the mu the rank compares, so a rank "
        f"above another is the likelier stronger (P(better) 0.5 or more, a hair below at most at a "
        f"dead heat). Rounded down; a rank marked ? is within noise of the next: "
        f"its P(better) is below {CLEAR:.2f}, and a P(better) shown below {CLEAR:.2f} always has a ?. Elo: the same games as pairwise results, on the Elo "
        f"scale (mean 0), with a 95% interval around Firth's bias-reduced fit, its variance over boards (each "
        f"board's residuals jackknifed; at least half the model's), reaching the plain maximum-likelihood fit "
        f"(batch model only; none with fewer than bots + 2 boards). {wdl}"
        f"points: mean share of opponents finished above (a tie "
        f"counts half; 1 is a clean win, 0 last place). wins: outright first places; shared: "
        f"first places shared with another bot. hexes: pasture hexes held at the end. A forfeit "
        f"ranks the bot below every other player of its game.{retired}"
    )


def fit_warning(st: Standings) -> str | None:
    """Lines saying the rating fit or the Elo fit did not converge, if one did not."""
    lines = []
    if st.fit_converged is False:
        lines.append(
            f"WARNING: the rating fit stopped at its limit of {st.fit_sweeps} sweeps without converging "
            f"(some mu or sigma still moved by more than {TOLERANCE:g} a sweep): the ratings and ranks "
            "are approximate."
        )
    if st.elo_converged is False:
        lines.append(
            f"WARNING: the Elo fit stopped at its limit of {st.elo_iterations} steps without converging "
            f"(some Elo still moved by more than {ELO_TOLERANCE:g} a step): the Elo figures and their "
            "intervals are approximate."
        )
    return "\n".join(lines) or None


def seat_line(st: Standings) -> str:
    """The measured first-seat advantage: each seat's mean points (0.5 is fair)."""
    if not st.games:
        return "seat advantage: no games yet"
    letters = "abcd"
    if st.seat_intervals:
        parts = [
            f"{letters[i]} {s:.3f} ({lo:.3f}-{hi:.3f})"
            for i, (s, (lo, hi)) in enumerate(zip(st.seat_points, st.seat_intervals, strict=False))
        ]
        over = f"; 95% intervals over {st.seat_boards} boards"
    else:
        parts, over = [f"{letters[i]} {s:.3f}" for i, s in enumerate(st.seat_points)], ""
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


def crosstable_rows(
    st: Standings, escape: Escape = printable, cell: Callable[[Pairwise], str] = lambda c: "-".join(map(str, c.wdl))
) -> tuple[list[str], list[list[str]]]:
    """Bot against bot: ``cell`` of the row's bot's results against the column's ("-": never met)."""
    bots = [r.bot for r in st.rows]
    body = []
    for b in bots:
        line = [escape(b)]
        for o in bots:
            found = st.crosstable.get(b, {}).get(o)
            line.append("" if o == b else cell(found) if found is not None and found.games else "-")
        body.append(line)
    return ["", *map(escape, bots)], body


def crosstables(st: Standings, escape: Escape = printable) -> list[tuple[str, list[str], list[list[str]]]]:
    """The crosstables to show, each with its title: W-D-L, and for 2 players the board pairs."""
    if not any(st.crosstable.values()):
        return []
    tables = [
        (
            "crosstable: W-D-L of the row's bot against the column's "
            + (
                "(games won, drawn, lost)"
                if st.players == 2
                else "(games it placed ahead of it, in the same place, behind)"
            ),
            *crosstable_rows(st, escape),
        )
    ]
    if st.players == 2:
        tables.append(
            (
                f"board pairs, {PTNML}: the row's bot's pairs against the column's scoring 0, 0.5, 1, 1.5, 2",
                *crosstable_rows(st, escape, lambda c: _counts_text(c.pentanomial)),
            )
        )
    return tables


def render(st: Standings, fmt: str, width: int | None = None, wide: bool = False) -> str:
    """The standings in one of :data:`FORMATS`.

    ``width``: the plain format's terminal width: a table wider than that loses columns
    (see :func:`fitted_table`) unless ``wide``, and the text is wrapped to it.  None (a
    file, a pipe): every column, the text wrapped at 100.
    """
    if fmt == "json":
        return json.dumps(st.to_json(), indent=1)
    escape = ESCAPES[fmt]
    headers, body = table_rows(st, escape, split=fmt == "csv")
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow([h.replace(" ", "_") for h in headers])
        w.writerows(body)
        return out.getvalue().rstrip("\n")
    # 'unsafehtml': the cells are escaped here already, as every other format's are.
    tablefmt = {"plain": "simple", "github": "github", "html": "unsafehtml"}[fmt]
    columns = 100 if width is None else width

    def fill(text: str) -> str:  # the plain format's text fits the terminal
        return wrap(text, columns) if fmt == "plain" else text

    parts = []
    warning = fit_warning(st)
    if warning is not None:
        for line in warning.split("\n"):
            parts.append(f"<p><strong>{html(line)}</strong></p>" if fmt == "html" else fill(line))
    if fmt != "plain":
        table = tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True)
    elif width is None or wide:
        table = plain_table(headers, body)
    else:
        table, left_out = fitted_table(headers, body, width)
        if left_out:
            note = f"(not shown at this width: {', '.join(left_out)}; arena standings --wide shows every column)"
            table += "\n" + wrap(note, width)
    parts.append(table)
    pairs = pairs_line(st, fmt)
    if pairs is not None:
        parts.append(pairs if fmt == "html" else fill(pairs))
    if fmt != "html":
        parts.append(fill(legend(st)))
        parts.append(fill(seat_line(st)))
        if st.games:
            parts.append(fill(isolation_line(st, escape)))
    for title, ch, cb in crosstables(st, escape):
        if fmt == "plain":
            parts.append(f"{fill(title + ':')}\n{plain_table(ch, cb)}")
            continue
        table = tabulate(cb, headers=ch, tablefmt=tablefmt, disable_numparse=True)
        parts.append(f"<p>{html(title)}</p>\n{table}" if fmt == "html" else f"{title}:\n{table}")
    return "\n\n".join(parts)


def write_files(folder: Path, title: str, st: Standings, total: int) -> None:
    """standings.md and standings.json beside the store, for people and tools.

    Raises :class:`~arena.errors.ResultsWriteError` when a file cannot be written (a full disk).
    """
    md = f"# {markdown(title)}\n\n{st.games} of {total} games played.\n\n{render(st, 'github')}\n"
    for name, text in (("standings.md", md), ("standings.json", render(st, "json") + "\n")):
        path = folder / name
        try:
            write_atomic(path, text)
        except OSError as e:
            kept = f"every finished game is kept in {str(store_path(folder))!r}"
            raise write_error(f"writing {str(path)!r}", e, kept) from e
