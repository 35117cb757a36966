"""The store's summaries, standings kept game by game, schema versions and damaged stores.

No bot runs here: records are made up (valid as values, not as games), and a run's
games come from a stand-in for the game pool that finishes them in any order.

The cases that start processes; the others are in tests/unit/league/test_store_scale.py.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from arena.league.store import ResultStore
from tests.support.store_helpers import fake_record, league_schedule

# -- summaries -------------------------------------------------------------------------------


def test_games_json_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    rng = random.Random(9)
    schedule = league_schedule(2, rounds=100)  # 1,200 games: far more than a pipe holds
    with ResultStore.create(tmp_path) as store:
        store.set_schedule(schedule)
        for g in schedule:
            store.save_game(g, fake_record(g, rng))
    with subprocess.Popen(
        [sys.executable, "-m", "arena", "games", str(tmp_path), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        try:
            assert proc.stdout is not None and proc.stderr is not None
            assert proc.stdout.read(100).startswith(b"[\n {\n")
            proc.stdout.close()  # as head does after its lines
            err = proc.stderr.read().decode()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert err == "" and proc.returncode == 1


# -- standings kept game by game -------------------------------------------------------------


# -- schema versions ---------------------------------------------------------------------------


