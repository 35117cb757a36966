"""Teams and a roster (issue 32, item 1): an author is a team of members, each with their own
token, revocable alone; a class is added at once from a CSV roster, all or nothing; every
member of a team (and nobody else but the organisers) reads the team's private parts; a
revoked token is refused at once, on the API and on the pages; the log names the member."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError, LadderError
from arena.ladder.service import Viewer
from arena.ladder.store import SCHEMA_VERSION, LadderStore, State
from arena.ladder.teams import MAX_ROSTER_BYTES, MAX_ROSTER_ROWS, parse_roster, split_label
from arena.league.results_folder import claim_folder
from tests.support.ladder_v3 import old_store, session_digest
from tests.support.untrusted_output import HOSTILE
from tests.unit.ladder.test_ladder_api import Ladder, bot_archive
from tests.unit.ladder.test_ladder_sessions import Browser

ROSTER = b"team,member,admin\nants,ann,\nants,bob,no\nbees,cy,\norg,teach,yes\n"


# -- the roster's rows ----------------------------------------------------------------------------


def test_a_roster_gives_each_member_their_team_and_the_teams_admin_flag() -> None:
    rows = parse_roster(b"\xef\xbb\xbfTeam, Member ,admin\r\nants, ann ,\r\n\r\nants,bob,no\r\norg,teach,TRUE\r\n", "r.csv")
    assert [(r.team, r.member, r.admin, r.line) for r in rows] == [
        ("ants", "ann", None, 2),
        ("ants", "bob", False, 4),
        ("org", "teach", True, 5),
    ]
    assert parse_roster(b"member,team\nbob,ants\n", "r.csv")[0].label == "ants/bob"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (b"", "r.csv: empty"),
        (b"team,member\n", "r.csv: no member under the header"),
        (b"team,member,email\nants,ann,a@b\n", "r.csv: line 1: unknown column 'email'"),
        (b"team,admin\nants,yes\n", "r.csv: line 1: no 'member' column"),
        (b"team,member,member\n", "r.csv: line 1: a column named twice"),
        (b"team,member\nants,ann,extra\n", "r.csv: line 2: 3 fields; the header has 2"),
        (b"team,member\nants,ann\nants,ann\n", "r.csv: line 3: member 'ann' of team 'ants' is on line 2 already"),
        (b"team,member\nants,\n", "r.csv: line 2: name '': must be 1-64"),
        (b"team,member\nan ts,ann\n", "r.csv: line 2: name 'an ts': must be 1-64"),
        (b"team,member\nants,ann/x\n", "r.csv: line 2: name 'ann/x'"),
        (b"team,member\nants," + b"a" * 65 + b"\n", "r.csv: line 2: name 'aaaa"),
        (b"team,member,admin\nants,ann,maybe\n", "r.csv: line 2: admin 'maybe': one of yes, no"),
        (b"team,member,admin\nants,ann,yes\nants,bob,no\n", "r.csv: line 3: team 'ants' is not an admin here but one on line 2"),
        (b"team,member\nants,\"ann\n", "r.csv: line 2: unexpected end of data"),
        (b"team,member\n\xff\n", "r.csv: not UTF-8 text"),
    ],
    ids=lambda v: v.decode(errors="replace")[:30] if isinstance(v, bytes) else None,
)
def test_a_roster_with_a_fault_is_refused_naming_its_line_and_what_was_wrong(text: bytes, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_roster(text, "r.csv")
    assert needle in str(e.value)


def test_a_roster_is_bounded_in_bytes_and_rows() -> None:
    with pytest.raises(ConfigError, match=f"holds at most {MAX_ROSTER_BYTES}"):
        parse_roster(b"team,member\n" + b"#" * MAX_ROSTER_BYTES, "r.csv")
    many = b"team,member\n" + b"".join(b"t%d,m\n" % i for i in range(MAX_ROSTER_ROWS + 1))
    with pytest.raises(ConfigError, match=f"line {MAX_ROSTER_ROWS + 2}: more than {MAX_ROSTER_ROWS} members"):
        parse_roster(many, "r.csv")


@pytest.mark.parametrize("name", [n for n in HOSTILE if "\ud800" not in n])
def test_a_hostile_team_or_member_name_is_refused_and_quoted_escaped(name: str) -> None:
    for row in (f"{name},ann", f"ants,{name}"):
        data = b'team,member\n"' + row.replace('"', '""').replace(",", '","', 1).encode() + b'"\n'
        try:
            rows = parse_roster(data, "r.csv")
        except ConfigError as e:
            message = str(e)
            assert "r.csv: line 2" in message
            for raw in ("\x1b", "\x00", "\x07", "\x9b", "\u202e", "\u200b", "<script>"):
                assert raw not in message or (raw == "<script>" and "'<script>" in message), (raw, message)
        else:  # only names the ladder's rule allows get through
            assert all(re.fullmatch(r"[A-Za-z0-9_.+-]{1,64}", n) for r in rows for n in (r.team, r.member)), rows


def test_team_slash_member_is_split_and_checked() -> None:
    assert split_label("ants/ann", "--revoke-member") == ("ants", "ann")
    for bad, needle in (("ants", "give TEAM/MEMBER"), ("ants/a/b", "name 'a/b'"), ("an\u202ets/ann", "name 'an\\u202ets'")):
        with pytest.raises(ConfigError, match=re.escape(needle)):
            split_label(bad, "--revoke-member")


# -- the store ------------------------------------------------------------------------------------


def _roster(store: LadderStore, text: bytes = ROSTER) -> dict[str, str]:
    kept: dict[str, str] = {}
    store.add_roster(parse_roster(text, "r.csv"), lambda added: kept.update({f"{t}/{m}": k for t, m, k in added}))
    return kept


def test_a_roster_adds_teams_and_members_each_with_their_own_token(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    tokens = _roster(store)
    assert sorted(tokens) == ["ants/ann", "ants/bob", "bees/cy", "org/teach"] and len(set(tokens.values())) == 4
    assert [(a.name, a.admin) for a in store.authors()] == [("ants", False), ("bees", False), ("org", True)]
    assert store.add_roster([], lambda added: None) == (0, 0)
    for label, token in tokens.items():
        found = store.holder_by_token(token)
        assert found is not None and f"{found[0].name}/{found[1].name}" == label
    # A team's admin flag may be on any of its rows.
    _roster(store, b"team,member,admin\nstaff,amy,\nstaff,ben,yes\n")
    staff = store.author_named("staff")
    assert staff is not None and staff.admin
    # A later roster adds members to a team that exists, and new teams.
    more = _roster(store, b"team,member\nants,dan\ncows,eve\n")
    assert sorted(more) == ["ants/dan", "cows/eve"]
    assert [m.name for m in store.members_of("ants")] == ["ann", "bob", "dan"]
    # Only hashes are kept.
    with sqlite3.connect(tmp_path / "ladder.sqlite") as c:
        stored = " ".join(str(v) for row in c.execute("SELECT * FROM members") for v in row)
    assert not any(t in stored for t in (*tokens.values(), *more.values()))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (b"team,member\ncows,x\nants,ann\n", "line 3: member 'ann' of team 'ants' is present already"),
        (b"team,member,admin\ncows,x,\nants,zed,yes\n", "line 3: team 'ants' exists already as not an admin"),
    ],
)
def test_a_roster_that_clashes_with_the_store_adds_nothing(tmp_path: Path, text: bytes, needle: str) -> None:
    store = LadderStore.open(tmp_path)
    _roster(store)
    before = (store.authors(), store.members_of("ants"), store.actions())
    kept: list[object] = []
    with pytest.raises(LadderError, match=needle):
        store.add_roster(parse_roster(text, "r.csv"), kept.append)
    assert kept == [] and (store.authors(), store.members_of("ants"), store.actions()) == before


def test_nothing_is_added_when_the_tokens_cannot_be_written(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)

    def full_disk(added: object) -> None:
        raise OSError("no space left on device")

    with pytest.raises(OSError):
        store.add_roster(parse_roster(ROSTER, "r.csv"), full_disk)
    assert store.authors() == [] and store.actions() == []


def test_a_revoked_member_is_refused_and_their_sessions_end_while_the_team_goes_on(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    tokens = _roster(store)
    ants = store.author_named("ants")
    assert ants is not None
    ann, bob = store.members_of("ants")
    store.begin_session(ants, "a" * 64, 1000.0, 60.0, ann)
    store.begin_session(ants, "b" * 64, 1000.0, 60.0, bob)
    store.revoke_member("ants", "bob", by="org/teach")
    assert store.holder_by_token(tokens["ants/bob"]) is None
    assert store.session_holder("b" * 64, 1010.0, 60.0) is None
    assert store.session_holder("a" * 64, 1010.0, 60.0) == (ants, ann)
    assert store.author_by_token(tokens["ants/ann"]) == ants
    assert [m.revoked for m in store.members_of("ants")] == [False, True]
    with pytest.raises(LadderError, match="'ants/bob' is revoked already"):
        store.revoke_member("ants", "bob", by=None)
    with pytest.raises(LadderError, match="no member 'ants/zed'"):
        store.revoke_member("ants", "zed", by=None)
    # A new token brings the member back; the old one stays refused.
    new = store.new_token("ants", "bob", by=None)
    found = store.holder_by_token(new)
    assert found is not None and found[1].name == "bob" and not found[1].revoked
    assert store.holder_by_token(tokens["ants/bob"]) is None
    assert [(a["author"], a["member"], a["action"], a["subject"]) for a in store.actions()[-2:]] == [
        ("org", "org/teach", "revoke-member", "ants/bob"),
        (None, None, "new-token", "ants/bob"),
    ]


def test_a_version_3_store_is_upgraded_in_place_each_authors_token_its_one_member(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    old_store(folder, 3, {"alice": "tok-alice", "bob": "tok-bob"})
    store = LadderStore.open(folder)
    with sqlite3.connect(folder / "ladder.sqlite") as c:
        assert c.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA_VERSION),)
        assert "token_sha256" not in [r[1] for r in c.execute("PRAGMA table_info(authors)")]
    for name in ("alice", "bob"):
        found = store.holder_by_token(f"tok-{name}")  # the old token keeps working...
        assert found is not None and (found[0].name, found[1].name) == (name, name)  # ...as the team's one member
        assert store.session_holder(session_digest(name), 1010.0, 60.0) == found  # and so does its session
    assert store.actions()[0]["member"] is None  # an older arena's entry
    # The upgraded store takes new members and revokes them as a new one does.
    _roster(store, b"team,member\nalice,al2\n")
    store.revoke_member("alice", "alice", by=None)
    assert store.holder_by_token("tok-alice") is None and store.session_holder(session_digest("alice"), 1010.0, 60.0) is None
    assert store.holder_by_token("tok-bob") is not None
    store.close()


def test_the_log_names_the_member_as_team_slash_member(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    _roster(store)
    store.set_paused(True, "org/teach")
    store.set_paused(False, "org")  # a team's name alone (an older caller): no member
    assert [(a["author"], a["member"]) for a in store.actions()[-2:]] == [("org", "org/teach"), ("org", None)]


def test_every_member_of_the_owning_team_may_see_and_nobody_else_but_the_organisers(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    _roster(store)
    ants, bees, org = (store.author_named(n) for n in ("ants", "bees", "org"))
    assert Viewer(ants, None, "ann").may_see("ants") and Viewer(ants, None, "bob").may_see("ants")
    assert not Viewer(bees, None, "cy").may_see("ants") and not Viewer(None).may_see("ants")
    assert Viewer(org, None, "teach").may_see("ants") and Viewer(org, None, "teach").may_see(None)
    assert Viewer(ants, None, "ann").actor == "ants/ann" and Viewer(ants).actor == "ants" and Viewer(None).actor is None


# -- over HTTP: who reads what ------------------------------------------------------------------


class Teams(Ladder):
    """The API's ladder (alice, bob, banned eve, org) and a class: ants (ann, bob), bees (cy),
    and ants' failed version 1 of 'greedy', with a build log and a check report."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path)
        self.tokens.update(_roster(self.store, b"team,member\nants,ann\nants,bob\nbees,cy\norg,teach\n"))
        assert self.submit("ants/ann", bot_archive()).status_code == 202
        report = {"passed": False, "checks": [{"name": "no crash", "status": "fail", "detail": "crash"}],
                  "first_failure": {"check": "no crash", "reason": "crash", "replay": "arena play", "evidence": ["SECRET-EVIDENCE"]}}  # fmt: skip
        self.store.set_state(1, State.FAILED, reason="no crash: fail", report=report, build_log="SECRET-BUILD-LOG")

    def browser(self, who: str) -> Browser:
        b = Browser(self)
        assert b.login(who).status_code == 303
        return b


@pytest.fixture
def teams(tmp_path: Path) -> Teams:
    return Teams(tmp_path)


def test_each_member_of_the_team_reads_its_report_on_the_api_and_another_team_does_not(teams: Teams) -> None:
    for who in ("ants/ann", "ants/bob", "org/teach", "org"):
        assert teams.request("GET", "/api/submissions/1", who).json()["build_log"] == "SECRET-BUILD-LOG", who
    for who in ("bees/cy", "alice", None):
        assert "build_log" not in teams.request("GET", "/api/submissions/1", who).json(), who


def test_each_member_of_the_team_reads_its_logs_on_the_pages_and_another_team_does_not(teams: Teams) -> None:
    for who in ("ants/ann", "ants/bob", "org/teach"):
        assert "SECRET-BUILD-LOG" in teams.browser(who).request("GET", "/bots/greedy/v1").text, who
    page = teams.browser("bees/cy").request("GET", "/bots/greedy/v1").text
    assert "SECRET-BUILD-LOG" not in page and "SECRET-EVIDENCE" not in page


def test_a_revoked_token_is_refused_at_once_on_the_api_and_its_page_session_ends(teams: Teams) -> None:
    bob = teams.browser("ants/bob")
    assert bob.signed_in_as() == "ants"
    r = teams.request("DELETE", "/api/authors/ants/members/bob", "org/teach")
    assert r.status_code == 200 and r.json() == {"author": "ants", "member": "bob", "revoked": True}
    # The page session: signed out at once, the private parts gone.
    assert bob.signed_in_as() is None
    assert "SECRET-BUILD-LOG" not in bob.request("GET", "/bots/greedy/v1").text
    # The API: refused where a token is needed, no more than anyone elsewhere.
    refused = teams.submit("ants/bob", bot_archive())
    assert refused.status_code == 401 and refused.json() == {"error": "unknown token"}
    assert "build_log" not in teams.request("GET", "/api/submissions/1", "ants/bob").json()
    # Signing in again with it is refused; the team's other member goes on.
    again = Browser(teams).login("ants/bob")
    assert again.status_code == 401 and "unknown token" in again.text
    assert teams.submit("ants/ann", bot_archive()).status_code == 202
    assert teams.browser("ants/ann").signed_in_as() == "ants"


def test_only_an_organiser_revokes_or_renews_a_token(teams: Teams) -> None:
    for who, status in (("ants/ann", 403), ("bees/cy", 403), (None, 401)):
        assert teams.request("DELETE", "/api/authors/ants/members/bob", who).status_code == status
        assert teams.request("POST", "/api/authors/ants/members/bob/token", who).status_code == status
    assert teams.request("DELETE", "/api/authors/ants/members/zed", "org/teach").status_code == 404
    assert teams.request("DELETE", "/api/authors/org/members/teach", "org/teach").status_code == 400  # not oneself
    bad = teams.request("DELETE", "/api/authors/ants/members/%3Cb%3E", "org/teach")
    assert bad.status_code == 400 and "'<b>'" in bad.json()["error"]
    r = teams.request("POST", "/api/authors/ants/members/bob/token", "org/teach")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    assert teams.request("GET", "/api/submissions/1", r.json()["token"]).json()["build_log"] == "SECRET-BUILD-LOG"
    assert teams.submit("ants/bob", bot_archive()).status_code == 401  # the old token


def test_every_action_in_the_log_names_the_member_who_did_it(teams: Teams) -> None:
    teams.request("POST", "/api/ladder/pause", "org/teach")
    teams.request("DELETE", "/api/authors/ants/members/bob", "org/teach")
    actions = teams.request("GET", "/api/log", "org/teach").json()["actions"]
    done = [(a["member"], a["action"], a["subject"]) for a in actions if a["member"]]
    assert done == [
        ("ants/ann", "submit", "greedy v1"),
        ("org/teach", "pause", "ladder"),
        ("org/teach", "revoke-member", "ants/bob"),
    ]
    assert all(a["author"] == (a["member"] or "").split("/")[0] for a in actions if a["member"])


def test_the_header_shows_team_and_member_and_the_team_page_its_members_not_their_tokens(teams: Teams) -> None:
    page = teams.browser("ants/bob").request("GET", "/").text
    assert 'signed in as <b id="signed-in">ants</b>/<b id="signed-in-member">bob</b>' in page
    team = teams.request("GET", "/authors/ants").text
    assert re.findall(r"<li>(\w+)", team) == ["ann", "bob"] and 'href="/bots/greedy"' in team
    assert not any(t in team for t in teams.tokens.values())
    assert teams.request("GET", "/api/authors/ants").json() == {
        "author": "ants", "admin": False, "banned": False, "members": [{"member": "ann"}, {"member": "bob"}], "bots": ["greedy"],
    }  # fmt: skip
    teams.store.revoke_member("ants", "bob", by=None)
    assert [m["member"] for m in teams.request("GET", "/api/authors/ants").json()["members"]] == ["ann"]
    own = teams.request("GET", "/api/authors/ants", "ants/ann").json()["members"]
    assert own == [{"member": "ann", "revoked": False}, {"member": "bob", "revoked": True}]
    assert teams.request("GET", "/authors/nobody").status_code == 404


def test_team_and_member_names_an_older_store_holds_are_escaped_on_every_page_and_api(tmp_path: Path) -> None:
    """The rule keeps hostile names out; a name that got in anyway (written by hand, an older
    arena) is still shown as text: header, team page, bots page, API."""
    ladder = Ladder(tmp_path)
    names = [n for n in HOSTILE if "\ud800" not in n and "/" not in n]
    for i, name in enumerate(names):
        ladder.tokens[f"h{i}"] = ladder.store.add_author(name)
        who = ladder.store.author_named(name)
        assert who is not None
        ladder.store.add_submission(who, f"bot{i}", ("python3", "bot.py"), None, ("a.tar.gz", 1, "00"), State.PASSED)
    for i, name in enumerate(names):
        b = Browser(ladder)
        assert b.login(f"h{i}").status_code == 303
        for url in ("/", "/bots", f"/bots/bot{i}", f"/bots/bot{i}/v1", "/login", "/submit", "/final"):
            page = b.request("GET", url).text
            for raw in ("<script>alert(1)</script>", "<img src=x", "\u202e", "\x1b", "\x00", "\x07", "\x9b", "\u200b"):
                assert raw not in page, (url, name, raw)
    team = ladder.request("GET", "/api/authors/ants")  # a fit name's team page: the hostile ones are no team's
    assert team.status_code == 404
    log = ladder.request("GET", "/api/log", "org").json()["actions"]
    assert {a["subject"] for a in log if a["action"] == "add-author"} >= set(names)  # JSON: data, as it is
    for raw_url in ("/authors/%3Cscript%3E", "/authors/%E2%80%AEx", "/authors/%1B%5B2J"):
        r = ladder.request("GET", raw_url)
        assert r.status_code == 404 and "<script>" not in r.text and "\u202e" not in r.text and "\x1b" not in r.text
        api = ladder.request("GET", "/api" + raw_url)
        assert api.status_code == 404 and api.headers["content-type"].startswith("application/json")


# -- the command line -------------------------------------------------------------------------------


@pytest.fixture
def ladder_file(tmp_path: Path) -> Path:
    from tests.unit.ladder.test_ladder_api import LEAGUE

    path = tmp_path / "ladder.yaml"
    path.write_text(LEAGUE)
    return path


def test_add_authors_writes_the_tokens_once_to_a_new_file_only_the_organiser_reads(ladder_file: Path) -> None:
    roster = ladder_file.parent / "roster.csv"
    roster.write_bytes(ROSTER)
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-authors", str(roster)])
    assert done.exit_code == 0, done.output
    assert "3 team(s) and 4 member(s) added" in done.stdout
    path = Path(done.stdout.strip().rsplit(" ", 1)[-1])
    assert path.parent == roster.parent and path.name.startswith("roster-tokens-") and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    lines = path.read_text().splitlines()
    assert lines[0] == "team,member,token" and len(lines) == 5
    store = LadderStore.open(ladder_file.parent / "results")
    team, member, token = lines[2].split(",")
    found = store.holder_by_token(token)
    assert found is not None and (found[0].name, found[1].name) == (team, member) == ("ants", "bob")
    assert token not in done.output  # the tokens are in the file only
    # A chosen file that exists is never written over, and then nothing is added.
    roster.write_bytes(b"team,member\ncows,dan\n")
    exists = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-authors", str(roster), "--tokens-file", str(path)])
    assert exists.exit_code == 2 and "exists already" in exists.stderr and path.read_text().count("\n") == 5
    assert store.author_named("cows") is None


def test_add_authors_refuses_a_faulty_roster_whole_and_leaves_no_tokens_file(ladder_file: Path) -> None:
    roster = ladder_file.parent / "roster.csv"
    roster.write_bytes(b"team,member\ncows,dan\nants,<b>\n")
    out = ladder_file.parent / "tokens.csv"
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-authors", str(roster), "--tokens-file", str(out)])
    assert done.exit_code == 2 and "line 3: name '<b>'" in done.stderr
    CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "ants"])
    roster.write_bytes(b"team,member\ncows,dan\nants,ants\n")  # a member present already: found in the store
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-authors", str(roster), "--tokens-file", str(out)])
    assert done.exit_code == 2 and "line 3: member 'ants' of team 'ants' is present already; nothing was added" in done.stderr
    assert not out.exists() and LadderStore.open(ladder_file.parent / "results").author_named("cows") is None


def test_revoke_member_and_new_token_on_the_command_line(ladder_file: Path) -> None:
    token = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "ants"]).stdout.strip()
    store = LadderStore.open(ladder_file.parent / "results")
    assert store.holder_by_token(token) is not None  # --add-author: a team of one member named after it
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--revoke-member", "ants/ants"])
    assert done.exit_code == 0 and "member 'ants/ants' revoked" in done.stdout
    assert store.holder_by_token(token) is None
    again = CliRunner().invoke(main, ["serve", str(ladder_file), "--revoke-member", "ants/ants"])
    assert again.exit_code == 2 and "revoked already" in again.stderr
    new = CliRunner().invoke(main, ["serve", str(ladder_file), "--new-token", "ants/ants"])
    assert new.exit_code == 0 and "shown only this once" in new.stderr
    assert store.holder_by_token(new.stdout.strip()) is not None
    bad = CliRunner().invoke(main, ["serve", str(ladder_file), "--revoke-member", "ants"])
    assert bad.exit_code == 2 and "give TEAM/MEMBER" in bad.stderr
    lone = CliRunner().invoke(main, ["serve", str(ladder_file), "--tokens-file", "x.csv"])
    assert lone.exit_code == 2 and "--tokens-file goes with --add-authors" in lone.stderr


# -- the final ----------------------------------------------------------------------------------------


def test_the_final_plays_each_team_once_and_its_page_and_api_name_the_team_and_its_members(teams: Teams) -> None:
    import json

    from arena.ladder.final import ENTRIES_KEY, final_entries, kept_entries

    teams.store.set_state(1, State.PASSED)
    bees = teams.store.author_named("bees")
    assert bees is not None
    teams.store.add_submission(bees, "wasp", ("python3", "bot.py"), None, ("a.tar.gz", 1, "00"), State.PASSED)
    teams.store.revoke_member("ants", "bob", by=None)  # revoked before the field froze: not listed
    entries = final_entries(teams.store, [])
    assert [(e.author, e.bot, e.members) for e in entries] == [("ants", "greedy", ("ann",)), ("bees", "wasp", ("cy",))]
    teams.store.keep(ENTRIES_KEY, json.dumps([{**e.__dict__, "command": list(e.command)} for e in entries]))
    page = teams.request("GET", "/final").text
    assert re.search(r'<a href="/authors/ants">ants</a></td><td class="members">ann</td>', page), page
    assert [(e["author"], e["members"]) for e in teams.request("GET", "/api/final").json()["entries"]] == [
        ("ants", ["ann"]),
        ("bees", ["cy"]),
    ]
    # A field an older arena froze, without members, still reads.
    teams.store.keep(ENTRIES_KEY, json.dumps([{k: v for k, v in e.__dict__.items() if k != "members"} | {"command": []} for e in entries]))
    assert [e.members for e in kept_entries(teams.store)] == [(), ()]
    assert teams.request("GET", "/final").status_code == 200


def test_member_names_an_older_store_holds_are_escaped_on_the_final_page(teams: Teams) -> None:
    import json

    from arena.ladder.final import ENTRIES_KEY, FinalEntry

    names = tuple(n for n in HOSTILE if "\ud800" not in n)
    entry = FinalEntry("ants", "greedy", 1, 1, 1, None, ("python3", "bot.py"), names)
    teams.store.keep(ENTRIES_KEY, json.dumps([{**entry.__dict__, "command": list(entry.command), "members": list(names)}]))
    page = teams.request("GET", "/final").text
    assert "&lt;script&gt;" in page
    for raw in ("<script>alert(1)</script>", "<img src=x", "\u202e", "\x1b", "\x00", "\x07", "\x9b"):
        assert raw not in page, repr(raw)
    assert teams.request("GET", "/api/final").json()["entries"][0]["members"] == list(names)  # data, in JSON


def test_each_member_of_the_team_reads_its_bots_stderr_in_a_game_and_nobody_else(teams: Teams) -> None:
    from dataclasses import replace

    from arena.league.schedule import ScheduledGame
    from arena.league.store import ResultStore
    from tests.support.results_folder import record

    rec = record("g1", 1)
    seats = (replace(rec.seats[0], name="greedy.v1", stderr_tail="ANTS-STDERR"), replace(rec.seats[1], name="one", stderr_tail="HOUSE-STDERR"))
    rec = replace(rec, seats=seats)
    with ResultStore.create(teams.ladder.folder) as results:
        results.set_meta(config={"name": "t", "bots": [{"name": "greedy.v1"}, {"name": "one"}]})
        results.save_game(ScheduledGame(0, "g1", 1, ("greedy.v1", "one"), rec.seed), rec)
    bob = teams.browser("ants/bob")
    for who, browser in (("ants/ann", teams.browser("ants/ann")), ("ants/bob", bob)):
        page = browser.request("GET", "/games/g1").text
        assert "ANTS-STDERR" in page and "HOUSE-STDERR" not in page, who
    assert "HOUSE-STDERR" in teams.browser("org/teach").request("GET", "/games/g1").text
    page = teams.browser("bees/cy").request("GET", "/games/g1").text
    assert "ANTS-STDERR" not in page and "HOUSE-STDERR" not in page
    teams.store.revoke_member("ants", "bob", by=None)
    assert "ANTS-STDERR" not in bob.request("GET", "/games/g1").text  # at once: the session ended


def test_the_finals_teams_csv_lists_each_team_with_its_members_escaped_for_a_spreadsheet() -> None:
    import csv
    import io

    from arena.ladder.final import FinalEntry, teams_csv

    entries = [
        FinalEntry("ants", "greedy", 3, 7, 1, 1, ("python3", "bot.py"), ("ann", "bob")),
        FinalEntry("+1+1", "wasp", 1, 8, 2, None, ("python3", "bot.py"), ("=cmd", "\x1b[2Jcy")),
    ]
    rows = list(csv.reader(io.StringIO(teams_csv(entries))))
    assert rows[0] == ["team", "members", "version", "seed"]
    assert rows[1] == ["ants", "ann bob", "greedy.v3", "1"]
    assert rows[2][0] == "'+1+1" and rows[2][1].startswith("'=cmd") and "\x1b" not in rows[2][1]


def test_the_log_page_shows_the_organisers_who_did_what_and_nobody_else(teams: Teams) -> None:
    teams.request("POST", "/api/ladder/pause", "org/teach")
    teams.store.log("ants/ann", "note", "<script>alert(1)</script>", "\x1b[2J\u202edetail")
    page = teams.browser("org/teach").request("GET", "/log")
    assert page.status_code == 200
    rows = re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>", page.text)
    assert rows[:2] == [("ants/ann", "note"), ("org/teach", "pause")] and ("ants/ann", "submit") in rows
    assert ("ladder", "failed") in rows  # the ladder's own verdict
    for raw in ("<script>alert(1)</script>", "\x1b", "\u202e"):
        assert raw not in page.text
    for who in ("ants/ann", "bees/cy"):
        refused = teams.browser(who).request("GET", "/log")
        assert refused.status_code == 403 and "for the organisers" in refused.text and "<script>alert" not in refused.text
    assert teams.request("GET", "/log").status_code == 403


def test_the_default_tokens_file_is_beside_the_roster_and_leaves_the_results_folder_servable(
    ladder_file: Path,
) -> None:
    # A class added before the ladder's first start: the first `arena serve` must not find a
    # file of someone else's in its results folder (it would refuse to start).
    roster = ladder_file.parent / "class.csv"
    roster.write_bytes(b"team,member\ncows,dan\n")
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-authors", str(roster)])
    assert done.exit_code == 0, done.output
    written = list(ladder_file.parent.glob("class-tokens-*.csv"))
    assert len(written) == 1 and str(written[0]) in done.output
    assert stat.S_IMODE(written[0].stat().st_mode) == 0o600
    results = ladder_file.parent / "results"
    assert not list(results.glob("*tokens*"))
    claim_folder(results, str(ladder_file))  # refuses a folder holding files not the arena's
