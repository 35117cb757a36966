"""What the standings say beside the rating: uncertainty, wins apart from shared firsts, the JSON format."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from dataclasses import replace
from pathlib import Path

import pytest
import trueskill
from click.testing import CliRunner

from arena.cli import main
from arena.game.record import Fault, FaultKind, GameRecord, SeatRecord
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.league.game_summary import GameSummary, SeatSummary
from arena.league.schedule import ScheduledGame
from arena.league.standings import probability_text, render
from arena.league.store import ResultStore
from arena.league.tally import CLEAR, FORMAT_VERSION, Standings, Tally, compute_standings
from arena.rules import Params, Standing, random_board
from arena.stats import MAX_SWEEPS, TOLERANCE
from arena.stats.settings import RatingConfig
from tests.support.fakebot import engine_bot


def game(index: int, *seats: tuple[str, int], board: int | None = None) -> GameSummary:
    return GameSummary(
        f"g{index}",
        index,
        index if board is None else board,
        len(seats),
        10,
        1.0,
        tuple(SeatSummary(name, rank, 8, None, True, False) for name, rank in seats),
    )


def test_shared_first_places_are_not_wins() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 1), ("c", 3)))  # a and b share first place
    tally.add(game(1, ("a", 1), ("b", 2), ("c", 3)))
    ratings = {n: trueskill.Rating() for n in "abc"}
    rows = {r.bot: r for r in tally.standings("abc", ratings).rows}
    assert (rows["a"].wins, rows["a"].shared_firsts) == (1, 1)
    assert (rows["b"].wins, rows["b"].shared_firsts) == (0, 1)
    assert (rows["c"].wins, rows["c"].shared_firsts) == (0, 0)
    assert rows["a"].points == pytest.approx((0.75 + 1.0) / 2)


def test_a_game_every_bot_forfeited_is_no_first_place_for_anyone() -> None:
    crash = Fault(FaultKind.CRASH, "exit 1", 0)
    both_out = (SeatSummary("a", 1, 0, crash, True, False), SeatSummary("b", 1, 0, crash, True, False))
    a_wins = (SeatSummary("a", 1, 8, None, True, False), SeatSummary("b", 2, 0, crash, True, False))
    tally = Tally()
    tally.add(GameSummary("g0", 0, 0, 2, 0, 1.0, both_out))  # both tied first, both forfeited
    tally.add(GameSummary("g1", 1, 1, 2, 0, 1.0, a_wins))
    rows = {r.bot: r for r in tally.standings("ab", {n: trueskill.Rating() for n in "ab"}).rows}
    assert (rows["a"].wins, rows["a"].shared_firsts) == (1, 0)  # only the game it did win
    assert (rows["b"].wins, rows["b"].shared_firsts) == (0, 0)
    assert rows["b"].games == 2 and rows["b"].faults == 2


def test_every_rank_says_how_sure_it_is() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    ratings = {
        "a": trueskill.Rating(30.0, 1.0),
        "b": trueskill.Rating(29.0, 1.0),  # close to a
        "c": trueskill.Rating(20.0, 1.0),  # far below b
    }
    rows = tally.standings("abc", ratings).rows
    assert [r.bot for r in rows] == ["a", "b", "c"]
    a, b, c = rows
    assert a.better_than_next == pytest.approx(0.5 * math.erfc(-1.0 / math.sqrt(2) / math.sqrt(2)))
    assert a.close and a.better_than_next is not None and a.better_than_next < CLEAR
    assert not b.close and b.better_than_next is not None and b.better_than_next > 0.999
    assert c.better_than_next is None and not c.close
    assert (a.mu_low, a.mu_high) == pytest.approx((30 - 1.96, 30 + 1.96), abs=1e-3)
    plain = render(tally.standings("abc", ratings), "plain")
    assert plain.splitlines()[2].startswith("1?") and plain.splitlines()[3].startswith("2 ")


@pytest.mark.parametrize("fmt", ["plain", "github"])
def test_the_table_explains_itself(fmt: str) -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    text = render(tally.standings("ab", {n: trueskill.Rating() for n in "ab"}), fmt)
    flat = " ".join(text.split())
    assert "Ranked by mu (the skill P(better) compares), then rating (mu - 3 sigma), then name" in flat
    assert "wins: outright first places" in flat and "P(better)" in flat


def test_standings_json_has_a_format_version_and_what_is_needed_to_read_it() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    tally.add(game(1, ("b", 1), ("a", 1)))
    st = tally.standings("ab", {n: trueskill.Rating() for n in "ab"}, RatingConfig(beta=3.0))
    data = json.loads(render(st, "json"))
    assert data["format"] == FORMAT_VERSION and data["games"] == 2
    assert data["rating"]["beta"] == 3.0 and data["rating"]["model"] == "batch"
    # Format 2's fields keep their meaning; 3 adds W-D-L and the board pairs (none here: two boards).
    assert data["crosstable"]["a"]["b"] == {"points": 1.5, "games": 2, "wdl": [1, 1, 0], "pentanomial": [0] * 5}
    assert data["model"] == {
        "name": "batch",
        "converged": None,
        "sweeps": None,
        "max_sweeps": MAX_SWEEPS,
        "tolerance": TOLERANCE,
        "elo": {"converged": None, "iterations": None},
        "better": "independent",  # no fit given here: the two Gaussians alone
    }
    assert [{k: s[k] for k in ("seat", "points", "games")} for s in data["seats"]] == [
        {"seat": "a", "points": 0.75, "games": 2},
        {"seat": "b", "points": 0.25, "games": 2},
    ]
    assert data["seats"][0]["interval95"] is None  # no fit given here: no interval over boards
    assert [r["bot"] for r in data["rows"]] == ["a", "b"] and data["rows"][0]["shared_firsts"] == 1


def test_a_tally_saved_before_shared_firsts_were_counted_is_added_up_again() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 1)))
    saved = tally.to_dict()
    assert Tally.from_dict(saved) is not None
    del saved["version"]
    assert Tally.from_dict(saved) is None


def fake_record(index: int, seats: list[tuple[str, int]]) -> GameRecord:
    """A record with just what the standings read: seats, ranking, board."""
    return GameRecord(
        game_id=f"g{index}",
        seed=index // 2,
        params=Params(players=len(seats)),
        time_control={"move_ms": 100},
        start_position="",
        seats=tuple(SeatRecord(n, ("x",)) for n, _ in seats),
        moves=(),
        final_position="",
        standings=tuple(Standing(i, r, 10 - r, 1, 0, False) for i, (_, r) in enumerate(seats)),
    )


def two_player_games() -> list[GameSummary]:
    """Board pairs of a and b (seats swapped), one of a and c, and a game still without its pair."""
    return [
        game(0, ("a", 1), ("b", 2), board=7),
        game(1, ("b", 2), ("a", 1), board=7),  # a wins both: a pair of 2 points for a
        game(2, ("a", 1), ("b", 1), board=8),  # a draw (a shared place) ...
        game(3, ("b", 1), ("a", 2), board=8),  # ... and a loss: 0.5 points for a
        game(4, ("a", 1), ("c", 2), board=7),  # same board, other bots: another pair
        game(5, ("c", 1), ("a", 1), board=7),  # 1.5 points for a
        game(6, ("b", 1), ("c", 2), board=9),  # its partner has not come
    ]


def test_two_player_rows_and_crosstable_have_w_d_l_and_the_board_pairs() -> None:
    tally = Tally()
    for g in two_player_games():
        tally.add(g)
    st = tally.standings("abc", {n: trueskill.Rating() for n in "abc"})
    rows = {r.bot: r for r in st.rows}
    assert rows["a"].wdl == (3, 2, 1) and rows["b"].wdl == (2, 1, 2) and rows["c"].wdl == (0, 1, 2)
    # Counts of pairs scoring 0, 0.5, 1, 1.5, 2: a's are 0.5 (vs b), 1.5 (vs c) and 2 (vs b).
    assert rows["a"].pentanomial == (0, 1, 0, 1, 1)
    assert rows["b"].pentanomial == (1, 0, 0, 1, 0) and rows["c"].pentanomial == (0, 1, 0, 0, 0)
    ab, ba = st.crosstable["a"]["b"], st.crosstable["b"]["a"]
    assert (ab.wdl, ab.pentanomial, ab.points, ab.games) == ((2, 1, 1), (0, 1, 0, 0, 1), 2.5, 4)
    assert (ba.wdl, ba.pentanomial) == ((1, 1, 2), (1, 0, 0, 1, 0))
    assert st.crosstable["b"]["c"].pentanomial == (0, 0, 0, 0, 0)  # one game of board 9: no pair yet
    plain = render(st, "plain")
    assert "3-2-1" in plain and "0 1 0 1 1" in plain and "Ptnml(0-2)" in plain
    assert "board pairs" in plain and "0 1 0 0 1" in plain  # a's pairs against b, in the crosstable
    header, a_line = render(st, "csv").splitlines()[:2]
    cells = dict(zip(header.split(","), a_line.split(","), strict=True))
    assert [cells[k] for k in ("W", "D", "L", "ptnml_0", "ptnml_0.5", "ptnml_1", "ptnml_1.5", "ptnml_2")] == [
        "3", "2", "1", "0", "1", "0", "1", "1",
    ]  # fmt: skip
    row = json.loads(render(st, "json"))["rows"][0]
    assert (row["bot"], row["wdl"], row["pentanomial"]) == ("a", [3, 2, 1], [0, 1, 0, 1, 1])


def test_board_pairs_do_not_depend_on_the_order_games_come_in_or_a_checkpoint_between() -> None:
    games = two_player_games()
    ratings = {n: trueskill.Rating() for n in "abc"}
    first = Tally()
    for g in games:
        first.add(g)
    rng = random.Random(3)
    for _ in range(5):
        shuffled = rng.sample(games, len(games))
        half = Tally()
        for g in shuffled[:3]:
            half.add(g)
        resumed = Tally.from_dict(json.loads(json.dumps(half.to_dict())))  # as the store keeps it
        assert resumed is not None
        for g in shuffled[3:]:
            resumed.add(g)
        assert resumed.standings("abc", ratings) == first.standings("abc", ratings)


def test_four_player_crosstable_counts_places_ahead_tied_and_behind_per_pair() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2), ("c", 2), ("d", 4)))
    tally.add(game(1, ("b", 1), ("a", 3), ("d", 2), ("c", 4)))
    st = tally.standings("abcd", {n: trueskill.Rating() for n in "abcd"})
    assert st.crosstable["b"]["c"].wdl == (1, 1, 0) and st.crosstable["c"]["b"].wdl == (0, 1, 1)
    assert st.crosstable["a"]["d"].wdl == (1, 0, 1) and st.crosstable["a"]["d"].pentanomial is None
    rows = {r.bot: r for r in st.rows}
    assert rows["a"].wdl == (4, 0, 2) and rows["c"].wdl == (1, 1, 4) and rows["a"].pentanomial is None
    data = json.loads(render(st, "json"))
    assert data["crosstable"]["b"]["c"] == {"games": 2, "points": 1.5, "wdl": [1, 1, 0], "pentanomial": None}
    for fmt in ("plain", "github", "html"):
        text = render(st, fmt)
        assert "crosstable" in text and "placed ahead" in text and "1-1-0" in text, fmt
        assert "Ptnml" not in text and "board pairs" not in text, fmt


def test_a_fit_stopped_at_its_sweep_limit_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        fake_record(i, [("a", 1), ("b", 2)] if i % 3 else [("b", 1), ("a", 2)]) for i in range(12)
    ]
    fine = compute_standings(records, ["a", "b"])
    assert fine.fit_converged is True and fine.fit_sweeps is not None
    assert "rating fit stopped" not in render(fine, "plain")
    monkeypatch.setattr("arena.stats.trueskill_fit.MAX_SWEEPS", 2)
    stopped = compute_standings(records, ["a", "b"])
    assert (stopped.fit_converged, stopped.fit_sweeps) == (False, 2)
    for fmt in ("plain", "github", "html"):
        assert "WARNING: the rating fit stopped at its limit of 2 sweeps without converging" in render(
            stopped, fmt
        ), fmt
    model = json.loads(render(stopped, "json"))["model"]
    assert (model["converged"], model["sweeps"]) == (False, 2)


def test_retired_bots_are_marked_in_every_format() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    st = tally.standings("ab", {n: trueskill.Rating() for n in "ab"}, retired=["b"])
    assert [r.retired for r in st.rows] == [False, True]
    plain = render(st, "plain")
    assert "b (retired)" in plain and "a (retired)" not in plain
    assert "(retired): removed from the league or retired" in " ".join(plain.split())
    assert "b (retired)" in render(st, "github") and "b (retired)" in render(st, "html")
    header, a_line, b_line = render(st, "csv").splitlines()
    assert header.endswith(",retired") and a_line.endswith(",false") and b_line.endswith(",true")
    assert [r["retired"] for r in json.loads(render(st, "json"))["rows"]] == [False, True]


# -- the plain table on a terminal, the CSV for tools ------------------------------------------


def league_standings() -> Standings:
    """Four bots, two players, every figure there (Elo too): a table wider than 80 columns."""
    wins = {("a", "b"): 5, ("a", "c"): 6, ("a", "d"): 8, ("b", "c"): 5, ("b", "d"): 7, ("c", "d"): 6}
    records, i = [], 0
    for (x, y), won in wins.items():
        for k in range(8):
            seats = [(x, 1), (y, 2)] if k < won else [(x, 2), (y, 1)]
            records.append(fake_record(i, seats if k % 2 else seats[::-1]))
            i += 1
    return compute_standings(records, list("abcd"))


def test_a_table_wider_than_the_terminal_leaves_out_its_finer_columns_and_names_them() -> None:
    st = league_standings()
    wide = render(st, "plain")
    assert max(map(len, wide.split("\n\n")[0].splitlines())) > 120  # every column: too wide for 80
    narrow = render(st, "plain", width=80)
    assert all(len(line) <= 80 for line in narrow.splitlines()), narrow
    header = narrow.splitlines()[0].split()
    assert header[:3] == ["rank", "bot", "rating"] and "points" in header and "mu" not in header
    note = " ".join(narrow.split("\n\n")[0].split())
    assert "(not shown at this width: mu, 95% low, 95% high," in note and "--wide shows every column" in note
    assert render(st, "plain", width=80, wide=True).split("\n\n")[0] == wide.split("\n\n")[0]
    assert render(st, "plain", width=300).split("\n\n")[0] == wide.split("\n\n")[0]  # it fits: all, no note


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_the_legend_wraps_to_the_terminal_and_never_inside_a_word(width: int) -> None:
    st = league_standings()
    legend_at = {w: render(st, "plain", width=w).split("\n\n")[1] for w in (width, 1000)}
    assert all(len(line) <= width for line in legend_at[width].splitlines()), legend_at[width]
    assert legend_at[width].split() == legend_at[1000].split()  # the same words, none cut


def test_a_question_mark_stands_beside_every_p_better_shown_below_clear_and_no_other() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    shown: set[str] = set()
    for step in range(-40, 41):  # mu gaps around the one where P(better) is CLEAR
        gap = 2.326 + step * 0.002  # P(N(gap, 2) > 0) = 0.95 near gap 2.326
        ratings = {"a": trueskill.Rating(30.0 + gap, 1.0), "b": trueskill.Rating(30.0, 1.0)}
        st = tally.standings("ab", ratings)
        line = render(st, "plain").splitlines()[2].split()
        rank, p = line[0], line[6]  # rank, bot, rating, mu, 95% low, 95% high, P(better)
        assert rank.endswith("?") == (float(p) < CLEAR), (gap, st.rows[0].better_than_next, line)
        csv_row = dict(zip(*[x.split(",") for x in render(st, "csv").splitlines()[:2]], strict=True))
        assert (csv_row["sure"] == "false") == (float(csv_row["P(better)"]) < CLEAR) == rank.endswith("?")
        shown.add(p)
    assert {"0.94", "0.95"} <= shown  # both sides of the line were met


def test_p_better_is_rounded_down_from_its_decimal_value() -> None:
    assert [probability_text(p) for p in (0.946, 0.29, 0.95, math.nextafter(0.95, 0), 0.99999, None)] == [
        "0.94", "0.29", "0.95", "0.94", "0.99", "",
    ]  # fmt: skip
    assert probability_text(0.123456, 4) == "0.1234"


def test_standings_json_rounds_p_better_down_as_the_table_does() -> None:
    st = league_standings()
    top = st.rows[0]
    for p, close in ((0.94996, True), (0.95, False), (0.123456, True)):
        top.better_than_next = p  # (a figure from the fit; set here to sit by the line)
        row = st.to_json_rows()[0]
        assert row["close"] is close and (row["better_than_next"] < CLEAR) is close, (p, row)
        assert row["better_than_next"] == float(probability_text(p, 4))


def test_csv_has_the_rank_the_sure_mark_and_the_elo_interval_as_numbers_of_their_own() -> None:
    st = league_standings()
    rows = list(csv.DictReader(io.StringIO(render(st, "csv"))))
    assert list(rows[0])[:3] == ["rank", "sure", "bot"]
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    for r, row in zip(rows, st.rows, strict=True):
        assert r["sure"] == ("" if row.better_than_next is None else str(not row.close).lower())
        assert row.elo is not None
        elo, low, high = (float(r[k]) for k in ("elo", "elo_low", "elo_high"))
        assert (elo, low, high) == pytest.approx(row.elo, abs=0.05) and low <= elo <= high
    assert rows[-1]["sure"] == "" and rows[-1]["P(better)"] == ""


def test_arena_standings_fits_columns_and_wide_shows_them_all(tmp_path: Path) -> None:
    specs = [BotSpec(name="ann", command=("fake",)), BotSpec(name="bob", command=("fake",))]
    with ResultStore.create(tmp_path) as store:
        store.set_meta(config={"name": "t", "bots": [{"name": "ann"}, {"name": "bob"}]})
        for i in range(2):
            setup = GameSetup(board=random_board(i + 1, 8), seed=i + 1)
            rec = replace(Referee(setup, specs, [engine_bot("a"), engine_bot("b")]).run(), game_id=f"r1-g{i}")
            store.save_game(ScheduledGame(i, rec.game_id, 1, ("ann", "bob"), rec.seed), rec)
    runner = CliRunner()
    narrow = runner.invoke(main, ["standings", str(tmp_path)], env={"COLUMNS": "70"})
    assert narrow.exit_code == 0, narrow.output
    assert all(len(line) <= 70 for line in narrow.output.splitlines()), narrow.output
    assert "not shown at this width" in narrow.output and "avg hexes" not in narrow.output.splitlines()[0]
    wide = runner.invoke(main, ["standings", str(tmp_path), "--wide"], env={"COLUMNS": "70"})
    assert "avg hexes" in wide.output.splitlines()[0] and "not shown" not in wide.output
    piped = runner.invoke(main, ["standings", str(tmp_path)], env={"COLUMNS": None})
    assert "avg hexes" in piped.output.splitlines()[0]  # not a terminal: every column
