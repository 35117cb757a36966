"""The ladder's league: which versions play (the roster), the league file it writes, the
store's upgrade, and for real: versions that pass join the league served by ``arena serve``,
retire their previous version, and nothing is lost to a kill -9 or a SIGTERM."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.errors import LadderError
from arena.ladder.league import LeagueLoop
from arena.ladder.roster import league_name, league_text, roster, version_of, write_league_file
from arena.ladder.settings import load_ladder
from arena.ladder.store import SCHEMA_VERSION, LadderStore, State, Submission
from arena.league.changes import compare_files
from arena.league.config import load_config
from tests.ladder_helpers import (
    ARENA,
    REPO,
    Server,
    add_author,
    bot_folder,
    env,
    ladder_file,
    standings_rows,
    submission,
    wait_until,
)


def _submit(store: LadderStore, author: str, bot: str, state: State = State.PASSED) -> Submission:
    who = next(a for a in store.authors() if a.name == author)
    sub = store.add_submission(who, bot, ["python3", "bot.py"], None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, state, reason="test")
    found = store.submission(sub.id)
    assert found is not None
    return found


@pytest.fixture
def store(tmp_path: Path) -> LadderStore:
    s = LadderStore.open(tmp_path / "results")
    for name in ("alice", "bob"):
        s.add_author(name)
    return s


def _active(store: LadderStore) -> dict[str, bool]:
    return {e.name: e.active for e in roster(store)}


def test_each_bots_newest_passed_version_plays_and_the_older_ones_are_retired(store: LadderStore) -> None:
    _submit(store, "alice", "ant")
    _submit(store, "bob", "bee")
    _submit(store, "alice", "ant", State.FAILED)  # v2 failed: v1 plays on
    assert _active(store) == {"ant.v1": True, "bee.v1": True}
    _submit(store, "alice", "ant")  # v3 passed
    _submit(store, "bob", "bee", State.CHECKING)  # not passed yet: not in the league
    assert _active(store) == {"ant.v1": False, "bee.v1": True, "ant.v3": True}
    assert [e.name for e in roster(store)] == ["ant.v1", "bee.v1", "ant.v3"]  # in the order they passed


def test_the_organisers_retire_and_ban_and_a_banned_author_take_bots_out(store: LadderStore) -> None:
    _submit(store, "alice", "ant")
    _submit(store, "bob", "bee")
    assert store.retire_bot("ant", by="org") == 1
    assert _active(store) == {"ant.v1": False, "bee.v1": True}
    _submit(store, "alice", "ant")  # a version after the retire joins again
    assert _active(store)["ant.v2"] is True
    store.set_bot_banned("ant", True, by="org")
    assert _active(store)["ant.v2"] is False
    store.set_bot_banned("ant", False, by="org")
    assert _active(store)["ant.v2"] is True
    store.set_banned("bob", True, by="org")
    assert _active(store)["bee.v1"] is False
    with pytest.raises(LadderError, match="no bot 'cat'"):
        store.retire_bot("cat", by="org")
    with pytest.raises(LadderError, match="no bot 'cat'"):
        store.set_bot_banned("cat", True, by="org")
    logged = [(a["author"], a["action"], a["subject"]) for a in store.actions()]
    assert ("org", "retire", "ant") in logged and ("org", "ban-bot", "ant") in logged


def test_league_names_carry_the_version_and_house_names_have_none(store: LadderStore) -> None:
    sub = _submit(store, "alice", "my.bot+2")
    assert league_name(sub) == "my.bot+2.v1"
    assert version_of("my.bot+2.v1") == ("my.bot+2", 1)
    assert version_of("house-greedy") is None
    assert version_of("x.v") is None


def test_the_league_file_is_a_tournament_file_that_grows_only_at_its_end(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    _submit(store, "alice", "ant")
    first = write_league_file(ladder, league_text(ladder, store))
    config = load_config(first)
    assert [b.name for b in config.bots] == ["house-a", "house-b", "ant.v1"]
    assert config.output == ladder.folder
    ant = config.bots[2]
    # A version plays from its folder beside the results folder, never inside it (issue 30),
    # and the house bots (started from the repository's root) see none of the versions' folders.
    assert ant.cwd == tmp_path / "results-bots" / "1" and ant.command == ("python3", "bot.py")
    assert str(tmp_path / "results-bots") in config.bots[0].sandbox.hidden
    before = yaml.safe_load(first.read_text())["bots"]
    _submit(store, "alice", "ant")
    after = yaml.safe_load(write_league_file(ladder, league_text(ladder, store)).read_text())["bots"]
    # Only the retire of v1 and the new bot at the end: the stored games stay comparable.
    assert after[:2] == before[:2] and after[2] == {**before[2], "retired": True}
    assert after[3]["name"] == "ant.v2" and len(after) == 4
    assert [b.name for b in load_config(first).bots if not b.retired] == ["house-a", "house-b", "ant.v2"]
    # max_games is a budget per roster: it counts from the games the league had when it changed.
    assert yaml.safe_load(league_text(ladder, store))["max_games"] == 2000
    assert load_config(write_league_file(ladder, league_text(ladder, store, 1234))).continuous.max_games == 3234


def test_a_version_an_older_arena_unpacked_in_the_results_folder_stays_there(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    old, new = _submit(store, "alice", "ant"), _submit(store, "alice", "bee")
    (ladder.folder / "submissions" / str(old.id) / "bot").mkdir(parents=True)  # as it was unpacked
    ant, bee = load_config(write_league_file(ladder, league_text(ladder, store))).bots[2:]
    assert ant.cwd == ladder.folder / "submissions" / str(old.id) / "bot"  # as the league stored it
    assert bee.cwd == ladder.versions_folder / str(new.id)
    # The league file an older arena wrote had no 'hidden': adding it replays nothing.
    now = yaml.safe_load(league_text(ladder, store))
    assert compare_files({k: v for k, v in now.items() if k != "hidden"}, now).refused == []


def test_a_version_1_ladder_store_is_upgraded_with_everything_kept(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    s = LadderStore.open(folder)
    token = s.add_author("alice")
    s.close()
    with sqlite3.connect(folder / "ladder.sqlite") as c:  # as version 1 wrote it
        c.execute("DROP TABLE bots")
        c.execute("UPDATE meta SET value='1' WHERE key='schema'")
    s = LadderStore.open(folder)
    author = s.author_by_token(token)
    assert author is not None and author.name == "alice"
    assert s.bot_flags() == {}
    with sqlite3.connect(folder / "ladder.sqlite") as c:
        assert c.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA_VERSION),)
    s.close()


def _games(results: Path) -> int:
    with sqlite3.connect(f"file:{results / 'results.sqlite'}?mode=ro", uri=True, timeout=30) as c:
        return int(c.execute("SELECT count(*) FROM games").fetchone()[0])


def _league(url: str) -> dict[str, object]:
    import httpx

    league: dict[str, object] = httpx.get(f"{url}/api/ladder", timeout=30).json()["league"]
    return league


@pytest.mark.slow
def test_passed_versions_join_the_served_league_and_survive_kill_9_and_sigterm(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=400, house_b=str(REPO / "sample_bots" / "c" / "greedy"))
    results = home / "results"
    author_env = {**env(), "ARENA_TOKEN": add_author(ladder, "alice")}
    first = Server(ladder)
    servers.append(first)
    # The house bots' league plays at once, and stops when their order is sure.
    league = wait_until(lambda: _league(first.url), lambda s: s["state"] == "idle", 300)
    assert league["state"] == "idle" and "settled" in str(league["detail"]), league
    house_games = _games(results)
    assert house_games > 0

    def send(name: str) -> None:
        sent = subprocess.run(
            [*ARENA, "submit", first.url, str(bot_folder(home / f"{name}-{_games(results)}")), "--command",
             "python3 random_bot.py", "--name", name, "--wait", "--timeout", "10m"],
            capture_output=True, text=True, env=author_env, timeout=900,
        )  # fmt: skip
        assert sent.returncode == 0 and "PASSED" in sent.stdout, sent.stdout + sent.stderr

    # A broken bot is refused with the check's words, and a replay its author can run at home.
    broken = home / "broken"
    broken.mkdir()
    shutil.copy(REPO / "tests" / "broken_bots" / "illegal_move.py", broken / "bot.py")
    refused = subprocess.run(
        [*ARENA, "submit", first.url, str(broken), "--command", "python3 bot.py", "--wait", "--timeout", "10m"],
        capture_output=True, text=True, env=author_env, timeout=900,
    )  # fmt: skip
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "FAILED: legal-moves: fail: illegal_move" in refused.stdout
    replay = next(line for line in refused.stdout.splitlines() if "replay it: " in line)
    assert "arena:random" in replay and "--cwd" not in replay and str(home) not in replay and str(REPO) not in replay, replay
    assert "broken.v1" not in yaml.safe_load((results / "ladder-league.yaml").read_text())["bots"][-1]["name"]

    send("rnd")
    rows = wait_until(lambda: standings_rows(results), lambda r: r.get("rnd.v1", {}).get("games", 0) > 0, 300)
    assert rows["rnd.v1"]["games"] > 0 and not rows["rnd.v1"]["retired"], rows.keys()
    send("rnd")
    rows = wait_until(lambda: standings_rows(results), lambda r: r.get("rnd.v2", {}).get("games", 0) > 0, 300)
    assert rows["rnd.v2"]["games"] > 0 and rows["rnd.v1"]["retired"] is True, rows
    v1_games = rows["rnd.v1"]["games"]
    assert v1_games > 0  # its games keep counting
    league_file = yaml.safe_load((results / "ladder-league.yaml").read_text())
    assert [(b["name"], b.get("retired", False)) for b in league_file["bots"][2:]] == [("rnd.v1", True), ("rnd.v2", False)]
    assert league_file["max_games"] > 400  # the budget counts from the games before rnd.v2 joined

    # The organiser's console shows what happened, a line each.
    console = "\n".join(first.lines)
    assert "alice: submit rnd v1" in console and "ladder: passed submission 2: passed the check" in console
    assert "ladder: league-playing league: the league is playing: 2 house bots and 1 versions" in console

    # kill -9 while the league plays: every game and verdict is kept, the league resumes.
    assert _league(first.url)["state"] == "playing"
    before = _games(results)
    first.stop(signal.SIGKILL)
    second = Server(ladder)
    servers.append(second)
    assert _games(results) >= before
    states = [submission(second.url, sid, author_env["ARENA_TOKEN"])["state"] for sid in (1, 2, 3)]
    assert states == ["failed", "passed", "passed"]
    more = wait_until(lambda: _games(results), lambda n: n > before, 300)
    assert more > before
    assert standings_rows(results)["rnd.v1"]["games"] >= v1_games
    # SIGTERM drains: the league's process is stopped, the service exits 0 and frees the folder.
    assert second.stop(signal.SIGTERM) == 0
    assert not (results / ".arena-run.lock").exists()
    settled = _games(results)
    assert settled >= more


def test_a_command_of_any_text_reaches_the_league_file_unchanged(tmp_path: Path) -> None:
    """An author's command words (YAML's own characters, a newline, a terminal escape) are data."""
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    who = store.authors()[0]
    words = ("python3", "bot.py", "key: value", "- item", "# not a comment", "line\nbreak", "\x1b[2J", "{a: [b]}", "*alias")
    sub = store.add_submission(who, "ant", words, None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, State.PASSED)
    config = load_config(write_league_file(ladder, league_text(ladder, store)))
    assert config.bots[-1].name == "ant.v1" and config.bots[-1].command == words


def test_the_console_line_of_an_action_is_printable_and_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """A check's reason quotes the bot: its escapes and its length stop at the organiser's terminal."""
    from arena.cli.ladder_cmds import _print_action

    _print_action({"at": 0.0, "author": None, "action": "failed", "subject": "submission 1", "detail": "\x1b[2J\x07boom\r" + "x" * 10_000})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "ladder: failed submission 1: \\x1b[2J" in out and len(out) <= 2001  # and a newline


def test_a_league_tried_again_after_it_failed_is_failed_until_it_finishes_a_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 30: the health must not say ok while the league cannot play, retries included.
    ladder = load_ladder(ladder_file(tmp_path))
    loop = LeagueLoop(ladder, LadderStore.open(ladder.folder))
    children: list[subprocess.Popen[bytes]] = []
    games = [0]

    def child(module: str, args: list[str], out: Any) -> subprocess.Popen[bytes]:
        children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]))
        return children[-1]

    monkeypatch.setattr("arena.ladder.league.start_child", child)
    monkeypatch.setattr("arena.ladder.league.finished_games", lambda folder: games[0])
    try:
        loop._step()
        assert loop.status.state == "playing"
        children[-1].kill()  # the league's process dies: a house bot that does not build, say
        children[-1].wait(30)
        loop._step()
        assert loop.status.state == "failed" and "exit code -9" in loop.status.detail
        assert loop._failed is not None
        loop._failed = (loop._failed[0], 0.0)  # its pause is over
        loop._step()
        assert len(children) == 2 and children[-1].poll() is None
        assert loop.status.state == "failed" and "tried again: no game finished since" in loop.status.detail
        loop._step()
        assert loop.status.state == "failed"
        games[0] = 1  # it finished a game: it can play
        loop._step()
        assert loop.status.state == "playing"
    finally:
        for c in children:
            c.kill()
            c.wait(30)
