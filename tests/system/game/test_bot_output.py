"""How a bot's output is cut into lines: the same lines however the pipe chunks it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game.botproc import MAX_QUEUED_LINES, BotProcess
from arena.protocol import MAX_LINE_BYTES


@pytest.fixture(scope="module")
def make_bot() -> Iterator[Callable[[], BotProcess]]:
    """Fresh BotProcess objects over one harmless process: only their buffers are used."""
    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    yield lambda: BotProcess("cat", proc)
    proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        assert pipe is not None
        pipe.close()


def outcome(bot: BotProcess) -> tuple[object, ...]:
    return ([raw for raw, _ in bot.lines], bot.infos, bot.info_count, bot.overflow, bot.flooded)


pieces = st.sampled_from(
    [
        b"move 3,0NE5",
        b"herd 1,2",
        b"info depth 3",
        b"info",
        b"info\tx",
        b"infox",
        b"\r",
        b"\n",
        b"\r\n",
        b" ",
        b"x" * (MAX_LINE_BYTES - 12),
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(pieces, max_size=30), st.lists(st.integers(1, 5000), max_size=40))
def test_lines_do_not_depend_on_how_the_output_is_chunked(
    make_bot: Callable[[], BotProcess], parts: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(parts)
    whole, chunked, by_byte, by_line = make_bot(), make_bot(), make_bot(), make_bot()
    if stream:
        whole.take_stdout(stream, 1.0)
    at = 0
    for size in [*cuts, len(stream)]:
        if at < len(stream):
            chunked.take_stdout(stream[at : at + size], 1.0)
            at += size
    for i in range(len(stream)):
        by_byte.take_stdout(stream[i : i + 1], 1.0)
    for line in stream.splitlines(keepends=True):  # a read per line: how bots mostly write
        by_line.take_stdout(line, 1.0)
    assert outcome(whole) == outcome(chunked) == outcome(by_byte) == outcome(by_line)


def test_one_answer_line_per_read(make_bot: Callable[[], BotProcess]) -> None:
    bot = make_bot()
    bot.take_stdout(b"", 2.4)  # (a read never gives nothing, but it would be no line)
    bot.take_stdout(b"move 3,0NE5\r\n", 2.5)
    bot.take_stdout(b"info hi\n", 2.6)
    bot.take_stdout(b"herd 1,2\n", 2.7)
    assert list(bot.lines) == [(b"move 3,0NE5", 2.5), (b"herd 1,2", 2.7)]
    assert bot.infos == ["hi"] and not bot.overflow and not bot.flooded


def test_the_longest_line_passes_and_one_byte_more_is_an_overflow(make_bot: Callable[[], BotProcess]) -> None:
    ok, too_long = make_bot(), make_bot()
    ok.take_stdout(b"m" * MAX_LINE_BYTES + b"\n", 1.0)
    too_long.take_stdout(b"m" * (MAX_LINE_BYTES + 1) + b"\n", 1.0)
    assert len(ok.lines) == 1 and not ok.overflow
    assert not too_long.lines and too_long.overflow


def test_too_many_unasked_lines_one_per_read_are_a_flood(make_bot: Callable[[], BotProcess]) -> None:
    bot = make_bot()
    for _ in range(MAX_QUEUED_LINES):
        bot.take_stdout(b"move 3,0NE5\n", 1.0)
    assert len(bot.lines) == MAX_QUEUED_LINES and not bot.flooded
    bot.take_stdout(b"move 3,0NE5\n", 1.0)
    assert bot.flooded and not bot.lines
