"""The report of a real small league in headless Chromium: offline, no script error, and the
replay viewer draws, ply by ply, the position the rules engine computes.

Needs the Debian packages chromium and chromium-driver (the README's test command
installs them); skipped with the reason when they are missing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.store import ResultStore
from arena.report import replay_page
from arena.rules import Board, format_board_file, random_board
from arena.untrusted import printable
from tests.support.browser import (
    chromium,
    open_page,
    requests_made,
    screenshots,
    severe_messages,
    unavailable,
)
from tests.support.records import HOSTILE, hostile

pytestmark = [
    pytest.mark.skipif(unavailable() is not None, reason=f"no browser: {unavailable()}"),
]

REPO = Path(__file__).resolve().parents[3]

LEAGUES = {
    # the bots build the pasture; greedy sends an info line with each sheep move
    "2p-build": ("players: 2\nboard: build\n", ["greedy", "rnd", "rnd2"]),
    # a board file with daisies (random boards have none)
    "4p": ("players: 4\nboard: daisies.board\n", ["greedy", "rnd", "rnd2", "rnd3"]),
}


def run_league(folder: Path, name: str) -> Path:
    head, bots = LEAGUES[name]
    greedy = REPO / "sample_bots" / "c" / "greedy"
    entries = "".join(
        f"  - name: {b}\n    command: [{greedy}{'' if b == 'greedy' else ', --random'}]\n" for b in bots
    )
    board = random_board(4, 16)
    daisies = {h: 1 + i % 3 if i % 5 == 0 else 0 for i, h in enumerate(board.coords)}
    (folder / "daisies.board").write_text(format_board_file(Board(daisies)))
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\nseed: 3\nrounds: 1\n{head}time_control: {{move: 1s, startup: 5s}}\n"
        f"concurrency: 2\nend_grace: 200ms\noutput: {name}\nbots:\n{entries}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena", "run", "-q", str(path)], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / name


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The results folders of a 2-player league on a built pasture and of a 4-player league."""
    folder = tmp_path_factory.mktemp("leagues")
    return {name: run_league(folder, name) for name in LEAGUES}


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as driver:
        yield driver


def records(results: Path) -> list[GameRecord]:
    with ResultStore.open(results) as store:
        return list(store.records())


def longest(results: Path, bot: str | None = None) -> GameRecord:
    """The league's longest game (of those ``bot`` played in, if given).

    Which game is longest changes from run to run: each run draws the secret of its
    seats' private seeds, so the random bots play other moves."""
    games = [r for r in records(results) if bot is None or bot in {s.name for s in r.seats}]
    return max(games, key=lambda r: (len(r.moves), r.game_id))


def press(driver: Any, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


Drawing = tuple[set[tuple[int, int]], dict[tuple[int, int], tuple[int, int]], dict[tuple[int, int], int]]


def drawn(driver: Any) -> Drawing:
    """The pasture hexes, the stacks (hex -> player, sheep) and the daisies the board shows now."""

    def hexes(text: str) -> tuple[int, int]:
        q, r = text.split(",")
        return int(q), int(r)

    found = driver.execute_script(
        """
        var svg = document.getElementById("v-board");
        return [
          Array.from(svg.querySelectorAll("polygon.hex")).map(function (p) { return p.dataset.hex; }),
          Array.from(svg.querySelectorAll("g.stack")).map(function (g) {
            return [g.dataset.hex, "abcd".indexOf(g.dataset.player), +g.dataset.sheep];
          }),
          Array.from(svg.querySelectorAll("g.daisy")).map(function (g) {
            return [g.dataset.hex, +g.dataset.daisies];
          })
        ];"""
    )
    return (
        {hexes(h) for h in found[0]},
        {hexes(h): (p, n) for h, p, n in found[1]},
        {hexes(h): d for h, d in found[2]},
    )


def engine(record: GameRecord, ply: int) -> Drawing:
    """What the rules engine says the board is after ``ply`` moves of ``record``."""
    state = list(record.positions())[ply][1]
    return set(state.board.coords), state.stacks(), {h: d for h, d in state.board.daisy_map().items() if d}


def shown_ply(driver: Any) -> int:
    return int(driver.find_element("id", "viewer").get_attribute("data-ply"))


def test_the_report_is_offline_and_has_no_script_error(browser: Any, leagues: dict[str, Path]) -> None:
    from selenium.webdriver.common.by import By

    page = leagues["4p"] / "report.html"
    open_page(browser, page)
    assert requests_made(browser) == [page.resolve().as_uri()]  # the page itself, nothing else
    assert severe_messages(browser) == []
    rows = browser.find_elements(By.CSS_SELECTOR, "table.standings tbody td.bot")
    assert len(rows) == 4 and rows[0].text == "greedy"  # the bot with a lookahead beats random moves
    assert "4 of 4 games" in browser.find_element(By.ID, "status").text


@pytest.mark.parametrize("league", list(LEAGUES))
def test_stepping_with_the_keyboard_draws_the_engines_position(
    browser: Any, leagues: dict[str, Path], league: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    record = longest(leagues[league])
    open_page(browser, leagues[league] / "report.html")
    browser.find_element(By.CSS_SELECTOR, f'tr[data-game="{record.game_id}"] a').click()
    assert browser.find_element(By.ID, "viewer").is_displayed()
    assert not browser.find_element(By.ID, "games").is_displayed()
    last = len(record.moves)
    press(browser, Keys.END)
    assert shown_ply(browser) == last and drawn(browser) == engine(record, last)
    press(browser, Keys.HOME)
    assert shown_ply(browser) == 0 and drawn(browser) == engine(record, 0)
    # in a built pasture, ply 5 is halfway through the tiles; in the 4-player game, 14 is past the herds
    n = 5 if league == "2p-build" else min(14, last)
    press(browser, *[Keys.ARROW_RIGHT] * (n + 1), Keys.ARROW_LEFT)
    assert shown_ply(browser) == n
    hexes, _stacks, daisies = now = drawn(browser)
    assert now == engine(record, n)
    if league == "2p-build":
        assert hexes != engine(record, last)[0]  # the pasture is still being laid
    else:
        assert daisies and hexes == engine(record, last)[0]
    move = record.moves[n - 1]
    assert browser.find_element(By.ID, "v-token").text == move.move
    assert severe_messages(browser) == []


def test_space_plays_and_pauses_at_the_chosen_speed(browser: Any, leagues: dict[str, Path]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    record = longest(leagues["4p"])
    open_page(browser, leagues["4p"] / "report.html", f"#game={record.game_id}&ply=2")
    Select(browser.find_element(By.ID, "v-speed")).select_by_value("8")
    browser.find_element(By.TAG_NAME, "body").click()  # the keys go to the page, not the select
    press(browser, " ")
    deadline = time.monotonic() + 5
    while shown_ply(browser) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    press(browser, " ")
    paused_at = shown_ply(browser)
    time.sleep(0.4)  # three moves' time at 8 moves/s
    assert 6 <= paused_at == shown_ply(browser) < len(record.moves)
    assert drawn(browser) == engine(record, paused_at)


def test_a_seats_info_lines_show_at_the_ply_of_its_move(browser: Any, leagues: dict[str, Path]) -> None:
    from selenium.webdriver.common.by import By

    record = longest(leagues["2p-build"], bot="greedy")  # greedy is the bot that sends info lines
    seat = next(i for i, s in enumerate(record.seats) if s.name == "greedy")
    info, asked_at = record.seats[seat].infos[2], record.seats[seat].info_plies[2]
    open_page(browser, leagues["2p-build"] / "report.html", f"#game={record.game_id}&ply={asked_at + 1}")
    assert record.moves[asked_at].player == seat
    boxes = browser.find_elements(By.CSS_SELECTOR, "#v-infos .info")
    assert [b.get_attribute("data-seat") for b in boxes] == ["ab"[seat]]
    assert info in boxes[0].text.splitlines()
    open_page(browser, leagues["2p-build"] / "report.html", f"#game={record.game_id}&ply={asked_at}")
    assert info not in browser.find_element(By.ID, "v-infos").text


def test_stepping_through_turns_shows_each_bots_stderr_beside_the_board(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    none = SandboxPolicy(mode="none")
    specs = [
        BotSpec("logger", (sys.executable, str(REPO / "tests" / "bots" / "logs_each_turn.py")), cwd=REPO, sandbox=none),
        BotSpec("random", (sys.executable, str(REPO / "sample_bots" / "random_bot.py")), cwd=REPO, sandbox=none),
    ]
    setup = GameSetup(game_id="logs", seed=7, board=random_board(7, 8), seed_secret="7e57" * 8)
    record = play_game(setup, specs)
    page = tmp_path / "logs.html"
    page.write_text(replay_page(record))
    open_page(browser, page)
    assert "started" in browser.find_element(By.CSS_SELECTOR, '#v-infos .info[data-seat="a"] pre.turn-stderr').text
    third = [k for k, m in enumerate(record.moves) if m.player == 0][2]  # its third request's ply
    press(browser, *[Keys.ARROW_RIGHT] * (third + 1))
    assert shown_ply(browser) == third + 1 and drawn(browser) == engine(record, third + 1)
    boxes = browser.find_elements(By.CSS_SELECTOR, "#v-infos .info")
    assert [b.get_attribute("data-seat") for b in boxes] == ["a"]  # the mover's lines, beside the board
    shown = boxes[0].find_element(By.CSS_SELECTOR, "pre.turn-stderr").text.splitlines()
    assert shown == [f"thinking at ply {third}", f"in two pieces at {third}"]
    assert f"info at {third}" in boxes[0].find_element(By.CSS_SELECTOR, "ul.infos").text
    press(browser, Keys.ARROW_RIGHT)  # the other bot's move: it wrote nothing
    assert browser.find_elements(By.CSS_SELECTOR, "#v-infos .info") == []
    assert severe_messages(browser) == []


def test_the_games_table_filters_and_sorts(browser: Any, leagues: dict[str, Path]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    games = records(leagues["2p-build"])
    open_page(browser, leagues["2p-build"] / "report.html")
    Select(browser.find_element(By.ID, "filter-bot")).select_by_visible_text("rnd2")
    with_rnd2 = [r.game_id for r in games if "rnd2" in (s.name for s in r.seats)]
    visible = [
        r.get_attribute("data-game")
        for r in browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
        if r.is_displayed()
    ]
    assert sorted(visible) == sorted(with_rnd2) and len(with_rnd2) < len(games)
    assert browser.find_element(By.ID, "games-shown").text == str(len(with_rnd2))
    Select(browser.find_element(By.ID, "filter-bot")).select_by_index(0)
    browser.find_element(By.XPATH, "//table[@id='games-table']//th[text()='moves']").click()
    order = [
        r.get_attribute("data-game") for r in browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    ]
    by_moves = {r.game_id: len(r.moves) for r in games}
    assert [by_moves[g] for g in order] == sorted(by_moves.values())


def test_text_a_bot_controls_stays_text_in_the_browser(
    browser: Any, leagues: dict[str, Path], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    record = hostile(longest(leagues["2p-build"]))
    page = tmp_path / "hostile.html"
    page.write_text(replay_page(record))
    open_page(browser, page)
    assert browser.execute_script("return window.pwned") is None
    assert severe_messages(browser) == [] and requests_made(browser) == [page.as_uri()]
    stderr = browser.find_element(By.CSS_SELECTOR, "#v-stderr pre").get_attribute("textContent")
    assert stderr == printable(HOSTILE) + "\nsecond line"  # made visible as the terminal shows it
    browser.find_element(By.ID, "v-next").click()
    assert "<script>window.pwned=1</script>" in browser.find_element(By.ID, "v-infos").text
    turn = browser.find_element(By.CSS_SELECTOR, "#v-infos pre.turn-stderr").get_attribute("textContent")
    assert turn == printable(HOSTILE) + "\nturn line"  # each line made visible, as in the terminal
    assert "1234 more bytes on stderr this turn" in browser.find_element(By.ID, "v-infos").text
    assert "<img src=x" in browser.find_element(By.ID, "v-ranking").text  # the fault detail


def test_screenshots_for_the_readme(browser: Any, leagues: dict[str, Path], tmp_path: Path) -> None:
    record = longest(leagues["4p"])
    shots = screenshots(browser, leagues["4p"] / "report.html", record.game_id, 12, tmp_path)
    for shot in shots:
        data = shot.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000
