"""The HTML report and replay pages without a browser; info lines' plies; ``replay --step``.

The browser half (the pages really work, and draw what the engine says) is in
test_report_browser.py.

The cases that start processes; the others are in tests/unit/report/test_report.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import StoreError
from arena.game.record import GameRecord
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore
from arena.report import replay_page, report_page, tournament_report
from arena.report.summary import build_report_data
from arena.stats.settings import RatingConfig
from tests.support.records import HOSTILE, hostile

REPO = Path(__file__).resolve().parents[3]


class _Page(HTMLParser):
    """The parts of a page the tests look at: script elements and the text of the body."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._in_script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append((self._in_script, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.text.append(data)


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def embedded(html: str) -> dict[str, object]:
    page = parse(html)
    data = [text for attrs, text in page.scripts if attrs.get("id") == "arena-data"]
    assert len(data) == 1
    value: dict[str, object] = json.loads(data[0])
    return value


# -- info lines carry their ply ---------------------------------------------------------------


def test_info_lines_are_stamped_with_the_ply_their_bot_was_asked_to_move_at(record: GameRecord) -> None:
    greedy = record.seats[0]
    assert greedy.infos and len(greedy.info_plies) == len(greedy.infos)
    # greedy sends "info eval N" just before each sheep move: the ply it was asked for is its own
    for ply in greedy.info_plies:
        assert record.moves[ply].player == 0 and re.fullmatch(r"-?\d+,-?\d+\w\w?\d+", record.moves[ply].move)
    assert record.seats[1].infos == () and record.seats[1].info_plies == ()


def test_records_without_info_plies_still_load(record: GameRecord) -> None:
    d = record.to_dict()
    for seat in d["seats"]:
        del seat["info_plies"]
    for fmt in (1, 2):
        old = GameRecord.from_dict({**d, "format": fmt})
        assert old.seats[0].infos == record.seats[0].infos and old.seats[0].info_plies == ()
    assert GameRecord.from_json(record.to_json()) == record


# -- escaping ---------------------------------------------------------------------------------


def test_every_string_a_bot_controls_is_escaped_in_a_replay_page(record: GameRecord) -> None:
    bad = hostile(record)
    html = replay_page(bad)
    page = parse(html)
    # only the page's own two scripts: the data and the viewer
    assert [a.get("id") or a.get("type") for a, _ in page.scripts] == ["arena-data", None]
    assert "window.pwned" not in page.scripts[1][1] and "\x1b" not in html and "\x00" not in html
    # the data is the record's JSON, unchanged, so the viewer reads what 'arena replay' reads
    assert embedded(html)["games"] == [bad.to_dict()]


def test_every_string_a_bot_controls_is_escaped_in_a_report(record: GameRecord, tmp_path: Path) -> None:
    bad = hostile(record)
    bad = replace(bad, seats=tuple(replace(s, name=f"n{i}<marquee>") for i, s in enumerate(bad.seats)))
    data = build_report_data("t<blink>", [bad], [s.name for s in bad.seats], 3, {"seed": HOSTILE})
    html = report_page(data)
    page = parse(html)
    assert len(page.scripts) == 2 and "<marquee>" not in html and "<blink>" not in html
    text = "".join(page.text)
    assert "n1<marquee>" in text and "t<blink>" in text  # shown as text, escaped in the HTML
    assert "got '<script>window.pwned=1</script>" in text  # the fault detail, as text
    assert "\\x1b[2J\\x00" in text and "\\u202eevil" in text  # control characters made visible
    assert "\x1b" not in html and "\u202e" not in html


# -- what the report says ---------------------------------------------------------------------


def test_report_cells_keep_values_and_names_on_one_line(record: GameRecord, tmp_path: Path) -> None:
    names = [s.name for s in record.seats]
    with store_with(tmp_path, [record], 1) as store:
        page = report_page(tournament_report(store, names))
    css = re.sub(r"\s+", " ", page.split("<style>")[1].split("</style>")[0])
    assert "td.num, .in-seat { white-space: nowrap; }" in css  # numbers, and a seat's letter and name
    assert re.search(r"\.name \{[^}]*text-overflow: ellipsis; white-space: nowrap;", css)
    for name in names:  # standings, who beat whom (row and column) and the games table
        assert page.count(f'<span class="name" title="{name}">{name}</span>') >= 4, name
    scale = page.split('class="scale"')[1].split("</svg>")[0]
    assert len(re.findall(r'<text class="tick"[^>]*>-?[0-9.]+</text>', scale)) >= 3


def store_with(tmp_path: Path, records: list[GameRecord], total: int) -> ResultStore:
    store = ResultStore.create(tmp_path / "results")
    schedule = [ScheduledGame(i, f"g{i}", 1 + i // 2, ("a", "b"), i) for i in range(total)]
    store.set_schedule(schedule)
    store.set_meta(config={"name": "t", "seed": 9, "players": 2, "bots": []}, name="t")
    for game, rec in zip(schedule, records, strict=False):
        store.save_game(game, replace(rec, game_id=game.game_id))
    return store


def test_the_report_says_how_much_of_the_schedule_is_done_and_reloads_while_running(
    record: GameRecord, tmp_path: Path
) -> None:
    with store_with(tmp_path, [record, record], 5) as store:  # (the page reads the store)
        done = tournament_report(store, ["greedy", "greedy_2"])
        running = tournament_report(store, ["greedy", "greedy_2"], running=True)
        page, html = report_page(done), report_page(running)
    assert (done.done, done.total) == (2, 5) and [g.round for g in done.games] == [1, 1]
    text = " ".join("".join(parse(page).text).split())
    assert "2 of 5 games of the schedule played (3 to go)" in text and "reloads itself" not in text
    assert "<dt>seed</dt><dd>9</dd>" in page  # the settings
    assert "reloads itself" in html and embedded(html)["running"] is True


def test_the_report_shows_w_d_l_board_pairs_and_retired_bots_as_the_standings_do(
    record: GameRecord, tmp_path: Path
) -> None:
    names = [s.name for s in record.seats]
    swapped = replace(record, seats=record.seats[::-1], standings=record.standings)  # other seat order
    with store_with(tmp_path, [record, swapped, record], 3) as store:
        store.set_meta(retired=[names[1]])
        data = tournament_report(store, names)
        html = report_page(data)
    st = data.groups[0].standings
    assert [r.retired for r in st.rows if r.bot == names[1]] == [True]
    rows = {r.bot: r for r in st.rows}
    assert sum(r.wdl[0] for r in st.rows) == sum(r.wdl[2] for r in st.rows) > 0  # every win is a loss too
    page = parse(html)
    text = " ".join("".join(page.text).split())
    for row in rows.values():
        assert "-".join(map(str, row.wdl)) in text
        assert row.pentanomial is not None and " ".join(map(str, row.pentanomial)) in text
    assert f"{names[1]} (retired)" in text and f"{names[0]} (retired)" not in text
    assert "W-D-L" in text and "Ptnml(0-2)" in text


def test_the_report_marks_a_rank_with_a_question_mark_exactly_when_its_p_better_reads_below_clear(
    record: GameRecord, tmp_path: Path
) -> None:
    names = [s.name for s in record.seats]
    with store_with(tmp_path, [record, record], 2) as store:  # (the page reads the store)
        data = tournament_report(store, names)
        top = data.groups[0].standings.rows[0]
        for p, shown, mark in ((0.946, "0.94", "?"), (0.95, "0.95", "")):
            top.better_than_next = p  # (a figure from the fit; set here to sit by the line)
            cells = re.findall(r"<td[^>]*>(.*?)</td>", report_page(data).split('class="standings"')[1])
            assert cells[0] == f"1{mark}" and shown in cells[:8], (p, cells[:8])


def test_a_page_from_a_store_holds_the_games_of_its_table_even_as_the_league_runs_on(
    record: GameRecord, tmp_path: Path
) -> None:
    """The page reads the store twice (tables, then replays) and holds no game in between: a
    game finished between the two is left out of both, so each row opens its own replay."""
    schedule = [ScheduledGame(i, f"g{i}", 1, ("a", "b"), i) for i in range(3)]
    with store_with(tmp_path, [], 3) as store:
        for game in (schedule[0], schedule[2]):
            store.save_game(game, replace(record, game_id=game.game_id, seed=game.seed))
        data = tournament_report(store, ["a", "b"])
        store.save_game(schedule[1], replace(record, game_id="g1", seed=1))  # between the two
        html = report_page(data)
        again = report_page(data)  # a third pass gives the same games
        later = report_page(tournament_report(store, ["a", "b"]))
    games = embedded(html)["games"]
    assert [g.game_id for g in data.games] == ["g0", "g2"]
    assert isinstance(games, list) and [g["game_id"] for g in games] == ["g0", "g2"]
    assert games == [replace(record, game_id=i, seed=s).to_dict() for i, s in (("g0", 0), ("g2", 2))]
    assert again == html
    later_games = embedded(later)["games"]
    assert isinstance(later_games, list) and [g["game_id"] for g in later_games] == ["g0", "g1", "g2"]


def test_a_report_from_a_store_is_written_while_the_store_is_open(record: GameRecord, tmp_path: Path) -> None:
    with store_with(tmp_path, [record], 1) as store:
        data = tournament_report(store, ["a", "b"])
    with pytest.raises(StoreError, match="closed before its report's page was written"):
        report_page(data)


def test_arena_report_writes_the_page_beside_the_store(record: GameRecord, tmp_path: Path) -> None:
    store_with(tmp_path, [record], 1).close()
    result = CliRunner().invoke(main, ["report", str(tmp_path / "results")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "results" / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<title>t: tournament report</title>" in html
    assert "default-src 'none'" in html  # the page may make no request
    assert [g["game_id"] for g in embedded(html)["games"]] == ["g0"]  # type: ignore[index]


def test_a_run_writes_its_report_in_a_child_that_reads_the_store_beside_it(
    record: GameRecord, tmp_path: Path
) -> None:
    from arena.report.background import BackgroundReport

    folder = tmp_path / "results"
    with (
        store_with(tmp_path, [record], 3) as store,
        BackgroundReport(folder, ["greedy"], RatingConfig()) as bg,
    ):
        assert bg.start(running=True)
        assert bg.busy() and not bg.start(running=True)  # one page at a time (a child starts in ~0.2 s)
        bg.wait()
        first = (folder / "report.html").read_text()
        store.save_game(store.schedule()[1], replace(record, game_id="g1"))  # the run plays on
        bg.finish()
    assert embedded(first)["running"] is True and len(embedded(first)["games"]) == 1  # type: ignore[arg-type]
    last = (folder / "report.html").read_text()
    assert embedded(last)["running"] is False and len(embedded(last)["games"]) == 2  # type: ignore[arg-type]


def test_a_page_costs_what_its_child_took_not_the_wait_until_the_run_looked(
    record: GameRecord, tmp_path: Path
) -> None:
    import time

    from arena.report.background import BackgroundReport

    store_with(tmp_path, [record], 1).close()
    with BackgroundReport(tmp_path / "results", ["greedy"], RatingConfig()) as bg:
        began = time.monotonic()
        bg.start()
        assert bg._child is not None
        bg._child[0].wait()  # done, but the run has not looked yet
        time.sleep(2.0)
        assert not bg.busy()
        # The run spaces pages by this (20 times it): the two seconds asleep are not the page's.
        assert 0 < bg.cost < time.monotonic() - began - 1.5


def test_a_small_report_is_made_at_once_without_a_child(record: GameRecord, tmp_path: Path) -> None:
    from arena.report.background import BackgroundReport

    folder = tmp_path / "results"
    store_with(tmp_path, [record], 2).close()
    with BackgroundReport(folder, ["greedy"], RatingConfig()) as bg:
        assert bg.start(running=True, games=1)
        assert bg._child is None and not bg.busy()  # written already, in this process
        assert embedded((folder / "report.html").read_text())["running"] is True


def test_a_report_that_cannot_be_written_stops_the_run_with_the_reason(
    record: GameRecord, tmp_path: Path
) -> None:
    from arena.errors import ResultsWriteError
    from arena.report.background import BackgroundReport

    folder = tmp_path / "results"
    store_with(tmp_path, [record], 1).close()
    (folder / "report.html").mkdir()  # where the page goes, a folder: the write fails
    with BackgroundReport(folder, ["greedy"], RatingConfig()) as bg, pytest.raises(ResultsWriteError) as err:
        bg.finish()
    assert "report.html" in str(err.value) and "kept" in str(err.value)


def test_closing_abandons_a_page_being_made(record: GameRecord, tmp_path: Path) -> None:
    from arena.report.background import BackgroundReport

    store_with(tmp_path, [record], 1).close()
    bg = BackgroundReport(tmp_path / "results", ["greedy"], RatingConfig())
    bg.start()
    child = bg._child[0] if bg._child else None
    bg.close()
    assert child is not None and child.returncode is not None and not bg.busy()


def test_replay_html_writes_one_game(record: GameRecord, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    saved.write_text(record.to_json())
    out = tmp_path / "game.html"
    runner = CliRunner()
    result = runner.invoke(main, ["replay", str(saved), "--html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert embedded(out.read_text())["games"] == [record.to_dict()]
    wrong = runner.invoke(main, ["replay", str(saved), "-o", str(out)])
    assert wrong.exit_code == 2 and "--output is for --html" in wrong.output


# -- arena replay --step -------------------------------------------------------------------------


def shown_plies(output: str) -> list[int]:
    return [
        0 if line == "start" else int(line.split()[1][:-1])
        for line in output.splitlines()
        if line == "start" or line.startswith("ply ")
    ]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """CliRunner feeds the keys; --step otherwise refuses to run without a terminal."""
    monkeypatch.setattr("arena.cli.play_cmds._has_terminal", lambda: True)


def test_step_goes_forward_back_first_last_and_jumps(
    record: GameRecord, tmp_path: Path, terminal: None
) -> None:
    saved = tmp_path / "game.json"
    saved.write_text(record.to_json())
    last = len(record.moves)
    keys = "nnbGgj5\n" + "q"
    result = CliRunner().invoke(main, ["replay", str(saved), "--step", "--no-colour"], input=keys)
    assert result.exit_code == 0, result.output
    assert shown_plies(result.output) == [0, 1, 2, 1, last, 0, 5]
    assert "rank" not in result.output  # q stops before the result


def test_step_past_the_last_position_shows_the_result(
    record: GameRecord, tmp_path: Path, terminal: None
) -> None:
    saved = tmp_path / "game.json"
    saved.write_text(record.to_json())
    result = CliRunner().invoke(main, ["replay", str(saved), "--step", "--no-colour"], input="Gn")
    assert shown_plies(result.output) == [0, len(record.moves)]
    assert "rank" in result.output and "(last position)" in result.output


