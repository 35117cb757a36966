"""Issue 30, item 3: no bot reaches the ladder's secrets, in any layout the docs allow.

The attack: a submitted version's build (in the sandbox of the ladder's check) and every bot
of the league (in the sandbox a league game starts it in: house bots and versions) try to
read ``ladder.sqlite`` (which holds the session key), its ``-wal`` (another author's build
log), ``results.sqlite`` and its ``-wal``, and the other version's folder, and look for the
key's text in every file of the folder around the results folder.  The layouts: the results folder inside the house bots'
folder, inside a folder every sandbox shows read-only (``/opt``), under ``/tmp``, and
elsewhere.  Each has a version unpacked as the ladder does now (beside the results folder)
and one an older arena unpacked inside it (``submissions/ID/bot``), which the service moves
out at start.  A control file in each bot's own folder is read, so a refusal is the
sandbox's, not a permission's.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.game.build import run_build
from arena.game.limits import bot_environment
from arena.game.sandbox.bwrap import unavailable_reason
from arena.game.sandbox.spawn import spawn_sandboxed
from arena.ladder.jobfiles import LeagueJob
from arena.ladder.league_job import league_of
from arena.ladder.relocate import move_old_versions
from arena.ladder.roster import league_config
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore, State
from arena.league.config import BotConfig
from arena.league.store import ResultStore

if (_why := unavailable_reason()) is not None:
    pytest.skip(f"no bubblewrap sandbox here: {_why}", allow_module_level=True)

REPO = Path(__file__).resolve().parents[3]
CONTROL = "control.txt"
BESIDE = "beside.txt"  # beside the results folder: seen where its folder is shown (/opt)
# Each target the attacker can read is printed; then each file holding the key's text.
ATTACK = r"""
key="$1"; around="$2"; shift 2
for f in "$@"; do
  if head -c 16 "$f" >/dev/null 2>&1; then echo "READ $f"; fi
done
grep -rlF "$key" "$around" 2>/dev/null | sed 's/^/KEY /'
exit 0
"""


def _layout_base(layout: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if layout == "opt":
        if not os.access("/opt", os.W_OK):
            pytest.skip("/opt is not writable here: the /opt layout needs it")
        base = Path(tempfile.mkdtemp(prefix="bsa-ladder-secrets-", dir="/opt"))
    elif layout == "tmp":
        base = Path(tempfile.mkdtemp(prefix="bsa-ladder-secrets-", dir="/tmp"))
    elif layout == "elsewhere":
        base = Path(tempfile.mkdtemp(prefix="bsa-ladder-secrets-", dir="/var/tmp"))
    else:  # inside the house bots' folder
        base = tmp_path / "house"
        base.mkdir()
    os.chmod(base, 0o755)  # as an organiser's folder is: the bots' user may pass through it
    try:
        yield layout, base.resolve()
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["bots-folder", "opt", "tmp", "elsewhere"])
def layout(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from _layout_base(request.param, tmp_path)


def _ladder_file(base: Path, layout: str) -> Path:
    # The house bots start in `base` itself when the results lie in their folder, else in the
    # repository's root.
    cwd = base if layout == "bots-folder" else REPO
    path = base / "ladder.yaml"
    path.write_text(
        f"""\
name: secrets
players: 2
format: continuous
output: results
cwd: {cwd}
bots:
  - {{name: house-a, command: {sys.executable} {REPO}/sample_bots/random_bot.py}}
  - {{name: house-b, command: {sys.executable} {REPO}/sample_bots/random_bot.py}}
ladder: {{}}
"""
    )
    return path


def _version(store: LadderStore, folder: Path, bot: str) -> int:
    who = store.authors()[0]
    sub = store.add_submission(who, bot, ("sh", "attack.sh"), ("sh", "attack.sh"), ("bot.tar.gz", 10, "00"))
    store.set_state(sub.id, State.PASSED, reason="test", build_log="alice's build log: hunter2")
    folder.mkdir(parents=True)
    (folder / "attack.sh").write_text(ATTACK)
    (folder / CONTROL).write_text("readable\n")
    os.chmod(folder, 0o755)
    return sub.id


def _run_as_league_bot(bot: BotConfig, argv: list[str]) -> str:
    """Start ``argv`` as a league game starts ``bot`` (its folder, limits and sandbox), and
    return what it printed."""
    env = bot_environment(bot.cwd, {})
    proc, init, group, net = spawn_sandboxed(
        argv, bot.cwd, env, bot.limits, bot.sandbox, stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    try:
        out, _ = proc.communicate(timeout=60)
    finally:
        init.signal(signal.SIGKILL)
        init.close()
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if group is not None:
            group.kill_all()
            group.remove()
        if net is not None:
            net.ended()
    return out.decode("utf-8", "replace")


def test_no_build_and_no_league_bot_reads_the_ladders_stores_or_key_in_any_layout(layout: tuple[str, Path]) -> None:
    name, base = layout
    ladder = load_ladder(_ladder_file(base, name))
    results = ladder.folder
    store = LadderStore.open(results)
    try:
        store.add_author("alice")
        new_id = _version(store, ladder.versions_folder / "1", "fresh")
        old_id = _version(store, results / "submissions" / "2" / "bot", "older")
        key = store.session_secret().hex()  # as the store keeps it
        with ResultStore.create(results) as league:
            league.set_meta(config=league_config(ladder, store).raw)  # as the older arena left it
            # The service moves the older arena's version out of the results folder at start.
            assert move_old_versions(results, store) == [old_id]
            targets = [results / n for n in ("ladder.sqlite", "ladder.sqlite-wal", "results.sqlite", "results.sqlite-wal")]
            assert all(t.is_file() for t in targets[:3]), sorted(p.name for p in results.iterdir())
            (base / BESIDE).write_text("beside the results\n")
            os.chmod(base / BESIDE, 0o644)
            args = [key, str(base), *map(str, [*targets, base / BESIDE])]
            # And each version tries the other's folder (another author's code).
            other = {new_id: ladder.version_folder(old_id), old_id: ladder.version_folder(new_id)}

            seen: dict[str, str] = {}
            for sid in (new_id, old_id):
                folder = ladder.version_folder(sid)
                assert folder.is_relative_to(ladder.versions_folder)
                opts = ladder.check_options(("sh", "attack.sh"), folder, seed=1)
                built = run_build(["sh", "attack.sh", *args, str(other[sid] / CONTROL)], folder, opts.sandbox, 60)
                assert built.sandboxed and built.ok, built.why + built.output
                seen[f"build of version {sid}"] = built.output
            config = league_of(LeagueJob(ladder.league.path, ladder.text, 0))
            for bot in config.bots:
                if not bot.name.startswith("house"):
                    sid = new_id if bot.name.startswith("fresh") else old_id
                    seen[f"league bot {bot.name}"] = _run_as_league_bot(
                        bot, ["sh", "attack.sh", *args, str(other[sid] / CONTROL)]
                    )
                else:  # a house bot reads from its own folder: the script is handed by its text
                    seen[f"house bot {bot.name}"] = _run_as_league_bot(bot, ["sh", "-c", ATTACK, "attack", *args])
    finally:
        store.close()
    assert len(seen) == 6
    for who, output in seen.items():
        lines = output.splitlines()
        # Where every sandbox shows the folder around the results (/opt), the bots see it:
        # only the mask over the results folder keeps them from the stores.
        if name == "opt" and not who.startswith("house"):
            assert f"READ {base / BESIDE}" in lines, f"{who}: {output}"
        read = [line for line in lines if line.startswith(("READ ", "KEY ")) and not line.endswith(BESIDE)]
        assert read == [], f"{who} reached the ladder's secrets in {base}: {read}\n{output}"
    # The control: the versions read their own folder (the attack ran, as the bots' user).
    for sid in (new_id, old_id):
        folder = ladder.version_folder(sid)
        probe = run_build(["sh", "-c", f"cat {CONTROL}"], folder, ladder.check_options(("sh",), folder, 1).sandbox, 60)
        assert probe.output.strip() == "readable", probe.output
