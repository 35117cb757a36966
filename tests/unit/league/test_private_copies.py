"""Which bots get a private copy of their folder (one rule, on the arena's machine and on each
Dask worker): a bot that builds, and a writable bot whose folder overlaps another's or a
folder no bot may write; the copies leave out the other bots' folders and the results."""

from __future__ import annotations

from pathlib import Path

from arena.league.private_copies import BotFolder, make_copies, needs_copy


def bot(name: str, cwd: str, builds: bool = False, writable: bool = False) -> BotFolder:
    return BotFolder(name, Path(cwd), builds, writable)


def test_a_bot_that_builds_always_gets_a_copy_and_a_read_only_one_never() -> None:
    bots = [bot("a", "/x", builds=True), bot("b", "/x")]
    assert needs_copy(bots[0], bots)
    assert not needs_copy(bots[1], bots)  # it shares a folder, but writes nothing


def test_a_writable_bot_gets_a_copy_when_its_folder_overlaps_another_bot_s_or_a_shared_folder() -> None:
    alone = [bot("a", "/bots/a", writable=True), bot("b", "/bots/b")]
    assert not needs_copy(alone[0], alone)
    nested = [bot("a", "/bots", writable=True), bot("b", "/bots/b")]
    assert needs_copy(nested[0], nested)
    inside = [bot("a", "/bots/a/deep", writable=True), bot("b", "/bots/a")]
    assert needs_copy(inside[0], inside)
    same = [bot("a", "/bots", writable=True), bot("b", "/bots")]
    assert needs_copy(same[0], same)
    assert needs_copy(alone[0], alone, shared=[Path("/bots/a/results")])  # the results inside it
    assert needs_copy(alone[0], alone, shared=[Path("/bots")])  # inside the arena's checkout


def test_copies_are_made_only_where_needed_named_by_place_without_other_bots_or_the_skipped(
    tmp_path: Path,
) -> None:
    root = tmp_path / "src"
    (root / "other").mkdir(parents=True)
    (root / "results").mkdir()
    (root / "main.py").write_text("print()\n")
    (root / "other" / "x.py").write_text("print()\n")
    (root / "results" / "r").write_text("secret\n")
    bots = [bot("reader", str(root / "other")), bot("writer", str(root), writable=True)]
    asked: list[Path] = []

    def new_root() -> Path:
        asked.append(tmp_path / "copies")
        asked[-1].mkdir()
        return asked[-1]

    copies = make_copies(bots, new_root, skip=[root / "results"])
    assert copies == {"writer": tmp_path / "copies" / "bot1"}
    assert len(asked) == 1
    made = copies["writer"]
    assert (made / "main.py").is_file()
    assert not (made / "other").exists() and not (made / "results").exists()
    assert make_copies([bot("reader", str(root))], new_root) == {} and len(asked) == 1  # no copy, no root
