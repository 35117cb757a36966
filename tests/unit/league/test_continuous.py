"""The continuous league: what it chooses, when it stops, and that a resumed one goes on alike.

The chooser and the stopping rules are tested without processes: games are
"played" by a stand-in that ranks the seats by a known strength plus noise
drawn from the game's id and seed.  A few end-to-end runs use fast C bots.

The cases that need no process; the others are in tests/system/league/test_continuous.py.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest
import trueskill

from arena.errors import ConfigError
from arena.league.config import ContinuousConfig, TournamentConfig, load_config
from arena.league.continuous import (
    ContinuousLeague,
    Pair,
    StopReason,
    adjacent_pairs,
    choose_group,
    pair_error,
    play_out,
    playing_rows,
    ranking,
    refit_point,
    standings_pairs,
)
from arena.league.game_summary import GameSummary, SeatSummary
from arena.league.neighbours import Neighbours, PairTests, Standing
from arena.league.rating import BatchLedger
from arena.league.schedule import ScheduledGame, derive_seed
from arena.league.standings import render
from arena.league.tally import FORMAT_VERSION, Row, Standings, Tally
from arena.stats.game_table import Seats
from arena.stats.pair_test import PairVerdict
from arena.stats.settings import RatingConfig
from arena.untrusted import html, markdown, printable

REPO = Path(__file__).resolve().parents[3]
R = trueskill.Rating


def strengths_play(strength: Mapping[str, float], noise: float = 1.0) -> Callable[[ScheduledGame], Seats]:
    """A game's result: seats ranked by strength plus noise drawn from the game itself."""

    def play(game: ScheduledGame) -> Seats:
        rng = random.Random(f"{game.game_id}:{game.seed}")
        perf = {b: strength[b] + rng.gauss(0, noise) for b in game.seats}
        order = sorted(game.seats, key=lambda b: -perf[b])
        return [(b, order.index(b) + 1) for b in game.seats]

    return play


def new_league(bots: list[str], seed: int = 1, players: int = 2, **settings: float) -> ContinuousLeague:
    cfg = ContinuousConfig(**settings)  # type: ignore[arg-type]
    mode = "balanced" if players == 4 else "all"
    return ContinuousLeague(bots, players, seed, mode, cfg, RatingConfig())


GRADED = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}


# -- the chooser ---------------------------------------------------------------------------


def test_the_chooser_picks_the_least_certain_adjacent_pair() -> None:
    ratings = {"a": R(30, 1), "b": R(20, 1), "c": R(19, 1), "d": R(10, 1), "e": R(9.5, 2)}
    order = ranking(ratings, ratings)
    assert order == ["a", "b", "c", "d", "e"]
    pairs = adjacent_pairs(ratings, order)
    assert [round(p.p, 2) for p in pairs] == [1.0, 0.76, 1.0, 0.59]
    assert choose_group(order, pairs, 2, 0.95) == ("d", "e")
    # A pair ordered at the asked confidence is never chosen; all ordered: nothing.
    assert choose_group(order, pairs, 2, 0.5) is None
    tight = [Pair("a", "b", 0.99), Pair("b", "c", 0.9), Pair("c", "d", 0.97), Pair("d", "e", 0.99)]
    assert choose_group(order, tight, 2, 0.95) == ("b", "c")


def test_with_more_players_the_window_with_most_doubt_is_chosen() -> None:
    order = ["a", "b", "c", "d", "e"]
    pairs = [Pair("a", "b", 0.99), Pair("b", "c", 0.7), Pair("c", "d", 0.99), Pair("d", "e", 0.6)]
    # Windows of 3: abc 0.30, bcd 0.30, cde 0.40.
    assert choose_group(order, pairs, 3, 0.95) == ("c", "d", "e")
    assert choose_group(order, pairs, 4, 0.95) == ("b", "c", "d", "e")


def test_a_meeting_played_often_gives_way_to_another_close_one() -> None:
    order = ["a", "b", "c"]
    pairs = [Pair("a", "b", 0.7), Pair("b", "c", 0.8)]
    assert choose_group(order, pairs, 2, 0.95, {frozenset("ab"): 1, frozenset("bc"): 1}) == ("a", "b")
    # Equals that no number of games orders do not take every game.
    assert choose_group(order, pairs, 2, 0.95, {frozenset("ab"): 16, frozenset("bc"): 1}) == ("b", "c")


def test_refits_come_at_fixed_counts_ever_further_apart() -> None:
    points = sorted({refit_point(n) for n in range(3000)})
    assert points[:4] == [0, 2, 4, 6]
    steps = [b - a for a, b in itertools.pairwise(points)]
    assert steps == sorted(steps) and steps[-1] >= 0.05 * points[-2]
    assert all(refit_point(n) <= n for n in range(3000))


# -- sets, ids and seeds -------------------------------------------------------------------


def test_every_meeting_comes_first_in_seat_balanced_sets_with_their_own_ids_and_seeds() -> None:
    league = new_league(["a", "b", "c", "d"], seed=7, min_meetings=2)
    games = play_out(league, strengths_play(GRADED), limit=24)
    sets: dict[int, list[ScheduledGame]] = {}
    for g in games:
        sets.setdefault(g.round, []).append(g)
    assert sorted(sets) == list(range(1, 13))
    meetings = Counter(frozenset(s[0].seats) for s in sets.values())
    assert len(meetings) == 6 and set(meetings.values()) == {2}
    for number, s in sets.items():
        assert [g.game_id for g in s] == [f"c{number}-g001", f"c{number}-g002"]
        assert s[0].seats == s[1].seats[::-1]  # both seat orders on one board
        assert s[0].seed == s[1].seed == derive_seed(7, "c", number, *s[0].seats)
    assert [g.index for g in games] == list(range(24))


def test_four_player_sets_hold_each_bot_in_each_seat() -> None:
    league = new_league(["a", "b", "c", "d", "e"], players=4)
    games = play_out(league, strengths_play({**GRADED, "e": -1.0}), limit=8)
    first = [g.seats for g in games if g.round == 1]
    assert len(first) == 4
    for bot in first[0]:
        assert sorted(s.index(bot) for s in first) == [0, 1, 2, 3]


# -- stopping ------------------------------------------------------------------------------


def test_it_stops_when_every_adjacent_pair_is_ordered() -> None:
    league = new_league(list(GRADED), confidence=0.9, max_games=2000)
    games = play_out(league, strengths_play(GRADED, noise=0.7))
    assert league.stop is not None and league.stop.reason is StopReason.CONFIDENT
    assert len(games) < 600  # a round robin giving each meeting the busiest pair's sets plays more
    pairs = league.pairs()
    assert [(p.above, p.below) for p in pairs] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert all(p.verdict is PairVerdict.A_STRONGER for p in pairs)
    assert league.stop.describe() == (
        f"the standings are settled at 90% after {len(games)} games: ordered a > b, b > c, c > d"
    )


def test_equal_bots_stop_tied_within_the_indifference_never_ordered() -> None:
    strength = {"x": 0.0, "y": 0.0}
    for seed in range(3):
        league = new_league(list(strength), seed=seed, indifference=150, max_games=100_000)
        games = play_out(league, strengths_play(strength))
        stop = league.stop
        assert stop is not None and stop.reason is StopReason.CONFIDENT, seed
        assert [p.verdict for p in league.pairs()] == [PairVerdict.TIED]
        assert stop.describe().startswith(f"the standings are settled at 95% after {len(games)} games: ")
        pair = league.pairs()[0]
        assert stop.describe().endswith(f": tied within 150 Elo: {pair.above} ~ {pair.below}")
        assert "ordered" not in stop.describe()


def test_a_clear_pair_and_a_tied_pair_are_told_apart() -> None:
    strength = {"top": 6.0, "x": 0.0, "y": 0.0}
    league = new_league(list(strength), indifference=150, max_games=100_000)
    play_out(league, strengths_play(strength))
    assert league.stop is not None and league.stop.reason is StopReason.CONFIDENT
    top, tie = league.pairs()
    assert top.above == "top" and top.verdict is PairVerdict.A_STRONGER
    assert tie.verdict is PairVerdict.TIED
    assert f"ordered top > {tie.above}; tied within 150 Elo: {tie.above} ~ {tie.below}" in league.stop.describe()


def test_it_stops_when_the_budget_is_spent_and_names_every_open_pair() -> None:
    league = new_league(["x", "y", "z"], max_games=31)
    games = play_out(league, strengths_play({"x": 0.0, "y": 0.0, "z": 0.0}))
    assert len(games) == 30  # whole sets only: the 31st game would start a set it cannot finish
    stop = league.stop
    assert stop is not None and stop.reason is StopReason.BUDGET and stop.least is not None
    assert not any(p.settled() for p in stop.pairs)  # 30 games cannot settle equals within 20 Elo
    first, second = stop.pairs
    assert stop.describe() == (
        "budget of 31 games spent before the standings settled; still open: "
        f"{first.above} vs {first.below} P={first.p:.2f}, {second.above} vs {second.below} P={second.p:.2f}"
    )
    assert league.tie_games() > 31  # what the run warns of: a tie needs far more games than this budget


def row(bot: str, p: float | None, retired: bool = False) -> Row:
    """A standings row with only what the pair tests read: the bot, its P(better), retired."""
    return Row(0, bot, 0.0, 0.0, 1.0, 0, 0.0, 0, 0.0, 0.0, 0, better_than_next=p, retired=retired)


def test_the_standings_name_each_pair_ordered_tied_or_open() -> None:
    strength = {"top": 6.0, "x": 0.0, "y": 0.0}
    league = new_league(list(strength), indifference=150, max_games=100_000)
    play_out(league, strengths_play(strength))
    _top, tie = league.pairs()
    rows = playing_rows([row("top", 0.99), row(tie.above, 0.6), row(tie.below, None)])
    tests = standings_pairs(league, rows)
    assert tests.line() == (
        f"pairs at 95%: ordered top > {tie.above}; tied within 150 Elo: {tie.above} ~ {tie.below}"
    )
    assert tests.summary() == tests.line().removeprefix("pairs ")  # the ladder's page says that
    assert tests.to_json() == [
        {"above": "top", "below": tie.above, "verdict": "ordered"},
        {"above": tie.above, "below": tie.below, "verdict": "tied"},
    ]
    # Rows the other way round than the tests say: neither pair is settled (top and the
    # other met once only).
    upside = playing_rows([row(tie.above, 0.99), row("top", 0.4), row(tie.below, None)])
    assert standings_pairs(league, upside).line() == (
        f"pairs at 95%: not settled: top vs {tie.below} P=0.40 (and 1 more)"
    )
    # A retired bot is no longer in the league: its neighbours are each other's.
    between = [row("top", 0.99), row("gone", 0.7, retired=True), row(tie.above, 0.6), row(tie.below, None)]
    assert [(p["above"], p["below"]) for p in standings_pairs(league, playing_rows(between)).to_json()] == [
        ("top", tie.above),
        (tie.above, tie.below),
    ]


HOSTILE = "<b>x</b>|`*_~\x1b[2J="


def standings_of(games: list[Seats], bots: list[str]) -> Standings:
    tally, ledger = Tally(), BatchLedger(bots)
    for i, seats in enumerate(games):
        tally.add(GameSummary(f"g{i}", i, i, 2, 10, 1.0, tuple(SeatSummary(n, r, 8, None, True, False) for n, r in seats)))
        ledger.add(i, seats, i)
    return tally.standings(bots, ledger.ratings(), None, ledger.checkpoint())


def test_every_output_of_the_standings_says_how_the_pairs_stand_names_escaped() -> None:
    names = ["top", HOSTILE, "c", "d"]
    st = standings_of([[(a, 1), (b, 2)] for a, b in itertools.combinations(names, 2)], names)
    order = [r.bot for r in st.rows]
    verdicts = [Standing.ORDERED, Standing.TIED, Standing.OPEN]
    pairs = tuple(Neighbours(a, b, 0.7, v) for (a, b), v in zip(itertools.pairwise(order), verdicts, strict=True))
    st = replace(st, pair_tests=PairTests(0.95, 20.0, pairs))

    data = json.loads(render(st, "json"))
    assert data["format"] == FORMAT_VERSION == 5
    assert data["pair_test"] == {"confidence": 0.95, "indifference": 20.0}
    assert data["pairs"] == [
        {"above": a, "below": b, "verdict": v}
        for (a, b), v in zip(itertools.pairwise(order), ["ordered", "tied", "open"], strict=True)
    ]
    tests = st.pair_tests
    assert tests is not None
    plain = render(st, "plain")
    assert "\x1b" not in plain
    assert tests.line(printable) in " ".join(plain.split())  # (wrapped at 100 columns)
    assert plain.index("pairs at 95%: ordered ") < plain.index("Ranked by")  # under the table
    github = render(st, "github")
    assert tests.line(markdown) in github and "<b>" not in github
    assert github.index("pairs at 95%: ordered ") < github.index("Ranked by")
    page = render(st, "html")
    assert f"<p>{html(tests.line())}</p>" in page and "<b>x" not in page
    rows = list(csv.DictReader(io.StringIO(render(st, "csv"))))
    assert [r["pair_test"] for r in rows] == ["ordered", "tied", "open", ""]

    # A league without pair tests: null in the JSON, no line, no column.
    other = replace(st, pair_tests=None)
    data = json.loads(render(other, "json"))
    assert data["pairs"] is None and data["pair_test"] is None
    assert "pairs at" not in render(other, "plain") and "pairs at" not in render(other, "github")
    assert "pair_test" not in render(other, "csv").splitlines()[0]


def test_a_league_the_old_rule_stopped_after_4_0_goes_on() -> None:
    # 4-0 gave P(better) = 0.95: a results folder of the old rule stopped there, sure at 95%.
    play = strengths_play({"x": 0.0, "y": 0.0})
    first = new_league(["x", "y"])
    sets = first.next_games(1) + first.next_games(1)
    assert len(sets) == 4
    done = [(g.index, [(b, 1 if b == "x" else 2) for b in g.seats]) for g in sets]  # x won all four
    resumed = ContinuousLeague(["x", "y"], 2, 1, "all", ContinuousConfig(), RatingConfig(), sets, done)
    assert resumed.pairs()[0].p > 0.95 and resumed.pairs()[0].verdict is PairVerdict.OPEN
    more = resumed.next_games(1)
    assert more and resumed.stop is None  # it plays on, from the games it has
    assert play_out(resumed, play, planned=more, limit=20)


def test_the_error_is_split_over_every_two_bots() -> None:
    assert pair_error(0.95, 2) == pytest.approx(0.05)
    assert pair_error(0.95, 5) == pytest.approx(0.005)  # ten pairs: any two may end up adjacent


def test_a_bot_added_to_a_settled_league_reopens_it() -> None:
    first = new_league(list(GRADED), confidence=0.9)
    play = strengths_play({**GRADED, "e": 1.5}, noise=0.7)
    played = play_out(first, play)
    assert first.stop is not None and first.stop.reason is StopReason.CONFIDENT
    done = [(g.index, play(g)) for g in played]
    grown = ContinuousLeague(
        [*GRADED, "e"], 2, 1, "all", ContinuousConfig(0.9), RatingConfig(), played, done
    )
    more = play_out(grown, play)
    meetings = [frozenset(g.seats) for g in more]
    # Its meetings first, once each, then what settles its place: e sits between b and c.
    assert set(meetings[: 4 * 2]) == {frozenset({"e", b}) for b in GRADED}
    assert grown.stop is not None and grown.stop.reason is StopReason.CONFIDENT
    assert [p.above for p in grown.pairs()] == ["a", "b", "e", "c"]
    assert all(p.verdict is PairVerdict.A_STRONGER for p in grown.pairs())


def test_the_same_seed_plays_the_same_games() -> None:
    def run(seed: int) -> list[tuple[str, tuple[str, ...], int]]:
        league = new_league(list(GRADED), seed=seed, max_games=60)
        return [(g.game_id, g.seats, g.seed) for g in play_out(league, strengths_play(GRADED, 1.5))]

    assert run(5) == run(5)
    assert run(5) != run(6)


@pytest.mark.parametrize("cut", [7, 36])  # within a set, and between sets
def test_a_resumed_league_goes_on_as_if_never_interrupted(cut: int) -> None:
    play = strengths_play(GRADED, 2.5)
    whole = play_out(new_league(list(GRADED), max_games=200), play)
    assert len(whole) > cut + 20
    first = new_league(list(GRADED), max_games=200)
    before = play_out(first, play, limit=cut)
    # Within a set the rest of it was planned with it; between sets, the next set was chosen
    # and stored, and not played.
    planned = [whole[cut]] if cut % 2 else first.next_games(1)
    schedule = [*before, *planned]
    done = [(g.index, play(g)) for g in before]
    # What a run reads back from its store: the schedule and the finished games.
    resumed = ContinuousLeague(
        list(GRADED), 2, 1, "all", ContinuousConfig(max_games=200), RatingConfig(), schedule, done
    )
    rest = play_out(resumed, play, planned=schedule[cut:])
    assert before + rest == whole


# -- the file ------------------------------------------------------------------------------

BASE = f"""\
name: t
cwd: {REPO}
bots:
  - name: one
    command: {sys.executable} sample_bots/random_bot.py
  - name: two
    command: {sys.executable} sample_bots/random_bot.py
"""


def load(tmp_path: Path, extra: str) -> TournamentConfig:
    path = tmp_path / "t.yaml"
    path.write_text(extra + BASE)
    return load_config(path)


def test_format_continuous_and_rounds_until_stable_are_one_league(tmp_path: Path) -> None:
    a = load(tmp_path, "format: continuous\nconfidence: 0.9\nmax_games: 300\n")
    b = load(tmp_path, "rounds: until_stable\nconfidence: 0.9\nmax_games: 300\n")
    for cfg in (a, b):
        assert cfg.format == "continuous"
        assert cfg.continuous == ContinuousConfig(0.9, 300, 1)
    assert load(tmp_path, "format: continuous\n").continuous == ContinuousConfig()
    # A file without 'indifference' (all before it existed) ties within 20 Elo.
    assert ContinuousConfig().indifference == 20
    assert load(tmp_path, "format: continuous\nindifference: 35.5\n").continuous.indifference == 35.5


def test_the_example_league_is_a_continuous_one() -> None:
    cfg = load_config(REPO / "tournaments" / "continuous.yaml")
    assert cfg.format == "continuous" and cfg.continuous == ContinuousConfig(0.95, 400, 1)
    assert len(cfg.bots) >= 3 and not cfg.challengers


@pytest.mark.parametrize(
    "extra, wanted",
    [
        ("format: continuous\nrounds: 3\n", "t.yaml:2: 'rounds' does not apply to format: continuous"),
        (
            "format: gauntlet\nrounds: until_stable\nchallengers: [one]\n",
            "'until_stable' is a continuous league",
        ),
        ("format: continuous\nchallengers: [one]\n", "'challengers' only applies to format: gauntlet"),
        ("confidence: 0.9\n", "t.yaml:1: 'confidence' only applies to format: continuous"),
        ("rounds: 2\nmax_games: 10\n", "'max_games' only applies to format: continuous"),
        ("format: continuous\nconfidence: 95\n", "'confidence' must be a probability between 0.5 and 1"),
        ("format: continuous\nmax_games: 0\n", "'max_games' must be from 1 to 10000000"),
        ("format: continuous\nmax_games: lots\n", "'max_games' must be a whole number, got 'lots'"),
        ("format: continuous\nmin_meetings: 0\n", "'min_meetings' must be from 1 to 1000"),
        ("format: continuous\nindifference: 0\n", "t.yaml:2: 'indifference' must be an Elo difference from 1 to 400"),
        ("format: continuous\nindifference: 1000\n", "'indifference' must be an Elo difference from 1 to 400"),
        ("format: continuous\nindifference: twenty\n", "'indifference' must be a whole number or a number, got 'twenty'"),
        ("indifference: 20\n", "t.yaml:1: 'indifference' only applies to format: continuous"),
        (
            "format: continuous\nrating: {model: sequential}\n",
            "'rating.model' must be 'batch' in a continuous",
        ),
        ("rounds: until_stabel\n", "'rounds' must be a whole number, got 'until_stabel'"),
        # A budget short of every meeting once would go to the file's first bots, or to nothing.
        (
            "format: continuous\nmax_games: 1\n",
            "'max_games' is 1, fewer than a continuous league plays before it chooses: "
            "1 meetings x 2 games (a set) x min_meetings 1 = 2",
        ),
        ("format: continuous\nmin_meetings: 3\nmax_games: 5\n", "x min_meetings 3 = 6; raise max_games"),
    ],
)
def test_config_mistakes_name_the_key(tmp_path: Path, extra: str, wanted: str) -> None:
    with pytest.raises(ConfigError) as err:
        load(tmp_path, extra)
    assert wanted in str(err.value)


# -- end to end ----------------------------------------------------------------------------




def test_a_league_that_grows_spends_its_error_by_arrival(tmp_path: Path) -> None:
    from arena.league.scheduler import ContinuousScheduler, league_scheduler
    from arena.stats.spending import arrival_error
    from arena.tournament import open_store

    out = f"output: {tmp_path / 'out'}\nformat: continuous\n"
    first = load(tmp_path, out)
    with open_store(first, restart=False)[0] as store:
        assert store.get_meta("arrivals") == ["one", "two"] and store.get_meta("first_roster") == 2
    bot = f"  - name: three\n    command: {sys.executable} sample_bots/random_bot.py\n"
    (tmp_path / "t.yaml").write_text(out + BASE + bot)
    grown = load_config(tmp_path / "t.yaml")
    with open_store(grown, restart=False)[0] as store:
        assert store.get_meta("arrivals") == ["one", "two", "three"] and store.get_meta("first_roster") == 2
        scheduler = league_scheduler(grown, store)
    assert isinstance(scheduler, ContinuousScheduler)
    league = scheduler.league
    # The first roster's pair keeps the error it had; the newcomer's pairs take theirs from what is left.
    assert league.pair_error("one", "two") == arrival_error(0.95, 2, 1)
    assert league.pair_error("three", "one") == league.pair_error("two", "three") == arrival_error(0.95, 2, 2)
    assert league.pair_error("one", "two") + 2 * league.pair_error("three", "one") <= 0.05
