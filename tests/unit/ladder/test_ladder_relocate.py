"""Issue 30, item 3: a ladder folder of an older arena, whose versions were unpacked, built and
played inside the results folder (``submissions/ID/bot``, where a sandbox could not mask the
stores around them), has them moved beside it at start, and its league resumes unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import LadderError
from arena.ladder.relocate import move_old_versions
from arena.ladder.roster import league_config
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State
from arena.league.changes import compare_files
from arena.league.store import ResultStore
from tests.support.ladder_helpers import ladder_file


def _old_ladder(tmp_path: Path) -> tuple[Path, LadderStore, list[int]]:
    ladder = load_ladder(ladder_file(tmp_path))
    store = LadderStore.open(ladder.folder)
    store.add_author("alice")
    who = store.authors()[0]
    ids = []
    for bot in ("ant", "bee"):
        sub = store.add_submission(who, bot, ("python3", "bot.py"), None, ("bot.tar.gz", 10, "00"))
        store.set_state(sub.id, State.PASSED)
        old = ladder.folder / "submissions" / str(sub.id) / "bot"  # as the older arena unpacked it
        old.mkdir(parents=True)
        (old / "bot.py").write_text("print('hi')\n")
        ids.append(sub.id)
    # The league as the older arena stored it, its versions in the results folder.
    with ResultStore.create(ladder.folder) as results:
        results.set_meta(config=league_config(ladder, store).raw)
    return ladder.folder, store, ids


def test_the_versions_an_older_arena_left_in_the_results_folder_move_beside_it(tmp_path: Path) -> None:
    folder, store, ids = _old_ladder(tmp_path)
    ladder = load_ladder(tmp_path / "ladder.yaml")
    assert all(b.cwd.is_relative_to(folder) for b in league_config(ladder, store).bots[2:])
    assert move_old_versions(folder, store) == ids
    for sid in ids:
        assert not (folder / "submissions" / str(sid) / "bot").exists()
        assert (tmp_path / "results-bots" / str(sid) / "bot.py").read_text() == "print('hi')\n"
    now = league_config(ladder, store)
    assert [b.cwd for b in now.bots[2:]] == [tmp_path / "results-bots" / str(sid) for sid in ids]
    # The league was told: its stored tournament is the one it plays now, nothing refused.
    with ResultStore.open(folder) as results:
        stored = results.get_meta("config")
    assert stored == now.raw and compare_files(stored, now.raw).refused == []
    assert move_old_versions(folder, store) == []  # once only
    assert [a["action"] for a in store.actions()].count("moved") == 2


def test_a_version_that_cannot_be_moved_stops_the_start_naming_both_folders(tmp_path: Path) -> None:
    folder, store, ids = _old_ladder(tmp_path)
    (tmp_path / "results-bots" / str(ids[0])).mkdir(parents=True)
    with pytest.raises(LadderError, match=r"version 1 of an older arena lies in the results folder, and .*results-bots/1'"):
        move_old_versions(folder, store)
    assert (folder / "submissions" / str(ids[0]) / "bot").is_dir()
