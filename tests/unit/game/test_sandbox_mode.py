"""SandboxMode: a closed set whose values stay the strings files and records spell; and
what running without a sandbox (``sandbox: none``) keeps of each bot's private folder.

The cases that need no process; the others are in tests/system/game/test_sandbox_mode.py.
"""

from __future__ import annotations

import json

import pytest

from arena.errors import ConfigError
from arena.game.sandbox.bwrap import MODES, Isolation, SandboxMode, SandboxPolicy


def test_a_mode_given_as_a_string_becomes_its_member_and_still_equals_the_string() -> None:
    policy = SandboxPolicy(mode="bwrap")
    assert policy.mode is SandboxMode.BWRAP and policy.mode == "bwrap"
    assert SandboxPolicy() == SandboxPolicy(mode="auto") and SandboxPolicy().mode is SandboxMode.AUTO
    assert MODES == ("auto", "bwrap", "none")


def test_an_unknown_mode_is_refused_with_the_value_quoted() -> None:
    with pytest.raises(ConfigError, match=r"sandbox must be one of auto, bwrap, none, got 'jail'"):
        SandboxPolicy(mode="jail")


def test_a_seat_records_the_mode_as_a_plain_string() -> None:
    d = Isolation(SandboxMode.NONE, "rlimits", True).to_dict()
    assert type(d["sandbox"]) is str and json.dumps(d) == '{"sandbox": "none", "limits": "rlimits", "network": true}'


