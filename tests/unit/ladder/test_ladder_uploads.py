"""Uploads that cost the server nothing it need not spend (issue 30, items 7 and 8).

- 8: what can be refused from the headers and the name (another author's bot name, a house
  bot's or a banned bot's, a quota the declared size already passes) is refused before the
  archive is read: the body's chunks are counted as the server pulls them.
- 7: one author has at most two uploads received at once and the server a few in all (the
  next is refused at once, its body unread); an upload being received holds its place in
  its author's quota; the archive goes to disk as it arrives.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from arena.ladder.service import Uploads
from tests.unit.ladder.test_ladder_api import Ladder, bot_archive

BOUNDARY = "arena-test-boundary"
CHUNK = 64 * 1024


class Body:
    """A multipart upload sent a chunk at a time, counting the chunks the server pulls; it
    can hold back its last chunk until told to go on (an upload still arriving)."""

    def __init__(self, fields: dict[str, str], archive: bytes, hold: bool = False) -> None:
        head = "".join(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()
        )
        head += f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="archive"; filename="bot.tar.gz"\r\n\r\n'
        data = head.encode() + archive + f"\r\n--{BOUNDARY}--\r\n".encode()
        self.chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
        self.size = len(data)
        self.pulled = 0
        self.started = asyncio.Event()  # the server pulled the first chunk
        self.held = asyncio.Event()  # the server asked for the last: it has done with the others
        self.go_on = asyncio.Event()
        if not hold:
            self.go_on.set()

    async def stream(self) -> AsyncIterator[bytes]:
        for i, chunk in enumerate(self.chunks):
            if i == len(self.chunks) - 1:
                self.held.set()
                await self.go_on.wait()
            self.pulled += 1
            self.started.set()
            yield chunk


async def send(ladder: Ladder, who: str, body: Body) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {ladder.tokens[who]}",
        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        "Content-Length": str(body.size),
    }
    transport = httpx.ASGITransport(app=ladder.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ladder.test") as client:
        return await client.post("/api/bots", content=body.stream(), headers=headers)


def big_archive() -> bytes:
    return bot_archive(extra=900_000)  # 15 chunks, random: it does not compress


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("greedy", 409, "belongs to another author"),
        ("one", 409, "a bot of the league itself"),
        ("banned", 403, "bot 'banned' is banned"),
        ("../x", 400, "bot name '../x'"),
    ],
    ids=["another-authors-bot", "house-bot", "banned-bot", "bad-name"],
)
def test_an_upload_refused_by_its_name_is_refused_before_its_archive_is_read(
    ladder: Ladder, name: str, status: int, needle: str
) -> None:
    assert ladder.submit("alice", bot_archive(), name="greedy").status_code == 202
    assert ladder.submit("org", bot_archive(), name="banned").status_code == 202
    assert ladder.request("POST", "/api/bots/banned/ban", "org").status_code == 200
    before = sorted(ladder.ladder.versions_folder.iterdir())
    body = Body({"name": name, "command": "python3 bot.py"}, big_archive())
    r = asyncio.run(send(ladder, "bob", body))
    assert r.status_code == status and needle in r.json()["error"], r.text
    assert body.pulled <= 1 < len(body.chunks)  # the chunk that held the name, not the archive
    assert sorted(ladder.ladder.versions_folder.iterdir()) == before  # nothing unpacked
    assert not [p for p in (ladder.ladder.folder / "submissions").iterdir() if p.name.startswith(".incoming")]


def test_an_upload_whose_declared_size_passes_the_byte_quota_is_refused_unread(ladder: Ladder) -> None:
    for _ in range(2):
        assert ladder.submit("alice", big_archive()).status_code == 202  # 1.8 MB of the day's 2 MB
    body = Body({"name": "greedy", "command": "python3 bot.py"}, big_archive())
    r = asyncio.run(send(ladder, "alice", body))
    assert r.status_code == 429 and "archive bytes per day" in r.json()["error"]
    assert body.pulled == 0


def test_one_author_has_two_uploads_received_at_once_and_the_third_is_refused_unread(ladder: Ladder) -> None:
    async def go() -> list[httpx.Response]:
        first, second = (Body({"name": "greedy", "command": "python3 bot.py"}, bot_archive(200_000), hold=True) for _ in range(2))
        tasks = [asyncio.create_task(send(ladder, "alice", b)) for b in (first, second)]
        await asyncio.wait_for(asyncio.gather(first.started.wait(), second.started.wait()), 60)
        third = Body({"name": "greedy", "command": "python3 bot.py"}, bot_archive())
        refused = await send(ladder, "alice", third)
        assert third.pulled == 0
        other = await send(ladder, "bob", Body({"name": "mcts", "command": "python3 bot.py"}, bot_archive()))
        first.go_on.set()
        second.go_on.set()
        return [refused, other, *await asyncio.gather(*tasks)]

    refused, other, *held = asyncio.run(go())
    assert refused.status_code == 429 and "2 uploads of yours are being received" in refused.json()["error"]
    assert refused.headers["retry-after"] == "10"
    assert other.status_code == 202  # another author is not kept waiting
    assert [r.status_code for r in held] == [202, 202]
    assert [s.version for s in ladder.store.versions_of("greedy")] == [1, 2]


def test_the_server_receives_a_few_uploads_at_once_and_refuses_the_next_with_503(ladder: Ladder) -> None:
    ladder.app.state.service.uploads = Uploads(per_author=2, at_once=2)

    async def go() -> httpx.Response:
        held = [Body({"name": n, "command": "python3 bot.py"}, bot_archive(200_000), hold=True) for n in ("a1", "b1")]
        tasks = [asyncio.create_task(send(ladder, who, b)) for who, b in zip(("alice", "bob"), held, strict=True)]
        await asyncio.wait_for(asyncio.gather(*(b.started.wait() for b in held)), 60)
        refused = await send(ladder, "org", Body({"name": "house2", "command": "python3 bot.py"}, bot_archive()))
        for b in held:
            b.go_on.set()
        assert [r.status_code for r in await asyncio.gather(*tasks)] == [202, 202]
        return refused

    refused = asyncio.run(go())
    assert refused.status_code == 503 and "receiving 2 uploads already" in refused.json()["error"]
    assert refused.headers["retry-after"] == "10"


def test_an_upload_being_received_holds_its_place_in_the_quota(ladder: Ladder) -> None:
    for _ in range(2):
        assert ladder.submit("alice", bot_archive()).status_code == 202  # 2 of the hour's 3

    async def go() -> tuple[httpx.Response, httpx.Response, Body]:
        last = Body({"name": "greedy", "command": "python3 bot.py"}, bot_archive(200_000), hold=True)
        task = asyncio.create_task(send(ladder, "alice", last))
        await asyncio.wait_for(last.started.wait(), 60)
        over = Body({"name": "greedy", "command": "python3 bot.py"}, bot_archive())
        refused = await send(ladder, "alice", over)
        last.go_on.set()
        return refused, await task, over

    refused, taken, over = asyncio.run(go())
    assert refused.status_code == 429 and "at most 3 versions per hour" in refused.json()["error"]
    assert over.pulled == 0  # refused before its body was read
    assert taken.status_code == 202 and len(ladder.store.submissions()) == 3


def test_the_archive_goes_to_disk_as_it_arrives(ladder: Ladder) -> None:
    archive = bot_archive(500_000)

    async def go() -> tuple[httpx.Response, int]:
        body = Body({"name": "greedy", "command": "python3 bot.py"}, archive, hold=True)
        task = asyncio.create_task(send(ladder, "alice", body))
        await asyncio.wait_for(body.held.wait(), 60)  # every chunk but the last one read
        (incoming,) = [p for p in (ladder.ladder.folder / "submissions").iterdir() if p.name.startswith(".incoming")]
        on_disk = os.path.getsize(incoming / "archive")
        body.go_on.set()
        return await task, on_disk

    r, on_disk = asyncio.run(go())
    assert r.status_code == 202
    assert len(archive) - CHUNK <= on_disk < len(archive)  # all of it but the chunk not sent yet
    assert (ladder.ladder.folder / "submissions" / str(r.json()["id"]) / "archive").read_bytes() == archive


def test_two_uploads_that_fit_the_quota_together_are_both_taken_whatever_ends_first(ladder: Ladder) -> None:
    assert ladder.submit("alice", bot_archive()).status_code == 202  # 1 of the hour's 3

    async def go() -> list[httpx.Response]:
        first, second = (Body({"name": "greedy", "command": "python3 bot.py"}, bot_archive(200_000), hold=True) for _ in range(2))
        tasks = [asyncio.create_task(send(ladder, "alice", b)) for b in (first, second)]
        await asyncio.wait_for(asyncio.gather(first.started.wait(), second.started.wait()), 60)
        first.go_on.set()
        done = await tasks[0]  # stored: it counts as a version now, no longer as an upload too
        second.go_on.set()
        return [done, await tasks[1]]

    assert [r.status_code for r in asyncio.run(go())] == [202, 202]
    assert len(ladder.store.submissions()) == 3


def _raw(parts: list[tuple[str, bytes]]) -> bytes:
    """A multipart body of raw parts: each its header lines and its data."""
    body = b"".join(f"--{BOUNDARY}\r\n{head}\r\n\r\n".encode() + data + b"\r\n" for head, data in parts)
    return body + f"--{BOUNDARY}--\r\n".encode()


ARCHIVE_PART = ('Content-Disposition: form-data; name="archive"; filename="a.tgz"', bot_archive())
NAME_PART = ('Content-Disposition: form-data; name="name"', b"greedy")
COMMAND_PART = ('Content-Disposition: form-data; name="command"', b"python3 bot.py")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (_raw([("Content-Disposition: form-data", b"x"), ARCHIVE_PART]), "a part without a name"),
        (_raw([NAME_PART, COMMAND_PART, ARCHIVE_PART, ARCHIVE_PART]), "one file, as 'archive'"),
        (_raw([('Content-Disposition: form-data; name="other"; filename="x"', b"x"), NAME_PART]), "one file, as 'archive'"),
        (_raw([('Content-Disposition: form-data; name="command"', b"x" * 20_000), ARCHIVE_PART]), "passes 16384 bytes"),
        (_raw([(f'Content-Disposition: form-data; name="f{i}"', b"1") for i in range(9)]), "more than 8 fields"),
        (b"--" + BOUNDARY.encode() + b"\r\nno headers end" * 1000, "cannot read the form"),
    ],
    ids=["part-without-name", "two-archives", "another-file", "huge-field", "many-fields", "garbage"],
)
def test_a_malformed_upload_answers_400_saying_what_was_wrong(ladder: Ladder, body: bytes, needle: str) -> None:
    r = ladder.request(
        "POST",
        "/api/bots",
        "alice",
        content=body,
        headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )
    assert r.status_code == 400 and needle in r.json()["error"], r.text
    assert ladder.store.submissions() == []
    assert not [p for p in (ladder.ladder.folder / "submissions").iterdir()]
