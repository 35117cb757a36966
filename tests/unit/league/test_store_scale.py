"""The store's summaries, standings kept game by game, schema versions and damaged stores.

No bot runs here: records are made up (valid as values, not as games), and a run's
games come from a stand-in for the game pool that finishes them in any order.

The cases that need no process; the others are in tests/system/league/test_store_scale.py.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import ClassVar

import pytest
import trueskill
from click.testing import CliRunner

import arena.tournament as tournament_mod
from arena.cli import main
from arena.errors import StoreError
from arena.game.record import GameRecord
from arena.league.config import load_config
from arena.league.game_summary import GameSummary
from arena.league.resume import schedule_for
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore, UnfinishedGames, store_path
from arena.league.store_schema import SCHEMA_VERSION
from arena.league.table import LeagueTable, stored_standings
from arena.league.tally import Standings, Tally, compute_standings
from arena.stats.settings import RatingConfig
from arena.tournament import run_tournament
from tests.support.store_helpers import BOTS, fake_record, league_schedule

SEQUENTIAL = RatingConfig(model="sequential")  # the model the reference below computes


def reference(
    records: Sequence[GameRecord], bots: Sequence[str]
) -> tuple[dict[str, tuple[float, float]], dict[str, dict[str, object]]]:
    """The ratings (mu, sigma) and per-bot figures as the arena computed them before summaries.

    The ratings: every record in order through TrueSkill, as ``rate_games`` always did.
    """
    env = trueskill.TrueSkill()
    ratings = {b: env.create_rating() for b in bots}
    figures: dict[str, Counter[str]] = {}
    scores: dict[str, float] = {}
    for rec in records:
        names = [s.name for s in rec.seats]
        for name in names:
            ratings.setdefault(name, env.create_rating())
        if len(set(names)) == len(names):
            rated = env.rate([(ratings[x],) for x in names], ranks=[r - 1 for r in rec.ranking])
            for name, (r,) in zip(names, rated, strict=True):
                ratings[name] = r
        ranks = rec.ranking
        for s, st in zip(rec.seats, rec.standings, strict=True):
            f = figures.setdefault(s.name, Counter())
            f["games"] += 1
            f["places"] += st.rank
            first = st.rank == 1 and any(x.fault is None for x in rec.seats)  # all forfeited: no first
            f["wins"] += first and ranks.count(1) == 1
            f["shared_firsts"] += first and ranks.count(1) > 1
            f["hexes"] += st.hexes
            f["faults"] += s.fault is not None
            f["unsandboxed"] += not s.sandboxed
            beaten = sum(r > st.rank for r in ranks) + 0.5 * (sum(r == st.rank for r in ranks) - 1)
            scores[s.name] = scores.get(s.name, 0.0) + beaten / (len(ranks) - 1)
    rows = {
        name: {
            "games": f["games"],
            "avg_place": f["places"] / f["games"],
            "wins": f["wins"],
            "shared_firsts": f["shared_firsts"],
            "avg_hexes": f["hexes"] / f["games"],
            "faults": f["faults"],
            "unsandboxed": f["unsandboxed"],
            "points": scores[name] / f["games"],
        }
        for name, f in figures.items()
    }
    return {n: (r.mu, r.sigma) for n, r in ratings.items()}, rows


def assert_matches_reference(st: Standings, records: Sequence[GameRecord], bots: Sequence[str]) -> None:
    ratings, rows = reference(records, bots)
    assert st.games == len(records)
    assert {r.bot: (r.mu, r.sigma) for r in st.rows} == ratings  # exactly: not one bit moved
    for r in st.rows:
        want = rows.get(r.bot)
        if want is None:
            assert r.games == 0
            continue
        got = {k: getattr(r, k) for k in want}
        assert got == pytest.approx(want, rel=1e-12), r.bot


# -- summaries -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_summary_rows_agree_with_records_and_standings_with_the_old_computation(
    tmp_path: Path, players: int
) -> None:
    rng = random.Random(players)
    schedule = league_schedule(players, rounds=2)
    records = {g.game_id: fake_record(g, rng) for g in schedule}
    with ResultStore.create(tmp_path) as store:
        store.set_schedule(schedule)
        for g in rng.sample(schedule, len(schedule)):  # saved in any order, read in schedule order
            assert store.save_game(g, records[g.game_id]) == GameSummary.of(records[g.game_id], g.index)
        in_order = [records[g.game_id] for g in schedule]
        assert list(store.summaries()) == [GameSummary.of(r, i) for i, r in enumerate(in_order)]
        from_summaries = stored_standings(store, BOTS, SEQUENTIAL)
        fitted = stored_standings(store, BOTS)
    assert from_summaries == compute_standings(in_order, BOTS, SEQUENTIAL)
    assert_matches_reference(from_summaries, in_order, BOTS)
    # The published (batch) rating: the same whatever order the records come in.
    assert fitted == compute_standings(rng.sample(in_order, len(in_order)), BOTS)


def test_the_store_adds_up_w_d_l_and_board_pairs_as_the_games_do(tmp_path: Path) -> None:
    rng = random.Random(8)
    schedule = league_schedule(2, rounds=2)
    played = schedule[:-1]  # the last game's partner waits for it
    records = {g.game_id: fake_record(g, rng) for g in played}
    with ResultStore.create(tmp_path) as store:
        store.set_schedule(schedule)
        for g in rng.sample(played, len(played)):
            store.save_game(g, records[g.game_id])
        summed = store.tally()  # by SQLite (no checkpoint)
    added = Tally()
    for g in played:
        added.add(GameSummary.of(records[g.game_id], g.index))
    assert summed.cross == added.cross and summed.boards.waiting == added.boards.waiting
    assert len(added.boards.waiting) == 1
    cells = [c for row in added.cross.values() for c in row.values()]
    assert sum(sum(c[:3]) for c in cells) == 2 * len(played)  # each game: one result per side
    assert sum(sum(c[3:]) for c in cells) == 2 * (len(played) - 1) // 2  # each pair counted per side


def test_games_listing_is_what_it_was_when_read_from_records(tmp_path: Path) -> None:
    rng = random.Random(5)
    schedule = league_schedule(3, rounds=1)
    with ResultStore.create(tmp_path) as store:
        records = [fake_record(g, rng) for g in schedule]
        for g, r in zip(schedule, records, strict=True):
            store.save_game(g, r)
    # What 'arena games --format json' printed when it read every record.
    before = [
        {
            "id": r.game_id,
            "seed": r.seed,
            "seats": [s.name for s in r.seats],
            "ranking": r.ranking,
            "hexes": [s.hexes for s in r.standings],
            "moves": len(r.moves),
            "faults": [
                {
                    "bot": r.seats[p].name,
                    "seat": "abc"[p],
                    "reason": f.kind.value,
                    "detail": f.detail,
                    "ply": f.ply,
                }
                for p, f in r.faults
            ],
        }
        for r in records
    ]
    assert any(g["faults"] for g in before)
    listing = CliRunner().invoke(main, ["games", str(tmp_path), "--format", "json"])
    assert listing.exit_code == 0, listing.output
    assert listing.output == json.dumps(before, indent=1) + "\n"  # the same bytes, streamed
    ann = CliRunner().invoke(main, ["games", str(tmp_path), "--bot", "ann", "--fault", "any"])
    wanted = [r for r in records if "ann" in (s.name for s in r.seats) and r.faults]
    assert ann.exit_code == 0 and f"\n{len(wanted)} game(s)" in ann.output
    empty = CliRunner().invoke(main, ["games", str(tmp_path), "--bot", "nobody", "--format", "json"])
    assert empty.output == "[]\n"


# -- standings kept game by game -------------------------------------------------------------


@pytest.mark.parametrize("model", ["batch", "sequential"])
@pytest.mark.parametrize("seed", range(6))
def test_standings_kept_game_by_game_equal_standings_from_records(
    tmp_path: Path, seed: int, model: str
) -> None:
    """Games arrive out of order, some are given up on, and the league is resumed from its store."""
    rng = random.Random(seed)
    players = rng.choice([2, 2, 3, 4])
    schedule = league_schedule(players, rounds=rng.randint(1, 4), seed=seed)
    records = {g.game_id: fake_record(g, rng) for g in schedule}
    rating = RatingConfig(mu=rng.choice([25.0, 30.0]), model=model)
    given_up: set[int] = set()
    store = ResultStore.create(tmp_path)
    try:
        store.set_schedule(schedule)
        todo = list(schedule)
        for _run in range(rng.randint(1, 3)):
            table = LeagueTable.load(store, BOTS, rating, expected=[g.index for g in todo])
            # Games finish out of order, but not far from it (a few at once, like workers).
            arrival = sorted(todo, key=lambda g: g.index + rng.uniform(0, 6))
            stop = rng.randint(0, len(arrival)) if _run < 2 else len(arrival)
            for n, g in enumerate(arrival[:stop]):
                if rng.random() < 0.05:
                    given_up.add(g.index)
                    table.drop(g.index)
                else:
                    table.add(store.save_game(g, records[g.game_id]))
                if rng.random() < 0.1 or n == stop - 1:
                    finished = store.finished_ids()
                    played = [records[x.game_id] for x in schedule if x.game_id in finished]
                    assert table.standings() == compute_standings(played, BOTS, rating)
                if rng.random() < 0.2:
                    table.save(store)
            finished = store.finished_ids()
            todo = [g for g in schedule if g.game_id not in finished]  # given-up games come back
        played = [records[g.game_id] for g in schedule if g.game_id in store.finished_ids()]
        assert stored_standings(store, BOTS, rating) == compute_standings(played, BOTS, rating)
        assert_matches_reference(compute_standings(played, BOTS, SEQUENTIAL), played, BOTS)
    finally:
        store.close()


def test_a_checkpoint_from_another_rating_or_before_a_replayed_game_is_not_used(tmp_path: Path) -> None:
    rng = random.Random(3)
    schedule = league_schedule(2, rounds=2)
    records = [fake_record(g, rng) for g in schedule]
    with ResultStore.create(tmp_path) as store:
        store.set_schedule(schedule)
        table = LeagueTable.load(store, BOTS, expected=[g.index for g in schedule])
        for g, r in zip(schedule, records, strict=True):
            if g.index != 3:  # given up on
                table.add(store.save_game(g, r))
        table.drop(3)
        table.save(store)
        saved = store.standings_checkpoint()
        assert saved is not None and saved.since == [] and saved.ratings == table.ledger.checkpoint()
        assert saved.tally.to_dict() == table.tally.to_dict()
        assert table.ledger.checkpoint().through == len(schedule)
        # Another rating: the checkpoint does not apply.
        other = RatingConfig(beta=3.0)
        without_3 = [r for g, r in zip(schedule, records, strict=True) if g.index != 3]
        assert stored_standings(store, BOTS, other) == compute_standings(without_3, BOTS, other)
        # The game given up on is played in a later run: everything after it is rated again.
        table = LeagueTable.load(store, BOTS, expected=[3])
        table.add(store.save_game(schedule[3], records[3]))
        assert table.standings() == compute_standings(records, BOTS)
        assert stored_standings(store, BOTS) == compute_standings(records, BOTS)


class ShuffledPool:
    """A stand-in for GamePool: every game 'finishes' at once, out of order; some are given up on."""

    records: ClassVar[dict[str, GameRecord]] = {}
    give_up: ClassVar[set[str]] = set()

    def __init__(self, _settings: object, concurrency: int) -> None:
        self.rng = random.Random(concurrency)

    def run(
        self,
        games: Sequence[ScheduledGame],
        on_result: Callable[[ScheduledGame, GameRecord], None],
        on_failure: Callable[[ScheduledGame, str, bool], None],
        retries: int = 2,
    ) -> list[tuple[ScheduledGame, str]]:
        failed = []
        for g in sorted(games, key=lambda g: g.index + self.rng.uniform(0, 4)):
            if g.game_id in self.give_up:
                on_failure(g, f"game {g.game_id} failed", False)
                failed.append((g, "failed"))
            else:
                on_result(g, self.records[g.game_id])
        return failed


def tournament_file(tmp_path: Path, rounds: int = 3) -> Path:
    bots = "".join(f"  - name: {b}\n    command: [{sys.executable}]\n" for b in BOTS)
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: t\nseed: 4\nplayers: 2\nrounds: {rounds}\nsandbox: none\nconcurrency: 3\n"
        f"output: {tmp_path / 'out'}\nbots:\n{bots}"
    )
    return path


def test_a_run_with_games_out_of_order_and_given_up_writes_the_standings_of_its_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tournament_file(tmp_path)
    config = load_config(path)
    schedule = schedule_for(config)
    rng = random.Random(11)
    monkeypatch.setattr(ShuffledPool, "records", {g.game_id: fake_record(g, rng) for g in schedule})
    monkeypatch.setattr(ShuffledPool, "give_up", {schedule[2].game_id, schedule[20].game_id})
    monkeypatch.setattr(tournament_mod, "GamePool", ShuffledPool)
    first = run_tournament(config, echo=lambda _s: None)
    assert len(first.failures) == 2

    def expected() -> list[dict[str, object]]:
        with ResultStore.open(config.output) as store:
            return compute_standings(list(store.records()), BOTS).to_json_rows()

    assert first.standings is not None and first.standings.to_json_rows() == expected()
    assert json.loads((config.output / "standings.json").read_text())["rows"] == expected()
    monkeypatch.setattr(ShuffledPool, "give_up", set())
    second = run_tournament(config, echo=lambda _s: None)  # resumes: the two games are played
    assert second.played_now == 2 and second.standings is not None
    assert second.standings.to_json_rows() == expected()
    third = run_tournament(config, echo=lambda _s: None)  # a finished league: from the checkpoint
    assert third.played_now == 0 and third.standings == second.standings


class InOrderPool:
    """A stand-in for GamePool that plays one game at a time, each stored before the next is
    read, and notes how far ahead of the game it plays the run's sequence was read."""

    records: ClassVar[dict[str, GameRecord]] = {}
    played: ClassVar[list[str]] = []

    def __init__(self, _settings: object, concurrency: int) -> None:
        pass

    def run(
        self,
        games: Iterable[ScheduledGame],
        on_result: Callable[[ScheduledGame, GameRecord], None],
        on_failure: Callable[[ScheduledGame, str, bool], None],
        retries: int = 2,
    ) -> list[tuple[ScheduledGame, str]]:
        assert not isinstance(games, list)  # the run hands over its games unread
        for g in games:
            on_result(g, self.records[g.game_id])
            self.played.append(g.game_id)
        return []


def test_a_run_reads_its_games_from_the_store_a_chunk_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A league's games are not all held by its run: read in chunks, in schedule order,
    each once, the games finished before (a resumed league) left out."""
    config = load_config(tournament_file(tmp_path, rounds=4))
    schedule = schedule_for(config)
    rng = random.Random(5)
    records = {g.game_id: fake_record(g, rng) for g in schedule}
    monkeypatch.setattr(InOrderPool, "records", records)
    monkeypatch.setattr(InOrderPool, "played", [])
    monkeypatch.setattr(UnfinishedGames, "CHUNK", 5)
    reads: list[int] = []
    read_after = ResultStore.unfinished_after

    def counted(store: ResultStore, index: int, limit: int, through: int | None = None) -> list[ScheduledGame]:
        reads.append(index)
        return read_after(store, index, limit, through)

    monkeypatch.setattr(ResultStore, "unfinished_after", counted)
    monkeypatch.setattr(tournament_mod, "GamePool", InOrderPool)
    # Some games finished already, here and there in the schedule.
    done_before = schedule[3:9] + schedule[20:21]
    run_tournament(config, echo=lambda _s: None)  # plays the whole league ...
    assert InOrderPool.played == [g.game_id for g in schedule]
    InOrderPool.played.clear()
    reads.clear()
    with sqlite3.connect(store_path(config.output)) as conn:  # ... then forgets most of it
        conn.execute(
            f"DELETE FROM games WHERE game_id NOT IN ({','.join('?' * len(done_before))})",
            [g.game_id for g in done_before],
        )
        conn.execute("DELETE FROM summaries WHERE game_id NOT IN (SELECT game_id FROM games)")
        conn.execute("DELETE FROM seats WHERE game_id NOT IN (SELECT game_id FROM games)")
        conn.execute("DELETE FROM meta WHERE key = 'standings'")
    conn.close()
    with ResultStore.open(config.output) as store:
        todo = store.unfinished()
        assert len(todo) == len(schedule) - len(done_before)
    state = run_tournament(config, echo=lambda _s: None)  # and resumes it
    assert InOrderPool.played == [g.game_id for g in schedule if g not in done_before]
    assert state.played_now == len(todo) and state.done == len(schedule)
    assert len(reads) == math.ceil(len(todo) / 5)  # a chunk of 5 at a time
    with ResultStore.open(config.output) as store:
        assert list(store.unfinished()) == [] and len(store.unfinished()) == 0


def test_unfinished_games_are_those_scheduled_when_asked_not_those_added_while_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A continuous league adds games to the schedule while its run reads the unfinished
    ones: those it hands out itself, so the reading must not hand them out again."""
    monkeypatch.setattr(UnfinishedGames, "CHUNK", 3)
    schedule = league_schedule(rounds=1)[:7]
    later = [ScheduledGame(7 + i, f"c{i}", 2, g.seats, g.seed) for i, g in enumerate(schedule[:4])]
    with ResultStore.create(tmp_path / "out") as store:
        store.set_schedule(schedule)
        todo = store.unfinished()
        seen = []
        for n, game in enumerate(todo):
            seen.append(game.game_id)
            if n == 1:
                store.extend_schedule(later)  # in the middle of the first chunk
        assert seen == [g.game_id for g in schedule] and len(todo) == 7
        assert [g.game_id for g in store.unfinished()] == [g.game_id for g in schedule + later]


# -- schema versions ---------------------------------------------------------------------------

# The store as arena versions before summaries wrote it (schema version 1).
V1_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    idx INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    round INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    record TEXT NOT NULL
);
"""


def make_v1_store(
    folder: Path, schedule: Sequence[ScheduledGame], records: Sequence[GameRecord], config: dict[str, object]
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(V1_SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('schema', '1')")
        conn.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config),))
        conn.executemany(
            "INSERT INTO schedule VALUES (?, ?, ?, ?, ?)",
            [(g.index, g.game_id, g.round, json.dumps(list(g.seats)), g.seed) for g in schedule],
        )
        conn.executemany(
            "INSERT INTO games (game_id, idx, record) VALUES (?, ?, ?)",
            [(g.game_id, g.index, r.to_json()) for g, r in zip(schedule, records, strict=True)],
        )
    conn.close()
    return path


def schema_of(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        value: str = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
    conn.close()
    return value


def test_a_version_1_store_is_read_as_it_is_and_upgraded_in_place_by_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tournament_file(tmp_path, rounds=2)
    config = load_config(path)
    schedule = schedule_for(config)
    rng = random.Random(2)
    records = [fake_record(g, rng) for g in schedule]
    played = len(schedule) - 5  # the last five are still to play
    store_file = make_v1_store(config.output, schedule[:played], records[:played], config.raw)
    runner = CliRunner()
    want = compute_standings(records[:played], BOTS).to_json_rows()
    standings = runner.invoke(main, ["standings", str(config.output), "--format", "json"])
    assert standings.exit_code == 0, standings.output
    assert json.loads(standings.output)["rows"] == want
    listing = runner.invoke(main, ["games", str(config.output), "--format", "json"])
    assert [g["id"] for g in json.loads(listing.output)] == [g.game_id for g in schedule[:played]]
    assert schema_of(store_file) == "1"  # reading wrote nothing

    monkeypatch.setattr(
        ShuffledPool, "records", {g.game_id: r for g, r in zip(schedule, records, strict=True)}
    )
    monkeypatch.setattr(tournament_mod, "GamePool", ShuffledPool)
    notes: list[str] = []
    state = run_tournament(config, echo=notes.append)
    assert schema_of(store_file) == str(SCHEMA_VERSION)
    assert (
        f"note: upgraded {str(store_file)!r} from store schema 1 to {SCHEMA_VERSION} ({played} game(s) summarized)"
        in notes[0]
    )
    assert state.played_now == 5 and state.standings == compute_standings(records, BOTS)
    with ResultStore.open(store_file) as store:
        assert list(store.summaries()) == [
            GameSummary.of(r, g.index) for g, r in zip(schedule, records, strict=True)
        ]


def run_cli(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.output, result.stderr


def assert_one_line_error(code: int, output: str, stderr: str, *fragments: str) -> None:
    assert code == 2, output
    assert "Traceback" not in output
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    for fragment in fragments:
        assert fragment in lines[0], output


def every_command(path: Path) -> list[list[str]]:
    out = str(path.parent / "out")
    return [["run", str(path)], ["standings", out], ["games", out], ["replay", out, "r1-g001"]]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("99", "was written by a newer arena (store schema version 99; this arena knows versions 1 to 2)"),
        ("0", "unknown store schema version 0"),
        ("two", "schema version that is not a whole number: 'two'"),
        ("2.0", "schema version that is not a whole number: '2.0'"),
    ],
)
def test_a_store_of_an_unknown_schema_version_is_refused_by_every_command(
    tmp_path: Path, value: str, says: str
) -> None:
    path = tournament_file(tmp_path)
    config = load_config(path)
    store_file = make_v1_store(config.output, [], [], config.raw)
    with sqlite3.connect(store_file) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (value,))
    conn.close()
    for args in every_command(path):
        assert_one_line_error(*run_cli(args), repr(str(store_file)), says)
    assert schema_of(store_file) == value  # refused: left as it was


def damaged_store(tmp_path: Path, how: str) -> Path:
    """A finished league's store, then damaged in one way."""
    path = tournament_file(tmp_path, rounds=1)
    config = load_config(path)
    schedule = schedule_for(config)
    rng = random.Random(8)
    with ResultStore.create(config.output) as store:
        store.set_meta(config=config.raw)
        store.set_schedule(schedule)
        for g in schedule:
            store.save_game(g, fake_record(g, rng))
    with sqlite3.connect(config.output / "results.sqlite") as conn:
        conn.execute(how)
    conn.close()
    return path


@pytest.mark.parametrize(
    ("how", "commands", "says"),
    [
        (
            "UPDATE meta SET value = '{nope' WHERE key = 'config'",
            ["run", "standings", "games"],
            "stored 'config' is not JSON",
        ),
        (
            'UPDATE meta SET value = \'{"bots": [], "rating": {"muu": 1}}\' WHERE key = \'config\'',
            ["standings", "games"],
            "the stored tournament has a rating that cannot be used ({'muu': 1})",
        ),
        (
            "DROP TABLE games",
            ["run", "standings", "games", "replay"],
            "is damaged: its table(s) games are missing",
        ),
        ("DROP TABLE seats", ["standings", "games"], "is damaged: its table(s) seats are missing"),
        (
            "UPDATE games SET record = '{garbage' WHERE game_id = 'r1-g001'",
            ["replay"],
            "stored game 'r1-g001': game record is not JSON",
        ),
        ("UPDATE games SET record = '[1]' WHERE game_id = 'r1-g001'", ["replay"], "stored game 'r1-g001'"),
        ("UPDATE seats SET fault = 'lazy' WHERE seat = 0", ["games"], "unknown fault 'lazy'"),
    ],
    ids=[
        "config-not-json",
        "rating-key",
        "no-games",
        "no-seats",
        "garbage-record",
        "record-not-object",
        "fault",
    ],
)
def test_a_tampered_store_gives_a_one_line_error(
    tmp_path: Path, how: str, commands: list[str], says: str
) -> None:
    path = damaged_store(tmp_path, how)
    for args in every_command(path):
        if args[0] in commands:
            assert_one_line_error(*run_cli(args), says)


def test_a_version_1_store_with_a_garbage_record_is_not_upgraded(tmp_path: Path) -> None:
    path = tournament_file(tmp_path, rounds=1)
    config = load_config(path)
    schedule = schedule_for(config)
    rng = random.Random(4)
    store_file = make_v1_store(config.output, schedule, [fake_record(g, rng) for g in schedule], config.raw)
    with sqlite3.connect(store_file) as conn:
        conn.execute("UPDATE games SET record = 'x' WHERE game_id = 'r1-g002'")
    conn.close()
    with pytest.raises(StoreError, match="stored game 'r1-g002': game record is not JSON"):
        ResultStore.create(config.output)
    assert schema_of(store_file) == "1"
    with sqlite3.connect(store_file) as conn:  # all or nothing: no summary table was left behind
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert tables == {"meta", "schedule", "games"}
