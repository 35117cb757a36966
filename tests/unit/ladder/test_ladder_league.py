"""The ladder's league: which versions play (the roster), the league file it writes, the
store's upgrade, and for real: versions that pass join the league served by ``arena serve``,
retire their previous version, and nothing is lost to a kill -9 or a SIGTERM.

The cases that need no process; the others are in tests/system/ladder/test_ladder_league.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.errors import LadderError
from arena.ladder.names import version_of
from arena.ladder.roster import league_config, league_data, league_name, roster
from arena.ladder.settings import load_ladder
from arena.ladder.store import SCHEMA_VERSION, LadderStore, State, Submission
from arena.league.changes import compare_files
from tests.support.ladder_helpers import (
    ladder_file,
)
from tests.support.ladder_v3 import old_store


def _submit(store: LadderStore, author: str, bot: str, state: State = State.PASSED) -> Submission:
    who = next(a for a in store.authors() if a.name == author)
    sub = store.add_submission(who, bot, ["python3", "bot.py"], None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, state, reason="test")
    found = store.submission(sub.id)
    assert found is not None
    return found


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


def test_the_league_is_a_tournament_that_grows_only_at_its_end(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    _submit(store, "alice", "ant")
    config = league_config(ladder, store)
    assert [b.name for b in config.bots] == ["house-a", "house-b", "ant.v1"]
    assert config.output == ladder.folder
    ant = config.bots[2]
    # A version plays from its folder beside the results folder, never inside it (issue 30),
    # and the house bots (started from the repository's root) see none of the versions' folders.
    assert ant.cwd == tmp_path / "results-bots" / "1" and ant.command == ("python3", "bot.py")
    assert str(tmp_path / "results-bots") in config.bots[0].sandbox.hidden
    before = league_data(ladder, roster(store))["bots"]
    _submit(store, "alice", "ant")
    after = league_data(ladder, roster(store))["bots"]
    # Only the retire of v1 and the new bot at the end: the stored games stay comparable.
    assert after[:2] == before[:2] and after[2] == {**before[2], "retired": True}
    assert after[3]["name"] == "ant.v2" and len(after) == 4
    assert [b.name for b in league_config(ladder, store).bots if not b.retired] == ["house-a", "house-b", "ant.v2"]
    # max_games is a budget per roster: it counts from the games the league had when it changed.
    assert league_data(ladder, roster(store))["max_games"] == 2000
    assert league_config(ladder, store, 1234).continuous.max_games == 3234


def test_a_version_an_older_arena_unpacked_in_the_results_folder_plays_there_until_it_is_moved(tmp_path: Path) -> None:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    old, new = _submit(store, "alice", "ant"), _submit(store, "alice", "bee")
    (ladder.folder / "submissions" / str(old.id) / "bot").mkdir(parents=True)  # as it was unpacked
    ant, bee = league_config(ladder, store).bots[2:]
    assert ant.cwd == ladder.folder / "submissions" / str(old.id) / "bot"  # as the league stored it
    assert bee.cwd == ladder.versions_folder / str(new.id)
    # The league file an older arena wrote had no 'hidden': adding it replays nothing.
    now = league_data(ladder, roster(store))
    assert compare_files({k: v for k, v in now.items() if k != "hidden"}, now).refused == []


def test_a_version_1_ladder_store_is_upgraded_with_everything_kept(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    old_store(folder, 1, {"alice": "tok-alice"})
    s = LadderStore.open(folder)
    author = s.author_by_token("tok-alice")
    assert author is not None and author.name == "alice"
    assert s.bot_flags() == {}
    with sqlite3.connect(folder / "ladder.sqlite") as c:
        assert c.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA_VERSION),)
    s.close()


def test_a_version_2_ladder_store_is_upgraded_with_sessions_and_everything_kept(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    old_store(folder, 2, {"alice": "tok-alice"})
    s = LadderStore.open(folder)
    author = s.author_by_token("tok-alice")
    assert author is not None
    s.begin_session(author, "0" * 64, 1000.0, 60.0)
    assert s.session_author("0" * 64, 1030.0, 60.0) == author
    s.close()


def test_a_command_of_any_text_reaches_the_league_unchanged(tmp_path: Path) -> None:
    """An author's command words (YAML's own characters, a newline, a terminal escape) are data."""
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    who = store.authors()[0]
    words = ("python3", "bot.py", "key: value", "- item", "# not a comment", "line\nbreak", "\x1b[2J", "{a: [b]}", "*alias")
    sub = store.add_submission(who, "ant", words, None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, State.PASSED)
    config = league_config(ladder, store)
    assert config.bots[-1].name == "ant.v1" and config.bots[-1].command == words


def test_the_console_line_of_an_action_is_printable_and_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """A check's reason quotes the bot: its escapes and its length stop at the organiser's terminal."""
    from arena.cli.ladder_cmds import _print_action

    _print_action({"at": 0.0, "author": None, "action": "failed", "subject": "submission 1", "detail": "\x1b[2J\x07boom\r" + "x" * 10_000})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "ladder: failed submission 1: \\x1b[2J" in out and len(out) <= 2001  # and a newline


