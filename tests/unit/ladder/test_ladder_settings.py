"""Ladder files and the ladder's store: the section's every mistake named by file, line and key;
tokens kept only as hashes; a store of another version refused; the queue's fair order."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError, LadderError
from arena.ladder.queue import next_submission
from arena.ladder.settings import MB, SubmitPolicy, load_ladder
from arena.ladder.store import LadderStore, State, Submission, token_hash
from arena.league.results_folder import claim_folder

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
"""


def write(tmp_path: Path, ladder: str) -> Path:
    p = tmp_path / "ladder.yaml"
    p.write_text(LEAGUE + ladder)
    return p


def error_of(tmp_path: Path, ladder: str) -> str:
    with pytest.raises(ConfigError) as e:
        load_ladder(write(tmp_path, ladder))
    return str(e.value)


def test_the_shipped_ladder_file_loads() -> None:
    ladder = load_ladder(REPO / "tournaments" / "ladder.yaml")
    assert ladder.settings.submit is SubmitPolicy.AUTHORS
    assert ladder.settings.archive.max_bytes == 16 * MB and ladder.settings.quotas.versions_per_hour == 6
    assert "ladder" not in ladder.league.raw  # the league's own change detection never sees it
    assert ladder.cwd == REPO


def test_every_key_of_the_section_is_read(tmp_path: Path) -> None:
    ladder = load_ladder(
        write(
            tmp_path,
            """\
ladder:
  submit: admins
  check:
    conformance_games: 40
    fail_fast: false
    against: [random, "sample_bots/c/greedy --greedy 0.5"]
    games: 10
    min_points: 0.6
    sprt: {baseline: random, elo0: 0, elo1: 30, max_games: 400}
    timeout: 5m
  quotas: {versions_per_hour: 2, versions_per_day: 5, mb_per_day: 10}
  archive: {max_mb: 2, unpacked_mb: 20, files: 100, ratio: 50, depth: 4}
""",
        )
    )
    s = ladder.settings
    assert s.submit is SubmitPolicy.ADMINS
    assert (s.check.conformance_games, s.check.fail_fast, s.check.games, s.check.min_points) == (40, False, 10, 0.6)
    assert s.check.against[1] == ("sample_bots/c/greedy", "--greedy", "0.5")
    assert s.check.sprt is not None and s.check.sprt.elo1 == 30 and s.check.sprt.max_games == 400
    assert s.check.timeout_ms == 300_000
    assert (s.quotas.versions_per_hour, s.quotas.versions_per_day, s.quotas.bytes_per_day) == (2, 5, 10 * MB)
    a = s.archive
    assert (a.max_bytes, a.unpacked_bytes, a.files, a.ratio, a.depth) == (2 * MB, 20 * MB, 100, 50, 4)
    opts = ladder.check_options(("./bot",), tmp_path, 7)
    assert opts.conformance_games == 40 and opts.against == s.check.against and opts.opponents_cwd == REPO


@pytest.mark.parametrize(
    ("ladder", "needle"),
    [
        ("", "a ladder file needs a 'ladder' section"),
        ("ladder:\n  quota: {}\n", ":10: unknown key 'ladder.quota' (did you mean 'quotas'?)"),
        ("ladder:\n  submit: everyone\n", ":10: 'ladder.submit' must be one of authors, admins, nobody"),
        ("ladder:\n  check: {conformance_games: 5}\n", "'ladder.check.conformance_games' must be from 23 to 10000, got 5"),
        ("ladder:\n  check: {against: [7]}\n", "'ladder.check.against' must hold commands as strings, got 7"),
        ("ladder:\n  check: {against: ['a \"b']}\n", "'ladder.check.against' cannot split"),
        ("ladder:\n  check: {sprt: {elo0: 0}}\n", "'ladder.check.sprt.baseline' is required"),
        ("ladder:\n  check: {sprt: {baseline: random, elo0: 10, elo1: 5}}\n", "'ladder.check.sprt.elo1' must be above elo0"),
        ("ladder:\n  check: {timeout: 0s}\n", "'ladder.check.timeout' must be more than 0"),
        ("ladder:\n  check: {timeout: soon}\n", "ladder.check.timeout"),
        ("ladder:\n  quotas: {versions_per_hour: 0}\n", "'ladder.quotas.versions_per_hour' must be from 1"),
        ("ladder:\n  quotas: {versions_per_hour: 9, versions_per_day: 3}\n", "'ladder.quotas.versions_per_day' must be at least versions_per_hour (9)"),
        ("ladder:\n  quotas: {mb_per_day: lots}\n", "'ladder.quotas.mb_per_day' must be a whole number, got 'lots'"),
        ("ladder:\n  archive: {max_mb: 64, unpacked_mb: 8}\n", "'ladder.archive.unpacked_mb' must be at least max_mb (64)"),
        ("ladder:\n  archive: {depth: 0}\n", "'ladder.archive.depth' must be from 1 to 256"),
        ("ladder:\n  archive: {ratio: true}\n", "'ladder.archive.ratio' must be a whole number, got True"),
        ("ladder: [1]\n", ":9: expected a mapping of keys, got a list"),
    ],
)
def test_a_bad_ladder_section_is_named_by_file_line_and_key(tmp_path: Path, ladder: str, needle: str) -> None:
    message = error_of(tmp_path, ladder)
    assert message.startswith(str(tmp_path / "ladder.yaml"))
    assert needle in message


def test_a_league_mistake_is_still_the_league_readers(tmp_path: Path) -> None:
    p = tmp_path / "ladder.yaml"
    p.write_text(LEAGUE.replace("players: 2", "players: 9") + "ladder: {}\n")
    with pytest.raises(ConfigError, match=r"ladder.yaml:2: 'players' must be 2, 3 or 4"):
        load_ladder(p)


def test_a_token_is_stored_only_as_its_hash_and_found_again(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    token = store.add_author("alice")
    admin = store.add_author("org", admin=True)
    store.close()
    raw = (tmp_path / "ladder.sqlite").read_bytes()
    assert token.encode() not in raw and token_hash(token).encode() in raw
    store = LadderStore.open(tmp_path)
    found = store.author_by_token(token)
    assert found is not None and (found.name, found.admin, found.banned) == ("alice", False, False)
    org = store.author_by_token(admin)
    assert org is not None and org.admin
    assert store.author_by_token(token[:-1]) is None and store.author_by_token("") is None
    with pytest.raises(LadderError, match="author 'alice' exists already"):
        store.add_author("alice")
    store.set_banned("alice", True, by="org")
    banned = store.author_by_token(token)
    assert banned is not None and banned.banned
    assert [a["action"] for a in store.actions()] == ["add-author", "add-author", "ban"]
    assert store.actions()[-1]["author"] == "org"


def test_a_store_of_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    LadderStore.open(tmp_path).close()
    with sqlite3.connect(tmp_path / "ladder.sqlite") as conn:
        conn.execute("UPDATE meta SET value='9' WHERE key='schema'")
    before = (tmp_path / "ladder.sqlite").read_bytes()
    with pytest.raises(LadderError, match="schema version '9' is newer than this arena; this arena reads version 4"):
        LadderStore.open(tmp_path)
    assert (tmp_path / "ladder.sqlite").read_bytes() == before


def test_a_file_that_is_not_a_ladder_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ladder.sqlite").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(LadderError, match="is not a ladder store"):
        LadderStore.open(tmp_path)


def test_the_ladder_files_belong_to_the_results_folder(tmp_path: Path) -> None:
    LadderStore.open(tmp_path / "results").close()
    real, _created = claim_folder(tmp_path / "results", "ladder.yaml")  # not refused as someone else's
    assert real == (tmp_path / "results").resolve()


def test_versions_are_numbered_per_bot_and_a_name_is_its_authors(tmp_path: Path) -> None:
    store = LadderStore.open(tmp_path)
    alice = store.author_by_token(store.add_author("alice"))
    bob = store.author_by_token(store.add_author("bob"))
    assert alice is not None and bob is not None
    one = store.add_submission(alice, "greedy", ["./greedy"], ["make"], ("a.tgz", 10, "x"))
    two = store.add_submission(alice, "greedy", ["./greedy"], None, ("a.tgz", 10, "x"))
    assert (one.version, two.version, two.build) == (1, 2, None)
    with pytest.raises(LadderError, match="bot 'greedy' belongs to another author"):
        store.add_submission(bob, "greedy", ["./greedy"], None, ("b.tgz", 10, "x"))
    store.set_state(one.id, State.PASSED, "passed the check", {"passed": True}, "built")
    got = store.submission(one.id)
    assert got is not None and got.report == {"passed": True} and got.build_log == "built"
    assert "report" not in got.public() and got.private()["report"] == {"passed": True}
    assert [s.id for s in store.pending()] == [two.id]


def _sub(sid: int, author: str) -> Submission:
    return Submission(sid, author, "b", sid, ("x",), None, "a", 1, State.UNPACKED, None, None, None, 0.0, 0.0)


def test_the_queue_goes_round_the_authors_oldest_first() -> None:
    pending = [_sub(1, "alice"), _sub(2, "alice"), _sub(3, "alice"), _sub(4, "bob"), _sub(5, "carol")]
    served: dict[str, int] = {}
    order = []
    for turn in range(5):
        chosen = next_submission(pending, served)
        assert chosen is not None
        order.append(chosen.id)
        served[chosen.author] = turn
        pending.remove(chosen)
    # Alice's three do not hold back Bob's and Carol's first.
    assert order == [1, 4, 5, 2, 3]
    assert next_submission([], {}) is None
