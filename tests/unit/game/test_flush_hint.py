"""A bot that never flushes is told how, in its own language: the hint and PROTOCOL.md name each
kit language's idiom (the hint is what ``arena check`` prints under a failed handshake)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.game.diagnose import ProcessFacts, fault_hint
from arena.game.limits import ResourceLimits
from arena.game.record import Fault, FaultKind

PROTOCOL = Path(__file__).resolve().parents[3] / "protocol" / "PROTOCOL.md"

# (language, what the hint and the protocol's table must name)
IDIOMS = [
    ("Python", "flush=True"),
    ("JavaScript", "process.stdout.write"),
    ("C", "fflush(stdout)"),
    ("C", "setvbuf(stdout, NULL, _IONBF, 0)"),
    ("C++", "std::flush"),
    ("C++", "std::endl"),
    ("C++", "cin.tie(nullptr)"),
    ("Java", "System.out.flush()"),
    ("Go", "bufio.Writer"),
    ("Rust", "stdout().flush()"),
    ("Rust", "std::io::Write"),
    ("C#", "Console.Out.Flush()"),
    ("C#", "AutoFlush = true"),
]


def silent_hint() -> str:
    facts = ProcessFacts(
        argv=("./bot",), cwd=Path("/bots/mine"), limits=ResourceLimits(), policy=None,
        limits_text="rlimits", exit="signal SIGKILL", out_of_memory=False, stdout_bytes=0, stderr="",
    )
    return fault_hint(Fault(FaultKind.STARTUP_FAILURE, "no hello within the startup allowance", 0), facts)


@pytest.mark.parametrize(("language", "idiom"), IDIOMS, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(IDIOMS)])
def test_the_missing_flush_hint_and_the_protocol_name_each_kit_languages_idiom(language: str, idiom: str) -> None:
    hint = silent_hint()
    assert hint.startswith("the bot wrote nothing on stdout; does it flush its output after each line?")
    assert re.search(rf"[(/ ]{re.escape(language)}[:/]", hint) and idiom in hint, hint
    section = PROTOCOL.read_text(encoding="utf-8").split("**Flush your output**")[1].split("\n- ")[0]
    assert re.search(rf"\n  \| {re.escape(language)}[ ,]", section) and idiom in section, section
