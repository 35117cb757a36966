"""Hostile archives sent to the ladder: each refused by the rule it breaks, naming the entry,
leaving nothing behind; a good archive unpacks with its programs still executable.

The cases that need no process; the others are in tests/system/ladder/test_ladder_unpack.py.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.errors import ArchiveRefused
from arena.ladder.settings import ArchiveLimits
from arena.ladder.unpack import Rule, unpack

LIMITS = ArchiveLimits()


def _tar(*members: tuple[tarfile.TarInfo, bytes | None], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:  # type: ignore[call-overload]
        for info, data in members:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buf.getvalue()


def _file(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def _refused(data: bytes, target: Path, limits: ArchiveLimits = LIMITS) -> ArchiveRefused:
    with pytest.raises(ArchiveRefused) as e:
        unpack(data, target, limits)
    assert not target.exists(), "a refused archive leaves nothing behind"
    return e.value


def test_a_bot_folder_unpacks_with_its_programs_executable(tmp_path: Path) -> None:
    data = _tar(_file("./bot.py", b"print('hi')\n", 0o755), _file("lib/util.py", b"x = 1\n"))
    out = unpack(data, tmp_path / "bot", LIMITS)
    assert (out.entries, out.bytes) == (2, 18)
    assert (tmp_path / "bot" / "bot.py").read_text() == "print('hi')\n"
    assert os.access(tmp_path / "bot" / "bot.py", os.X_OK)
    assert not os.access(tmp_path / "bot" / "lib" / "util.py", os.X_OK)


def test_a_zip_unpacks_too(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("src/main.c", "int main(void){return 0;}\n")
    unpack(buf.getvalue(), tmp_path / "bot", LIMITS)
    assert (tmp_path / "bot" / "src" / "main.c").is_file()


def test_a_zip_bomb_is_refused_on_its_ratio(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.bin", b"\0" * (64 * 1024 * 1024))
    e = _refused(buf.getvalue(), tmp_path / "bot")
    assert e.rule == Rule.RATIO and e.member == "bomb.bin"
    assert "compression ratio: 'bomb.bin'" in str(e)


def test_more_than_the_unpacked_size_is_refused_while_writing(tmp_path: Path) -> None:
    data = _tar(_file("a", os.urandom(3000)), _file("b", os.urandom(3000)))
    e = _refused(data, tmp_path / "bot", ArchiveLimits(unpacked_bytes=5000, ratio=100_000))
    assert (e.rule, e.member) == (Rule.UNPACKED_SIZE, "b")


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("../evil", Rule.PARENT),
        ("bot/../../evil", Rule.PARENT),
        ("/etc/cron.d/evil", Rule.ABSOLUTE),
        ("a\\b", Rule.NAME),
        ("/".join(["d"] * 20) + "/f", Rule.DEPTH),
    ],
    ids=["dotdot", "dotdot-inside", "absolute", "backslash", "deep"],
)
def test_a_name_that_leaves_the_folder_is_refused(tmp_path: Path, name: str, rule: Rule) -> None:
    e = _refused(_tar(_file("ok.txt"), _file(name)), tmp_path / "bot")
    assert (e.rule, e.member) == (rule, name)
    assert not (tmp_path / "evil").exists()


def test_a_zip_name_with_dotdot_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../evil", "x")
    e = _refused(buf.getvalue(), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.PARENT, "../../evil")


@pytest.mark.parametrize(
    "member",
    [
        _special("etc", tarfile.SYMTYPE, "/etc"),
        _special("passwd", tarfile.LNKTYPE, "/etc/passwd"),
        _special("inside", tarfile.SYMTYPE, "bot.py"),
    ],
    ids=["symlink-to-etc", "hardlink-to-passwd", "symlink-inside"],
)
def test_every_link_is_refused(tmp_path: Path, member: tuple[tarfile.TarInfo, None]) -> None:
    e = _refused(_tar(_file("bot.py"), member, _file(member[0].name + "/x")), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.LINK, member[0].name)
    assert member[0].linkname in str(e)


def test_a_zip_symlink_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("etc")
        info.external_attr = (0o120777) << 16
        zf.writestr(info, "/etc")
    assert _refused(buf.getvalue(), tmp_path / "bot").rule == Rule.LINK


@pytest.mark.parametrize("kind", [tarfile.FIFOTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE], ids=["fifo", "char", "block"])
def test_fifos_and_devices_are_refused(tmp_path: Path, kind: bytes) -> None:
    e = _refused(_tar(_special("pipe", kind)), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.SPECIAL, "pipe")


def _many_files_tar(count: int) -> bytes:
    """A gzipped tar of ``count`` empty files, its headers patched from one template (tarfile
    takes half a minute to write 100,000 of them on a loaded machine)."""
    template = bytearray(tarfile.TarInfo("f").tobuf(tarfile.USTAR_FORMAT))
    template[148:156] = b" " * 8  # the checksum counts its own field as spaces
    base = sum(template) - ord("f")
    blocks = []
    for i in range(count):
        name = f"f{i}".encode()
        block = bytearray(template)
        block[0 : len(name)] = name
        block[148:156] = b"%06o\0 " % (base + sum(name))
        blocks.append(bytes(block))
    return gzip.compress(b"".join(blocks) + b"\0" * 1024, compresslevel=1)


def test_a_hundred_thousand_files_stop_at_the_file_count(tmp_path: Path) -> None:
    data = _many_files_tar(100_000)
    with tarfile.open(fileobj=io.BytesIO(_many_files_tar(3))) as forged:
        assert forged.getnames() == ["f0", "f1", "f2"]  # the forgery reads as a tar
    e = _refused(data, tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.FILE_COUNT, f"f{LIMITS.files}")


def test_a_zip_of_too_many_files_is_refused_before_writing(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(LIMITS.files + 1):
            zf.writestr(f"f{i}", b"")
    e = _refused(buf.getvalue(), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.FILE_COUNT, f"f{LIMITS.files}")


def test_an_archive_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    e = _refused(b"\0" * 2048, tmp_path / "bot", ArchiveLimits(max_bytes=1024))
    assert e.rule == Rule.ARCHIVE_SIZE


def test_not_an_archive_is_refused_by_format(tmp_path: Path) -> None:
    assert _refused(b"#!/bin/sh\necho hi\n", tmp_path / "bot").rule == Rule.FORMAT
    assert _refused(b"\x1f\x8b" + b"garbage" * 10, tmp_path / "bot").rule == Rule.FORMAT


def test_a_name_given_twice_is_refused_not_overwritten(tmp_path: Path) -> None:
    e = _refused(_tar(_file("bot.py", b"good"), _file("bot.py", b"evil")), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.DUPLICATE, "bot.py")
    e = _refused(_tar(_file("lib", b"file"), _file("lib/x")), tmp_path / "bot")
    assert e.rule == Rule.DUPLICATE


def test_the_target_must_be_fresh(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    with pytest.raises(FileExistsError):
        unpack(_tar(_file("a")), tmp_path / "bot", LIMITS)


def test_a_refusal_quotes_a_long_name_in_one_short_line(tmp_path: Path) -> None:
    name = "a" * 5000 + "/../x"
    e = _refused(_tar(_file(name)), tmp_path / "bot")
    assert e.rule == Rule.PARENT and e.member == name
    assert len(str(e)) < 400 and "\n" not in str(e)
