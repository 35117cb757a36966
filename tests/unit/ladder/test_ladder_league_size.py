"""Issue 30, item 10: no author's data fails the league for everyone.  A command of 4,096
non-ASCII characters (the form's limit) in every version, and versions past the 24 that made
the league's file of an older arena pass the 1 MiB tournament-file limit: the league is still
made, from the ladder file and the roster in ``ladder.sqlite``, and what the league's process
is handed does not grow with the versions.  A ladder folder of the older arena goes on."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import yaml

from arena.ladder.jobfiles import LeagueJob
from arena.ladder.league_job import league_of
from arena.ladder.roster import league_config, league_data, roster, roster_key
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State
from arena.league.config import load_config
from arena.league.results_folder import claim_folder
from arena.textfile import TOURNAMENT_FILE_MAX_BYTES
from tests.support.ladder_helpers import ladder_file
from tests.unit.ladder.test_ladder_api import Ladder

# 4,096 characters of the command form, none of them ASCII but the program: what an older
# arena wrote as 10 bytes of escape each (\U0001F600).
WIDE_COMMAND = ("python3", "bot.py", "\U0001f600" * 4082)
VERSIONS = 30


def _passed_versions(store: LadderStore, count: int) -> None:
    store.add_author("alice")
    who = store.authors()[0]
    for i in range(count):
        sub = store.add_submission(who, f"bot{i}", WIDE_COMMAND, None, ("bot.tar.gz", 10, "00"))
        store.set_state(sub.id, State.PASSED)


def test_thirty_versions_of_the_widest_command_still_make_a_league_that_loads(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    _passed_versions(store, VERSIONS)
    data = league_data(ladder, roster(store))
    # The league's file the older arena wrote: past the limit, so its league was 'failed'.
    assert len(yaml.safe_dump(data, allow_unicode=False).encode()) > TOURNAMENT_FILE_MAX_BYTES
    # The league's process is handed the ladder file and the budget, not the roster ...
    job = LeagueJob(ladder.league.path, ladder.text, 0)
    handed = job.write(ladder.folder)
    assert handed.stat().st_size < len(ladder.text) + 1024
    # ... and makes the whole league from the store.
    config = league_of(LeagueJob.read(handed))
    assert [b.name for b in config.bots][2:] == [f"bot{i}.v1" for i in range(VERSIONS)]
    assert all(b.command == WIDE_COMMAND for b in config.bots[2:])
    # A ban retires the versions, and they stay in the league's standings: nothing fails.
    for i in range(VERSIONS):
        store.set_bot_banned(f"bot{i}", True, by="org")
    assert all(b.retired for b in league_config(ladder, store).bots[2:])


def test_what_a_version_adds_to_the_league_is_bounded_by_its_command(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    _passed_versions(store, 2)

    def size() -> int:
        # The league as its process reads it (UTF-8 text), and the key the service polls.
        data = league_data(ladder, roster(store))
        return len(yaml.safe_dump(data, allow_unicode=True, width=1 << 30).encode())

    before = size()
    who = store.authors()[0]
    sub = store.add_submission(who, "one-more", WIDE_COMMAND, None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, State.PASSED)
    added = size() - before
    # 4 bytes a character of the command, and the name and folder around it.
    assert added <= 4 * len(" ".join(WIDE_COMMAND)) + 512
    assert len(roster_key(ladder, store)) == 64


def test_a_bot_toml_command_longer_than_the_forms_limit_is_refused(tmp_path: Path) -> None:
    """A version sent without a command runs as its bot.toml says: that command is bounded as
    the form's is, so no version adds more to the league than the form allows."""
    ladder = Ladder(tmp_path)
    toml = f'command = ["python3", "bot.py", "{"x" * 5000}"]\n'.encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("bot.py", b"print('hi')\n"), ("bot.toml", toml)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    r = ladder.request("POST", "/api/bots", "alice", data={"name": "kit"}, files={"archive": ("b.tgz", buf.getvalue())})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "the archive's command must be at most 4096 characters, with no NUL"
    assert ladder.store.passed() == [] and ladder.store.bot_owner("kit") is None


def test_a_ladder_folder_of_the_older_arena_keeps_its_league_unchanged(tmp_path: Path) -> None:
    """The older arena wrote its league as ``ladder-league.yaml``; the league made from the
    store now is the same tournament (the stored games stay comparable, nothing is replayed),
    and the folder is still a results folder with the league's new job file in it."""
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    _passed_versions(store, 3)
    old_file = ladder.folder / "ladder-league.yaml"
    data = league_data(ladder, roster(store))
    old_file.write_text("# Written by `arena serve`\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=False))
    assert league_config(ladder, store).raw == load_config(old_file).raw
    LeagueJob(ladder.league.path, ladder.text, 5).write(ladder.folder)
    claim_folder(ladder.folder, "ladder.yaml")  # no file in it is foreign (no results.sqlite yet)
    assert json.loads((ladder.folder / "ladder-league.json").read_text())["games_before"] == 5


def test_the_roster_key_the_service_polls_changes_exactly_when_the_league_does(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    _passed_versions(store, 2)
    key = roster_key(ladder, store)
    assert roster_key(ladder, store) == key
    store.add_author("bob")
    assert roster_key(ladder, store) == key  # not the league's business
    store.set_bot_banned("bot0", True, by="org")  # bot0.v1 retired
    retired = roster_key(ladder, store)
    assert retired != key
    who = store.authors()[0]
    sub = store.add_submission(who, "bot1", ("python3", "bot.py"), None, ("bot.tar.gz", 10, "00"))
    assert roster_key(ladder, store) == retired  # not passed yet
    store.set_state(sub.id, State.PASSED)
    assert roster_key(ladder, store) != retired


def test_many_bots_of_one_author_raise_the_budget_to_the_first_phase_and_never_fail_the_league(tmp_path: Path) -> None:
    """A continuous league refuses a budget short of its first phase (every meeting once): the
    ladder's max_games (here 2000) is raised to it, or 70 bots would fail the league for all."""
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    who = store.authors()[0]
    for i in range(70):
        sub = store.add_submission(who, f"many{i}", ("python3", "bot.py"), None, ("bot.tar.gz", 10, "00"))
        store.set_state(sub.id, State.PASSED)
    config = league_config(ladder, store, games_before=10)
    assert config.continuous.max_games == 72 * 71 // 2 * 2  # 72 bots, 2 games a meeting
    store.set_bot_banned("many0", True, by="org")
    assert league_config(ladder, store).continuous.max_games == 71 * 70  # retired: not in the first phase
    store.add_submission(who, "late", ("python3", "bot.py"), None, ("bot.tar.gz", 10, "00"))
    assert league_config(ladder, store, games_before=9000).continuous.max_games == 11000  # the budget, when more


def test_a_command_holding_a_nul_character_is_refused_at_the_door(tmp_path: Path) -> None:
    """The league's reader refuses a NUL in any value: a version holding one would fail the
    league for everyone, so no version takes one in."""
    ladder = Ladder(tmp_path)
    r = ladder.submit("alice", _archive({"bot.py": b"print('hi')\n"}), command="python3 bot.py a\x00b")
    assert r.status_code == 400 and r.json()["error"] == "'command' holds a NUL character"
    toml = b'command = ["python3", "bot.py", "a\\u0000b"]\n'
    r = ladder.request(
        "POST", "/api/bots", "alice", data={"name": "kit"},
        files={"archive": ("b.tgz", _archive({"bot.py": b"print('hi')\n", "bot.toml": toml}))},
    )  # fmt: skip
    assert r.status_code == 400 and "with no NUL" in r.json()["error"]
    assert ladder.store.bot_owner("kit") is None and ladder.store.bot_owner("greedy") is None


def _archive(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()
