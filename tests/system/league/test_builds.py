"""The one build runner (arena run and each Dask worker): builds run in order, the same command
in the same folder once, and the first failure stops the rest and comes back naming the bot,
the command, why, and the tail of its output."""

from __future__ import annotations

from pathlib import Path

from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.builds import BotBuild, run_builds


def build(tmp_path: Path, bot: str, script: str) -> BotBuild:
    return BotBuild(bot, ("sh", "-c", script), tmp_path, SandboxPolicy(mode="none"), {}, False)


def test_builds_run_once_per_folder_and_command_and_stop_at_the_first_failure(tmp_path: Path) -> None:
    log = "echo $0 >> builds.log"
    builds = [
        build(tmp_path, "one", log),
        build(tmp_path, "two", log),  # the same build of the same folder: run once
        build(tmp_path, "bad", "echo compiler says no >&2; echo line2; exit 3"),
        build(tmp_path, "never", "touch never"),
    ]
    started: list[str] = []
    failure = run_builds(builds, 30.0, lambda b: started.append(b.bot))
    assert started == ["one", "bad"]
    assert (tmp_path / "builds.log").read_text() == "sh\n"
    assert not (tmp_path / "never").exists()
    assert failure is not None and failure.build.bot == "bad"
    message = failure.describe()
    assert message.startswith("bot 'bad': build 'sh -c echo compiler says no >&2; echo line2; exit 3' exited with 3:\n")
    assert "  compiler says no" in message and "  line2" in message
    assert failure.describe(1).count("\n") == 1  # the tail's length is the caller's


def test_builds_that_all_succeed_return_no_failure(tmp_path: Path) -> None:
    assert run_builds([build(tmp_path, "one", "true")], 30.0) is None
