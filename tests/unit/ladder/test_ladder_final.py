"""The contest's end: the ladder file's ``deadline`` and ``final`` keys (a bad value named by
file, line and key), when submissions close, and the final tournament's file: each author's
last passing version, seeded by the ladder's standings, on the ladder's league settings.

The served final (a real server, a kill -9 during it) is in tests/system/ladder/test_ladder_final.py.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml

from arena.ladder.contest import FinalFormat, parse_deadline
from arena.ladder.deadline import ask_final, closed, deadline, final_asked, set_deadline
from arena.ladder.final import final_entries, final_text, needed
from arena.ladder.folders import final_folder
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State, Submission
from arena.league.config import load_config
from tests.unit.ladder.test_ladder_settings import error_of, write

UTC = dt.UTC


@pytest.mark.parametrize(
    ("ladder", "needle"),
    [
        ("ladder:\n  deadline: tomorrow\n", ":10: 'ladder.deadline' 'tomorrow' is not a time: write it as ISO 8601 with its zone"),
        ("ladder:\n  deadline: 2026-12-20\n", ":10: 'ladder.deadline' '2026-12-20' is a day without a time"),
        ("ladder:\n  deadline: '2026-12-20T18:00:00'\n", ":10: 'ladder.deadline' '2026-12-20T18:00:00' names no time zone"),
        ("ladder:\n  deadline: 2026-12-20 18:00:00\n", "'ladder.deadline' '2026-12-20T18:00:00' names no time zone"),
        ("ladder:\n  deadline: 20261220\n", ":10: 'ladder.deadline' must be a time like '2026-12-20T18:00:00Z', got 20261220"),
        ("ladder:\n  deadline: '2026-13-40T18:00Z'\n", "'ladder.deadline' '2026-13-40T18:00Z' is not a time"),
        ("ladder:\n  final: {format: swiss}\n", ":10: 'ladder.final.format' must be one of round_robin, gauntlet, got 'swiss'"),
        ("ladder:\n  final: {rounds: 0}\n", "'ladder.final.rounds' must be from 1 to 10000, got 0"),
        ("ladder:\n  final: {top: 2}\n", "'ladder.final.top' is a gauntlet's key: add 'format: gauntlet'"),
        ("ladder:\n  final: {format: gauntlet, top: 0}\n", "'ladder.final.top' must be from 1 to 1000, got 0"),
        ("ladder:\n  final: {games: 5}\n", "unknown key 'ladder.final.games'"),
        ("ladder:\n  deadline: [1]\n", "'ladder.deadline' must be a time like '2026-12-20T18:00:00Z', got [1]"),
    ],
)
def test_a_bad_deadline_or_final_is_named_by_file_line_and_key(tmp_path: Path, ladder: str, needle: str) -> None:
    message = error_of(tmp_path, ladder)
    assert message.startswith(str(tmp_path / "ladder.yaml"))
    assert needle in message


@pytest.mark.parametrize(
    "written",
    ["2026-12-20T19:00:00+01:00", "'2026-12-20T18:00:00Z'", "2026-12-20 18:00:00Z", "'2026-12-20T13:00-05:00'"],
)
def test_a_deadline_is_read_with_its_zone_as_utc(tmp_path: Path, written: str) -> None:
    ladder = load_ladder(write(tmp_path, f"ladder:\n  deadline: {written}\n"))
    assert ladder.settings.deadline == dt.datetime(2026, 12, 20, 18, tzinfo=UTC)


def test_the_final_keys_are_read_and_default_to_a_round_robin(tmp_path: Path) -> None:
    assert load_ladder(write(tmp_path, "ladder: {}\n")).settings.final.format is FinalFormat.ROUND_ROBIN
    assert load_ladder(write(tmp_path, "ladder: {}\n")).settings.deadline is None
    f = load_ladder(write(tmp_path, "ladder:\n  final: {format: gauntlet, rounds: 3, top: 2}\n")).settings.final
    assert (f.format, f.rounds, f.top) == (FinalFormat.GAUNTLET, 3, 2)


def _submit(store: LadderStore, author: str, bot: str, state: State = State.PASSED) -> Submission:
    who = next(a for a in store.authors() if a.name == author)
    sub = store.add_submission(who, bot, ["python3", "bot.py"], None, ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, state, reason="test")
    found = store.submission(sub.id)
    assert found is not None
    return found


def test_submissions_close_at_the_deadline_the_organiser_may_move_and_at_the_final(tmp_path: Path) -> None:
    ladder = load_ladder(write(tmp_path, "ladder:\n  deadline: 2026-12-20T18:00:00Z\n"))
    store = LadderStore.open(ladder.folder)
    before = dt.datetime(2026, 12, 20, 17, 59, 59, tzinfo=UTC)
    after = dt.datetime(2026, 12, 20, 18, tzinfo=UTC)
    assert closed(ladder, store, before) is None
    assert closed(ladder, store, after) == "submissions are closed: the deadline (2026-12-20 18:00:00 UTC) has passed"
    set_deadline(store, dt.datetime(2026, 12, 21, tzinfo=UTC), by="org")  # the organiser's wins over the file's
    assert closed(ladder, store, after) is None and deadline(ladder, store) == dt.datetime(2026, 12, 21, tzinfo=UTC)
    set_deadline(store, None, by="org")
    assert deadline(ladder, store) is None and closed(ladder, store, after + dt.timedelta(days=9)) is None
    assert not final_asked(store)
    assert ask_final(store, by="org") is True and ask_final(store, by="org") is False
    assert closed(ladder, store, before) == "submissions are closed: the final tournament has started"
    logged = [(a["author"], a["action"]) for a in store.actions()]
    assert ("org", "deadline") in logged and ("org", "final-asked") in logged


def test_parse_deadline_refuses_what_is_not_an_aware_time() -> None:
    assert parse_deadline("2026-12-20T18:00Z") == dt.datetime(2026, 12, 20, 18, tzinfo=UTC)
    with pytest.raises(ValueError, match="names no time zone"):
        parse_deadline("2026-12-20T18:00")
    with pytest.raises(ValueError, match="must be a time"):
        parse_deadline(None)


def _final_ladder(tmp_path: Path, final: str) -> tuple[Path, LadderStore]:
    path = write(tmp_path, f"hidden: [secret]\nladder:\n  final: {final}\n")
    store = LadderStore.open(load_ladder(path).folder)
    for name in ("alice", "bob", "carol", "dave"):
        store.add_author(name)
    return path, store


def test_the_final_plays_each_authors_last_passing_version_seeded_by_the_ladder(tmp_path: Path) -> None:
    path, store = _final_ladder(tmp_path, "{rounds: 3}")
    ladder = load_ladder(path)
    _submit(store, "alice", "ant")  # 1: ant.v1
    _submit(store, "bob", "bee")  # 2
    _submit(store, "alice", "ant")  # 3: ant.v2, alice's newest
    _submit(store, "carol", "cat")  # 4
    _submit(store, "alice", "ant", State.FAILED)  # 5: failed, ant.v2 stays alice's
    _submit(store, "bob", "wasp")  # 6: bob's last passing version, of another bot
    _submit(store, "dave", "dog")
    store.set_banned("dave", True, by="org")  # a banned author is not in the final
    rows = [{"bot": "cat.v1"}, {"bot": "house-a"}, {"bot": "ant.v2"}, {"bot": "ant.v1"}, {"bot": "bee.v1"}]
    entries = final_entries(store, rows)
    assert [(e.seed, e.author, e.version_name, e.ladder_rank) for e in entries] == [
        (1, "carol", "cat.v1", 1),
        (2, "alice", "ant.v2", 3),
        (3, "bob", "wasp.v1", None),  # no game in the ladder yet: seeded last
    ]
    text = final_text(ladder, entries)
    data = yaml.safe_load(text)
    assert [b["name"] for b in data["bots"]] == ["carol", "alice", "bob"]  # one bot per author, in seed order
    assert data["bots"][1]["cwd"] == str(ladder.version_folder(3)) and data["bots"][1]["command"] == ["python3", "bot.py"]
    assert (data["format"], data["rounds"], data["output"]) == ("round_robin", 3, str(final_folder(ladder.folder)))
    assert "max_games" not in data and "confidence" not in data and "ladder" not in data
    assert str(ladder.folder) in data["hidden"] and str(ladder.versions_folder) in data["hidden"]
    assert str(tmp_path / "secret") in data["hidden"]
    # It is an ordinary tournament file: the league's reader takes it, with the ladder's clock.
    final = tmp_path / "final.yaml"
    final.write_text(text)
    config = load_config(final)
    assert [b.name for b in config.bots] == ["carol", "alice", "bob"]
    assert config.time_control == ladder.league.time_control and config.players == 2
    assert needed(ladder) == 2


def test_a_gauntlet_final_sends_the_top_seeds_against_the_rest(tmp_path: Path) -> None:
    path, store = _final_ladder(tmp_path, "{format: gauntlet, rounds: 2, top: 2}")
    ladder = load_ladder(path)
    for author, bot in (("alice", "ant"), ("bob", "bee"), ("carol", "cat"), ("dave", "dog")):
        _submit(store, author, bot)
    entries = final_entries(store, [{"bot": "dog.v1"}, {"bot": "bee.v1"}])
    data = yaml.safe_load(final_text(ladder, entries))
    assert data["format"] == "gauntlet" and data["challengers"] == ["dave", "bob"]
    assert needed(ladder) == 2
    # Never so many challengers that the rest cannot fill a game: two authors, one challenger.
    two = yaml.safe_load(final_text(ladder, entries[:2]))
    assert two["challengers"] == ["dave"] and [b["name"] for b in two["bots"]] == ["dave", "bob"]
    final = tmp_path / "final.yaml"
    final.write_text(final_text(ladder, entries[:2]))
    assert [b.name for b in load_config(final).bots] == ["dave", "bob"]
    final.write_text(final_text(ladder, entries))
    assert load_config(final).format.value == "gauntlet"


def test_serve_final_closes_submissions_and_asks_for_the_final_once(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    path = write(tmp_path, "ladder: {}\n")
    first = CliRunner().invoke(main, ["serve", str(path), "--final"])
    assert first.exit_code == 0, first.output
    assert "final tournament asked for: submissions are closed" in first.output
    assert str(tmp_path / "results-final") in first.output
    again = CliRunner().invoke(main, ["serve", str(path), "--final"])
    assert again.exit_code == 0 and "the final was asked for already" in again.output
    store = LadderStore.open(load_ladder(path).folder)
    assert final_asked(store) and [a["action"] for a in store.actions()] == ["final-asked"]


def test_the_paths_the_ladder_file_wrote_beside_itself_stay_right_in_the_final(tmp_path: Path) -> None:
    for pem in ("ca.pem", "c.pem", "c.key"):
        (tmp_path / pem).write_text("")
    cluster = "executor: {scheduler: 'tls://10.0.0.5:8786', security: {ca: ca.pem, cert: c.pem, key: c.key}}"
    path = write(tmp_path, f"{cluster}\nladder: {{}}\n")
    ladder = load_ladder(path)
    store = LadderStore.open(ladder.folder)
    for name in ("alice", "bob"):
        store.add_author(name)
        _submit(store, name, f"{name}-bot")
    data = yaml.safe_load(final_text(ladder, final_entries(store, [])))
    assert data["executor"]["security"] == {k: str(tmp_path / v) for k, v in (("ca", "ca.pem"), ("cert", "c.pem"), ("key", "c.key"))}
    assert data["executor"]["scheduler"] == "tls://10.0.0.5:8786"  # played on the ladder's cluster
    # Read from the results folder, where the final's file lies, it finds them all the same.
    final = ladder.folder / "ladder-final.yaml"
    final.write_text(final_text(ladder, final_entries(store, [])))
    config = load_config(final)
    assert config.executor.kind.value == "dask" and config.executor.security is not None
