"""The contest's doors in process: after the deadline the API and the upload form refuse a
version saying so; only an organiser sets the deadline or starts the final, and a bad
deadline is refused naming what is wrong; /final and /api/final show the deadline and the
final's state, names escaped."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from arena.ladder.deadline import set_deadline
from tests.unit.ladder.test_ladder_api import Ladder, bot_archive
from tests.unit.ladder.test_ladder_sessions import Browser

PAST = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


def test_after_the_deadline_the_api_refuses_a_version_saying_when_it_closed(ladder: Ladder) -> None:
    assert ladder.submit("alice", bot_archive()).status_code == 202
    set_deadline(ladder.store, PAST, by="org")
    r = ladder.submit("alice", bot_archive())
    assert r.status_code == 403
    assert r.json()["error"] == "submissions are closed: the deadline (2020-01-01 00:00:00 UTC) has passed"
    assert ladder.submit("org", bot_archive(), name="house2").status_code == 403  # organisers too


def test_after_the_deadline_the_upload_form_shows_the_refusal(ladder: Ladder) -> None:
    browser = Browser(ladder)
    browser.login("alice")
    csrf = browser.csrf("/submit")
    set_deadline(ladder.store, PAST, by="org")
    r = browser.upload(csrf)
    assert r.status_code == 403 and "the deadline (2020-01-01 00:00:00 UTC) has passed" in r.text
    assert "text/html" in r.headers["content-type"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"deadline": "soon"}, "deadline: 'soon' is not a time"),
        ({"deadline": "2026-12-20T18:00"}, "names no time zone"),
        ({"deadline": 5}, "must be a time like"),
        ({"when": "2026-12-20T18:00Z"}, 'the body must be {"deadline": TIME}'),
    ],
)
def test_a_bad_deadline_is_refused_saying_what_is_wrong(ladder: Ladder, body: object, needle: str) -> None:
    r = ladder.request("POST", "/api/deadline", "org", json=body)
    assert r.status_code == 400 and needle in r.json()["error"], r.text


def test_only_an_organiser_sets_the_deadline_or_starts_the_final(ladder: Ladder) -> None:
    for url, body in (("/api/deadline", {"deadline": None}), ("/api/final", None)):
        assert ladder.request("POST", url, "alice", json=body).status_code == 403
        assert ladder.request("POST", url, None, json=body).status_code == 401
    r = ladder.request("POST", "/api/deadline", "org", json={"deadline": "2026-12-20T19:00:00+01:00"})
    assert r.status_code == 200 and r.json()["deadline"] == "2026-12-20T18:00:00+00:00"
    started = ladder.request("POST", "/api/final", "org")
    assert started.status_code == 202 and started.json()["asked"] is True
    assert started.json()["submissions"] == "submissions are closed: the final tournament has started"
    assert ladder.request("POST", "/api/final", "org").json()["asked"] is False  # once
    r = ladder.submit("bob", bot_archive())
    assert r.status_code == 403 and r.json()["error"] == "submissions are closed: the final tournament has started"
    actions = {(a["author"], a["action"]) for a in ladder.request("GET", "/api/log", "org").json()["actions"]}
    assert {("org", "deadline"), ("org", "final-asked")} <= actions


def test_the_final_page_shows_the_deadline_and_the_report_is_for_organisers(ladder: Ladder) -> None:
    page = ladder.request("GET", "/final")
    assert page.status_code == 200 and 'id="deadline">none<' in page.text and "not asked" in page.text
    set_deadline(ladder.store, PAST, by="org")
    assert "2020-01-01 00:00:00 UTC" in ladder.request("GET", "/final").text
    state = ladder.request("GET", "/api/final").json()
    assert state["deadline"] == "2020-01-01T00:00:00+00:00" and state["games_total"] == 0 and state["entries"] == []
    assert "submissions are closed: the deadline (2020-01-01 00:00:00 UTC) has passed" in ladder.request("GET", "/ladder").text
    assert ladder.request("GET", "/final/report.html", "alice").status_code == 403
    assert ladder.request("GET", "/final/report.html", "org").status_code == 404  # none yet


def test_the_final_page_shows_the_field_its_standings_and_crosstable(ladder: Ladder) -> None:
    import json

    from arena.ladder.final import ENTRIES_KEY, FinalEntry
    from arena.ladder.folders import final_folder

    entries = [
        FinalEntry("bob", "bee", 2, 7, 1, 1, ("python3", "bot.py")),
        FinalEntry("alice", "ant", 1, 3, 2, None, ("python3", "bot.py")),
    ]
    ladder.store.keep(ENTRIES_KEY, json.dumps([{**e.__dict__, "command": list(e.command)} for e in entries]))
    folder = final_folder(ladder.ladder.folder)
    folder.mkdir()
    cell = {"games": 4, "points": 3.0, "wdl": [3, 0, 1]}
    rows = [
        {"rank": 1, "bot": "alice", "mu": 27.0, "sigma": 1.0, "games": 4, "wdl": [3, 0, 1], "points": 0.75},
        {"rank": 2, "bot": "bob", "mu": 23.0, "sigma": 1.0, "games": 4, "wdl": [1, 0, 3], "points": 0.25},
    ]
    crosstable = {"alice": {"bob": cell}, "bob": {"alice": {"games": 4, "points": 1.0, "wdl": [1, 0, 3]}}}
    (folder / "standings.json").write_text(json.dumps({"games": 4, "players": 2, "rows": rows, "crosstable": crosstable}))
    page = ladder.request("GET", "/final").text
    assert "alice (ant.v1)" in page and "bob (bee.v2)" in page and 'href="/bots/bee/v2"' in page
    assert page.index("alice (ant.v1)") < page.index("bob (bee.v2)")  # in the final's order, not the seeds'
    assert "<td class=\"num\">3/4</td>" in page and "<td class=\"num\">1/4</td>" in page
    state = ladder.request("GET", "/api/final").json()
    assert [(r["author"], r["bot"], r["version"], r["points"]) for r in state["standings"]] == [
        ("alice", "ant", 1, 0.75),
        ("bob", "bee", 2, 0.25),
    ]
    assert [(e["seed"], e["author"], e["ladder_rank"]) for e in state["entries"]] == [(1, "bob", 1), (2, "alice", None)]


def test_the_final_page_and_api_escape_every_name_an_author_controls(ladder: Ladder) -> None:
    import json

    from arena.ladder.final import ENTRIES_KEY, FinalEntry
    from arena.ladder.folders import final_folder
    from tests.support.untrusted_output import HOSTILE

    names = [n for n in HOSTILE if "\ud800" not in n]  # names are stored as UTF-8 text
    entries = [FinalEntry(n, n, 1, i + 1, i + 1, None, ("python3", n)) for i, n in enumerate(names)]
    ladder.store.keep(ENTRIES_KEY, json.dumps([{**e.__dict__, "command": list(e.command)} for e in entries]))
    folder = final_folder(ladder.ladder.folder)
    folder.mkdir()
    rows = [
        {"rank": i + 1, "bot": n, "mu": 25.0, "sigma": 1.0, "games": 1, "wdl": [1, 0, 0], "points": 1.0}
        for i, n in enumerate(names)
    ]
    cell = {"games": 1, "points": 1.0, "wdl": [1, 0, 0]}
    crosstable = {a: {b: cell for b in names if b != a} for a in names}
    (folder / "standings.json").write_text(json.dumps({"games": 1, "players": 2, "rows": rows, "crosstable": crosstable}))
    page = ladder.request("GET", "/final").text
    for raw in ("<script>alert(1)</script>", "<img src=x", "\u202e", "\x1b", "\x00", "\x07", "\x9b"):
        assert raw not in page, repr(raw)
    assert "&lt;script&gt;" in page  # shown, as text
    state = ladder.request("GET", "/api/final")
    assert state.headers["content-type"].startswith("application/json")
    assert {e["author"] for e in state.json()["entries"]} == set(names)  # JSON carries them as data
