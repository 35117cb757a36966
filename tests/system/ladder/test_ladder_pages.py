"""The ladder's web pages over httpx's ASGI transport, on the results of a real small league:
every page renders, hostile text is escaped, private logs reach their author only, forms
need their CSRF token, the upload form takes the API's path, the games' filters work.

The browser half (sign in, upload, the live standings, a replay) is in test_ladder_browser.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.game.record import FaultKind
from arena.ladder import pages, session
from arena.ladder.app import make_app
from arena.ladder.roster import league_name
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State
from arena.league.continuous import stored_pairs
from arena.league.game_filter import GameFilter
from arena.league.store import ResultStore

REPO = Path(__file__).resolve().parents[3]
HOSTILE = "<script>window.pwned=1</script><img src=x onerror=alert(2)>\x1b[2J\u202e"
RANDOM = f"{sys.executable} -m arena.builtin_bots random"
FORFEIT = f"{sys.executable} -m arena.builtin_bots forfeit"
# A bot that says its author's secret on stderr and in info lines, with a script tag.
SECRET_BOT = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
from arena.botkit import run_bot

def choose(turn):
    print(sys.argv[1] + "-stderr <script>window.pwned=3</script>", file=sys.stderr, flush=True)
    turn.log(sys.argv[1] + "-info <b>bold</b>")
    return turn.rng.choice(turn.state.legal_moves())

run_bot("secret", choose)
"""
HOUSE = f"""\
  - {{name: house-rnd, command: {RANDOM}}}
  - {{name: house-forfeit, command: {FORFEIT}}}
"""
LEAGUE = """\
name: pages
seed: 7
players: 2
format: continuous
max_games: 12
time_control: {move: 1s, startup: 20s}
concurrency: 2
output: results
bots:
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of 12 real games: two house bots and two 'versions' whose bots write
    their author's secret on stderr (one meeting each of the 6 pairs)."""
    folder = tmp_path_factory.mktemp("league")
    folder.chmod(0o755)  # run as root, the sandbox gives each bot a user of its own
    (folder / "secret_bot.py").write_text(SECRET_BOT)
    (folder / "secret_bot.py").chmod(0o644)
    versions = "".join(
        f"  - {{name: {name}, command: [{sys.executable}, secret_bot.py, {secret}]}}\n"
        for name, secret in (("alicebot.v1", "alice-secret"), ("bobbot.v1", "bob-secret"))
    )
    (folder / "league.yaml").write_text(LEAGUE + HOUSE + versions)
    done = subprocess.run(
        [sys.executable, "-m", "arena", "run", "-q", str(folder / "league.yaml")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "results"


def _report(detail: str, evidence: str | None = None) -> dict[str, Any]:
    failure = None
    if evidence is not None:
        failure = {
            "check": "legal-moves",
            "reason": detail,
            "game": "conf-g003",
            "transcript": [f"> turn ply=4 {evidence}-transcript"],
            "replay": f"arena play --seed 4 {evidence}-replay",
            "evidence": [f"its stderr: {evidence}-evidence {HOSTILE}"],
        }
    return {
        "passed": evidence is None,
        "inconclusive": False,
        "checks": [
            {
                "name": "handshake",
                "status": "pass",
                "detail": f"hello and ready in 24 games {HOSTILE}",
                "games": 24,
            },
            {
                "name": "legal-moves",
                "status": "pass" if evidence is None else "fail",
                "detail": detail,
                "games": 3,
            },
        ],
        "first_failure": failure,
        "strength": None,
    }


class Site:
    """The ladder's app over a copy of the played results, with alice's and bob's versions, an
    organiser, a banned eve, and one browser's cookies per instance of :class:`Client`."""

    def __init__(self, tmp_path: Path, played: Path, submit: str = "authors") -> None:
        shutil.copytree(played, tmp_path / "results")
        (tmp_path / "ladder.yaml").write_text(LEAGUE + HOUSE + f"ladder: {{submit: {submit}}}\n")
        self.ladder = load_ladder(tmp_path / "ladder.yaml")
        self.results = self.ladder.folder
        self.store = LadderStore.open(self.results)
        self.tokens = {n: self.store.add_author(n, admin=n == "org") for n in ("alice", "bob", "eve", "org")}
        self.store.set_banned("eve", True, by="org")
        authors = {a.name: a for a in self.store.authors()}
        archive = ("bot.tar.gz", 100, "0" * 64)
        a1 = self.store.add_submission(authors["alice"], "alicebot", ["python3", "bot.py"], ["make"], archive)
        self.store.set_state(
            a1.id, State.PASSED, "passed the check", _report("no illegal move"), "alice-build-ok"
        )
        a2 = self.store.add_submission(authors["alice"], "alicebot", ["python3", "bot.py"], ["make"], archive)
        self.store.set_state(
            a2.id, State.FAILED, f"legal-moves: fail: {HOSTILE}", _report(f"illegal {HOSTILE}", "alice"),
            f"alice-build-log {HOSTILE}",
        )  # fmt: skip
        b1 = self.store.add_submission(authors["bob"], "bobbot", ["./bob"], None, archive)
        self.store.set_state(b1.id, State.PASSED, "passed the check", _report("no illegal move"))
        b2 = self.store.add_submission(authors["bob"], "bobbot", ["./bob"], None, archive)
        self.store.set_state(b2.id, State.UNPACKED)
        self.app = make_app(self.ladder, self.store, start_queue=False)

    def client(self) -> Client:
        return Client(self)

    def signed_in(self, who: str) -> Client:
        c = Client(self)
        r = c.login(self.tokens[who])
        assert r.status_code == 303 and r.headers["location"] == "/submit", r.text
        return c

    def games(self) -> list[Any]:
        with ResultStore.open(self.results) as store:
            return list(store.summaries())


class Client:
    """One browser: its cookies kept from answer to answer."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.site.app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://ladder.test", cookies=self.cookies
            ) as c:
                r = await c.request(method, url, **kw)
                self.cookies = c.cookies
                return r

        return asyncio.run(go())

    def get(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("GET", url, **kw)

    def csrf(self, url: str = "/login") -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]{64})"', self.get(url).text)
        assert found, url
        return found.group(1)

    def login(self, token: str, csrf: str | None = "fetch") -> httpx.Response:
        data = {"token": token}
        if csrf is not None:
            data["csrf"] = self.csrf() if csrf == "fetch" else csrf
        return self.request("POST", "/login", data=data)

    def upload(
        self, archive: bytes, name: str = "newbot", csrf: str | None = "fetch", **fields: str
    ) -> httpx.Response:
        data = {"name": name, "command": "python3 bot.py", **fields}
        if csrf is not None:
            data["csrf"] = self.csrf("/submit") if csrf == "fetch" else csrf
        return self.request("POST", "/submit", data=data, files={"archive": ("bot.tar.gz", archive)})


@pytest.fixture
def site(tmp_path: Path, played: Path) -> Site:
    return Site(tmp_path, played)


def bot_archive(files: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (files or {"bot.py": b"print('hello')\n"}).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def text_of(html: str) -> str:
    """The page's text without its tags (entities left as they are)."""
    return re.sub(r"<[^>]+>", " ", html)


# -- every page -------------------------------------------------------------------------------


def test_every_page_renders_with_the_bots_and_the_headers_of_a_page(site: Site) -> None:
    game = next(g for g in site.games() if "alicebot.v1" in g.names)
    c = site.client()
    expected = {
        "/": ["house-rnd", "house-forfeit", "alicebot.v1", "bobbot.v1", "games played"],
        "/bots": ["alicebot", "bobbot", "house-rnd", "alice", "bob"],
        "/bots/alicebot": ["alicebot", 'by <a href="/authors/alice">alice</a>', "alicebot.v1", "failed", "passed", "house-rnd"],
        "/bots/house-rnd": ["a house bot", "alicebot.v1", "bobbot.v1"],
        "/bots/alicebot/v1": ["passed", "handshake", "hello and ready in 24 games"],
        "/bots/bobbot/v2": ["unpacked", "Not checked yet"],
        "/games": ["house-rnd", "alicebot.v1", "12"],
        f"/games/{game.game_id}": [game.game_id, *game.names, "Every move"],
        "/ladder": [
            "games in the last hour", "1000 ms/move", "who may submit", "versions waiting",
            "ever shows a pair ordered the wrong way round",
        ],
        "/login": ["your token"],
    }
    for url, needles in expected.items():
        r = c.get(url)
        assert r.status_code == 200, (url, r.text)
        assert r.headers["content-type"].startswith("text/html")
        assert (
            "script-src 'self'" in r.headers["content-security-policy"]
            and r.headers["x-content-type-options"] == "nosniff"
        )
        for needle in needles:
            assert needle in r.text, (url, needle)
    assert '<a href="/bots/alicebot">alicebot.v1</a>' in c.get("/").text  # a version links to its bot
    moved = c.get("/bots/alicebot.v2")  # a version's league name: its page
    assert moved.status_code == 303 and moved.headers["location"] == "/bots/alicebot/v2"
    assert c.get("/static/live.js").status_code == 200 and c.get("/static/viewer.js").status_code == 200


def test_the_standings_json_follows_standings_json_and_answers_304_while_it_is_unchanged(site: Site) -> None:
    c = site.client()
    first = c.get("/api/standings")
    body = first.json()
    written = json.loads((site.results / "standings.json").read_text())
    assert [r["bot"] for r in body["rows"]] == [r["bot"] for r in written["rows"]] and body["games"] == 12
    alice = next(r for r in body["rows"] if r["bot"] == "alicebot.v1")
    assert alice["page"] == "/bots/alicebot" and alice["shown"]["games"] == str(alice["games"])
    assert body["pairs"].startswith("at 95%:")  # the continuous league's pairs line
    # Read from standings.json, it says what the stored games say (as it did when it was
    # recomputed from the league's store).
    playing = [(r["bot"], r["better_than_next"]) for r in written["rows"] if not r["retired"]]
    with ResultStore.open(site.results) as store:
        assert body["pairs"] == stored_pairs(store, playing)
    assert c.get("/api/standings", headers={"If-None-Match": first.headers["etag"]}).status_code == 304
    written["games"] = 13
    written["rows"][0]["games"] += 1
    path = site.results / "standings.json"
    path.write_text(json.dumps(written))
    later = c.get("/api/standings", headers={"If-None-Match": first.headers["etag"]})
    assert (
        later.status_code == 200
        and later.json()["games"] == 13
        and later.headers["etag"] != first.headers["etag"]
    )
    assert '<strong id="standings-games">13</strong>' in c.get("/").text


def test_health_says_the_games_of_the_last_hour_and_the_queue(site: Site) -> None:
    h = site.client().get("/api/health").json()
    assert h["ok"] is True and h["games"] == 12 and h["games_last_hour"] == 12 and h["last_game_at"]
    assert (h["waiting"], h["checking"], h["paused"]) == (1, 0, False)
    assert h["versions"]["passed"] == 2 and h["league"]["state"] == "stopped"
    site.store.set_paused(True, "org")
    assert site.client().get("/api/health").json()["paused"] is True


def test_health_answers_503_when_the_results_cannot_be_read(site: Site) -> None:
    for name in ("results.sqlite-wal", "results.sqlite-shm"):
        (site.results / name).unlink(missing_ok=True)
    (site.results / "results.sqlite").write_bytes(b"not a database" * 100)
    r = site.client().get("/api/health")
    assert r.status_code == 503 and r.json()["ok"] is False and "results.sqlite" in r.json()["error"]
    page = site.client().get("/games")
    assert page.status_code == 503 and "cannot be read" in page.text


def test_a_league_that_cannot_play_is_unhealthy_and_a_passed_version_says_why_it_has_no_row(
    site: Site,
) -> None:
    # Issue 30: the health said ok and the author's page "passed" above "Not in the standings".
    bob = next(a for a in site.store.authors() if a.name == "bob")
    sub = site.store.add_submission(bob, "newbot", ["./bob"], None, ("bot.tar.gz", 100, "0" * 64))
    site.store.set_state(sub.id, State.PASSED, "passed the check", _report("no illegal move"))
    page = site.client().get("/bots/newbot").text
    assert "newbot.v1 passed its check, and has its row once it has played its first league game" in page
    why = "the league ended with exit code 1: error: bot house-rnd: build exited with 1"
    site.app.state.service.league._set("failed", why)
    h = site.client().get("/api/health")
    assert h.status_code == 503 and h.json()["ok"] is False and h.json()["games"] == 12
    assert h.json()["error"] == f"the league cannot play: {why}"
    assert f"the league cannot play: {why}" in site.client().get("/ladder").text
    page = site.client().get("/bots/newbot").text
    assert f"newbot.v1 passed its check, but the league is not playing: {why}" in page


def test_unknown_bots_versions_and_games_answer_a_404_page(site: Site) -> None:
    c = site.client()
    for url, needle in (
        ("/bots/nobody", "no bot &#39;nobody&#39;"),
        ("/bots/alicebot/v9", "no version &#39;9&#39;"),
        ("/bots/alicebot/vx", "no version &#39;x&#39;"),
        ("/games/r9-g999", "no finished game &#39;r9-g999&#39;"),
        ("/bots/%3Cscript%3Ealert(1)%3C%5Cscript%3E", "no bot &#39;&lt;script&gt;"),
    ):
        r = c.get(url)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), url
        assert needle in r.text and "<script>alert" not in r.text, (url, r.text)


# -- hostile text, private text ----------------------------------------------------------------


def test_hostile_reasons_checks_logs_and_parameters_are_escaped_everywhere(site: Site) -> None:
    urls = ["/", "/bots", "/bots/alicebot", "/bots/alicebot/v2", "/games"]
    urls += [f"/games/{g.game_id}" for g in site.games()[:4]]
    urls += ["/games?bot=%3Cscript%3Ewindow.pwned%3D1%3C/script%3E", "/games?fault=%3Cscript%3E"]
    for who in (None, "alice", "org"):
        c = site.client() if who is None else site.signed_in(who)
        for url in urls:
            html = c.get(url).text
            assert "<script>window.pwned" not in html and "<img src=x" not in html and "\x1b" not in html, (
                who,
                url,
            )
            assert "<b>bold</b>" not in html, (who, url)
    shown = site.signed_in("alice").get("/bots/alicebot/v2").text
    assert "legal-moves: fail: &lt;script&gt;window.pwned=1&lt;/script&gt;" in shown
    assert "\\x1b[2J\\u202e" in shown  # control and bidi characters made visible
    assert "alice-build-log &lt;script&gt;" in shown  # the build log, escaped in its <pre>
    bad = site.client().get("/games?bot=%3Cscript%3E")
    assert bad.status_code == 400 and "bot &#39;&lt;script&gt;&#39;: not a bot&#39;s name" in bad.text


def _private(site: Site, c: Client) -> dict[str, bool]:
    """Which private things of alice's and bob's ``c`` is shown, on the version and game pages."""
    version = c.get("/bots/alicebot/v2").text
    game = next(g for g in site.games() if set(g.names) == {"alicebot.v1", "bobbot.v1"})
    replay = c.get(f"/games/{game.game_id}").text
    return {
        "alice build log": "alice-build-log" in version,
        "alice evidence": "alice-evidence" in version and "alice-replay" in version,
        "alice command": "python3 bot.py" in version,
        "alice stderr": "alice-secret-stderr" in replay,
        "alice info": "alice-secret-info" in replay,
        "bob stderr": "bob-secret-stderr" in replay,
        "bob info": "bob-secret-info" in replay,
    }


def test_stderr_info_lines_and_build_logs_are_shown_to_their_author_and_the_organisers_only(
    site: Site,
) -> None:
    now = time.time()
    nobody = dict.fromkeys(
        ("alice build log", "alice evidence", "alice command", "alice stderr", "alice info"), False
    )
    nobody |= {"bob stderr": False, "bob info": False}
    alice = {
        **nobody,
        **dict.fromkeys(
            ("alice build log", "alice evidence", "alice command", "alice stderr", "alice info"), True
        ),
    }
    bob = {**nobody, "bob stderr": True, "bob info": True}
    assert _private(site, site.client()) == nobody
    assert _private(site, site.signed_in("alice")) == alice
    assert _private(site, site.signed_in("bob")) == bob
    assert _private(site, site.signed_in("org")) == dict.fromkeys(nobody, True)
    service = site.app.state.service
    eve = site.store.author_named("eve")
    assert eve is not None
    forged = {
        "the old signed kind": f"alice:{int(now)}:{'0' * 64}",
        "made up": "x" * 43,
        "banned author's session": service.sign_in(eve, None),
        "not a cookie": "alice",
    }
    for why, value in forged.items():
        c = site.client()
        c.cookies.set(session.SESSION_COOKIE, value, domain="ladder.test")
        assert _private(site, c) == nobody, why
        assert "signed in as" not in c.get("/").text, why
    c = site.client()  # the cookie a real sign-in gives, copied: it is alice's
    alice_author = site.store.author_named("alice")
    assert alice_author is not None
    c.cookies.set(session.SESSION_COOKIE, service.sign_in(alice_author, None), domain="ladder.test")
    assert _private(site, c) == alice


def test_a_replay_keeps_the_game_but_blanks_what_only_the_author_may_read(site: Site) -> None:
    game = next(g for g in site.games() if "alicebot.v1" in g.names)
    html = site.client().get(f"/games/{game.game_id}").text
    data = json.loads(
        re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', html, re.S).group(1)
    )
    (record,) = data["games"]
    with ResultStore.open(site.results) as store:
        stored = store.record(game.game_id).to_dict()
    assert record["moves"] == stored["moves"] and record["standings"] == stored["standings"]
    for seat in record["seats"]:
        assert (
            seat["stderr_tail"] == ""
            and seat["stderr_turns"] == []
            and seat["infos"] == []
            and seat["command"] == []
            and seat["transcript"] == []
        )
    assert any(s["stderr_tail"] for s in stored["seats"])  # there was something to hide
    assert any(s["stderr_turns"] for s in stored["seats"])


def test_a_member_reads_their_own_bots_stderr_turn_by_turn_and_nobody_elses(site: Site) -> None:
    game = next(g for g in site.games() if set(g.names) == {"alicebot.v1", "bobbot.v1"})
    with ResultStore.open(site.results) as store:
        stored = {s["name"]: s["stderr_turns"] for s in store.record(game.game_id).to_dict()["seats"]}
    assert all(stored.values())  # each bot wrote a line at each of its turns
    for who, theirs in (("alice", {"alicebot.v1"}), ("bob", {"bobbot.v1"}), ("org", set(stored))):
        html = site.signed_in(who).get(f"/games/{game.game_id}").text
        data = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', html, re.S)
        assert data is not None
        (record,) = json.loads(data.group(1))["games"]
        shown = {s["name"]: s["stderr_turns"] for s in record["seats"]}
        assert shown == {name: turns if name in theirs else [] for name, turns in stored.items()}, who


# -- signing in, CSRF, the upload ---------------------------------------------------------------


def test_signing_in_needs_a_good_token_and_gives_a_signed_httponly_cookie(site: Site) -> None:
    c = site.client()
    for token, status, needle in (
        ("not-a-token", 401, "unknown token"),
        ("", 401, "give your token"),
        (site.tokens["eve"], 403, "banned"),
    ):
        r = c.login(token)
        assert r.status_code == status and needle in r.text, token
        assert session.SESSION_COOKIE not in c.cookies
    r = c.login(site.tokens["alice"])
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    assert site.tokens["alice"] not in cookie
    assert 'signed in as <b id="signed-in">alice</b>' in c.get("/").text
    out = c.request("POST", "/logout", data={"csrf": c.csrf("/")})
    assert out.status_code == 303 and "signed in as" not in c.get("/").text
    tls = site.client()
    proxied = {"X-Forwarded-Proto": "https"}  # every request, as the proxy in front sends them
    form = tls.get("/login", headers=proxied).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', form)
    assert csrf is not None
    # The browser speaks https to the proxy: it sends its Secure form cookie (this client, on
    # http, would not).
    proxied["Cookie"] = f"__Host-arena_csrf={tls.cookies['__Host-arena_csrf']}"
    behind_tls = tls.request("POST", "/login", data={"token": site.tokens["bob"], "csrf": csrf.group(1)}, headers=proxied)
    assert (
        behind_tls.status_code == 303
        and "Secure" in behind_tls.headers["set-cookie"]
        and behind_tls.headers["set-cookie"].startswith("__Host-arena_session=")
    )  # the proxy said https


def test_a_form_without_its_csrf_token_is_refused_and_nothing_is_done(site: Site) -> None:
    c = site.client()
    c.get("/login")  # the form cookie
    for csrf in (None, "0" * 64, session.csrf_token(b"k" * 32, "x")):
        r = c.login(site.tokens["alice"], csrf=csrf)
        assert r.status_code == 403 and "token is missing or out of date" in r.text
        assert session.SESSION_COOKIE not in c.cookies
    stranger = site.client()  # a token of another browser's cookie is no token for this one
    assert stranger.login(site.tokens["alice"], csrf=c.csrf()).status_code == 403
    alice = site.signed_in("alice")
    before = site.store.submissions()
    for csrf in (None, "f" * 64):
        r = alice.upload(bot_archive(), csrf=csrf)
        assert r.status_code == 403 and "token is missing" in r.text
    assert site.store.submissions() == before
    assert not [p for p in (site.results / "submissions").iterdir()]
    assert alice.request("POST", "/logout", data={}).status_code == 403
    assert "signed in as" in alice.get("/").text


def test_the_upload_form_stores_a_version_as_the_api_does_and_links_to_its_page(site: Site) -> None:
    alice = site.signed_in("alice")
    form = alice.get("/submit")
    assert (
        form.status_code == 200
        and 'enctype="multipart/form-data"' in form.text
        and 'name="archive"' in form.text
    )
    sent = bot_archive()
    r = alice.upload(sent, name="newbot", build="make -s")
    assert r.status_code == 202, r.text
    assert 'href="/bots/newbot/v1"' in r.text and "unpacked" in r.text
    (sub,) = [s for s in site.store.submissions() if s.bot == "newbot"]
    assert (sub.author, sub.version, sub.state, sub.command, sub.build) == (
        "alice",
        1,
        State.UNPACKED,
        ("python3", "bot.py"),
        ("make", "-s"),
    )
    folder = site.results / "submissions" / str(sub.id)
    assert (folder / "archive").read_bytes() == sent and (site.ladder.version_folder(sub.id) / "bot.py").is_file()
    assert site.signed_in("alice").upload(bot_archive(), name="newbot").status_code == 202  # version 2
    page = alice.get("/bots/newbot/v1")
    assert page.status_code == 200 and 'data-poll="/api/submissions/' in page.text  # it follows its check
    assert [s.version for s in site.store.versions_of("newbot")] == [1, 2]


@pytest.mark.parametrize(
    ("who", "name", "archive", "status", "needle"),
    [
        (None, "newbot", bot_archive(), 401, "sign in first"),
        ("bob", "alicebot", bot_archive(), 409, "belongs to another author"),
        ("alice", "house-rnd", bot_archive(), 409, "a bot of the league itself"),
        ("alice", "../evil", bot_archive(), 400, "bot name &#39;../evil&#39;"),
        ("alice", "linkbot", None, 400, "archive refused: link"),
    ],
    ids=["not-signed-in", "another-authors-name", "house-name", "bad-name", "refused-archive"],
)
def test_the_upload_form_refuses_with_the_apis_own_reasons(
    site: Site, who: str | None, name: str, archive: bytes | None, status: int, needle: str
) -> None:
    if archive is None:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            info = tarfile.TarInfo("etc")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc"
            tar.addfile(info)
        archive = buf.getvalue()
    c = site.client() if who is None else site.signed_in(who)
    before = len(site.store.submissions())
    r = c.upload(archive, name=name, csrf="fetch" if who else "0" * 64)
    assert r.status_code == status and needle in r.text, r.text
    assert who is None or f'value="{name}"' in r.text  # the fields kept for a retry
    stored = len(site.store.submissions()) - before
    assert stored == (
        1 if needle.startswith("archive refused") else 0
    )  # a refused archive is stored as refused


def test_the_submit_page_sends_strangers_to_sign_in_and_says_when_submissions_are_closed(
    tmp_path: Path, played: Path
) -> None:
    assert Site(tmp_path / "open", played).client().get("/submit").headers["location"] == "/login"
    closed = Site(tmp_path / "closed", played, submit="admins")
    assert "Submissions are closed" in closed.signed_in("alice").get("/submit").text
    r = closed.signed_in("alice").upload(bot_archive())
    assert r.status_code == 403 and "closed to authors" in r.text
    assert closed.signed_in("org").upload(bot_archive(), name="housebot").status_code == 202


# -- the games' filters -------------------------------------------------------------------------


def _listed(c: Client, query: str) -> list[str]:
    r = c.get(f"/games?{query}")
    assert r.status_code == 200, r.text
    return re.findall(r'<tr data-game="([^"]+)">', r.text)


def test_the_games_filters_find_the_games_they_name_newest_first(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = site.games()
    newest = [g.game_id for g in reversed(games)]
    c = site.client()

    def expect(keep: Any) -> list[str]:
        return [g.game_id for g in reversed(games) if keep(g)]

    faulty = {g.game_id for g in games if g.faults}
    assert len(faulty) >= 2 and len(faulty) < len(games)  # house-forfeit met each of the others
    assert _listed(c, "") == newest
    assert _listed(c, "bot=house-forfeit") == expect(lambda g: "house-forfeit" in g.names)
    assert _listed(c, "bot=alicebot") == expect(
        lambda g: "alicebot.v1" in g.names
    )  # a bot: each of its versions
    assert _listed(c, "fault=any") == expect(lambda g: g.game_id in faulty)
    assert _listed(c, "fault=none") == expect(lambda g: g.game_id not in faulty)
    assert _listed(c, "fault=illegal_move&bot=house-rnd") == expect(
        lambda g: "house-rnd" in g.names and any(f.kind is FaultKind.ILLEGAL_MOVE for _p, f in g.faults)
    )
    won = expect(lambda g: any(s.name == "bobbot.v1" and s.rank == 1 for s in g.seats))
    assert won and _listed(c, "won_by=bobbot") == won
    assert _listed(c, "won_by=*") == expect(lambda g: sum(s.rank == 1 for s in g.seats) > 1)
    # Pages small enough for the faulty games to fill two at least (how many games had a
    # fault depends on the random bots' moves, and on the machine's load).
    per = len(faulty) // 2
    monkeypatch.setattr(pages, "GAMES_PER_PAGE", per)
    second = c.get("/games?fault=any&page=2")
    assert re.findall(r'<tr data-game="([^"]+)">', second.text) == expect(lambda g: g.game_id in faulty)[per : 2 * per]
    assert 'href="/games?fault=any&amp;page=1"' in second.text and "page 2 of" in second.text
    for query, needle in (
        ("page=0", "page &#39;0&#39;"),
        ("page=x", "page &#39;x&#39;"),
        ("fault=bogus", "fault &#39;bogus&#39;"),
    ):
        r = c.get(f"/games?{query}")
        assert r.status_code == 400 and needle in r.text, query


def test_the_stores_filter_agrees_with_the_summaries_it_filters(played: Path) -> None:
    with ResultStore.open(played) as store:
        games = list(store.summaries())
        for wanted in (
            GameFilter(),
            GameFilter(bots=("house-rnd", "bobbot.v1")),
            GameFilter(won_by=("alicebot.v1",), fault="none"),
            GameFilter(fault=FaultKind.ILLEGAL_MOVE.value),
            GameFilter(shared_first=True),
        ):
            found, total = store.find_summaries(wanted, 1, 4)
            expected = [g for g in reversed(games) if wanted.matches(g)]
            assert total == len(expected) and found == expected[1:5], wanted
    with pytest.raises(ValueError, match="fault 'bogus'"):
        GameFilter(fault="bogus")


def test_a_versions_league_name_is_read_back_as_its_bot(site: Site) -> None:
    site.client().get("/")  # the pages' state is made with the first page
    own = site.app.state.service.owners()
    for sub in site.store.submissions():
        assert own.bot_of(league_name(sub)) == sub.bot and own.owner(league_name(sub)) == sub.author
    assert own.owner("house-rnd") is None and own.bot_of("house-rnd") == "house-rnd"
    assert own.owner("stranger.v3") is None and own.page("alicebot.v7") == "/bots/alicebot"


def test_a_bot_s_rating_history_ends_at_its_row_of_the_standings_the_league_wrote(site: Site) -> None:
    c = site.client()
    body = c.get("/api/bots/alicebot/history").json()
    written = {r["bot"]: r for r in json.loads((site.results / "standings.json").read_text())["rows"]}
    assert body["games"] == 12 and [v["bot"] for v in body["versions"]] == ["alicebot.v1"]
    points = body["points"]
    assert [p["games"] for p in points if not p["now"]] == list(range(1, written["alicebot.v1"]["games"] + 1))
    last = points[-1]
    assert last["position"] == 12
    for key in ("mu", "sigma", "mu_low", "mu_high"):
        assert last[key] == pytest.approx(written["alicebot.v1"][key], abs=1e-3), key
    page = c.get("/bots/alicebot").text
    table = page.split('id="history-table"')[1].split("</table>")[0]
    assert '<svg class="history-chart"' in page and table.count("<tr><td>alicebot.v1</td>") == len(points)
    # Every game finished within the day: every bot is new since yesterday.
    assert {r["move"]["text"] for r in c.get("/api/standings").json()["rows"]} == {"new"}
