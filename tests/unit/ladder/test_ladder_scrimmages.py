"""Scrimmages in process: the ladder file's ``scrimmage`` keys, a request taken or refused
naming why (games, quota, version, opponent, deadline), and who sees what on every route: the
asker and organisers follow a scrimmage, another author is told there is none; in a game the
asker reads only their own bot's logs, the other bot's author only the public replay (if the
ladder allows it); everything a bot wrote is escaped.  No game is played here (the system
test plays real ones): records are stored as the scrimmages' process stores them."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.game.record import StderrTurn, game_points
from arena.ladder.deadline import set_deadline
from arena.ladder.scrimmage_store import ScrimmageStore
from arena.ladder.settings import load_ladder
from arena.ladder.store import State, Submission
from tests.support.untrusted_output import HOSTILE, hostile_record
from tests.unit.ladder.test_ladder_api import LEAGUE, Ladder
from tests.unit.ladder.test_ladder_sessions import Browser


def with_scrimmage(keys: str) -> str:
    return LEAGUE + f"  scrimmage: {keys}\n"


def version(ladder: Ladder, who: str, bot: str, state: State, report: dict[str, object] | None = None) -> Submission:
    author = ladder.store.author_named(who)
    assert author is not None
    sub = ladder.store.add_submission(author, bot, ("python3", "bot.py"), None, ("b.tgz", 10, "0" * 64))
    ladder.store.set_state(sub.id, state, reason="test", report=report)
    return sub


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    lad = Ladder(tmp_path, with_scrimmage("{max_games: 4, per_day: 6, at_once: 2}"))
    version(lad, "alice", "ace", State.PASSED)  # ace.v1
    version(lad, "bob", "bee", State.PASSED)  # bee.v1
    return lad


def ask(ladder: Ladder, who: str | None, version: str = "ace.v1", opponent: str = "one", games: object = 2):
    return ladder.request("POST", "/api/scrimmages", who, json={"version": version, "opponent": opponent, "games": games})


def play(ladder: Ladder, rid: int, line: str = "my secret plan") -> None:
    """Store every game of scrimmage ``rid`` as the scrimmages' process does: each seat's
    stderr and info lines say whose they are, and carry ``line``."""
    store = ScrimmageStore.open(ladder.ladder.folder)
    s = store.get(rid)
    assert s is not None
    for g in s.games:
        record = hostile_record(g.game_id, g.seats, "bogus move")
        seats = tuple(
            replace(
                seat,
                stderr_tail=f"STDERR-OF-{seat.name} {line}",
                infos=(f"INFO-OF-{seat.name}", line),
                stderr_turns=(StderrTurn(0, (f"TURN-OF-{seat.name}", line)),),
            )
            for seat in record.seats
        )
        record = replace(record, seats=seats)
        store.finish(g, record.to_json(), game_points(record), None, 1.0)
    store.close()


# -- the ladder file --------------------------------------------------------------------------


def test_the_scrimmage_keys_have_safe_defaults_and_are_read(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(LEAGUE)
    d = load_ladder(tmp_path / "a.yaml").settings.scrimmage
    assert (d.max_games, d.per_day, d.at_once, d.show_opponent_replays) == (10, 40, 1, False)
    (tmp_path / "b.yaml").write_text(
        with_scrimmage("{max_games: 3, per_day: 9, at_once: 2, show_opponent_replays: true}")
    )
    s = load_ladder(tmp_path / "b.yaml").settings.scrimmage
    assert (s.max_games, s.per_day, s.at_once, s.show_opponent_replays) == (3, 9, 2, True)
    (tmp_path / "served").mkdir()
    served = Ladder(tmp_path / "served", with_scrimmage("{max_games: 3, per_day: 9}"))
    assert "3 games a scrimmage, 9 games a day, 1 unfinished at a time" in served.request("GET", "/ladder").text


@pytest.mark.parametrize(
    ("keys", "needle"),
    [
        ("{max_games: 0}", "'ladder.scrimmage.max_games' must be from 1 to 100, got 0"),
        ("{max_games: 101}", "'ladder.scrimmage.max_games' must be from 1 to 100"),
        ("{max_games: 10, per_day: 5}", "'ladder.scrimmage.per_day' must be at least max_games (10), got 5"),
        ("{at_once: 0}", "'ladder.scrimmage.at_once' must be from 1 to 10"),
        ("{show_opponent_replays: maybe}", "ladder.scrimmage.show_opponent_replays"),
        ("{games: 3}", "games"),
    ],
)
def test_a_bad_scrimmage_key_is_refused_naming_the_file_and_the_key(tmp_path: Path, keys: str, needle: str) -> None:
    (tmp_path / "l.yaml").write_text(with_scrimmage(keys))
    with pytest.raises(ConfigError) as e:
        load_ladder(tmp_path / "l.yaml")
    assert needle in str(e.value) and "l.yaml:" in str(e.value), str(e.value)


# -- asking ----------------------------------------------------------------------------------


def test_an_author_asks_for_games_against_a_house_bot_and_follows_them(ladder: Ladder) -> None:
    r = ask(ladder, "alice", games=3)
    assert r.status_code == 202, r.text
    body = r.json()
    assert (body["version"], body["opponent"], body["games"], body["done"], body["state"]) == ("ace.v1", "one", 3, 0, "waiting")
    assert [g["seats"] for g in body["results"]] == [["ace.v1", "one"], ["one", "ace.v1"], ["ace.v1", "one"]]
    assert ladder.request("GET", body["status_url"], "alice").json()["games"] == 3
    assert ladder.request("GET", "/api/health").json()["scrimmages"]["waiting"] == 3
    play(ladder, body["id"])
    followed = ladder.request("GET", body["status_url"], "alice").json()
    assert followed["state"] == "finished" and followed["done"] == 3
    assert followed["results"][0]["replay"] == f"/scrimmages/{body['id']}/games/1"
    assert sum(followed["score"].values()) == 3  # one point a game, shared between the two
    assert [s["id"] for s in ladder.request("GET", "/api/scrimmages", "alice").json()["scrimmages"]] == [body["id"]]
    assert ladder.request("GET", "/api/health").json()["scrimmages"]["waiting"] == 0


def test_a_scrimmage_never_touches_the_leagues_store(ladder: Ladder) -> None:
    rid = ask(ladder, "alice").json()["id"]
    play(ladder, rid)
    assert not (ladder.ladder.folder / "results.sqlite").exists()  # the league's: never made by a scrimmage
    assert (ladder.ladder.folder / "scrimmages" / "scrimmages.sqlite").is_file()


def test_a_version_that_failed_its_check_after_building_may_play_and_one_never_built_may_not(ladder: Ladder) -> None:
    version(ladder, "alice", "ace", State.FAILED, report={"checks": []})  # ace.v2: built, failed
    version(ladder, "alice", "ace", State.FAILED)  # ace.v3: its build failed (no report)
    version(ladder, "alice", "ace", State.REFUSED)  # ace.v4
    version(ladder, "alice", "ace", State.CHECKING)  # ace.v5
    assert ask(ladder, "alice", "ace.v2", "ace.v1").status_code == 202  # the older, retired, as opponent
    for name, why in (
        ("ace.v3", "did not build"),
        ("ace.v4", "was refused when unpacked"),
        ("ace.v5", "waits for its check (state checking)"),
    ):
        r = ask(ladder, "alice", name)
        assert r.status_code == 400 and r.json()["error"].startswith(f"version {name!r} cannot play: it {why}"), r.text


@pytest.mark.parametrize(
    ("mine", "other", "games", "status", "needle"),
    [
        ("ace.v1", "one", 5, 400, "games: 5 is more than this ladder allows in one scrimmage (scrimmage.max_games: 4)"),
        ("ace.v1", "one", 0, 400, "games: ask for at least 1 game"),
        ("ace.v1", "one", "two", 400, "games: a whole number from 1 to 4 expected, got 'two'"),
        ("ace.v1", "one", True, 400, "games: a whole number from 1 to 4 expected, got True"),
        ("bee.v1", "one", 1, 403, "version 'bee.v1' is not yours"),
        ("ace.v9", "one", 1, 400, "version 'ace.v9': no such version"),
        ("ace", "one", 1, 400, "version 'ace': no such version (name it BOT.vN"),
        ("ace.v1", "nobody", 1, 400, "opponent 'nobody': no such bot"),
        ("ace.v1", "ace.v1", 1, 400, "opponent 'ace.v1' is the version you chose"),
        ("ace.v1", "<script>", 1, 400, "opponent '<script>': no such bot"),
    ],
)
def test_a_bad_request_is_refused_naming_why(ladder: Ladder, mine: str, other: str, games: object, status: int, needle: str) -> None:
    r = ask(ladder, "alice", mine, other, games)
    assert r.status_code == status and needle in r.json()["error"], r.text
    assert ladder.request("GET", "/api/scrimmages", "alice").json()["scrimmages"] == []


def test_another_authors_version_that_no_longer_plays_is_no_opponent(ladder: Ladder) -> None:
    version(ladder, "bob", "bee", State.PASSED)  # bee.v2 retires bee.v1
    assert ask(ladder, "alice", opponent="bee.v2").status_code == 202
    r = ask(ladder, "alice", opponent="bee.v1")
    assert r.status_code == 400 and r.json()["error"] == (
        "opponent 'bee.v1' does not play in the ladder now: choose a bot that does, or one of your versions"
    )


def test_the_quotas_refuse_saying_which(ladder: Ladder) -> None:
    first = ask(ladder, "alice", games=4)
    assert ask(ladder, "alice", games=1).status_code == 202
    r = ask(ladder, "alice", games=1)  # two unfinished: at_once
    assert r.status_code == 429 and "2 scrimmage(s) of yours are not finished yet (scrimmage.at_once: 2)" in r.json()["error"]
    play(ladder, first.json()["id"])
    r = ask(ladder, "alice", games=2)  # 4 + 1 asked today, 2 more pass 6
    assert r.status_code == 429 and r.json()["error"] == (
        "quota: you asked for 5 scrimmage games in the last 24 hours; 2 more would pass this ladder's 6 (scrimmage.per_day)"
    )
    assert "Retry-After" in r.headers
    assert ask(ladder, "alice", games=1).status_code == 202  # 6: just within
    assert ask(ladder, "bob", "bee.v1", "ace.v1", 4).status_code == 202  # each author's own quota
    org = version(ladder, "org", "house2", State.PASSED)
    for _ in range(3):  # organisers have none
        assert ask(ladder, "org", f"house2.v{org.version}", "one", 4).status_code == 202


def test_after_the_deadline_scrimmages_are_refused_saying_so(ladder: Ladder) -> None:
    set_deadline(ladder.store, dt.datetime(2020, 1, 1, tzinfo=dt.UTC), by="org")
    r = ask(ladder, "alice")
    assert r.status_code == 403
    assert r.json()["error"] == "scrimmages are closed: the deadline (2020-01-01 00:00:00 UTC) has passed"


def test_without_a_good_token_nothing_is_asked_or_shown(ladder: Ladder) -> None:
    assert ask(ladder, None).status_code == 401
    assert ask(ladder, "not-a-token").status_code == 401
    assert ask(ladder, "eve").status_code == 403  # banned
    assert ladder.request("GET", "/api/scrimmages", None).status_code == 401
    r = ladder.request("POST", "/api/scrimmages", "alice", content=b"[1]", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "the body must be" in r.json()["error"]
    r = ladder.request("POST", "/api/scrimmages", "alice", content=b"x" * 5000)
    assert r.status_code == 413


# -- who sees what ---------------------------------------------------------------------------


def test_another_author_can_neither_see_nor_follow_a_scrimmage(ladder: Ladder) -> None:
    rid = ask(ladder, "alice", opponent="bee.v1").json()["id"]
    play(ladder, rid)
    for url in (f"/api/scrimmages/{rid}", f"/scrimmages/{rid}", f"/scrimmages/{rid}/games/1"):
        r = ladder.request("GET", url, "bob")
        assert r.status_code in (404, 303), (url, r.status_code)
    assert ladder.request("GET", f"/api/scrimmages/{rid}", "bob").json()["error"] == f"no scrimmage '{rid}' of yours"
    assert ladder.request("GET", "/api/scrimmages", "bob").json()["scrimmages"] == []
    assert ladder.request("GET", f"/api/scrimmages/{rid}", "org").status_code == 200  # organisers see all
    assert [s["id"] for s in ladder.request("GET", "/api/scrimmages", "org").json()["scrimmages"]] == [rid]
    bob = Browser(ladder)
    bob.login("bob")
    for url in (f"/scrimmages/{rid}", f"/scrimmages/{rid}/games/1", f"/scrimmages/{rid}/games/2"):
        r = bob.request("GET", url)
        assert r.status_code == 404 and "STDERR-OF" not in r.text and "ace.v1" not in r.text, url
    assert Browser(ladder).request("GET", f"/scrimmages/{rid}/games/1").status_code == 404  # nobody signed in
    assert f"/scrimmages/{rid}/" not in bob.request("GET", "/scrimmages").text  # show_opponent_replays: false


def test_the_asker_reads_their_own_bots_logs_and_not_the_opponents(ladder: Ladder) -> None:
    rid = ask(ladder, "alice", opponent="bee.v1").json()["id"]
    play(ladder, rid)
    alice = Browser(ladder)
    alice.login("alice")
    page = alice.request("GET", f"/scrimmages/{rid}/games/1")
    assert page.status_code == 200
    assert "STDERR-OF-ace.v1" in page.text and "INFO-OF-ace.v1" in page.text and "TURN-OF-ace.v1" in page.text
    assert "OF-bee.v1" not in page.text  # bob's bot's logs are bob's
    listing = alice.request("GET", f"/scrimmages/{rid}")
    assert listing.status_code == 200 and f'href="/scrimmages/{rid}/games/2"' in listing.text
    org = Browser(ladder)
    org.login("org")
    assert "TURN-OF-bee.v1" in org.request("GET", f"/scrimmages/{rid}/games/1").text  # organisers read all


def test_the_other_bots_author_sees_the_public_replay_only_when_the_ladder_allows(tmp_path: Path) -> None:
    lad = Ladder(tmp_path, with_scrimmage("{show_opponent_replays: true}"))
    version(lad, "alice", "ace", State.PASSED)
    version(lad, "bob", "bee", State.PASSED)
    rid = ask(lad, "alice", opponent="bee.v1").json()["id"]
    play(lad, rid)
    bob = Browser(lad)
    bob.login("bob")
    page = bob.request("GET", f"/scrimmages/{rid}/games/1")
    assert page.status_code == 200 and "ace.v1" in page.text
    assert "OF-ace.v1" not in page.text and "OF-bee.v1" not in page.text  # no bot's logs: the public replay
    listed = bob.request("GET", "/scrimmages").text
    assert f'href="/scrimmages/{rid}/games/1"' in listed and f'href="/scrimmages/{rid}"' not in listed
    assert bob.request("GET", f"/scrimmages/{rid}").status_code == 404  # the request stays the asker's
    assert lad.request("GET", f"/api/scrimmages/{rid}", "bob").status_code == 404
    carol = Browser(lad)
    carol.login("org")
    assert "OF-bee.v1" in carol.request("GET", f"/scrimmages/{rid}/games/1").text


def test_a_game_page_escapes_everything_a_bot_wrote(ladder: Ladder) -> None:
    rid = ask(ladder, "alice").json()["id"]
    play(ladder, rid, line="\n".join(HOSTILE))
    alice = Browser(ladder)
    alice.login("alice")
    text = alice.request("GET", f"/scrimmages/{rid}/games/1").text
    assert "STDERR-OF-ace.v1" in text
    for raw in ("<script>alert(1)</script>", "<img src=x", "\u202e", "\x1b", "\x00", "\x07", "\x9b", "\u200b"):
        assert raw not in text, repr(raw)


# -- the form --------------------------------------------------------------------------------


def test_the_form_asks_with_its_csrf_token_and_shows_a_refusal(ladder: Ladder) -> None:
    alice = Browser(ladder)
    assert alice.request("GET", "/scrimmages").status_code == 303  # sign in first
    alice.login("alice")
    form = alice.request("GET", "/scrimmages")
    assert form.status_code == 200 and '<option value="ace.v1">' in form.text and '<option value="bee.v1">' in form.text
    assert '<option value="one">' in form.text
    r = alice.request("POST", "/scrimmages", data={"version": "ace.v1", "opponent": "one", "games": "1"})
    assert r.status_code == 403 and "token is missing" in r.text  # no CSRF token: nothing asked
    assert ladder.request("GET", "/api/scrimmages", "alice").json()["scrimmages"] == []
    csrf = alice.csrf("/scrimmages")
    r = alice.request("POST", "/scrimmages", data={"version": "ace.v1", "opponent": "one", "games": "9", "csrf": csrf})
    assert r.status_code == 400 and "scrimmage.max_games: 4" in r.text and "text/html" in r.headers["content-type"]
    r = alice.request("POST", "/scrimmages", data={"version": "ace.v1", "opponent": "one", "games": "2", "csrf": csrf})
    assert r.status_code == 303
    found = re.fullmatch(r"/scrimmages/(\d+)", r.headers["location"])
    assert found
    page = alice.request("GET", r.headers["location"])
    assert page.status_code == 200 and "waiting: 0 of 2 games over" in page.text
    mine = alice.request("GET", "/scrimmages").text
    assert f'href="/scrimmages/{found.group(1)}"' in mine


def test_the_scrimmage_pages_escape_a_failure_and_show_its_traceback_to_organisers_only(ladder: Ladder) -> None:
    rid = ask(ladder, "alice").json()["id"]
    store = ScrimmageStore.open(ladder.ladder.folder)
    s = store.get(rid)
    assert s is not None
    hostile = " ".join(HOSTILE).replace("\n", " ")
    store.finish(s.games[0], None, None, f"arena error in game s{rid}-g1: {hostile}\nTraceback: /srv/secret/path.py", 1.0)
    store.close()
    alice = Browser(ladder)
    alice.login("alice")
    for url in (f"/scrimmages/{rid}", "/scrimmages"):
        text = alice.request("GET", url).text
        for raw in ("<script>alert(1)</script>", "<img src=x", "\u202e", "\x1b", "\x00", "\x07", "\x9b", "\u200b"):
            assert raw not in text, (url, repr(raw))
    page = alice.request("GET", f"/scrimmages/{rid}").text
    assert "not played: arena error in game" in page and "/srv/secret" not in page
    assert ladder.request("GET", f"/api/scrimmages/{rid}", "alice").json()["results"][0]["failure"].startswith("arena error")
    assert "/srv/secret" in ladder.request("GET", f"/api/scrimmages/{rid}", "org").json()["results"][0]["failure"]
    assert ladder.request("GET", f"/scrimmages/{rid}/games/1", "alice").status_code == 404  # no record: no replay


def test_the_next_game_is_taken_from_the_scrimmage_with_the_fewest_played(ladder: Ladder) -> None:
    first = ask(ladder, "alice", games=3).json()["id"]
    second = ask(ladder, "bob", "bee.v1", "one", 2).json()["id"]
    store = ScrimmageStore.open(ladder.ladder.folder)
    order = []
    while (nxt := store.next_game()) is not None:
        s, g = nxt
        order.append((s.id, g.n))
        store.finish(g, None, None, "not played here", 1.0)
    store.close()
    assert order == [(first, 1), (second, 1), (first, 2), (second, 2), (first, 3)]


def test_a_scrimmage_is_a_two_player_game_of_its_two_bots_under_the_leagues_settings(tmp_path: Path) -> None:
    from arena.ladder.scrimmage_job import scrimmage_config

    four = LEAGUE.replace("players: 2", "players: 4").replace(
        "  - {name: two,", "  - {name: three, command: python3 x.py}\n  - {name: four, command: python3 x.py}\n  - {name: two,"
    )
    lad = Ladder(tmp_path, four.replace("format: continuous", "format: continuous\ntime_control: {move: 150ms}"))
    old = version(lad, "alice", "ace", State.PASSED)
    version(lad, "alice", "ace", State.PASSED)  # ace.v2 retires ace.v1
    rid = ask(lad, "alice", "ace.v2", "ace.v1").json()["id"]
    s = ScrimmageStore.open(lad.ladder.folder).get(rid)
    assert s is not None
    config = scrimmage_config(lad.ladder, lad.store, s)
    assert config.players == 2 and config.params.players == 2
    assert [b.name for b in config.bots] == ["ace.v2", "ace.v1"] and not any(b.retired for b in config.bots)
    assert config.bots[1].cwd == lad.ladder.version_folder(old.id)
    assert config.time_control == lad.ladder.league.time_control
    for bot in config.bots:  # the results (every log) and the other versions masked, as in the league
        hidden = {Path(h) for h in bot.sandbox.hidden}
        assert lad.ladder.folder in hidden and lad.ladder.versions_folder in hidden, bot.sandbox.hidden


def test_an_authors_name_is_escaped_on_every_scrimmage_page(ladder: Ladder) -> None:
    # Today's names are 1-64 of A-Z a-z 0-9 _ . + -; a store that holds another (a team's
    # name, an older arena's) is still shown as text.
    name = "<script>alert(1)</script>\u202eevil\x1b[2J"
    ladder.tokens[name] = ladder.store.add_author(name)
    version(ladder, name, "mal", State.PASSED)
    rid = ask(ladder, name, "mal.v1", "ace.v1").json()["id"]
    play(ladder, rid)
    org = Browser(ladder)
    org.login("org")
    for url in ("/scrimmages", f"/scrimmages/{rid}", f"/scrimmages/{rid}/games/1"):
        text = org.request("GET", url).text
        assert "mal.v1" in text, url
        for raw in ("<script>alert(1)</script>", "\u202e", "\x1b"):
            assert raw not in text, (url, repr(raw))
