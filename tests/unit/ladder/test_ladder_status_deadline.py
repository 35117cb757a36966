"""/api/ladder, the ladder's public summary, says the deadline in force (ISO 8601, UTC; null
without one) and whether submissions are closed, and why."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from arena.ladder.deadline import set_deadline
from tests.unit.ladder.test_ladder_api import Ladder


def test_the_ladder_summary_says_the_deadline_and_whether_submissions_are_closed(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)
    body = ladder.request("GET", "/api/ladder").json()
    assert (body["deadline"], body["submissions_closed"], body["closed_because"]) == (None, False, None)
    later = dt.datetime(2099, 6, 1, 20, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    set_deadline(ladder.store, later, by="org")
    body = ladder.request("GET", "/api/ladder").json()
    assert (body["deadline"], body["submissions_closed"]) == ("2099-06-01T18:00:00+00:00", False)
    set_deadline(ladder.store, dt.datetime(2020, 1, 1, tzinfo=dt.UTC), by="org")
    body = ladder.request("GET", "/api/ladder").json()
    assert body["deadline"] == "2020-01-01T00:00:00+00:00" and body["submissions_closed"] is True
    assert body["closed_because"] == "submissions are closed: the deadline (2020-01-01 00:00:00 UTC) has passed"
    assert ladder.request("POST", "/api/final", "org").status_code == 202
    assert ladder.request("GET", "/api/ladder").json()["closed_because"] == (
        "submissions are closed: the final tournament has started"
    )


def test_health_names_the_final_s_state(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)
    body = ladder.request("GET", "/api/health").json()
    assert body["final"]["state"] == "not asked" and body["ok"] is True
    page = ladder.request("GET", "/ladder").text
    assert 'id="final-state">not asked: the organiser has not started the final' in page
