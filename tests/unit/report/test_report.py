"""The HTML report and replay pages without a browser; info lines' plies; ``replay --step``.

The browser half (the pages really work, and draw what the engine says) is in
test_report_browser.py.

The cases that need no process; the others are in tests/system/report/test_report.py.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from arena.cli.play_cmds import step_action
from arena.league.tally import compute_standings
from arena.report.chart import LABEL_GAP, intervals, line_chart, spread
from arena.report.summary import rating_history
from arena.stats.settings import RatingConfig
from arena.untrusted import script_json
from tests.support.records import HOSTILE, fake_game

REPO = Path(__file__).resolve().parents[3]


# -- info lines carry their ply ---------------------------------------------------------------


# -- escaping ---------------------------------------------------------------------------------


def test_script_json_cannot_end_its_script_element_and_reads_back_the_same() -> None:
    value = {"name": HOSTILE, "list": ["</SCRIPT>", "<!--", "&amp;"]}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


# -- what the report says ---------------------------------------------------------------------


def test_pairwise_counts_every_two_bots_of_a_four_player_game() -> None:
    games = [
        fake_game("g1", ["a", "b", "c", "d"], [1, 2, 2, 4]),
        fake_game("g2", ["b", "a", "d", "c"], [1, 3, 2, 4], fault=3),
    ]
    table = {
        me: {o: (c.points, c.games) for o, c in row.items()}
        for me, row in compute_standings(games, ["a", "b", "c", "d"]).crosstable.items()
    }
    assert table["a"]["b"] == (1.0, 2)  # above it once, below it once
    assert table["b"]["c"] == (1.5, 2)  # tied once, above once
    assert table["d"]["a"] == (1.0, 2) and table["a"]["d"] == (1.0, 2)
    assert sum(g for row in table.values() for _, g in row.values()) == 2 * 12


def test_rating_history_ends_at_the_sequential_standings_rating() -> None:
    """The chart rates game after game: its end is the standings of ``model: sequential``."""
    games = [
        fake_game(f"g{i}", ["a", "b", "c"][i % 3 :] + ["a", "b", "c"][: i % 3], [1, 2, 3]) for i in range(7)
    ]
    sequential = RatingConfig(model="sequential")
    history = rating_history(games, ["a", "b", "c"], sequential)
    st = compute_standings(games, ["a", "b", "c"], sequential)
    for row in st.rows:
        assert history[row.bot][-1][1] == pytest.approx(row.rating)
        assert [n for n, _ in history[row.bot]] == [0, *range(1, 8)]


def test_a_bots_rating_line_starts_at_its_first_game_and_labels_do_not_overlap() -> None:
    games = [fake_game(f"g{i}", ["a", "b"], [1 + i % 2, 2 - i % 2]) for i in range(6)]
    games += [fake_game(f"g{i}", ["c", "a"], [1, 2]) for i in range(6, 9)]  # c joins at game 7
    history = rating_history(games, ["a", "b", "c", "d"], None)
    assert [n for n, _ in history["c"]] == [6, 7, 8, 9] and history["d"] == []  # d never played
    assert history["c"][0][1] == history["a"][0][1]  # the initial rating, where c joined
    chart = line_chart(history)
    lines = {line.bot: line for line in chart.lines}
    assert set(lines) == {"a", "b", "c"}
    first_x = {bot: float(line.points.split()[0].split(",")[0]) for bot, line in lines.items()}
    assert first_x["a"] == chart.left < first_x["c"]
    assert first_x["c"] == pytest.approx(chart.left + (chart.right - chart.left) * 6 / 9, abs=0.1)
    ys = sorted(line.label_y for line in chart.lines)
    assert all(b - a >= LABEL_GAP - 0.05 for a, b in itertools.pairwise(ys)), ys


def test_spread_moves_close_labels_apart_within_the_chart_and_leaves_far_ones() -> None:
    assert spread([50, 51, 200], 10, 240) == [50, 62, 200]
    assert spread([240, 239, 238], 10, 240) == [240, 228, 216]  # pushed up from the bottom edge
    assert spread([30.0], 10, 240) == [30.0]


def test_the_interval_bars_share_a_scale_with_round_ticks() -> None:
    scale = intervals([(25.0, 1.0), (20.0, 2.0)])  # from 14 to 28
    labels = [t.label for t in scale.ticks]
    assert float(labels[0]) <= 14 and float(labels[-1]) >= 28 and len(labels) >= 3
    at = {float(t.label): t.at for t in scale.ticks}
    a, b = scale.bars
    low, high = min(at), max(at)

    def px(v: float) -> float:
        return at[low] + (at[high] - at[low]) * (v - low) / (high - low)
    assert (a.low, a.mid, a.high) == pytest.approx((px(22), px(25), px(28)), abs=0.1)
    assert (b.low, b.mid, b.high) == pytest.approx((px(14), px(20), px(26)), abs=0.1)
    assert at[low] >= 0 and at[high] <= scale.width


# -- arena replay --step -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "action"),
    [
        ("\x1b[C", "next"),
        (" ", "next"),
        ("\x1b[D", "back"),
        ("\x1b[H", "first"),
        ("\x1b[F", "last"),
        ("\x1bOH", "first"),
        ("j", "jump"),
        ("q", "quit"),
        ("\x1b", "quit"),
    ],
)
def test_step_keys(key: str, action: str) -> None:
    assert step_action(key) == action
