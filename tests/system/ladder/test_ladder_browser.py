"""The ladder's pages in headless Chromium against a real ``arena serve``: an author signs in,
sends a bot's folder through the upload form, watches its check end on its page, sees it join
the live standings without reloading, and opens one of its games' replay.

Needs the Debian packages chromium and chromium-driver (the README's test command installs
them); skipped with the reason when they are missing.
"""

from __future__ import annotations

import signal
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.browser import chromium, severe_messages, unavailable
from tests.support.ladder_helpers import Server, add_author, bot_folder, ladder_file

pytestmark = [
    pytest.mark.skipif(unavailable() is not None, reason=f"no browser: {unavailable()}"),
]


def _wait(what: str, done: Callable[[], Any], seconds: float, every: float = 0.5) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = done()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(every)


def _pack(folder: Path, archive: Path) -> Path:
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return archive


@pytest.mark.slow
def test_an_author_sends_a_version_from_the_page_and_follows_it_into_the_live_standings(
    tmp_path: Path,
    marker: str,
    servers: list[Server],
) -> None:
    from selenium.webdriver.common.by import By

    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=200)
    token = add_author(ladder, "alice")
    server = Server(ladder)
    servers.append(server)
    url = server.url
    folder = bot_folder(home / "rnd")
    bot = folder / "random_bot.py"  # which writes a line on stderr at each turn
    logging = bot.read_text().replace(
        "def choose(turn: Turn) -> Move:\n",
        "def choose(turn: Turn) -> Move:\n"
        '    print(f"thinking at ply {turn.request.ply}", file=sys.stderr, flush=True)\n',
    )
    assert logging != bot.read_text()
    bot.write_text(logging)
    archive = _pack(folder, home / "rnd.tar.gz")

    with chromium() as d:
        d.get(f"{url}/login")
        d.find_element(By.ID, "token").send_keys(token)
        d.find_element(By.CSS_SELECTOR, "#login-form button").click()
        _wait("the upload form", lambda: d.current_url.endswith("/submit"), 30)
        assert d.find_element(By.ID, "signed-in").text == "alice"
        d.find_element(By.ID, "archive").send_keys(str(archive))
        d.find_element(By.ID, "name").send_keys("rnd")
        d.find_element(By.ID, "command").send_keys("python3 random_bot.py")
        d.find_element(By.CSS_SELECTOR, "#submit-form button").click()
        sent = _wait("the answer page", lambda: d.find_elements(By.ID, "sent"), 60)
        assert "rnd" in sent[0].text and "version 1" in sent[0].text
        assert "rnd" in d.find_element(By.ID, "my-bots").text  # listed among the author's bots
        d.find_element(By.ID, "sent-link").click()
        assert d.current_url.endswith("/bots/rnd/v1")

        # The version's page reloads itself as its check goes on, and shows the verdict.
        _wait("the verdict", lambda: d.find_element(By.ID, "state").text.startswith("passed"), 600, every=1)
        assert "PASS" in d.find_element(By.CSS_SELECTOR, "table.checks").text
        d.get(f"{url}/bots")
        assert "rnd" in d.find_element(By.ID, "submitted-bots").text

        # The standings follow the league without a reload: the version joins them, and the
        # games count goes on (the league has a budget of 200 games per roster).
        _wait("standings", lambda: httpx.get(f"{url}/api/standings", timeout=30).json()["signature"], 300)
        d.get(f"{url}/")
        d.execute_script("window.arenaSamePage = true;")
        table = d.find_element(By.ID, "standings")
        played = d.find_element(By.ID, "standings-games").text
        _wait("rnd.v1 in the live standings", lambda: "rnd.v1" in table.text, 300, every=1)
        _wait("more games", lambda: d.find_element(By.ID, "standings-games").text != played, 300, every=1)
        assert d.execute_script("return window.arenaSamePage === true;"), "the page was reloaded"
        assert severe_messages(d) == []

        # One of its games, in the report's replay viewer.
        _wait(
            "a game of rnd.v1",
            lambda: httpx.get(f"{url}/games?bot=rnd", timeout=30).text.count("data-game=") > 0,
            300,
        )
        d.get(f"{url}/games?bot=rnd")
        d.find_element(By.CSS_SELECTOR, "#games-table td.game-id a").click()
        _wait("the viewer", lambda: d.execute_script("return document.body.dataset.ready") == "1", 30)
        assert "rnd.v1" in d.find_element(By.ID, "game-seats").text
        assert d.execute_script("return document.getElementById('v-board').childElementCount") > 0
        d.find_element(By.ID, "v-last").click()
        assert d.find_element(By.ID, "v-ply").get_attribute("value") != "0"
        assert severe_messages(d) == []

        # Its author steps through the turns and reads, beside the board, what it wrote on
        # stderr while choosing each of its moves.
        d.find_element(By.ID, "v-first").click()
        plies = int(d.find_element(By.ID, "v-plies").text)
        shown = []
        for _ in range(plies):
            d.find_element(By.ID, "v-next").click()
            ply = int(d.find_element(By.ID, "v-ply").get_attribute("value"))
            shown += [(ply, p.text) for p in d.find_elements(By.CSS_SELECTOR, "#v-infos pre.turn-stderr")]
        assert shown and all(text == f"thinking at ply {ply - 1}" for ply, text in shown), shown

    assert server.stop(signal.SIGTERM) == 0
