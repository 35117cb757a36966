"""The referee against scripted bots: every message exchange, no processes.

The cases that need no process; the others are in tests/system/game/test_referee_fake.py.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.botkit import Turn, state_from_request
from arena.game import referee
from arena.game.clock import TimeControl
from arena.game.record import BotFault, FaultKind, GameRecord
from arena.game.referee import GameSetup, Referee
from arena.protocol import GameStart, TurnRequest, parse_referee_line
from arena.rules import GameState, HerdPlacement, Move, Params, SheepMove, format_position, random_board
from tests.support.fakebot import ScriptedChannel, engine_bot, scripted
from tests.support.referee_helpers import run, specs


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("build", [False, True], ids=["board", "build"])
def test_fake_bots_play_a_whole_game(players: int, build: bool) -> None:
    params = Params(players=players)
    board = None if build else random_board(players, 4 * players)
    bots = [engine_bot(f"b{i}") for i in range(players)]
    record = run(bots, GameSetup(params=params, board=board, seed=players))
    assert all(s.fault is None for s in record.seats)
    assert sorted(record.ranking)[0] == 1
    assert record.replay().is_over
    assert GameRecord.from_json(record.to_json()) == record
    for bot in bots:  # everyone got the end notice with the same ranking
        assert bot.goodbye is not None and bot.goodbye.startswith("end ranks=")
        assert bot.goodbye.split()[1] == "ranks=" + ";".join(map(str, record.ranking))


def test_every_request_describes_the_referees_state_exactly() -> None:
    seen: list[tuple[str, str]] = []

    def choose(turn: Turn) -> Move:
        seen.append((turn.request.phase, format_position(turn.state)))
        return turn.rng.choice(turn.state.legal_moves())

    record = run([engine_bot("a", choose), engine_bot("b", choose)], GameSetup(board=None, seed=9))
    positions = [format_position(state) for _, state in record.positions()]
    assert [p for _, p in seen] == positions[:-1]


def test_since_lists_only_the_other_players_moves() -> None:
    a, b, c = (engine_bot(n) for n in "abc")
    record = run([a, b, c])
    requests = [parse_referee_line(line) for line in a.received[2:]]
    assert all(isinstance(r, TurnRequest) for r in requests)
    told = [m for r in requests for m in r.since]  # type: ignore[union-attr]
    assert all(player != 0 for player, _ in told)
    others = [(m.player, m.move) for m in record.moves if m.player != 0]
    assert told == others[: len(told)]


def test_handshake_wrong_version_is_a_protocol_error() -> None:
    bad = ScriptedChannel(scripted(["hello 2 future"]))
    record = run([bad, engine_bot()])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.PROTOCOL_ERROR and "version 2" in fault.detail
    assert fault.ply == 0 and record.ranking == [2, 1]


@pytest.mark.parametrize(
    ("answers", "needle"),
    [
        (["ready"], "expected 'hello 1 NAME'"),
        (["hello 1 ok", "hello 1 ok"], "expected 'ready'"),
        (["hello 1 b@d"], "bot name"),
    ],
    ids=["no-hello", "no-ready", "bad-name"],
)
def test_handshake_faults(answers: list[str], needle: str) -> None:
    record = run([ScriptedChannel(scripted(answers)), engine_bot()])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.PROTOCOL_ERROR
    assert needle in fault.detail


def test_a_channel_that_could_not_start_is_forfeited_at_ply_zero() -> None:
    record = run([BotFault(FaultKind.STARTUP_FAILURE, "cannot start 'x'"), engine_bot()])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_FAILURE and fault.ply == 0
    assert record.seats[1].fault is None and record.ranking == [2, 1]
    assert record.replay().is_over


def _after_handshake(moves: list[str]) -> ScriptedChannel:
    return ScriptedChannel(scripted(["hello 1 x", "ready", *moves]))


def test_wrong_phase_word_is_a_protocol_error() -> None:
    record = run([_after_handshake(["move 0,0E1"]), engine_bot()])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.PROTOCOL_ERROR
    assert "expected 'herd MOVE'" in fault.detail and "'move 0,0E1'" in fault.detail


def test_unreadable_move_is_a_protocol_error_quoting_the_line() -> None:
    record = run([_after_handshake(["herd banana"]), engine_bot()])
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.PROTOCOL_ERROR and "'herd banana'" in fault.detail


def test_illegal_move_names_the_move_and_why() -> None:
    board = random_board(5, 8)
    inner = next(h for i, h in enumerate(board.coords) if not board.outer_border[i])
    move = f"{inner[0]},{inner[1]}"
    record = run([_after_handshake([f"herd {move}"]), engine_bot()], GameSetup(board=board))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_MOVE
    assert repr(move) in fault.detail and "border" in fault.detail


def test_move_timeout_and_the_game_goes_on() -> None:
    tc = TimeControl(move_ms=100, margin_ms=10)
    slow = ScriptedChannel(scripted(["hello 1 x", "ready", ("herd 0,0", 0.5)]))  # type: ignore[list-item]
    record = run([slow, engine_bot()], GameSetup(board=random_board(5, 8), time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert record.seats[1].fault is None and record.replay().is_over
    assert len(record.moves) > 1  # b kept playing alone


def test_clock_runs_down_with_increment_and_is_told_to_the_bot() -> None:
    tc = TimeControl(move_ms=None, base_ms=1000, increment_ms=100, margin_ms=0)
    times: list[int] = []

    def answer_slowly(line: str) -> tuple[str, float] | str:
        msg = parse_referee_line(line)
        if isinstance(msg, TurnRequest):
            times.append(msg.time)
            state = state_from_request(game_msg[0], msg)
            move = rng.choice(state.legal_moves())
            return f"{msg.phase} {move}", 0.4
        if isinstance(msg, GameStart):
            game_msg.append(msg)
            return "ready"
        return "hello 1 slow"

    game_msg: list[GameStart] = []
    rng = random.Random(3)
    record = run(
        [ScriptedChannel(answer_slowly), engine_bot()], GameSetup(board=random_board(5, 8), time_control=tc)
    )
    # 1000 -> 1000-400+100 = 700 -> 400 -> 100: the 4th answer (0.4 s) is too slow.
    assert times == [1000, 700, 400, 100]
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT


def test_an_empty_clock_loses_on_time_even_inside_the_margin() -> None:
    # Answers take the whole clock plus a little of the margin: the clock reaches
    # zero, and the next turn is lost without asking (no endless play in the margin).
    tc = TimeControl(move_ms=None, base_ms=300, margin_ms=50)
    sessions: list[GameStart] = []

    def answer(line: str) -> tuple[str, float] | str:
        msg = parse_referee_line(line)
        if isinstance(msg, GameStart):
            sessions.append(msg)
            return "ready"
        if isinstance(msg, TurnRequest):
            move = state_from_request(sessions[0], msg).legal_moves()[0]
            return f"{msg.phase} {move}", 0.32
        return "hello 1 slow"

    bot = ScriptedChannel(answer)
    record = run([bot, engine_bot()], GameSetup(board=random_board(5, 8), time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.detail == "its clock ran out"
    assert len([m for m in record.moves if m.player == 0]) == 1  # asked once, then out of time
    assert sum(line.startswith(("herd", "move")) for line in bot.received) == 1


def test_forfeited_player_is_ranked_last_and_the_game_goes_on() -> None:
    # a places its herd, moves once, then tries to move its whole stack; b and c are random.
    count = {"n": 0}

    def choose(turn: Turn) -> Move:
        count["n"] += 1
        moves = turn.state.legal_moves()
        if count["n"] == 3:
            m = moves[0]
            assert isinstance(m, SheepMove)
            return SheepMove(m.q, m.r, m.direction, turn.state.height[turn.state.board.index[(m.q, m.r)]])
        return turn.rng.choice(moves)

    record = run([engine_bot("a", choose), engine_bot("b"), engine_bot("c")])
    fault = record.seats[0].fault
    assert (
        fault is not None
        and fault.kind is FaultKind.ILLEGAL_MOVE
        and "at least one must stay" in fault.detail
    )
    # a's third request: after its herd and one move (b or c may have had no move to make).
    assert [m.player for m in record.moves[: fault.ply]].count(0) == 2
    assert record.ranking[0] == 3 and record.standings[0].hexes == 2
    assert record.standings[0].forfeited and record.replay().forfeited[0]
    assert len(record.moves) > fault.ply and all(m.player != 0 for m in record.moves[fault.ply :])


def test_a_bot_whose_opponents_all_forfeit_plays_alone_to_the_end() -> None:
    record = run([_after_handshake(["herd 99,99"]), engine_bot()])
    assert record.seats[0].fault is not None
    final = record.replay()
    assert final.is_over and final.hexcount[1] > 1


def test_referee_needs_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="2 players need as many bots"):
        Referee(GameSetup(), specs(3), [engine_bot(), engine_bot(), engine_bot()])


def test_state_from_request_round_trips_a_midgame_position() -> None:
    state = GameState(Params(players=3), random_board(2, 12))
    for move in [HerdPlacement(*state.board.coords[i]) for i in state.herd_hexes()[:3]]:
        state.apply(move)
    game = GameStart("g", state.to_move, 3, 1)
    req = TurnRequest(
        phase="move",
        time=100,
        ply=3,
        clocks=(None, None, None),
        since=(),
        board=state.board.coords,
        stacks=tuple((q, r, p, n) for (q, r), (p, n) in state.stacks().items()),
        tiles=(0, 0, 0),
    )
    assert format_position(state_from_request(game, req)) == format_position(state)


# -- answers read before (the referee keeps each well-formed answer line it has read) ------------


def test_an_answer_seen_before_is_still_judged_on_its_phase_and_its_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(referee, "_ANSWERS", {})
    board = random_board(5, 8)
    first = run([engine_bot("a"), engine_bot("b")], GameSetup(board=board, seed=4))
    herd = f"herd {first.moves[0].move}"
    move = f"move {first.moves[2].move}"
    assert herd in referee._ANSWERS and move in referee._ANSWERS  # both read before
    # A move-phase answer in the herd phase: the wrong phase, though well-formed.
    record = run([_after_handshake([move]), engine_bot()], GameSetup(board=board))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.PROTOCOL_ERROR and "expected 'herd MOVE'" in fault.detail
    # The same herd answer as before, but too late (a channel that lets it through, as
    # one arriving just at the deadline is).
    class Late(ScriptedChannel):
        def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
            line, _ = super().receive(10.0)
            return line, 0.5

    tc = TimeControl(move_ms=100, margin_ms=10)
    record = run([Late(scripted(["hello 1 x", "ready", herd])), engine_bot()], GameSetup(board=board, time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.detail == (
        "answered at ply 1 after 500 ms; its clock had 100 ms + margin 10 ms"
    )
    # And on time, it is played.
    gone = BotFault(FaultKind.CRASH, "no more answers")
    played = ScriptedChannel(scripted(["hello 1 x", "ready", herd, gone]))  # type: ignore[list-item]
    record = run([played, engine_bot()], GameSetup(board=board))
    assert record.moves[0].move == first.moves[0].move
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.CRASH and fault.ply > 0


def test_the_answers_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee, "_ANSWERS", {})
    monkeypatch.setattr(referee, "_ANSWERS_KEPT", 5)
    record = run([engine_bot("a"), engine_bot("b")], GameSetup(board=random_board(6, 8), seed=6))
    assert record.replay().is_over and len(record.moves) > 5
    assert len(referee._ANSWERS) == 5


def test_a_late_answer_is_still_taken_off_the_clock_the_others_are_told() -> None:
    class Late(ScriptedChannel):  # lets a late answer through, as one arriving at the deadline is
        def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
            line, _ = super().receive(10.0)
            return line, 0.7

    tc = TimeControl(move_ms=None, base_ms=600, increment_ms=100, margin_ms=50)
    board = random_board(5, 8)
    border = next(h for i, h in enumerate(board.coords) if board.outer_border[i])
    late = Late(scripted(["hello 1 x", "ready", f"herd {border[0]},{border[1]}"]))
    other = engine_bot("b")
    record = run([late, other], GameSetup(board=board, time_control=tc))
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.detail.startswith(
        "answered at ply 1 after 700 ms; its clock had "
    )
    requests = [parse_referee_line(line) for line in other.received if line.startswith(("herd", "move"))]
    assert requests and all(isinstance(r, TurnRequest) for r in requests)
    assert requests[0].clocks[0] == 100  # 600 - 700 -> 0, plus the increment


answer_lines = st.builds(
    lambda word, gap, token, tail: f"{word}{gap}{token}{tail}",
    st.sampled_from(["move", "move", "herd", "tile", "mov", "info", "ready"]),
    st.sampled_from([" ", " ", " ", " ", "  ", "\t", ""]),
    # Move-shaped tokens with ASCII digits (drawn most: lines the one-match reading
    # takes), far too long numbers, a non-ASCII digit now and then, and any short text.
    st.one_of(
        *[st.from_regex(r"-?0?[0-9]{1,3},-?[0-9]{1,3}(?:[ABCD]|(?:NE|NW|SE|SW|E|W|N)[0-9]{0,3})?", fullmatch=True)] * 4
    )
    | st.from_regex(r"[0-9]{18,21},0(?:NE[0-9]{1,21})?", fullmatch=True)
    | st.from_regex(r"[0-9\u0663]{1,2},[0-9\uff15]", fullmatch=True)
    | st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=8),
    st.sampled_from(["", "", "", " ", "\r", "\x00", " x"]),
)


@settings(max_examples=400, deadline=None)
@given(answer_lines, st.sampled_from(["move", "herd"]), st.sampled_from([0.01, 0.9]))
@example("move 99999999999999999999,0NE1", "move", 0.01)  # read in one match, then out of range
@example("move 99999999999999999999,0NE1", "move", 0.9)  # late: the clock comes first
@example("move 9223372036854775807,0NE1", "move", 0.01)  # the largest number that fits
@example("herd 3,0", "move", 0.01)  # well-formed, the wrong phase
@example("move  3,0NE2", "move", 0.01)  # two spaces: the general reading
@example("move \u0663,0", "move", 0.01)  # a non-ASCII digit
def test_the_one_match_reading_of_an_answer_is_the_general_one(line: str, phase: str, elapsed: float) -> None:
    """Whatever the line: the same move and text, or the same fault, and the same clock."""

    def read(answer_re: re.Pattern[str]) -> tuple[object, ...]:
        ref = Referee(GameSetup(time_control=TimeControl(move_ms=500)), specs(2), [engine_bot(), engine_bot()])
        saved = referee._ANSWER_RE, dict(referee._ANSWERS)
        referee._ANSWER_RE = answer_re
        referee._ANSWERS.clear()
        try:
            return ("read", ref._read_answer(line, phase, 0, elapsed), ref.clocks_left[0])
        except BotFault as f:
            return ("fault", f.kind, f.detail, ref.clocks_left[0])
        finally:
            referee._ANSWER_RE = saved[0]
            referee._ANSWERS.clear()
            referee._ANSWERS.update(saved[1])

    never = re.compile(r"(?P<phase>(?!))")  # every line takes the general path
    assert read(referee._ANSWER_RE) == read(never)


def test_only_plain_answer_lines_are_kept_however_a_bot_pads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line may be 4 KiB: kept by the thousand, padded answers would fill a worker's memory."""
    monkeypatch.setattr(referee, "_ANSWERS", {})
    ref = Referee(GameSetup(time_control=TimeControl(move_ms=500)), specs(2), [engine_bot(), engine_bot()])
    padded = "move" + " " * 4000 + "3,0NE2"
    assert ref._read_answer(padded, "move", 0, 0.01)[1:] == ref._read_answer("move 3,0NE2", "move", 0, 0.01)[1:]
    assert list(referee._ANSWERS) == ["move 3,0NE2"]
