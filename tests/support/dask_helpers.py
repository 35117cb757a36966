"""What the unit and the system tests of Dask leagues share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.game.clock import TimeControl
from arena.game.referee import BotSpec
from arena.league.executor import GameSettings
from arena.rules import Params

REPO = Path(__file__).resolve().parents[2]


GREEDY = REPO / "sample_bots" / "c" / "greedy"


BOTS = ("ann", "bob", "cid", "dan")


def settings_for(bots: dict[str, BotSpec]) -> GameSettings:
    return GameSettings(bots=bots, params=Params(), time_control=TimeControl(move_ms=1000), board="random")


@pytest.fixture(autouse=True)
def one_seed_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run of this module draws the same secret for its seats' private seeds, so that a
    league on the cluster and the same league run locally give their bots the same seeds."""
    from arena.game import seeds

    monkeypatch.setattr(seeds, "new_secret", lambda: "5" * 32)


def league(
    tmp_path: Path,
    marker: str,
    *,
    executor: str = "local",
    name: str = "t",
    cwd: Path = REPO,
    command: str | list[str] = "sample_bots/c/greedy --random",
    bot_extra: str = "",
    top_extra: str = "",
) -> Path:
    """A 4-bot round robin (12 games) of instant bots, each with the marker in its command line."""

    def argv(bot: str) -> str:
        if isinstance(command, str):
            return f"{command} {marker}-{bot}"
        return json.dumps([*command, f"{marker}-{bot}"])  # JSON is YAML

    bots = "".join(f"  - name: {b}\n    command: {argv(b)}\n{bot_extra}" for b in BOTS)
    text = (
        f"name: {name}\nseed: 7\nplayers: 2\nrounds: 1\ncwd: {cwd}\nsandbox: none\n"
        f"time_control: {{move: 2s, startup: 10s}}\nend_grace: 200ms\nconcurrency: 2\n{top_extra}"
        f"executor: {executor}\noutput: {tmp_path / ('out-' + name)}\nbots:\n{bots}"
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path
