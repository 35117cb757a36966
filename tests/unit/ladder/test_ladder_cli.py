"""``arena serve --add-author/--ban`` and ``arena submit``'s refusals, in process: a token
printed once and alone on stdout, every mistake one line and exit code 2.

The cases that need no process; the others are in tests/system/ladder/test_ladder_cli.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.ladder.store import LadderStore
from arena.league.config.sections import is_loopback_host

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def ladder_file(tmp_path: Path) -> Path:
    path = tmp_path / "ladder.yaml"
    path.write_text(
        f"""\
name: t
players: 2
format: continuous
cwd: {REPO}
output: results
bots:
  - {{name: one, command: {sys.executable} sample_bots/random_bot.py}}
  - {{name: two, command: {sys.executable} sample_bots/random_bot.py}}
ladder: {{}}
"""
    )
    return path


def test_add_author_prints_the_token_alone_once_and_keeps_its_hash(ladder_file: Path) -> None:
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "alice"])
    assert done.exit_code == 0, done.output
    token = done.stdout.strip()
    assert done.stdout == token + "\n" and "shown only this once" in done.stderr
    store = LadderStore.open(ladder_file.parent / "results")
    found = store.author_by_token(token)
    assert found is not None and found.name == "alice" and not found.admin
    again = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "alice"])
    assert again.exit_code == 2 and "author 'alice' exists already" in again.stderr
    admin = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "org", "--admin"])
    org = store.author_by_token(admin.stdout.strip())
    assert org is not None and org.admin


def test_ban_refuses_the_authors_token_from_then_on(ladder_file: Path) -> None:
    token = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "bob"]).stdout.strip()
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--ban", "bob"])
    assert done.exit_code == 0 and "author 'bob' banned" in done.stdout
    found = LadderStore.open(ladder_file.parent / "results").author_by_token(token)
    assert found is not None and found.banned
    unknown = CliRunner().invoke(main, ["serve", str(ladder_file), "--ban", "nobody"])
    assert unknown.exit_code == 2 and "no author 'nobody'" in unknown.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--add-author", "bad name"], "name 'bad name': must be 1-64 of"),
        (["--admin"], "--admin goes with --add-author NAME"),
    ],
    ids=["bad-name", "admin-alone"],
)
def test_serve_refuses_bad_options_in_one_line(ladder_file: Path, args: list[str], needle: str) -> None:
    done = CliRunner().invoke(main, ["serve", str(ladder_file), *args])
    assert done.exit_code == 2 and needle in done.stderr


def test_serve_refuses_a_file_without_a_ladder_section(ladder_file: Path) -> None:
    ladder_file.write_text(ladder_file.read_text().replace("ladder: {}\n", ""))
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "x"])
    assert done.exit_code == 2 and "needs a 'ladder' section" in done.stderr


def test_submit_needs_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    done = CliRunner().invoke(main, ["submit", "http://127.0.0.1:9", str(tmp_path), "--command", "./bot"])
    assert done.exit_code == 2 and "no token: set ARENA_TOKEN or give --token-file" in done.stderr


def test_submit_refuses_a_folder_it_cannot_send_before_any_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TOKEN", "t")
    bot = tmp_path / "bot"
    bot.mkdir()
    os.mkfifo(bot / "pipe")
    done = CliRunner().invoke(main, ["submit", "http://127.0.0.1:9", str(bot), "--command", "./bot"])
    assert done.exit_code == 2 and "cannot send" in done.stderr and "a special file" in done.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("127.1.2.3", True), ("0.0.0.0", False), ("192.0.2.1", False), ("example.org", False)],
)
def test_only_loopback_addresses_serve_without_a_warning(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback




def test_submit_of_a_bot_folder_alone_sends_the_command_and_build_its_bot_toml_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.ladder.client

    monkeypatch.setenv("ARENA_TOKEN", "t")
    sent: list[tuple[str, str | None]] = []

    def submit(url: str, token: str, folder: Path, name: str, command: str, build: str | None) -> dict[str, object]:
        sent.append((command, build))
        return {"version": 1, "status_url": "/api/submissions/1"}

    monkeypatch.setattr(arena.ladder.client, "submit", submit)
    bot = tmp_path / "my-bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('command = ["./target/release/my bot"]\nbuild = "cargo build --offline"\n')
    done = CliRunner().invoke(main, ["submit", "http://ladder.test", str(bot)])
    assert done.exit_code == 0, done.output
    assert sent == [("'./target/release/my bot'", "cargo build --offline")]
    assert done.output.splitlines()[0] == f"{bot}: bot.toml: build 'cargo build --offline', run \"'./target/release/my bot'\""
    assert CliRunner().invoke(main, ["submit", "http://ladder.test", str(bot), "--command", "./x"]).exit_code == 0
    assert sent[-1] == ("./x", None)  # a command given: the folder's bot.toml is not read


def test_scrimmage_without_a_token_or_with_no_games_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    done = CliRunner().invoke(main, ["scrimmage", "http://127.0.0.1:9", "greedy.v1", "house-random"])
    assert done.exit_code == 2 and "no token: set ARENA_TOKEN or give --token-file" in done.stderr
    monkeypatch.setenv("ARENA_TOKEN", "t")
    done = CliRunner().invoke(main, ["scrimmage", "http://127.0.0.1:9", "greedy.v1", "house-random", "--games", "0"])
    assert done.exit_code == 2 and "--games" in done.stderr
