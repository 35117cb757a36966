"""A ladder a teacher can leave running (issue 30): names that cannot take over a version's
page, ids and damaged archives answered 4xx not 500, a failed version's command shown to its
author only, uploads cut off mid-way leaving no numbered version without its folder, a
foreign file never touched, and the small messages in human terms."""

from __future__ import annotations

import io
import re
import sqlite3
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.durations import describe_seconds
from arena.errors import ArchiveRefused, ConfigError, LadderError
from arena.ladder import client
from arena.ladder.names import BOT_NAME_MAX, check_bot_name
from arena.ladder.session import SESSION_COOKIE
from arena.ladder.settings import ArchiveLimits
from arena.ladder.store import LADDER_STORE_NAME, LadderStore, State, Submission
from arena.ladder.unpack import unpack
from tests.unit.ladder.test_ladder_api import REPO, Ladder, bot_archive

# -- 12: ids and damaged archives answer 4xx ---------------------------------------------------


def _xz_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        data = b"".join(b"line %d of the bot\n" % i for i in range(5000))
        info = tarfile.TarInfo("bot.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(data: bytes = b"".join(b"line %d of the bot\n" % i for i in range(5000))) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.py", data)
    return buf.getvalue()


def _flip(data: bytes, at: int) -> bytes:
    damaged = bytearray(data)
    damaged[at] ^= 0xFF
    return bytes(damaged)


def _encrypted(data: bytes) -> bytes:
    """The zip with its entry marked encrypted (flag bit 0, local and central headers)."""
    marked = bytearray(data)
    marked[6] |= 1
    central = marked.find(b"PK\x01\x02")
    marked[central + 8] |= 1
    return bytes(marked)


DAMAGED = {
    "corrupt xz": (_flip(_xz_tar(), len(_xz_tar()) // 2), "a.tar.xz", "damaged entry"),
    "corrupt zip deflate": (_flip(_zip(), 120), "a.zip", "damaged entry"),
    "encrypted zip entry": (_encrypted(_zip()), "a.zip", "encrypted entry"),
}


@pytest.mark.parametrize("case", list(DAMAGED), ids=list(DAMAGED))
def test_a_damaged_archive_is_refused_by_name_and_leaves_nothing(case: str, tmp_path: Path) -> None:
    data, name, rule = DAMAGED[case]
    with pytest.raises(ArchiveRefused) as e:
        unpack(data, tmp_path / "bot", ArchiveLimits(), name)
    assert e.value.rule == rule
    assert str(e.value).startswith(f"archive refused: {rule}: 'bot.py': ")  # the entry, by name
    assert not (tmp_path / "bot").exists()


@pytest.mark.parametrize("case", list(DAMAGED), ids=list(DAMAGED))
def test_a_damaged_archive_uploaded_is_answered_400(case: str, tmp_path: Path) -> None:
    data, name, rule = DAMAGED[case]
    ladder = Ladder(tmp_path)
    r = ladder.request(
        "POST", "/api/bots", "alice", data={"name": "greedy", "command": "python3 bot.py"}, files={"archive": (name, data)}
    )
    assert r.status_code == 400, r.text
    assert r.json()["error"].startswith(f"archive refused: {rule}: ")


@pytest.mark.parametrize("raw", ["%C2%B2", "%D9%A3", "1%C2%B2"], ids=["superscript two", "arabic three", "one squared"])
def test_a_submission_id_of_unicode_digits_is_not_found(raw: str, tmp_path: Path) -> None:
    r = Ladder(tmp_path).request("GET", f"/api/submissions/{raw}")
    assert r.status_code == 404, r.text
    assert "no submission" in r.json()["error"]


def test_a_content_length_of_unicode_digits_is_not_a_crash(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)
    r = ladder.request("POST", "/api/bots", "alice", content=b"x", headers={"Content-Length": b"\xb2"})
    assert r.status_code < 500, r.text


# -- 11: a bot's name never reads as another's version -----------------------------------------


@pytest.mark.parametrize("name", ["alicebot.v1", "x.v0", "my.bot+2.v17"])
def test_a_bot_name_that_reads_as_a_version_name_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match=r"reads as version [0-9]+ of bot .*NAME\.vN"):
        check_bot_name(name)


@pytest.mark.parametrize("name", ["alicebot", "alice.v", "alice.v1x", "v1", "alice.version1"])
def test_a_bot_name_that_only_looks_versioned_is_taken(name: str) -> None:
    assert check_bot_name(name) == name


def test_another_author_cannot_take_over_a_versions_page(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)
    assert ladder.submit("alice", bot_archive(), name="alicebot").status_code == 202
    r = ladder.submit("bob", bot_archive(), name="alicebot.v1")
    assert r.status_code == 400, r.text
    assert "reads as version 1 of bot 'alicebot'" in r.json()["error"]
    assert [s.bot for s in ladder.store.submissions()] == ["alicebot"]


# -- 16: a foreign file given as ladder.sqlite is refused untouched -----------------------------


def test_a_foreign_sqlite_file_is_refused_without_being_switched_to_wal(tmp_path: Path) -> None:
    foreign = tmp_path / LADDER_STORE_NAME
    conn = sqlite3.connect(foreign)
    conn.executescript("CREATE TABLE grades (pupil TEXT, mark REAL); INSERT INTO grades VALUES ('ann', 17.5);")
    conn.close()
    before = foreign.read_bytes()
    with pytest.raises(LadderError, match="is not a ladder store"):
        LadderStore.open(tmp_path)
    assert foreign.read_bytes() == before, "the foreign file was changed (switched to WAL?)"
    assert sorted(p.name for p in tmp_path.iterdir()) == [LADDER_STORE_NAME], "no -wal, -shm or folder beside it"


def test_a_ladder_store_of_a_newer_arena_is_refused_untouched(tmp_path: Path) -> None:
    LadderStore.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / LADDER_STORE_NAME)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("UPDATE meta SET value='9' WHERE key='schema'")
    conn.commit()
    conn.close()
    before = (tmp_path / LADDER_STORE_NAME).read_bytes()
    with pytest.raises(LadderError, match="schema version '9' is newer than this arena"):
        LadderStore.open(tmp_path)
    assert (tmp_path / LADDER_STORE_NAME).read_bytes() == before


# -- 15: an upload cut off leaves no numbered version without its folder ------------------------


class Killed(Exception):
    """The service killed (kill -9) at this point of an upload."""


def _kill_at_rename(monkeypatch: pytest.MonkeyPatch, nth: int, after: bool) -> None:
    """Kill the service at the ``nth`` folder rename of an upload, before or after it is done."""
    real = Path.rename
    seen = [0]

    def rename(self: Path, target: str | Path) -> Path:
        seen[0] += 1
        if seen[0] == nth and not after:
            raise Killed(f"killed before renaming {self} to {target}")
        moved = real(self, target)
        if seen[0] == nth:
            raise Killed(f"killed after renaming {self} to {target}")
        return moved

    monkeypatch.setattr(Path, "rename", rename)


def _every_version_has_its_folders(ladder: Ladder) -> None:
    for sub in ladder.store.submissions():
        kept = ladder.ladder.folder / "submissions" / str(sub.id) / "archive"
        assert kept.is_file(), f"{sub.bot} v{sub.version} is numbered without its archive"
        assert ladder.ladder.version_folder(sub.id).is_dir(), f"{sub.bot} v{sub.version} is numbered without its folder"


@pytest.mark.parametrize(("nth", "after"), [(1, False), (2, False), (2, True)], ids=["before the archive's rename", "before the folder's rename", "after both renames"])
def test_an_upload_killed_mid_way_numbers_no_version_without_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nth: int, after: bool
) -> None:
    ladder = Ladder(tmp_path)
    assert ladder.submit("alice", bot_archive(), name="first").status_code == 202
    with monkeypatch.context() as m:
        _kill_at_rename(m, nth, after)
        with pytest.raises(Killed):
            ladder.submit("alice", bot_archive(), name="greedy")
    assert [(s.bot, s.version) for s in ladder.store.submissions()] == [("first", 1)]
    _every_version_has_its_folders(ladder)
    # The next upload takes the number again, over whatever the killed one left.
    r = ladder.submit("alice", bot_archive(), name="greedy")
    assert r.status_code == 202, r.text
    assert (r.json()["version"], r.json()["id"]) == (1, 2)
    _every_version_has_its_folders(ladder)
    assert (ladder.ladder.version_folder(2) / "bot.py").read_bytes() == b"print('hello')\n"


# -- 19: the small ones ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (45, "45 s"), (59.2, "1 min"), (60, "1 min"), (2275, "38 min"), (3600, "1 h"), (3601, "1 h 1 min"), (86400, "24 h")],
)
def test_a_wait_is_said_in_human_units_never_sooner(seconds: float, text: str) -> None:
    assert describe_seconds(seconds) == text


def test_the_quota_message_says_when_in_human_units(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path)
    for _ in range(3):
        assert ladder.submit("alice", bot_archive()).status_code == 202
    r = ladder.submit("alice", bot_archive())
    assert r.status_code == 429 and 3500 <= int(r.headers["retry-after"]) <= 3601  # the header stays in seconds
    assert re.search(r"try again in (59 min|60 min|1 h)$", r.json()["error"]), r.json()["error"]


@pytest.mark.parametrize("name", ["bad name", "b" * (BOT_NAME_MAX + 1), ""])
def test_a_refused_bot_name_states_the_documented_limit(name: str) -> None:
    with pytest.raises(ConfigError, match=f"must be 1-{BOT_NAME_MAX} of "):
        check_bot_name(name)


def test_the_docs_state_the_bot_name_limit_of_the_code() -> None:
    assert check_bot_name("b" * BOT_NAME_MAX)
    stated = {
        doc.name: re.findall(r"[Bb]ot(?:'s)? names?(?: are|:) 1-([0-9]+) of", doc.read_text(encoding="utf-8"))
        for doc in (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
    }
    assert stated["ladder-api.md"], "the API's docs state the bot name's limit"
    assert {n for found in stated.values() for n in found} == {str(BOT_NAME_MAX)}, stated


def test_submit_wait_prints_the_stderr_tail_of_a_failed_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the API gives the author (and the signed-in page shows) of a failed check."""
    failed = {
        "state": "failed",
        "reason": "no crash: fail: crash: exit 1 (game 1)",
        "report": {
            "checks": [{"name": "no crash", "status": "fail", "detail": "crash: exit 1 (game 1)"}],
            "first_failure": {
                "check": "no crash",
                "reason": "crash: exit 1",
                "replay": "arena play ...",
                "evidence": ["its stderr (last 2 lines of 80 bytes):", "  Traceback (most recent call last):", "  ZeroDivisionError: division by zero\x1b[2J"],
            },
        },
    }
    monkeypatch.setenv("ARENA_TOKEN", "t")
    monkeypatch.setattr(client, "submit", lambda *a: {"bot": "greedy", "version": 1, "status_url": "/api/submissions/1"})
    monkeypatch.setattr(client, "wait_for_verdict", lambda *a: failed)
    (tmp_path / "greedy").mkdir()
    done = CliRunner().invoke(main, ["submit", "http://ladder.test", str(tmp_path / "greedy"), "--command", "./bot", "--wait"])
    assert done.exit_code == 1, done.output
    assert "  ZeroDivisionError: division by zero" in done.stdout and "its stderr (last 2 lines" in done.stdout
    assert "\x1b" not in done.stdout  # the bot's text is escaped


# -- 13: a failed version's command and the server's folder, for its author only ----------------


@pytest.fixture
def failed_to_start(tmp_path: Path) -> Ladder:
    """Alice's greedy v1, failed at its start: its reason and check quote its command and folder
    as the arena's startup failure does."""
    ladder = Ladder(tmp_path)
    assert ladder.submit("alice", bot_archive(), name="greedy", command="python3 secret_sauce.py --depth 9").status_code == 202
    folder = ladder.ladder.version_folder(1)
    detail = (
        f"startup failure: cannot start {'python3 secret_sauce.py --depth 9'!r} in {str(folder)!r}: "
        f"[Errno 2] No such file or directory: {str(folder / 'secret_sauce.py')!r} (game 1)"
    )
    check = {"name": "starts", "status": "fail", "detail": detail, "games": 1}
    report = {"passed": False, "checks": [check], "first_failure": None, "command": ["python3", "secret_sauce.py", "--depth", "9"]}
    ladder.store.set_state(1, State.FAILED, reason=f"starts: fail: {detail}", report=report)
    return ladder


def _page(ladder: Ladder, url: str, who: str | None) -> str:
    headers = {}
    if who is not None:
        author = ladder.store.author_named(who)
        assert author is not None
        headers["Cookie"] = f"{SESSION_COOKIE}={ladder.app.state.service.sign_in(author, None)}"
    r = ladder.request("GET", url, headers=headers)
    assert r.status_code == 200, r.text
    return r.text


@pytest.mark.parametrize("url", ["/bots/greedy", "/bots/greedy/v1"])
@pytest.mark.parametrize("who", [None, "bob"], ids=["anyone", "another author"])
def test_a_failed_versions_public_reason_withholds_its_command_and_folder(
    failed_to_start: Ladder, url: str, who: str | None
) -> None:
    text = _page(failed_to_start, url, who)
    assert "secret_sauce" not in text and "--depth 9" not in text
    assert str(failed_to_start.ladder.folder) not in text and str(failed_to_start.ladder.versions_folder) not in text
    assert "startup failure: cannot start its command in its folder: [Errno 2]" in text  # the reason still says what


@pytest.mark.parametrize("url", ["/bots/greedy", "/bots/greedy/v1"])
@pytest.mark.parametrize("who", ["alice", "org"], ids=["its author", "an organiser"])
def test_its_author_reads_the_whole_reason(failed_to_start: Ladder, url: str, who: str) -> None:
    text = _page(failed_to_start, url, who)
    assert "cannot start &#39;python3 secret_sauce.py --depth 9&#39; in &#39;" + str(failed_to_start.ladder.version_folder(1)) in text


def test_withheld_takes_the_command_as_quoted_and_every_path_in_the_folders() -> None:
    version = Submission(1, "alice", "greedy", 1, ("python3", "my bot.py"), None, "a", 1, State.FAILED, None, None, None, 0, 0)
    text = (
        "cannot start \"python3 my bot.py\" in '/srv/results-bots/1': no file '/srv/results-bots/1/my bot.py'; "
        "/srv/results-bots/12/x and /srv/results/ladder.sqlite, not /srv/resultsx"
    )
    folders = [Path("/srv/results-bots/1"), Path("/srv/results-bots"), Path("/srv/results"), Path("/")]
    assert version.withheld(text, folders) == (
        "cannot start its command in its folder: no file its folder; its folder and its folder, not /srv/resultsx"
    )
