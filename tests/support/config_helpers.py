"""What the unit and the system tests of tournament files share."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import load_config
from arena.league.listener import Quiet
from arena.tournament import build_bots, check_programs

REPO = Path(__file__).resolve().parents[2]


GOOD = f"""\
name: t
seed: 3
players: 2
rounds: 2
cwd: {REPO}
time_control: {{move: 300ms, startup: 2s}}
bots:
  - name: one
    command: {sys.executable} sample_bots/random_bot.py
  - name: two
    command: [{sys.executable}, sample_bots/random_bot.py]
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "t.yaml"
    p.write_text(textwrap.dedent(text))
    return p


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as err:
        cfg = load_config(write(tmp_path, text))
        build_bots(cfg, Quiet())
        check_programs(cfg)
    return str(err.value)
