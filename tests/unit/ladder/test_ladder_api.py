"""The ladder's HTTP API, in process over httpx's ASGI transport: the token rules, the quotas,
the upload limit, hostile archives refused by name, and who sees what."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.ladder.app import make_app
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State

REPO = Path(__file__).resolve().parents[3]
LEAGUE = f"""\
name: t
players: 2
format: continuous
cwd: {REPO}
output: results
bots:
  - {{name: one, command: {sys.executable} sample_bots/random_bot.py}}
  - {{name: two, command: {sys.executable} sample_bots/random_bot.py}}
ladder:
  quotas: {{versions_per_hour: 3, versions_per_day: 5, mb_per_day: 2}}
  archive: {{max_mb: 1, unpacked_mb: 4, files: 50, depth: 4}}
"""


class Ladder:
    """An app over a fresh ladder, its store, and tokens for alice, bob, a banned eve and an admin."""

    def __init__(self, tmp_path: Path, text: str = LEAGUE) -> None:
        (tmp_path / "ladder.yaml").write_text(text)
        self.ladder = load_ladder(tmp_path / "ladder.yaml")
        self.store = LadderStore.open(self.ladder.folder)
        self.tokens = {name: self.store.add_author(name, admin=name == "org") for name in ("alice", "bob", "eve", "org")}
        self.store.set_banned("eve", True, by="org")
        self.app = make_app(self.ladder, self.store, start_queue=False)

    def request(self, method: str, url: str, who: str | None = None, **kw: Any) -> httpx.Response:
        headers = dict(kw.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {self.tokens.get(who, who)}"

        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://ladder.test") as client:
                return await client.request(method, url, headers=headers, **kw)

        return asyncio.run(go())

    def submit(self, who: str | None, archive: bytes, name: str = "greedy", **fields: str) -> httpx.Response:
        data = {"name": name, "command": "python3 bot.py", **fields}
        return self.request("POST", "/api/bots", who, data=data, files={"archive": ("bot.tar.gz", archive)})


def bot_archive(extra: int = 0) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("bot.py", b"print('hello')\n"), ("pad.bin", os.urandom(extra))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


def test_a_version_is_received_numbered_and_unpacked(ladder: Ladder) -> None:
    sent = bot_archive()
    r = ladder.submit("alice", sent)
    assert r.status_code == 202, r.text
    body = r.json()
    assert (body["bot"], body["version"], body["state"]) == ("greedy", 1, "unpacked")
    assert body["status_url"] == f"/api/submissions/{body['id']}"
    assert ladder.submit("alice", bot_archive(), build="make -s").json()["version"] == 2
    sub = ladder.store.submission(body["id"])
    assert sub is not None and sub.command == ("python3", "bot.py") and sub.state is State.UNPACKED
    assert [s.id for s in ladder.store.pending()] == [1, 2] and sub.archive_bytes == len(sent)
    folder = ladder.ladder.folder / "submissions" / str(body["id"])
    assert (folder / "archive").read_bytes() == sent  # kept: a restart redoes it from here
    # Unpacked beside the results folder, never in it (issue 30).
    assert (ladder.ladder.versions_folder / str(body["id"]) / "bot.py").read_text() == "print('hello')\n"
    assert not [p for p in (ladder.ladder.folder / "submissions").iterdir() if p.name.startswith(".incoming")]


def test_a_version_sent_without_a_command_runs_as_its_bot_toml_says(ladder: Ladder) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("MyBot.c", b"int main(void) { return 0; }\n"), ("bot.toml", b'command = "./MyBot"\nbuild = "make -s"\n')):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    r = ladder.request("POST", "/api/bots", "alice", data={"name": "kit"}, files={"archive": ("b.tgz", buf.getvalue())})
    assert r.status_code == 202, r.text
    sub = ladder.store.submission(r.json()["id"])
    assert sub is not None and sub.command == ("./MyBot",) and sub.build == ("make", "-s")


def test_a_version_without_a_command_whose_bot_toml_is_wrong_is_refused_naming_the_key(ladder: Ladder) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(b"comand = 'x'\n")
        tar.addfile(info, io.BytesIO(b"comand = 'x'\n"))
    r = ladder.request("POST", "/api/bots", "alice", data={"name": "kit"}, files={"archive": ("b.tgz", buf.getvalue())})
    assert r.status_code == 400
    assert r.json()["error"] == "no 'command' given, and the archive/bot.toml: unknown key 'comand' (a bot.toml has command and build)"


@pytest.mark.parametrize(
    ("who", "status", "needle"),
    [
        (None, 401, "no token"),
        ("not-a-token", 401, "unknown token"),
        ("eve", 403, "author 'eve' is banned"),
    ],
    ids=["no-token", "wrong-token", "banned"],
)
def test_a_submission_needs_the_token_of_an_author_in_good_standing(
    ladder: Ladder, who: str | None, status: int, needle: str
) -> None:
    r = ladder.submit(who, bot_archive())
    assert r.status_code == status and needle in r.json()["error"]
    if status == 401:
        assert r.headers["www-authenticate"] == "Bearer"
    assert ladder.store.submissions() == []


def test_a_malformed_authorization_header_is_no_token(ladder: Ladder) -> None:
    r = ladder.request("POST", "/api/bots", headers={"Authorization": ladder.tokens["alice"]})
    assert r.status_code == 401


def test_another_authors_token_sees_only_public_fields_and_cannot_take_the_name(ladder: Ladder) -> None:
    sid = ladder.submit("alice", bot_archive()).json()["id"]
    ladder.store.set_state(sid, State.FAILED, "legal-moves: fail", {"checks": [], "secret": "stderr tail"}, "build log")
    mine = ladder.request("GET", f"/api/submissions/{sid}", "alice").json()
    assert mine["report"]["secret"] == "stderr tail" and mine["build_log"] == "build log"
    for who in ("bob", None, "not-a-token"):
        theirs = ladder.request("GET", f"/api/submissions/{sid}", who).json()
        assert theirs["state"] == "failed" and "report" not in theirs and "build_log" not in theirs, who
    assert "report" in ladder.request("GET", f"/api/submissions/{sid}", "org").json()  # the organiser sees all
    r = ladder.submit("bob", bot_archive())
    assert r.status_code == 409 and "belongs to another author" in r.json()["error"]
    r = ladder.submit("bob", bot_archive(), name="one")
    assert r.status_code == 409 and "'one' is a bot of the league itself" in r.json()["error"]


def test_the_bots_list_holds_public_fields_only(ladder: Ladder) -> None:
    ladder.submit("alice", bot_archive())
    ladder.submit("bob", bot_archive(), name="mcts")
    bots = ladder.request("GET", "/api/bots").json()["bots"]
    assert [(b["bot"], b["author"], len(b["versions"])) for b in bots] == [("greedy", "alice", 1), ("mcts", "bob", 1)]
    assert set(bots[0]["versions"][0]) == {"id", "bot", "version", "author", "state", "received", "updated"}


def test_the_hourly_quota_answers_429_with_retry_after_and_spares_others(ladder: Ladder) -> None:
    for _ in range(3):
        assert ladder.submit("alice", bot_archive()).status_code == 202
    r = ladder.submit("alice", bot_archive())
    assert r.status_code == 429 and "at most 3 versions per hour" in r.json()["error"]
    assert 3500 <= int(r.headers["retry-after"]) <= 3601
    assert len(ladder.store.submissions()) == 3  # the refused one is not stored
    assert ladder.submit("bob", bot_archive(), name="other").status_code == 202
    for _ in range(5):
        assert ladder.submit("org", bot_archive(), name="house").status_code == 202  # admins have no quota


def test_the_daily_byte_quota_counts_every_archive(ladder: Ladder) -> None:
    big = bot_archive(extra=800_000)  # random: it does not compress
    assert ladder.submit("alice", big).status_code == 202
    assert ladder.submit("alice", big).status_code == 202
    r = ladder.submit("alice", big)
    assert r.status_code == 429 and "archive bytes per day" in r.json()["error"] and "retry-after" in r.headers


def test_an_archive_over_the_limit_answers_413_and_nothing_is_kept(ladder: Ladder) -> None:
    r = ladder.submit("alice", bot_archive(extra=1_200_000))
    assert r.status_code == 413 and "up to" in r.json()["error"]
    assert ladder.store.submissions() == []
    assert list((ladder.ladder.folder / "submissions").iterdir()) == []


def _tar_of(*infos: tarfile.TarInfo) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info in infos:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isreg() else None)
    return buf.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", size: int = 1) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, size if kind == tarfile.REGTYPE else 0
    return info


def _zip_bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb", b"\0" * (8 * 1024 * 1024))
    return buf.getvalue()


@pytest.mark.parametrize(
    ("archive", "needle"),
    [
        (_tar_of(_info("../../evil")), "parent path: '../../evil'"),
        (_tar_of(_info("/etc/evil")), "absolute path: '/etc/evil'"),
        (_tar_of(_info("etc", tarfile.SYMTYPE, "/etc")), "link: 'etc': a link to '/etc'"),
        (_tar_of(_info("fifo", tarfile.FIFOTYPE)), "special file: 'fifo'"),
        (_tar_of(*[_info(f"f{i}") for i in range(60)]), "file count: 'f50'"),
        (_zip_bomb(), "unpacked size: 'bomb'"),
        (b"just text", "format: 'bot.tar.gz': not a tar"),
    ],
    ids=["dotdot", "absolute", "link-to-etc", "fifo", "too-many-files", "zip-bomb", "not-an-archive"],
)
def test_a_hostile_archive_answers_400_naming_the_rule_and_the_file(ladder: Ladder, archive: bytes, needle: str) -> None:
    r = ladder.submit("alice", archive)
    assert r.status_code == 400 and needle in r.json()["error"], r.text
    (sub,) = ladder.store.submissions()
    assert sub.state is State.REFUSED and needle in (sub.reason or "")
    assert not (ladder.ladder.versions_folder / str(sub.id)).exists()
    assert ladder.store.pending() == []  # never built, never checked
    assert not (ladder.ladder.folder.parent / "evil").exists()


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"command": "python3 bot.py"}, "bot name ''"),
        ({"name": "../x", "command": "python3 bot.py"}, "bot name '../x'"),
        ({"name": "ok"}, "no 'command' given, and the archive: no bot here: looked for bot.toml, MyBot.py"),
        ({"name": "ok", "command": "'unclosed"}, "cannot split"),
    ],
    ids=["no-name", "bad-name", "no-command", "bad-command"],
)
def test_a_bad_form_answers_400_saying_what_was_wrong(ladder: Ladder, data: dict[str, str], needle: str) -> None:
    r = ladder.request("POST", "/api/bots", "alice", data=data, files={"archive": ("b.tgz", bot_archive())})
    assert r.status_code == 400 and needle in r.json()["error"]
    r = ladder.request("POST", "/api/bots", "alice", data={"name": "ok", "command": "x"})
    assert r.status_code == 400 and "the form needs 'archive'" in r.json()["error"]
    assert ladder.store.submissions() == []


def test_closed_submissions_answer_403(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path, LEAGUE.replace("ladder:\n", "ladder:\n  submit: admins\n"))
    r = ladder.submit("alice", bot_archive())
    assert r.status_code == 403 and "closed" in r.json()["error"]
    assert ladder.submit("org", bot_archive()).status_code == 202


def test_unknown_things_answer_json_404s(ladder: Ladder) -> None:
    for url in ("/api/submissions/99", "/api/submissions/abc", "/nowhere"):
        r = ladder.request("GET", url)
        assert r.status_code == 404 and "error" in r.json(), url
    r = ladder.request("DELETE", "/api/bots")
    assert r.status_code == 405 and "error" in r.json()


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("POST", "/api/ladder/pause"),
        ("POST", "/api/ladder/resume"),
        ("POST", "/api/authors/bob/ban"),
        ("GET", "/api/log"),
        ("POST", "/api/bots/greedy/retire"),
        ("POST", "/api/bots/greedy/ban"),
    ],
)
def test_the_organisers_actions_need_an_admin_token(ladder: Ladder, method: str, url: str) -> None:
    assert ladder.submit("bob", bot_archive()).status_code == 202  # the bot the bot actions act on
    assert ladder.request(method, url).status_code == 401
    r = ladder.request(method, url, "alice")
    assert r.status_code == 403 and "not an admin" in r.json()["error"]
    assert ladder.request(method, url, "org").status_code == 200
    assert ladder.request(method, url, "eve").status_code == 403  # banned


def test_an_admin_pauses_bans_and_every_action_is_logged(ladder: Ladder) -> None:
    status = ladder.request("GET", "/api/ladder").json()
    assert {k: v for k, v in status.items() if k != "league"} == {
        "name": "t", "paused": False, "submit": "authors", "waiting": 0,
        "deadline": None, "submissions_closed": False, "closed_because": None,
    }  # fmt: skip
    assert status["league"]["state"] == "stopped"  # this app's league loop was not started
    assert ladder.request("POST", "/api/ladder/pause", "org").json() == {"paused": True}
    assert ladder.store.paused()
    assert ladder.submit("alice", bot_archive()).status_code == 202  # paused: still taken, not checked
    assert ladder.request("GET", "/api/ladder").json()["waiting"] == 1
    assert ladder.request("POST", "/api/authors/alice/ban", "org").json() == {"author": "alice", "banned": True}
    assert ladder.submit("alice", bot_archive()).status_code == 403
    assert ladder.request("DELETE", "/api/authors/alice/ban", "org").json()["banned"] is False
    assert ladder.submit("alice", bot_archive()).status_code == 202
    r = ladder.request("POST", "/api/authors/nobody/ban", "org")
    assert r.status_code == 404 and "no author 'nobody'" in r.json()["error"]
    assert ladder.request("POST", "/api/authors/org/ban", "org").status_code == 400
    ladder.request("POST", "/api/ladder/resume", "org")
    log = ladder.request("GET", "/api/log", "org").json()["actions"]
    done = [(a["author"], a["action"], a["subject"]) for a in log if a["action"] != "add-author"]
    assert done == [
        ("org", "ban", "eve"),
        ("org", "pause", "ladder"),
        ("alice", "submit", "greedy v1"),
        ("org", "ban", "alice"),
        ("org", "unban", "alice"),
        ("alice", "submit", "greedy v2"),
        ("org", "resume", "ladder"),
    ]
    assert not ladder.store.paused()


def test_an_admin_retires_and_bans_a_bot_and_a_banned_bot_takes_no_new_version(ladder: Ladder) -> None:
    assert ladder.submit("alice", bot_archive()).status_code == 202
    r = ladder.request("POST", "/api/bots/greedy/retire", "org")
    assert r.status_code == 200 and r.json() == {"bot": "greedy", "retired_through": 1}
    assert ladder.submit("alice", bot_archive()).status_code == 202  # a later version joins again
    assert ladder.request("POST", "/api/bots/greedy/ban", "org").json() == {"bot": "greedy", "banned": True}
    r = ladder.submit("alice", bot_archive())
    assert r.status_code == 403 and "bot 'greedy' is banned" in r.json()["error"]
    assert ladder.request("DELETE", "/api/bots/greedy/ban", "org").json()["banned"] is False
    assert ladder.submit("alice", bot_archive()).status_code == 202
    for url in ("/api/bots/nobody/retire", "/api/bots/nobody/ban"):
        r = ladder.request("POST", url, "org")
        assert r.status_code == 404 and "no bot 'nobody'" in r.json()["error"]
    log = [(a["author"], a["action"], a["subject"], a["detail"]) for a in ladder.request("GET", "/api/log", "org").json()["actions"]]
    assert ("org", "retire", "greedy", "versions 1-1") in log
    assert ("org", "ban-bot", "greedy", "") in log and ("org", "unban-bot", "greedy", "") in log


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("b" * 57, 400, "must be 1-56 of"),  # the league adds '.vN' to the 64 a name may have
        ("one", 409, "a bot of the league itself"),
        ("bad name", 400, "must be 1-56 of"),
    ],
)
def test_a_bot_name_that_cannot_play_in_the_league_is_refused(ladder: Ladder, name: str, status: int, needle: str) -> None:
    r = ladder.submit("alice", bot_archive(), name=name)
    assert r.status_code == status and needle in r.json()["error"]
    assert ladder.store.submissions() == []


def test_a_house_bot_named_like_a_version_keeps_its_name_free(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path, LEAGUE.replace("name: one,", "name: ant.v1,"))
    r = ladder.submit("alice", bot_archive(), name="ant")  # ant's v1 would play as 'ant.v1'
    assert r.status_code == 409 and "a bot of the league itself" in r.json()["error"]


def test_each_kit_is_offered_as_a_download_of_the_files_arena_new_writes(ladder: Ladder) -> None:
    kits = Path(__file__).resolve().parents[3] / "kits"
    r = ladder.request("GET", "/kits/rust.tar.gz")
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
    assert r.headers["content-disposition"] == 'attachment; filename="rust-bot.tar.gz"'
    with tarfile.open(fileobj=io.BytesIO(r.content)) as tar:
        got = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]
    want = {f"my-bot/{p.relative_to(kits / 'rust')}": p.read_bytes() for p in (kits / "rust").rglob("*") if p.is_file()}
    assert got == want
    assert ladder.request("GET", "/kits/rust.tar.gz").content == r.content  # the same bytes every time
    missing = ladder.request("GET", "/kits/cobol.tar.gz")
    assert missing.status_code == 404 and "the kits are python, javascript" in missing.json()["error"]
