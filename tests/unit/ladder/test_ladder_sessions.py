"""Signing in on the pages (issue 30, items 4 and 5): no other site acts in an author's name.

A sibling site (another port, or a sibling subdomain with ``Domain=``) can set cookies for the
ladder.  Setting the form cookie must not let it post a form in a signed-in author's name (the
forms' token is bound to the session); setting the session cookie must not sign the victim
in for good (every sign-in begins a new session and ends the one the browser held); over TLS
the cookies carry ``__Host-`` names, which no sibling can set, and plain names are not read.
Signing out ends the session on the server: a copy of its cookie no longer signs in.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.ladder.session import SESSION_S
from arena.ladder.store import SESSIONS_PER_AUTHOR
from tests.unit.ladder.test_ladder_api import Ladder, bot_archive


class Browser:
    """One browser of the ladder: its cookies kept from answer to answer."""

    def __init__(self, ladder: Ladder, origin: str = "http://ladder.test") -> None:
        self.ladder = ladder
        self.origin = origin
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.ladder.app)
            async with httpx.AsyncClient(transport=transport, base_url=self.origin, cookies=self.cookies) as c:
                r = await c.request(method, url, **kw)
                self.cookies = c.cookies
                return r

        return asyncio.run(go())

    def csrf(self, url: str = "/login") -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]{64})"', self.request("GET", url).text)
        assert found, url
        return found.group(1)

    def login(self, who: str) -> httpx.Response:
        return self.request("POST", "/login", data={"token": self.ladder.tokens[who], "csrf": self.csrf()})

    def upload(self, csrf: str) -> httpx.Response:
        data = {"name": "greedy", "command": "python3 bot.py", "csrf": csrf}
        return self.request("POST", "/submit", data=data, files={"archive": ("bot.tar.gz", bot_archive())})

    def signed_in_as(self) -> str | None:
        found = re.search(r'signed in as <b id="signed-in">([^<]*)</b>', self.request("GET", "/").text)
        return found.group(1) if found else None

    def toss(self, name: str, value: str) -> None:
        """A cookie set by a sibling site."""
        self.cookies.set(name, value, domain="ladder.test", path="/")


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


def test_a_form_cookie_set_by_another_site_does_not_post_in_a_signed_in_authors_name(ladder: Ladder) -> None:
    victim = Browser(ladder)
    assert victim.login("alice").status_code == 303
    attacker = Browser(ladder)
    token = attacker.csrf()  # a good token for the attacker's own form cookie...
    victim.toss("arena_csrf", attacker.cookies["arena_csrf"])  # ...and that cookie set in the victim's browser
    r = victim.upload(token)
    assert r.status_code == 403 and "token is missing or out of date" in r.text
    assert ladder.store.submissions() == []
    assert victim.upload(victim.csrf("/submit")).status_code == 202  # the victim's own page's token works


def test_a_session_cookie_set_by_another_site_ends_when_the_victim_signs_in(ladder: Ladder) -> None:
    attacker = Browser(ladder)
    attacker.login("bob")
    tossed = attacker.cookies["arena_session"]
    victim = Browser(ladder)
    victim.toss("arena_session", tossed)
    assert victim.signed_in_as() == "bob"  # until the victim signs in (plain http: no __Host-)
    assert victim.login("alice").status_code == 303
    assert victim.signed_in_as() == "alice" and victim.cookies["arena_session"] != tossed
    assert attacker.signed_in_as() is None  # the session the victim's browser held is ended


def test_every_sign_in_begins_a_new_session(ladder: Ladder) -> None:
    b = Browser(ladder)
    b.login("alice")
    first = b.cookies["arena_session"]
    b.login("alice")
    assert b.cookies["arena_session"] != first and b.signed_in_as() == "alice"
    copy = Browser(ladder)
    copy.toss("arena_session", first)
    assert copy.signed_in_as() is None


def test_over_tls_the_cookies_have_host_names_and_plain_names_are_not_read(ladder: Ladder) -> None:
    b = Browser(ladder, "https://ladder.test")
    page = b.request("GET", "/login")
    assert re.match(r"__Host-arena_csrf=[^;]+; HttpOnly; Path=/; SameSite=strict; Secure$", page.headers["set-cookie"])
    r = b.login("alice")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("__Host-arena_session=") and "; Secure" in cookie and "; Path=/" in cookie
    assert "domain" not in cookie.lower()  # a __Host- cookie names no domain
    assert b.signed_in_as() == "alice"
    good = b.cookies["__Host-arena_session"]
    sibling = Browser(ladder, "https://ladder.test")
    sibling.toss("arena_session", good)  # a good session, under the name a sibling could set
    assert sibling.signed_in_as() is None
    behind_proxy = Browser(ladder)  # http to the ladder, https at the proxy in front
    r = behind_proxy.request(
        "POST", "/login", data={"token": ladder.tokens["bob"], "csrf": "x"}, headers={"X-Forwarded-Proto": "https"}
    )
    assert r.status_code == 403  # its form cookie is __Host-arena_csrf there: none was sent


def test_signing_out_ends_the_session_and_a_copied_cookie_no_longer_signs_in(ladder: Ladder) -> None:
    b = Browser(ladder)
    b.login("alice")
    copied = b.cookies["arena_session"]
    out = b.request("POST", "/logout", data={"csrf": b.csrf("/")})
    assert out.status_code == 303 and b.signed_in_as() is None
    thief = Browser(ladder)
    thief.toss("arena_session", copied)
    assert thief.signed_in_as() is None
    assert thief.request("GET", "/submit").headers.get("location") == "/login"


def test_a_session_ends_after_its_week_and_an_authors_oldest_past_the_bound(ladder: Ladder) -> None:
    store = ladder.store
    alice = store.author_named("alice")
    assert alice is not None
    store.begin_session(alice, "a" * 64, 1_000_000.0, SESSION_S)
    assert store.session_author("a" * 64, 1_000_000.0 + SESSION_S - 1, SESSION_S) == alice
    assert store.session_author("a" * 64, 1_000_000.0 + SESSION_S + 1, SESSION_S) is None
    for i in range(SESSIONS_PER_AUTHOR + 2):
        store.begin_session(alice, f"{i:064x}", 2_000_000.0 + i, SESSION_S)
    now = 2_000_000.0 + SESSIONS_PER_AUTHOR + 2
    kept = [i for i in range(SESSIONS_PER_AUTHOR + 2) if store.session_author(f"{i:064x}", now, SESSION_S)]
    assert kept == list(range(2, SESSIONS_PER_AUTHOR + 2))
    assert store.session_author("a" * 64, now, SESSION_S) is None  # past its week: forgotten


def test_a_banned_authors_session_no_longer_signs_in(ladder: Ladder) -> None:
    b = Browser(ladder)
    b.login("alice")
    ladder.store.set_banned("alice", True, by="org")
    assert b.signed_in_as() is None
