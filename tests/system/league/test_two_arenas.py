"""Two arenas on one machine leave each other alone.

Two leagues run at once, from folders of their own, each starting and killing sandboxed
bots (a fresh process every game).  Every fault in either is the one its bot causes
itself (a bot that exits at once), and every bot ended as its own game ended it: by
itself after ``end``, never by a signal from anything else (the other arena's kills,
a pid reused between them).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from arena.game.record import FaultKind
from arena.league.store import ResultStore
from tests.support.process_helpers import stored_games

REPO = Path(__file__).resolve().parents[3]
BOTS = ("ann", "bob", "cid")
QUITTER = "quitter"  # exits at once with status 3: the one fault either league may hold


def league(folder: Path, marker: str) -> Path:
    """A small round robin (tiny boards, a fresh process for every game) in ``folder``."""
    folder.mkdir()
    bots = [
        f"  - name: {n}\n    command: [{sys.executable}, sample_bots/random_bot.py, {marker}-{folder.name}-{n}]\n"
        for n in BOTS
    ]
    bots.append(f"  - name: {QUITTER}\n    command: [sh, -c, 'exit 3', {marker}-{folder.name}-{QUITTER}]\n")
    # Allowances far beyond what a game needs, even on a loaded machine: a timeout here
    # would be the machine's doing, not another arena's.
    text = (
        f"name: {folder.name}\nseed: 5\nplayers: 2\nrounds: 1\ncwd: {REPO}\nconcurrency: 2\n"
        "rules: {sheep: 4, tiles: 2}\ntime_control: {move: 20s, startup: 60s}\nend_grace: 10s\n"
        f"multigame: false\noutput: {folder / 'results'}\nbots:\n" + "".join(bots)
    )
    path = folder / "league.yaml"
    path.write_text(text)
    return path


def test_two_leagues_at_once_fault_and_signal_only_their_own_bots(tmp_path: Path, marker: str) -> None:
    paths = [league(tmp_path / name, marker) for name in ("east", "west")]
    stores = [p.parent / "results" / "results.sqlite" for p in paths]
    procs = []
    for path in paths:
        command = [sys.executable, "-m", "arena", "run", str(path), "-q"]
        pipe = subprocess.PIPE
        procs.append(subprocess.Popen(command, cwd=path.parent, stdout=pipe, stderr=pipe, text=True))
    together = False  # both arenas seen playing at the same moment
    try:
        deadline = time.monotonic() + 600
        while any(p.poll() is None for p in procs):
            assert time.monotonic() < deadline, "the leagues did not finish within 10 minutes"
            if all(p.poll() is None for p in procs) and all(stored_games(s) > 0 for s in stores):
                together = True
            time.sleep(0.05)
        outputs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, out + err
        assert "Traceback" not in out + err, out + err
    assert together, "the two leagues never played at the same time"
    for store_file in stores:
        with ResultStore.open(store_file.parent) as store:
            records = list(store.records())
        n = len(BOTS) + 1
        assert len(records) == n * (n - 1), store_file  # every meeting in both seat orders
        for r in records:
            for s in r.seats:
                where = (store_file.parent.parent.name, r.game_id, s.name, s.exit, s.fault, s.stderr_tail[-500:])
                assert s.isolation.get("sandbox") in ("bwrap", "none"), where
                if s.name == QUITTER:  # its own doing: it exits at once
                    assert s.fault is not None and s.fault.kind in (FaultKind.CRASH, FaultKind.STARTUP_FAILURE), where
                    assert s.exit == "exit 3", where
                else:  # ended by its own game: by itself, after "end"
                    assert s.fault is None, where
                    assert s.exit == "exit 0" and s.exited_cleanly, where
