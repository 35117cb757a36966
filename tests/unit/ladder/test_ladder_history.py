"""A bot's page charts its rating over the league's games (inline SVG drawn on the server, the
same points as a table, and as JSON at /api/bots/NAME/history), with a mark where each version
joined and retired; the standings (page and /api/standings) show how each bot moved since 24 h
ago, "new" for a bot with no game then; every name a bot or an author controls is escaped."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path

import pytest

from arena.game.record import GameRecord
from arena.ladder.chart import history_svg, history_table
from arena.ladder.history import BotHistory, HistoryCache, Move, VersionMarks, moves, stamp
from arena.ladder.roster import league_name
from arena.ladder.store import State
from arena.league.history import HistoryPoint
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore
from arena.league.tally import compute_standings
from tests.support.records import HOSTILE, fake_game
from tests.unit.ladder.test_ladder_api import Ladder

OLD = "2020-01-01T00:00:{:02d}Z"  # v1's games: long before anything else
NEW = "2099-01-01T00:00:{:02d}Z"  # v2's: after every time the ladder writes


def passed(ladder: Ladder, author: str, bot: str) -> str:
    who = ladder.store.author_named(author)
    assert who is not None
    sub = ladder.store.add_submission(who, bot, ["python3", "bot.py"], None, ("bot.tar.gz", 10, "00"))
    ladder.store.set_state(sub.id, State.PASSED)
    found = ladder.store.version(bot, sub.version)
    assert found is not None
    return league_name(found)


def play(folder: Path, games: list[tuple[list[str], list[int], str]]) -> list[GameRecord]:
    """Store these games (seats, ranks, when each finished) in the ladder's results store."""
    records = []
    store = ResultStore.open(folder) if (folder / "results.sqlite").is_file() else ResultStore.create(folder)
    with store:
        start = store.count()
        for i, (names, ranks, _) in enumerate(games, start):
            record = fake_game(f"g{i:03d}", names, ranks)
            store.extend_schedule([ScheduledGame(i, record.game_id, 1, tuple(names), i)])
            store.save_game(ScheduledGame(i, record.game_id, 1, tuple(names), i), record)
            records.append(record)
        conn = sqlite3.connect(store.path)
        for i, (_, _, finished) in enumerate(games, start):
            conn.execute("UPDATE games SET finished_at=? WHERE game_id=?", (finished, f"g{i:03d}"))
        conn.commit()
        conn.close()
    return records


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


def test_the_history_api_gives_each_version_s_points_and_where_it_joined_and_retired(ladder: Ladder) -> None:
    v1 = passed(ladder, "alice", "greedy")
    v2 = passed(ladder, "alice", "greedy")  # retires v1 now: after v1's games, before v2's
    records = play(
        ladder.ladder.folder,
        [([v1, "one"], [1, 2], OLD.format(i)) if i % 2 else (["one", "two"], [2, 1], OLD.format(i)) for i in range(8)]
        + [([v2, "two"], [2, 1], NEW.format(i)) for i in range(3)],
    )
    r = ladder.request("GET", "/api/bots/greedy/history")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["bot"] == "greedy" and body["games"] == 11 and body["max_points"] == 500
    one, two = body["versions"]
    assert (one["bot"], one["version"], one["active"], two["bot"], two["active"]) == (v1, 1, False, v2, True)
    assert one["joined_position"] == 2 and two["joined_position"] == 9  # its first game in the league
    assert one["retired"] is not None and one["retired_position"] == 8  # the games finished by then
    assert two["retired"] is None and two["retired_position"] is None
    mine = [p for p in body["points"] if p["bot"] == v1]
    assert [p["position"] for p in mine] == [2, 4, 6, 8, 11] and [p["games"] for p in mine] == [1, 2, 3, 4, 4]
    assert mine[-1]["now"] is True and not any(p["now"] for p in mine[:-1])
    # The last point of each version is its row of the standings of every game.
    rows = {r.bot: r for r in compute_standings(records, sorted({s.name for g in records for s in g.seats})).rows}
    for name in (v1, v2):
        last = [p for p in body["points"] if p["bot"] == name][-1]
        assert (last["mu"], last["sigma"]) == (round(rows[name].mu, 3), round(rows[name].sigma, 3))
        assert (last["mu_low"], last["mu_high"]) == (round(rows[name].mu_low, 3), round(rows[name].mu_high, 3))
    assert ladder.request("GET", "/api/bots/one/history").json()["versions"][0]["version"] is None  # a house bot
    assert ladder.request("GET", "/api/bots/nobody/history").status_code == 404
    assert ladder.request("GET", "/api/bots/%3Cb%3E/history").json() == {"error": "no bot '<b>' on this ladder"}


def test_the_bot_page_draws_the_chart_as_inline_svg_with_the_points_as_a_table(ladder: Ladder) -> None:
    v1 = passed(ladder, "alice", "greedy")
    play(ladder.ladder.folder, [([v1, "one"], [1, 2], OLD.format(i)) for i in range(4)])
    passed(ladder, "alice", "greedy")
    page = ladder.request("GET", "/bots/greedy")
    assert page.status_code == 200
    svg = re.search(r"<svg .*?</svg>", page.text, re.S)
    assert svg is not None and 'role="img"' in svg.group() and "<polyline" in svg.group()
    assert "v1 joined" in svg.group() and "v1 retired" in svg.group()
    assert "style=" not in svg.group() and "<script" not in page.text.split("<svg")[1].split("</svg>")[0]
    table = page.text.split('id="history-table"')[1].split("</table>")[0]
    assert table.count("<tr>") == 1 + 4  # the head, then one row per game
    assert "default-src 'none'" in page.headers["content-security-policy"]  # no inline script or style
    assert "greedy.v1: joined" in page.text and "retired" in page.text
    empty = ladder.request("GET", "/bots/two")
    assert empty.status_code == 200 and 'id="no-history"' in empty.text and "<svg" not in empty.text


def test_hostile_names_are_escaped_in_the_chart_and_its_table() -> None:
    name = HOSTILE + "\u202e\x1b[31m"
    points = (
        HistoryPoint(name, 3, 1, 25.0, 8.0, "2026-01-01T00:00:00Z"),
        HistoryPoint(name, 9, 2, 27.5, 6.0, HOSTILE, now=True),
    )
    history = BotHistory(name, 9, (VersionMarks(name, 1, 0.0, 3, 1.0, 8, False),), points)
    svg = str(history_svg(history))
    assert "<script" not in svg and "<img" not in svg and "<!--" not in svg
    assert "\u202e" not in svg and "\x1b" not in svg and "\x00" not in svg
    assert "&lt;script&gt;" in svg and "\\u202e" in svg and "\\x1b" in svg
    rows = history_table(history)
    assert rows[0]["bot"] == name  # plain text: the template escapes it, and makes controls visible

    from arena.ladder.render import environment

    html = environment().from_string("{% for r in rows %}<td>{{ r.bot }}</td><td>{{ r.finished|when }}</td>{% endfor %}").render(rows=rows)
    assert "<script" not in html and "\u202e" not in html and "\x1b" not in html and "&lt;img" in html


def test_the_standings_show_each_bot_s_move_since_yesterday(ladder: Ladder) -> None:
    now = dt.datetime.now(dt.UTC)
    yesterday = now - dt.timedelta(hours=30)
    v1 = passed(ladder, "alice", "greedy")
    # Yesterday "one" beat "two" twice; since, "two" beat "one" four times and greedy.v1 came (and lost).
    early = [(["one", "two"], [1, 2], stamp(yesterday + dt.timedelta(minutes=i))) for i in range(2)]
    late = [(["two", "one"], [1, 2], stamp(now - dt.timedelta(minutes=10 - i))) for i in range(4)]
    records = play(ladder.ladder.folder, [*early, *late, ([v1, "one"], [2, 1], stamp(now - dt.timedelta(minutes=1)))])
    standings = compute_standings(records, ["one", "two", v1])
    rows = [{"bot": r.bot, "rank": r.rank, "mu": r.mu} for r in standings.rows]
    found = moves(HistoryCache(ladder.ladder.folder, ladder.ladder.league.rating), rows, now)
    then = {r.bot: r for r in compute_standings(records[:2], ["one", "two"]).rows}
    assert found[v1].new and found[v1].text() == "new"
    for bot in ("one", "two"):
        move, row = found[bot], next(r for r in standings.rows if r.bot == bot)
        assert move.rank_then == then[bot].rank and move.rank_change == then[bot].rank - row.rank
        assert move.mu_change == pytest.approx(row.mu - then[bot].mu, abs=1e-6)
    assert found["two"].rank_change == 1 and found["two"].text().startswith("\u25b21 (+")
    assert found["one"].text().startswith("\u25bc1 (-")
    assert Move(2, 25.0, 2, 25.0).text() == "= (+0.00)"
    # The standings page and its JSON carry them.
    (ladder.ladder.folder / "standings.json").write_text(
        __import__("json").dumps(standings.to_json())
    )
    api = ladder.request("GET", "/api/standings").json()
    by_bot = {r["bot"]: r for r in api["rows"]}
    assert by_bot[v1]["move"]["new"] is True and by_bot[v1]["shown"]["moved"] == "new"
    assert by_bot["two"]["move"]["rank_change"] == 1 and by_bot["two"]["shown"]["moved"].startswith("\u25b21")
    page = ladder.request("GET", "/").text
    assert "since yesterday" in page and 'data-moved="1"' in page and '<td class="moved">new</td>' in page


def test_the_standings_show_without_moves_while_the_league_s_store_cannot_be_read(ladder: Ladder) -> None:
    import json

    records = [fake_game("g000", ["one", "two"], [1, 2])]
    standings = compute_standings(records, ["one", "two"])
    (ladder.ladder.folder / "standings.json").write_text(json.dumps(standings.to_json()))
    (ladder.ladder.folder / "results.sqlite").write_bytes(b"not a database" * 100)
    page = ladder.request("GET", "/")
    assert page.status_code == 200 and '<td class="moved"></td>' in page.text
    api = ladder.request("GET", "/api/standings")
    assert api.status_code == 200 and [r["move"] for r in api.json()["rows"]] == [None, None]
    assert ladder.request("GET", "/api/bots/one/history").status_code == 503
