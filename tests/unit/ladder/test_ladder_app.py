"""The ladder's application as a server runs it: its real startup and shutdown (the lifespan),
one routing table, and one refusal answered as JSON under /api/ and as a page elsewhere."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from starlette.routing import Route

from arena.ladder.app import make_app
from tests.support.ladder_helpers import running
from tests.unit.ladder.test_ladder_api import Ladder


def test_an_app_whose_queue_was_not_started_starts_and_stops_cleanly(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)

    async def go() -> None:
        # Its shutdown stopped a check queue it had never started, and raised RuntimeError.
        async with running(ladder.app) as client:
            assert (await client.get("/api/ladder")).json()["league"]["state"] == "stopped"
        async with running(make_app(ladder.ladder, ladder.store, start_queue=False)):
            pass  # a second app over the same store: the first left nothing running

    asyncio.run(go())


def test_a_refusal_is_json_under_api_and_a_page_elsewhere(tmp_path: Path) -> None:
    async def go() -> list[httpx.Response]:
        async with running(Ladder(tmp_path).app) as client:
            return [
                await client.get("/api/submissions/7"),
                await client.get("/bots/nobody"),
                await client.get("/games?page=0"),
                await client.post("/api/ladder/pause"),
            ]

    api, page, bad, denied = asyncio.run(go())
    assert api.status_code == 404 and api.json() == {"error": "no submission '7'"}
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "no bot &#39;nobody&#39; on this ladder" in page.text and "<h1>Not found</h1>" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]  # a page's own headers
    assert bad.status_code == 400 and "<h1>Bad request</h1>" in bad.text
    assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"


def test_one_routing_table_holds_every_path_once(tmp_path: Path) -> None:
    app = Ladder(tmp_path).app
    paths = [(r.path, tuple(sorted(r.methods or ()))) for r in app.routes if isinstance(r, Route)]
    assert len(paths) == len(set(paths))
    assert ("/api/bots", ("POST",)) in paths and ("/submit", ("POST",)) in paths and ("/", ("GET", "HEAD")) in paths


def test_the_server_serves_fewer_connections_than_it_has_open_files() -> None:
    from arena.ladder.serving import GuardedH11Protocol, connections_limit, server_config

    assert [connections_limit(n) for n in (1024, 512, 60)] == [500, 412, 16]  # 16: the least, whatever
    config = server_config(Ladder.__name__, open_files=1024)  # the app is not looked at until it serves
    assert config.http is GuardedH11Protocol and config.timeout_keep_alive == 5
    assert config.limit_concurrency == 500
