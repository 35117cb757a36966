"""Tournament files: every kind of mistake gets the file, line and key.

The cases that start processes; the others are in tests/unit/league/test_config.py.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.config_helpers import GOOD, error_of

REPO = Path(__file__).resolve().parents[3]


def test_failed_build_shows_its_output(tmp_path: Path) -> None:
    text = GOOD.replace(
        "    command: [", "    build: sh -c 'echo compiler says no >&2; exit 3'\n    command: ["
    )
    message = error_of(tmp_path, text)
    assert "bot 'two'" in message and "exited with 3" in message and "compiler says no" in message


