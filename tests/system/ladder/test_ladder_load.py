"""A bounded load test of ``arena serve`` on loopback: many readers of its pages (the standings,
a game's replay) and of its JSON API while its league plays.  Every answer is right and none is slow beyond a generous bound, and no
game played meanwhile was slowed past its clock (a bot forfeited on time).

The figures themselves (latency percentiles with and without games, CPU) are the bench's:
``bench/bench_ladder.py``, in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.game.record import FaultKind
from arena.ladder.results import open_results
from tests.support.ladder_helpers import Server, ladder_file, read_concurrently, standings_rows, wait_until

READERS = 16
LOAD_S = 10.0
SLOWEST_S = 5.0  # one answer, at most: generous, the machine is shared and noisy
MOVE = "1s"  # the games' clock: a reader that slowed a bot this much would show as a time fault


def _json(r: httpx.Response) -> Any:
    try:
        return json.loads(r.content)
    except ValueError:
        return None


def _html(r: httpx.Response, *holding: str) -> bool:
    text = r.text
    return (
        r.headers.get("content-type", "").startswith("text/html")
        and text.rstrip().endswith("</html>")
        and all(h in text for h in holding)
    )


def _standings(r: httpx.Response) -> bool:
    body = _json(r)
    return isinstance(body, dict) and body.get("name") == "served" and isinstance(body.get("rows"), list)


def _bots(r: httpx.Response) -> bool:
    body = _json(r)
    return isinstance(body, dict) and isinstance(body.get("bots"), list)


def _ladder(r: httpx.Response) -> bool:
    body = _json(r)
    return (
        isinstance(body, dict)
        and body.get("name") == "served"
        and body.get("paused") is False
        and isinstance(body.get("league"), dict)
        and body["league"].get("state") in {"playing", "idle"}
    )


def _health(r: httpx.Response) -> bool:
    body = _json(r)
    return isinstance(body, dict) and body.get("ok") is True and isinstance(body.get("games"), int)


def pages(game: str) -> dict[str, Callable[[httpx.Response], bool]]:
    """What a reader reads (the standings and a replay page, the JSON they and tools read),
    and what a right answer to each holds; ``game``: a finished game's id."""
    return {
        "/": lambda r: _html(r, "house-a", "house-b"),
        f"/games/{game}": lambda r: _html(r, game, "house-a"),
        "/api/standings": _standings,
        "/api/health": _health,
        "/api/bots": _bots,
        "/api/ladder": _ladder,
    }


@dataclass
class Answers:
    """What the readers saw: each answer's time, and every one that was wrong."""

    seconds: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


def _read(url: str, seconds: float, wanted: dict[str, Callable[[httpx.Response], bool]]) -> Answers:
    """``READERS`` readers reading the pages in turn for ``seconds``: what they saw."""
    answers = Answers()
    for r in read_concurrently(url, list(wanted), READERS, seconds):
        answers.seconds.append(r.seconds)
        if r.response is None:
            answers.wrong.append(f"{r.path}: {r.error}")
        elif r.response.status_code != 200 or not wanted[r.path](r.response):
            answers.wrong.append(f"{r.path}: {r.response.status_code} {r.response.text[:200]!r}")
    return answers


def _finished(results: Path) -> dict[str, list[FaultKind]]:
    """Every finished game's id, with the kinds of its faults ({} before the store exists)."""
    store = open_results(results)  # None while the league creates it, as the pages read it
    if store is None:
        return {}
    with store:
        return {g.game_id: [s.fault.kind for s in g.seats if s.fault is not None] for g in store.summaries()}


@pytest.mark.slow
def test_many_readers_while_the_league_plays_get_right_answers_in_time_and_slow_no_game(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    # Two random bots: their league is far from settled (and from its budget) for the whole test.
    # At 95% two equal bots may be ordered by chance (a run saw "ordered house-b > house-a"
    # after 88 games); at this confidence, not in the test's time.
    ladder = ladder_file(home, max_games=3000, move=MOVE, confidence=0.999999)
    results = home / "results"
    server = Server(ladder)
    servers.append(server)
    played = wait_until(lambda: _finished(results), lambda g: len(g) >= 3, 180)
    assert len(played) >= 3, "the league did not start playing"
    # The league writes its standings at most every few seconds: the readers start once the
    # table names both bots (until then the standings page rightly says there are none).
    both = wait_until(lambda: standings_rows(results), lambda rows: {"house-a", "house-b"} <= set(rows), 60)
    assert {"house-a", "house-b"} <= set(both), both

    answers = _read(server.url, LOAD_S, pages(min(played)))

    assert not answers.wrong, answers.wrong[:5]
    assert len(answers.seconds) > READERS  # each reader was answered, and more than once
    assert max(answers.seconds) < SLOWEST_S, sorted(answers.seconds)[-5:]
    after = _finished(results)
    during = {g: faults for g, faults in after.items() if g not in played}
    assert during, "no game finished while the readers read: the load test tested nothing"
    slowed = {g: faults for g, faults in during.items() if FaultKind.TIMEOUT in faults}
    assert not slowed, f"games whose bot lost on time while the readers read: {slowed}"
    league = httpx.get(f"{server.url}/api/ladder", timeout=60).json()["league"]
    assert league["state"] == "playing", league
    assert server.stop() == 0
