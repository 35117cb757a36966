"""The layers stay layered: the pure parts load nothing heavy, and the import contract has teeth."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("subprocess", "yaml", "click", "sqlite3", "arena.game.botproc", "arena.game.sandbox.bwrap")


@pytest.mark.parametrize("module", ["arena.rules", "arena.stats", "arena.stats.trueskill_fit", "arena.game.record", "arena.protocol", "arena.botkit"])
def test_a_pure_module_loads_no_processes_files_or_command_line(module: str) -> None:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert module in loaded
    assert [m for m in HEAVY if m in loaded] == []


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    return subprocess.run(
        [exe, "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(
    shutil.which("lint-imports") is None and not Path(sys.executable).with_name("lint-imports").exists(),
    reason="import-linter is not installed",
)
def test_the_import_contract_holds_and_breaks_when_the_rules_import_a_game_module(tmp_path: Path) -> None:
    shutil.copytree(REPO / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    kept = _lint_imports(tmp_path)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    with (tmp_path / "arena" / "rules" / "hexgrid.py").open("a") as f:
        f.write("\nimport arena.game.clock  # a layer broken on purpose\n")
    broken = _lint_imports(tmp_path)
    assert broken.returncode != 0
    assert "arena.rules.hexgrid -> arena.game.clock" in broken.stdout
