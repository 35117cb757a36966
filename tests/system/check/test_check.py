"""``arena check``: sample bots pass, each broken bot fails the right check, reports are valid.

The cases that start processes; the others are in tests/unit/check/test_check.py.
"""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from arena.check.play import HANDSHAKE_FAILURES
from arena.cli import main

REPO = Path(__file__).resolve().parents[3]
PY = sys.executable
BROKEN = REPO / "tests" / "bots" / "broken"
C_BOT = REPO / "sample_bots" / "c" / "greedy"


def check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args, "--cwd", str(REPO), "-j", "2"])
    return result.exit_code, result.output


def statuses(output: str) -> dict[str, str]:
    out = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("PASS", "FAIL", "SKIP", "INCONCLUSIVE"):
            out[parts[1]] = parts[0]
    return out


def first_failure(output: str) -> str:
    line = next(line for line in output.splitlines() if line.startswith("first failure: "))
    return line.removeprefix("first failure: ").split(":")[0]


@pytest.fixture(scope="module")
def c_bot() -> Path:
    if not C_BOT.exists():
        import subprocess

        subprocess.run(["make", "-s", "-C", str(C_BOT.parent)], check=True)
    return C_BOT


SAMPLES = [
    pytest.param(f"{PY} sample_bots/random_bot.py", [], id="random-py"),
    pytest.param(f"{PY} sample_bots/mcts_bot.py", ["--move-time", "100ms"], id="mcts-py"),
    pytest.param(
        "node sample_bots/greedy.js",
        [],
        id="greedy-js",
        marks=pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js"),
    ),
    pytest.param("sample_bots/c/greedy", [], id="greedy-c"),
]


@pytest.mark.parametrize(("command", "extra"), SAMPLES)
def test_every_sample_bot_passes(command: str, extra: list[str], c_bot: Path, tmp_path: Path) -> None:
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    code, out = check(
        command, "--conformance-games", "23", *extra, "--junit", str(junit), "--json", str(report)
    )
    assert code == 0, out
    checks = statuses(out)
    assert set(checks.values()) == {"PASS"}, out
    assert {
        "handshake",
        "legal-tiles",
        "legal-herds",
        "legal-moves",
        "2-players",
        "3-players",
        "4-players",
        "every-seat",
        "time",
        "protocol",
        "stays-alive",
        "exits",
        "passes",
        "opponent-forfeits",
    } == set(checks)
    data = json.loads(report.read_text())
    assert data["passed"] is True and {c["name"]: c["status"] for c in data["checks"]} == {
        k: v.lower() for k, v in checks.items()
    }
    suite = ET.parse(junit).getroot()
    assert (
        suite.tag == "testsuite" and suite.get("failures") == "0" and suite.get("tests") == str(len(checks))
    )


BROKEN_CASES = [
    # (Broken answers a scripted fake can give, garbage, a wrong phase word, an illegal move of
    # each kind, are judged without processes in tests/unit/check/test_check_judge.py.)
    ("exits_at_once.py", [], "handshake"),
    ("never_says_hello.py", ["--startup", "1s"], "handshake"),
    ("dies_mid_game.py", [], "stays-alive"),
    ("killed_by_signal.py SIGSEGV", [], "stays-alive"),
    ("exits_child_holds_output.py", [], "stays-alive"),
    ("sleeps_on_move.py", ["--move-time", "300ms"], "time"),
    ("non_ascii.py latin", [], "protocol"),
    ("endless_line.py", [], "protocol"),
    ("stray_line.py", [], "protocol"),
    ("illegal_move.py foreign", [], "legal-moves"),
    ("ignores_end.py", ["--end-grace", "200ms"], "exits"),
    ("floods_unasked_lines.py", ["--end-grace", "200ms"], "exits"),
    # Processes left behind are only seen without a sandbox (a sandbox ends them all).
    ("leaves_children.py group MARK", ["--no-sandbox"], "exits"),
    ("leaves_children.py setsid MARK", ["--no-sandbox"], "exits"),
    ("leaves_children.py envless MARK", ["--no-sandbox"], "exits"),
]


@pytest.mark.parametrize(
    ("bot", "extra", "expected"), BROKEN_CASES, ids=[c[0].replace(" ", "-") for c in BROKEN_CASES]
)
def test_each_broken_bot_fails_the_right_check(
    bot: str, extra: list[str], expected: str, tmp_path: Path
) -> None:
    bot = bot.replace("MARK", f"mark-{uuid.uuid4().hex[:8]}")
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    code, out = check(
        f"{PY} {BROKEN / bot}",
        "--fail-fast",
        "--conformance-games",
        "23",
        *extra,
        "--junit",
        str(junit),
        "--json",
        str(report),
    )
    assert code == 1, out
    assert first_failure(out) == expected, out
    assert statuses(out)[expected] == "FAIL"
    assert "replay it: arena play " in out and "--seed " in out and "--seed-secret " in out
    data = json.loads(report.read_text())
    assert data["passed"] is False and data["first_failure"]["check"] == expected
    assert next(c for c in data["checks"] if c["name"] == expected)["status"] == "fail"
    suite = ET.parse(junit).getroot()
    failed = [case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None]
    assert expected in failed and int(suite.get("failures", "0")) == len(failed)
    assert sorted(failed) == sorted(c["name"] for c in data["checks"] if c["status"] == "fail")


def test_a_bot_that_never_says_hello_stops_the_check_after_a_few_games_and_is_told_to_flush() -> None:
    # Without --fail-fast: each game would wait the whole startup allowance for nothing.
    code, out = check(f"{PY} {BROKEN / 'never_says_hello.py'}", "--startup", "1s")
    assert code == 1, out
    assert f"stopped: the handshake failed in the first {HANDSHAKE_FAILURES} games and succeeded in none" in out
    checks = statuses(out)
    assert checks.pop("handshake") == "FAIL" and set(checks.values()) == {"SKIP"}, out
    assert "does it flush its output after each line?" in out and "std::flush" in out, out


@pytest.mark.parametrize(
    "bot", ["floods_stderr.py 20", "floods_info.py 20000"], ids=["floods-stderr", "floods-info"]
)
def test_noisy_but_correct_bots_pass(bot: str) -> None:
    code, out = check(f"{PY} {BROKEN / bot}", "--conformance-games", "23", "--startup", "20s")
    assert code == 0, out


def test_the_replay_command_reproduces_the_failure() -> None:
    code, out = check(f"{PY} {BROKEN / 'illegal_move.py'}", "--fail-fast", "--conformance-games", "23")
    assert code == 1
    command = next(line for line in out.splitlines() if "replay it: " in line).split("replay it: ")[1]
    import shlex

    argv = shlex.split(command)
    if Path.cwd() != REPO:  # run from elsewhere, the command first goes to the bot's folder
        assert argv[:3] == ["cd", str(REPO), "&&"]
        argv = argv[3:]
    assert argv[:2] == ["arena", "play"]
    # The built-in opponent by its stable spelling, not this machine's interpreter path.
    # (The bot under test is given as this interpreter and its script, in whichever seat it failed.)
    others = [a for a in argv if "illegal_move.py" not in a]
    assert "arena:random" in argv and not any(sys.executable in a for a in others), argv
    replay = CliRunner().invoke(main, [*argv[1:], "-q"])
    assert replay.exit_code == 0 and "illegal-move" in replay.output, replay.output


def test_a_check_never_exercised_is_skipped_not_passed() -> None:
    # Forfeited at each herd answer for a line that is no herd: no herd answer was ever judged.
    code, out = check(f"{PY} {BROKEN / 'garbles_herds.py'}", "--conformance-games", "23")
    assert code == 1, out
    checks = statuses(out)
    assert checks["protocol"] == "FAIL" and checks["legal-tiles"] == "PASS", out
    assert checks["legal-herds"] == "SKIP" and checks["legal-moves"] == "SKIP", out
    assert checks["exits"] == "SKIP", out


@pytest.mark.slow
def test_strength_gate_passes_for_mcts_against_random_and_fails_the_other_way() -> None:
    mcts, rnd = f"{PY} sample_bots/mcts_bot.py", f"{PY} sample_bots/random_bot.py"
    common = ["--skip-conformance", "--games", "6", "--min-points", "0.6", "--move-time", "250ms"]
    code, out = check(mcts, "--against", rnd, *common)
    assert code == 0 and statuses(out) == {"strength": "PASS"}, out
    code, out = check(rnd, "--against", mcts, *common)
    assert code == 1 and statuses(out) == {"strength": "FAIL"}, out


@pytest.mark.parametrize("gate", ["--against", "--sprt"])
def test_an_opponent_that_forfeits_is_named_in_the_strength_gate(gate: str, c_bot: Path, tmp_path: Path) -> None:
    # Its forfeits score as the candidate's wins: the gate must say so, not pass in silence.
    report = tmp_path / "r.json"
    breaks = f"{PY} {BROKEN / 'dies_mid_game.py'}"
    extra = ["--games", "4"] if gate == "--against" else ["--elo0", "0", "--elo1", "150", "--max-games", "4"]
    _, out = check("sample_bots/c/greedy", gate, breaks, "--skip-conformance", *extra, "--json", str(report))
    assert "WARNING: the opponent forfeited 4 of 4 games (crash 4), each scored as a win for this bot" in out, out
    assert "dies_mid_game.py in check-" in out
    faults = json.loads(report.read_text())["strength"]["opponent_faults"]
    assert len(faults) == 4 and {f["kind"] for f in faults} == {"crash"} and "dies_mid_game.py" in faults[0]["opponent"]
    # A sound opponent: no warning, an empty list.
    _, out = check("sample_bots/c/greedy", gate, "sample_bots/c/greedy --random", "--skip-conformance", *extra,
                      "--json", str(report))
    assert "opponent forfeited" not in out and json.loads(report.read_text())["strength"]["opponent_faults"] == []


def test_sprt_accepts_the_stronger_bot_and_rejects_the_weaker(c_bot: Path) -> None:
    strong, weak = "sample_bots/c/greedy", "sample_bots/c/greedy --random"
    sprt = ["--skip-conformance", "--elo0", "0", "--elo1", "150", "--max-games", "60"]
    code, out = check(strong, "--sprt", weak, *sprt)
    assert code == 0 and "H1" in out, out
    code, out = check(weak, "--sprt", strong, *sprt)
    assert code == 1 and "H0" in out, out


def test_an_sprt_out_of_games_is_inconclusive_with_exit_3_and_a_cap_warning(c_bot: Path, tmp_path: Path) -> None:
    junit = tmp_path / "r.xml"
    strong, weak = "sample_bots/c/greedy", "sample_bots/c/greedy --random"
    args = ["--skip-conformance", "--elo0", "0", "--elo1", "150", "--max-games", "4", "--junit", str(junit)]
    code, out = check(strong, "--sprt", weak, *args)
    assert code == 3 and statuses(out) == {"sprt": "INCONCLUSIVE"}, out
    assert "WARNING: --max-games 4 is below what the bounds [0, 150] need" in out
    assert "INCONCLUSIVE  sprt               inconclusive: no decision within 4 games" in out
    assert "\nINCONCLUSIVE: 0 passed, 0 failed, 1 inconclusive" in out
    assert '<skipped message="inconclusive: ' in junit.read_text()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--move-time", "soon", "x"], "--move-time"),
        (["--skip-conformance", "x"], "leaves nothing to check"),
        (["--sprt", "y", "--elo0", "10", "--elo1", "5", "x"], "--elo1"),
        (["--against", "'unterminated", "x"], "cannot split"),
        (["--against", "no-such-program", "x"], "program 'no-such-program' not found"),
        (
            [
                "--skip-conformance",
                "--games",
                "2",
                "--against",
                f"{PY} no_such_bot.py",
                f"{PY} sample_bots/random_bot.py",
            ],
            "could not be started",
        ),
    ],
    ids=[
        "bad-duration",
        "nothing-to-check",
        "bad-elo",
        "bad-quote",
        "missing-opponent",
        "opponent-cannot-start",
    ],
)
def test_usage_errors_exit_2(args: list[str], needle: str) -> None:
    # A typo in an opponent's command must not let every bot pass by its forfeits.
    result = CliRunner().invoke(main, ["check", *args, "--cwd", str(REPO)])
    assert result.exit_code == 2 and needle in result.output, result.output


def test_failed_build_fails_the_check(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    code, out = check("./nothing", "--build", "sh -c 'echo no compiler >&2; exit 4'", "--json", str(report))
    assert code == 1 and "FAIL  build" in out and "no compiler" in out
    assert json.loads(report.read_text())["checks"][0]["name"] == "build"


