"""``arena new LANG [FOLDER]`` writes exactly the files of the kit (kits/LANG) into a new or
empty folder, refuses any other, and names the languages when it does not know the one asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.convention import resolve
from arena.kitfiles import KITS as LANGUAGES

KITS = Path(__file__).resolve().parents[3] / "kits"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_new_writes_the_kit_s_own_files_which_say_how_to_build_and_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["new", language, "my-bot"])
    assert done.exit_code == 0, done.output
    assert files_of(tmp_path / "my-bot") == files_of(KITS / language)
    assert "README.md" in files_of(tmp_path / "my-bot") and "bot.toml" in files_of(tmp_path / "my-bot")
    assert resolve(tmp_path / "my-bot").rule == "bot.toml"
    assert done.output.splitlines()[-1] == "next: read my-bot/README.md, then: arena check my-bot"


def test_the_kits_folder_holds_one_kit_per_language_and_nothing_else() -> None:
    assert sorted(p.name for p in KITS.iterdir()) == sorted(LANGUAGES)


@pytest.mark.parametrize(("alias", "language"), [("js", "javascript"), ("C++", "cpp"), ("c#", "csharp"), ("TS", "typescript")])
def test_new_knows_a_language_by_its_usual_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alias: str, language: str) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["new", alias])
    assert done.exit_code == 0, done.output
    assert files_of(tmp_path / "my-bot") == files_of(KITS / language)


def test_new_refuses_a_folder_that_is_not_empty_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    done = CliRunner().invoke(main, ["new", "c", str(tmp_path / "mine")])
    assert done.exit_code == 2
    assert done.output == f"Error: {tmp_path / 'mine'}: already exists and is not an empty folder; choose a new one\n"
    assert files_of(tmp_path / "mine") == {"notes.txt": b"keep me"}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert CliRunner().invoke(main, ["new", "go", str(empty)]).exit_code == 0
    assert (empty / "MyBot.go").is_file()


def test_new_with_an_unknown_language_is_one_line_listing_the_languages(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["new", "cobol", str(tmp_path / "x")])
    assert done.exit_code == 2
    assert done.output == (
        "Error: no kit for 'cobol': the languages are python, javascript, typescript, c, cpp, java, go, rust, csharp\n"
    )
    assert not (tmp_path / "x").exists()
