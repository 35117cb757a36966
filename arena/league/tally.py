"""Standings as running totals: what a league's games say, added one game at a time.

A player's *points* in one game are the share of opponents it beat, a tie
counting half: (beaten + tied / 2) / (players - 1).  They are 1 for a clean win
and 0 for last place, whatever the number of players.  A *win* is an outright
first place; a first place shared with another bot is counted apart, and a game
every bot forfeited gives nobody a first place.

Between two bots, each game they shared counts once: the one placed ahead, or a
tie (W-D-L; for 2 players wins, draws, losses, a shared place being a draw).  In
2-player games the two games of one board (seats swapped) are a *board pair*,
scored 0, 0.5, 1, 1.5 or 2 points: their counts are the pentanomial of
fastchess and fishtest, the unit of evidence when a board favours a seat.

A :class:`Tally` holds sums per bot (and per pair of bots), never the games, so
its size and the cost of adding a game do not grow with the league (besides the
board pairs still waiting for their second game); every sum is an integer, so the
order games are added in changes nothing.  The ratings
come from :mod:`arena.league.rating` (the batch fit ignores order; the sequential model
must see games in schedule order).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import ROUND_FLOOR, Decimal
from statistics import NormalDist
from typing import Any

import trueskill

from arena.game.record import GameRecord, points_from_half_points
from arena.league.game_summary import GameSummary
from arena.league.neighbours import PairTests
from arena.league.rating import BatchLedger, RatingCheckpoint, conservative, make_ledger, ranking
from arena.stats import MAX_SWEEPS, TOLERANCE
from arena.stats.settings import RatingConfig
from arena.stats.sprt import BoardPairs

# Of Tally.to_dict (2: shared first places counted apart; 3: W-D-L of every pair of bots
# in games of any size, and board pairs; 4: a game every bot forfeited gives no first
# place).  An older one is added up again from the store.
TALLY_VERSION = 4


# A rank is told apart from the next one down when the fit gives at least this
# probability that its skill is the higher (below it, the two are "within noise").
CLEAR = 0.95
Z95 = NormalDist().inv_cdf(0.975)  # half-width of a 95% interval, in sigmas
SORT_KEY = "mu (the skill P(better) compares), then rating (mu - 3 sigma), then name"
# Of standings.json: 2 an object with rows, crosstable, seats and the model's settings; 3 adds
# W-D-L and pentanomial counts (rows and crosstable, which now covers 3-4 players too), the
# fit's convergence (model) and retired bots.  Every field of 2 keeps its name and meaning.
# 4: rows ranked by mu (``sort`` says so) and better_than_next from the pair's joint
# posterior (model ``better``: ``joint``), so that the rank order and P(better) agree; the
# Elo fit's convergence (model ``elo``).  Every field of 3 keeps its name.
# 5: ``pairs`` (each two neighbours: above, below, verdict ordered / tied / open) and
# ``pair_test`` (confidence, indifference) of a continuous league; null for other leagues.
# Every field of 4 keeps its name and meaning.
FORMAT_VERSION = 5


def probability_text(p: float | None, places: int = 2) -> str:
    """P(better) as shown: rounded *down* to ``places`` decimals, so that a rank is marked ?
    (P below :data:`CLEAR`) exactly when the figure shown is below CLEAR (0.946 is 0.94, not 0.95).

    From the float's shortest decimal (``repr``), which is at least CLEAR's exactly when the
    float is: no binary rounding turns 0.29 into 0.28 or a P just below CLEAR into CLEAR.
    """
    if p is None:
        return ""
    return str(Decimal(repr(p)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_FLOOR))


@dataclass(frozen=True)
class Pairwise:
    """One bot's results against another over the games they shared (a crosstable cell)."""

    ahead: int  # games it placed ahead of the other (2 players: wins)
    tied: int  # games they shared a place (2 players: draws)
    behind: int
    # 2 players: board pairs (the two games of one board) in which it scored 0, 0.5, 1, 1.5, 2.
    pentanomial: tuple[int, ...] | None = None

    @property
    def games(self) -> int:
        """Games the two shared."""
        return self.ahead + self.tied + self.behind

    @property
    def wdl(self) -> tuple[int, int, int]:
        """(ahead, tied, behind): for 2 players, wins, draws, losses."""
        return self.ahead, self.tied, self.behind

    @property
    def points(self) -> float:
        """1 for each game it placed ahead, 1/2 for each tie."""
        return self.ahead + self.tied / 2

    def to_json(self) -> dict[str, Any]:
        """The cell as standings.json writes it."""
        return {
            "games": self.games,
            "points": self.points,
            "wdl": list(self.wdl),
            "pentanomial": None if self.pentanomial is None else list(self.pentanomial),
        }


@dataclass
class Row:
    """One bot's line in the standings."""

    rank: int
    bot: str
    rating: float  # conservative TrueSkill rating, mu - 3 sigma (the sort key after mu)
    mu: float
    sigma: float
    games: int
    avg_place: float
    wins: int  # outright first places
    points: float  # mean game points: the share of opponents finished above, a tie counting half
    avg_hexes: float
    faults: int
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    unsandboxed: int = 0  # games it played outside the sandbox (records before the sandbox count)
    network: bool = False  # it had the machine's network in some game
    shared_firsts: int = 0  # first places shared with another bot (not wins)
    better_than_next: float | None = None  # P(skill above the next row's), from the fit; None: last
    elo: tuple[float, float, float] | None = None  # Elo, 95% low, 95% high (batch model, bots that played)
    # Against each opponent in each game: placed ahead, same place, behind (2 players: W-D-L).
    wdl: tuple[int, int, int] = (0, 0, 0)
    pentanomial: tuple[int, ...] | None = None  # 2 players: its board pairs scoring 0 ... 2 points
    retired: bool = False  # removed from the league or retired: no new games, its games count

    @property
    def mu_low(self) -> float:
        """The low end of mu's 95% interval (the fit's Gaussian)."""
        return self.mu - Z95 * self.sigma

    @property
    def mu_high(self) -> float:
        """The high end of mu's 95% interval (the fit's Gaussian)."""
        return self.mu + Z95 * self.sigma

    @property
    def close(self) -> bool:
        """Its order with the next bot down is within noise (P(better) below :data:`CLEAR`)."""
        return self.better_than_next is not None and self.better_than_next < CLEAR


@dataclass
class Standings:
    """A league's standings: the rows, the crosstable, each seat's points, and how the ratings were made."""

    rows: list[Row]
    games: int
    players: int
    seat_points: list[float]  # mean points of each seat
    crosstable: dict[str, dict[str, Pairwise]]  # bot -> opponent -> its results against it
    rating: RatingConfig = field(default_factory=RatingConfig)
    seat_games: list[int] = field(default_factory=list)  # games counted in each seat's mean
    seat_boards: int = 0  # boards the seat intervals are over (0: none computed)
    seat_intervals: list[tuple[float, float]] = field(default_factory=list)  # 95%, over boards
    fit_sweeps: int | None = None  # the batch fit's sweeps (None: no fit, the sequential model)
    fit_converged: bool | None = None  # False: it stopped at its sweep limit, the ratings are approximate
    elo_iterations: int | None = None  # the Elo fit's steps (None: no Elo figures)
    elo_converged: bool | None = None  # False: some Elo fit stopped at its limit, the Elo is approximate
    # A continuous league's pair tests of each two neighbours (None: another league, whose
    # standings have no such tests; set by whoever holds the league, see continuous.standings_pairs).
    pair_tests: PairTests | None = None

    def to_json_rows(self) -> list[dict[str, Any]]:
        """The rows as standings.json writes them (figures rounded)."""
        return [
            {
                **asdict(r),
                "rating": round(r.rating, 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "mu_low": round(r.mu_low, 3),
                "mu_high": round(r.mu_high, 3),
                # (rounded down, as shown: a row that is close never reads 0.95)
                "better_than_next": None if r.better_than_next is None else float(probability_text(r.better_than_next, 4)),
                "close": r.close,
                "elo": None if r.elo is None else [round(x, 1) for x in r.elo],
                "wdl": list(r.wdl),
                "pentanomial": None if r.pentanomial is None else list(r.pentanomial),
                "avg_place": round(r.avg_place, 3),
                "points": round(r.points, 3),
                "avg_hexes": round(r.avg_hexes, 2),
            }
            for r in self.rows
        ]

    def to_json(self) -> dict[str, Any]:
        """standings.json: the rows and everything needed to read them."""
        letters = "abcd"
        return {
            "format": FORMAT_VERSION,
            "games": self.games,
            "players": self.players,
            "sort": SORT_KEY,
            "rating": asdict(self.rating),
            "model": self.model_json(),
            "within_noise_below": CLEAR,
            "rows": self.to_json_rows(),
            "pairs": None if self.pair_tests is None else self.pair_tests.to_json(),
            "pair_test": None
            if self.pair_tests is None
            else {"confidence": self.pair_tests.confidence, "indifference": self.pair_tests.indifference},
            # Sorted: the games' arrival order (which differs between runs) must not show.
            "crosstable": {
                me: {other: cell.to_json() for other, cell in sorted(row.items())}
                for me, row in sorted(self.crosstable.items())
            },
            "seats": [
                {
                    "seat": letters[i],
                    "points": round(s, 4),
                    "games": g,
                    "interval95": [round(x, 4) for x in self.seat_intervals[i]] if self.seat_intervals else None,
                    "boards": self.seat_boards,
                }
                for i, (s, g) in enumerate(zip(self.seat_points, self.seat_games, strict=False))
            ],
        }

    def model_json(self) -> dict[str, Any]:
        """How the ratings were made: the model, and whether its fit converged."""
        out: dict[str, Any] = {"name": self.rating.model}
        if self.rating.model == "batch":
            out |= {
                "converged": self.fit_converged,
                "sweeps": self.fit_sweeps,
                "max_sweeps": MAX_SWEEPS,
                "tolerance": TOLERANCE,
                "elo": {"converged": self.elo_converged, "iterations": self.elo_iterations},
            }
        # How better_than_next was computed: from the fit's joint posterior of each pair, or
        # (no fit: the sequential model) from the two bots' Gaussians as if independent.
        out["better"] = "joint" if self.fit_sweeps is not None else "independent"
        return out


def better_than(a: trueskill.Rating, b: trueskill.Rating) -> float:
    """P(skill a > skill b) under the two Gaussians taken as independent.

    The standings use the batch fit's joint posterior instead (:mod:`arena.stats.joint`),
    which is surer where the two are tied together by games; this is their figure
    without a fit (the sequential model).
    """
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    return NormalDist().cdf((a.mu - b.mu) / spread) if spread > 0 else float(a.mu > b.mu)


@dataclass
class BotTotals:
    """One bot's sums over its games (with ``players`` players, for the points)."""

    games: int = 0
    places: int = 0
    wins: int = 0  # first places, shared or not
    half_points: int = 0
    hexes: int = 0
    unsandboxed: int = 0
    network: bool = False
    shared_firsts: int = 0


# The scoring rule of Tally.add in SQL, for ResultStore.tally to add up a large league in
# the database (tests/unit/league/test_tally_sql.py: the same sums on any games).  ``t`` is a
# row of the store's ``seats``, ``g`` its game's row of ``summaries``.
# A first place counts only in a game some bot finished without a fault.
SQL_FIRST_PLACE = "t.rank = 1 AND EXISTS (SELECT 1 FROM seats o WHERE o.game_id = t.game_id AND o.fault IS NULL)"
# A bot's BotTotals with ``players`` players, as (bot, players, games, places, wins, half_points,
# hexes, unsandboxed, network, shared_firsts).
SQL_TOTALS = (
    f"SELECT t.bot, g.players, count(*), sum(t.rank), sum({SQL_FIRST_PLACE}), sum(t.half_points), "
    "sum(t.hexes), sum(NOT t.sandboxed), max(t.network), "
    # A shared first place earns fewer half points than beating every opponent.
    f"sum({SQL_FIRST_PLACE} AND t.half_points < 2 * (g.players - 1)) "
    "FROM seats t JOIN summaries g USING (game_id) GROUP BY t.bot, g.players"
)
# Between every two bots of a game (any size) and not a bot and itself: (bot, other, placed
# ahead, same place, behind), each two seats once (the later seat's are the same games read the
# other way).
SQL_RESULTS_BETWEEN = (
    "SELECT a.bot, b.bot, sum(a.rank < b.rank), sum(a.rank = b.rank), sum(a.rank > b.rank) "
    "FROM seats a JOIN seats b ON b.game_id = a.game_id AND b.seat > a.seat AND b.bot != a.bot "
    "GROUP BY a.bot, b.bot"
)


class Tally:
    """Sums over finished games, in any order; :meth:`standings` turns them into rows."""

    def __init__(self) -> None:
        self.count = 0
        # (bot, players) -> totals: the points' denominator depends on the players of its game.
        self.totals: defaultdict[tuple[str, int], BotTotals] = defaultdict(BotTotals)
        self.faults: defaultdict[str, Counter[str]] = defaultdict(Counter)
        # (players, seat) -> [games, half points]
        self.seats: defaultdict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
        # bot -> opponent -> [ahead, tied, behind, board pairs scoring 0, 0.5, 1, 1.5, 2 points]
        self.cross: defaultdict[str, dict[str, list[int]]] = defaultdict(dict)
        # 2-player games waiting for the other game of their board pair: (board, bot, bot) -> half
        # points of the first bot (by name) in the game that came.
        self.boards: BoardPairs[tuple[int, str, str]] = BoardPairs()
        self.first: tuple[int, int] | None = None  # (index, players) of the first game in the schedule

    def add(self, game: GameSummary) -> None:
        """Add one finished game's figures to the sums (SQL_TOTALS and SQL_RESULTS_BETWEEN
        state the same rule for the store to add up)."""
        self.count += 1
        if self.first is None or game.index < self.first[0]:
            self.first = (game.index, game.players)
        halves = [game.half_points(i) for i in range(len(game.seats))]
        # When every bot forfeited nobody won: their tie for first is no first place.
        nobody_won = all(s.fault is not None for s in game.seats)
        for seat, (s, half) in enumerate(zip(game.seats, halves, strict=True)):
            t = self.totals[s.name, game.players]
            t.games += 1
            t.places += s.rank
            t.wins += s.rank == 1 and not nobody_won
            t.shared_firsts += s.rank == 1 and half < 2 * (game.players - 1) and not nobody_won
            t.half_points += half
            t.hexes += s.hexes
            t.unsandboxed += not s.sandboxed
            t.network |= s.network
            if s.fault is not None:
                self.faults[s.name][s.fault.kind.value] += 1
            at_seat = self.seats[game.players, seat]
            at_seat[0] += 1
            at_seat[1] += half
        for me, other in itertools.permutations(game.seats, 2):
            if me.name != other.name:  # a bot against itself: no result between two bots
                cell = self.cross[me.name].setdefault(other.name, [0] * 8)
                cell[0 if me.rank < other.rank else 1 if me.rank == other.rank else 2] += 1
        if game.players == 2 and game.names[0] != game.names[1]:
            (a, b), (ha, hb) = game.names, halves
            if a < b:
                self.board_game(game.seed, a, b, ha)
            else:
                self.board_game(game.seed, b, a, hb)

    def board_game(self, board: int, a: str, b: str, half: int) -> None:
        """A 2-player game on ``board`` in which ``a`` (before ``b`` by name) scored ``half`` half points."""
        pair = self.boards.add((board, a, b), half)
        if pair is not None:
            self.board_pair(a, b, int(pair))

    def board_pair(self, a: str, b: str, half: int) -> None:
        """A board pair in which ``a`` scored ``half`` half points (0 to 4: the index of its count)."""
        self.cross[a][b][3 + half] += 1
        self.cross[b][a][7 - half] += 1

    def to_dict(self) -> dict[str, Any]:
        """The sums as JSON data (a few per bot and pair of bots, whatever the league's size)."""
        return {
            "version": TALLY_VERSION,
            "count": self.count,
            "first": self.first,
            "totals": [[n, p, *dataclasses.astuple(t)] for (n, p), t in self.totals.items()],
            "faults": {n: dict(c) for n, c in self.faults.items()},
            "seats": [[p, s, *v] for (p, s), v in self.seats.items()],
            "cross": self.cross,
            "waiting": [[*key, half] for key, half in self.boards.waiting.items()],
        }

    @classmethod
    def from_dict(cls, d: Any) -> Tally | None:
        """The tally ``d`` describes, or None when it is not one (it is then added up again)."""
        tally = cls()
        try:
            if d["version"] != TALLY_VERSION:
                return None
            tally.count = int(d["count"])
            tally.first = None if d["first"] is None else (int(d["first"][0]), int(d["first"][1]))
            for n, p, *sums in d["totals"]:
                tally.totals[str(n), int(p)] = BotTotals(*sums)
            for n, kinds in d["faults"].items():
                tally.faults[n].update({str(k): int(v) for k, v in kinds.items()})
            for p, s, games, half in d["seats"]:
                tally.seats[int(p), int(s)] = [int(games), int(half)]
            for me, row in d["cross"].items():
                tally.cross[me] = {str(o): [int(x) for x in cell] for o, cell in row.items()}
                if any(len(cell) != 8 for cell in tally.cross[me].values()):
                    return None
            for board, a, b, half in d["waiting"]:
                tally.boards.waiting[int(board), str(a), str(b)] = int(half)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return tally

    def standings(
        self,
        bots: Sequence[str],
        ratings: Mapping[str, trueskill.Rating],
        rating: RatingConfig | None = None,
        fitted: RatingCheckpoint | None = None,
        retired: Collection[str] = (),
    ) -> Standings:
        """The rows for ``bots`` (every entrant) and whoever else played, with these ratings (of ``rating``).

        ``fitted`` is the batch fit they come from (its Elo, seat intervals and convergence);
        ``retired`` bots are marked as such.
        """
        cross = self._crosstable(self.first[1] if self.first else 2)
        # The rows and seats have always used the players of the last (bot, players) sum: in a
        # league, whose games all have one player count (changes.py refuses a new one), that
        # is the first game's, which the crosstable uses.
        players = max(self.totals)[1] if self.totals else (self.first[1] if self.first else 2)
        per_bot, points = self._per_bot()
        rows = [
            _row(
                name,
                ratings[name],
                per_bot[name],
                points[name],
                self.faults.get(name, Counter()),
                list(cross.get(name, {}).values()),
                players,
                fitted,
                name in retired,
            )
            for name in dict.fromkeys([*bots, *ratings])
        ]
        _rank(rows, ratings, fitted.better if fitted else None)
        seat_points, seat_games = self._seat_points(players)
        boards, intervals = ((fitted.seats if fitted else None) or {}).get(players, (0, []))
        return Standings(
            rows,
            self.count,
            players,
            seat_points,
            cross,
            rating or RatingConfig(),
            seat_games,
            boards,
            intervals,
            fitted.sweeps if fitted else None,
            fitted.converged if fitted else None,
            fitted.elo_iterations if fitted else None,
            fitted.elo_converged if fitted else None,
        )

    def _crosstable(self, players: int) -> dict[str, dict[str, Pairwise]]:
        """Bot -> opponent -> its results against it (board pairs only in 2-player games)."""
        return {
            me: {
                other: Pairwise(c[0], c[1], c[2], tuple(c[3:]) if players == 2 else None)
                for other, c in sorted(row.items())
            }
            for me, row in sorted(self.cross.items())
        }

    def _per_bot(self) -> tuple[defaultdict[str, BotTotals], defaultdict[str, float]]:
        """Each bot's totals over games of any size, and the sum of its points in them.

        Points are summed per size first: their denominator is the size's.
        """
        per_bot: defaultdict[str, BotTotals] = defaultdict(BotTotals)
        points: defaultdict[str, float] = defaultdict(float)
        for (name, players), t in sorted(self.totals.items()):
            b = per_bot[name]
            b.games += t.games
            b.places += t.places
            b.wins += t.wins
            b.shared_firsts += t.shared_firsts
            b.hexes += t.hexes
            b.unsandboxed += t.unsandboxed
            b.network |= t.network
            points[name] += points_from_half_points(t.half_points, players)
        return per_bot, points

    def _seat_points(self, players: int) -> tuple[list[float], list[int]]:
        """Each seat's mean points in ``players``-player games, and how many games it is over."""
        means, counts = [], []
        for seat in range(players):
            g, half = self.seats.get((players, seat), (0, 0))
            means.append(points_from_half_points(half, players) / g if g else 0.0)
            counts.append(g)
        return means, counts


def _row(
    name: str,
    rating: trueskill.Rating,
    b: BotTotals,
    points: float,
    faults: Counter[str],
    cells: list[Pairwise],
    players: int,
    fitted: RatingCheckpoint | None,
    retired: bool,
) -> Row:
    """One bot's row (ranked later) from its totals, its points summed over its games and its
    crosstable cells."""
    g = b.games
    return Row(
        rank=0,
        bot=name,
        rating=conservative(rating),
        mu=rating.mu,
        sigma=rating.sigma,
        games=g,
        avg_place=b.places / g if g else 0.0,
        wins=b.wins - b.shared_firsts,
        points=points / g if g else 0.0,
        avg_hexes=b.hexes / g if g else 0.0,
        faults=sum(faults.values()),
        faults_by_kind=dict(sorted(faults.items())),
        unsandboxed=b.unsandboxed,
        network=b.network,
        shared_firsts=b.shared_firsts,
        elo=(fitted.elo or {}).get(name) if fitted else None,
        wdl=(sum(c.ahead for c in cells), sum(c.tied for c in cells), sum(c.behind for c in cells)),
        pentanomial=tuple(sum((c.pentanomial or (0,) * 5)[i] for c in cells) for i in range(5))
        if players == 2
        else None,
        retired=retired,
    )


def _rank(
    rows: list[Row], ratings: Mapping[str, trueskill.Rating], joint: Mapping[str, tuple[str, float]] | None
) -> None:
    """Sort ``rows`` by :data:`SORT_KEY` (as :func:`ranking`), number them, and give each its
    P(better) than the next: the fit's ``joint`` one (bot -> (next bot, P)), where it has the
    pair, else from the two Gaussians alone."""
    order = {bot: i for i, bot in enumerate(ranking({r.bot: ratings[r.bot] for r in rows}))}
    rows.sort(key=lambda r: order[r.bot])
    for i, row in enumerate(rows, 1):
        row.rank = i
    for row, below in itertools.pairwise(rows):
        known = (joint or {}).get(row.bot)
        if known is not None and known[0] == below.bot:
            row.better_than_next = known[1]
        else:
            row.better_than_next = better_than(ratings[row.bot], ratings[below.bot])


class StandingsBuilder:
    """Standings of records added one at a time (in schedule order), none of them kept."""

    def __init__(self, bots: Sequence[str], rating: RatingConfig | None = None) -> None:
        self.bots = bots
        self.rating = rating
        self.tally = Tally()
        self.ledger = make_ledger(bots, rating)
        self.count = 0

    def add(self, rec: GameRecord) -> None:
        """Add the next record (in schedule order)."""
        game = GameSummary.of(rec, self.count)
        self.tally.add(game)
        self.ledger.add(self.count, [(s.name, s.rank) for s in game.seats], game.seed)
        self.count += 1

    def standings(self, retired: Collection[str] = ()) -> Standings:
        """The standings of the records added so far; ``retired`` bots marked."""
        ratings = self.ledger.ratings()
        fitted = self.ledger.checkpoint() if isinstance(self.ledger, BatchLedger) else None
        return self.tally.standings(self.bots, ratings, self.rating, fitted, retired)


def compute_standings(
    records: Iterable[GameRecord],
    bots: Sequence[str],
    rating: RatingConfig | None = None,
    retired: Collection[str] = (),
) -> Standings:
    """Standings after ``records`` (in schedule order) for ``bots`` (every entrant); ``retired`` marked."""
    builder = StandingsBuilder(bots, rating)
    for rec in records:
        builder.add(rec)
    return builder.standings(retired)
