"""What the standings say beside the rating: uncertainty, wins apart from shared firsts, the JSON format."""

from __future__ import annotations

import json
import math

import pytest
import trueskill

from arena.config import RatingConfig
from arena.standings import render
from arena.summary import GameSummary, SeatSummary
from arena.tally import CLEAR, FORMAT_VERSION, Tally


def game(index: int, *seats: tuple[str, int]) -> GameSummary:
    return GameSummary(
        f"g{index}",
        index,
        index,
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
    assert "Ranked by rating (mu - 3 sigma), then mu, then name" in flat
    assert "wins: outright first places" in flat and "P(better)" in flat


def test_standings_json_has_a_format_version_and_what_is_needed_to_read_it() -> None:
    tally = Tally()
    tally.add(game(0, ("a", 1), ("b", 2)))
    tally.add(game(1, ("b", 1), ("a", 1)))
    st = tally.standings("ab", {n: trueskill.Rating() for n in "ab"}, RatingConfig(beta=3.0))
    data = json.loads(render(st, "json"))
    assert data["format"] == FORMAT_VERSION and data["games"] == 2
    assert data["rating"]["beta"] == 3.0 and data["rating"]["model"] == "batch"
    assert data["crosstable"]["a"]["b"] == {"points": 1.5, "games": 2}
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
