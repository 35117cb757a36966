"""``arena check``: a CI gate for bot submissions."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from xml.etree import ElementTree as ET

import click

from arena import builtin_bots
from arena.check import (
    MIN_CONFORMANCE_GAMES,
    CheckOptions,
    CheckReport,
    CheckResult,
    CheckStatus,
    SprtOptions,
    check_conformance_games,
    run_check,
)
from arena.cli.common import (
    ExitCode,
    bot_folder,
    echo_printable,
    limits_options,
    main,
    options_as,
    sandbox_options,
    time_control_options,
)
from arena.durations import parse_duration_ms
from arena.errors import ArenaError, ConfigError
from arena.game.botproc import limits_note
from arena.game.build import run_build
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.config import find_program
from arena.league.listener import Lines
from arena.untrusted import printable, xml_text


@dataclass(frozen=True)
class Subject:
    """What to check: the bot's command, where it runs and builds, the seed and the conformance games."""

    bot_command: str
    cwd: Path
    build: str | None
    seed: int
    conformance_games: int
    skip_conformance: bool
    fail_fast: bool


@dataclass(frozen=True)
class Opposition:
    """Whom the bot plays: the conformance opponents, and the strength gate's bots and thresholds."""

    opponents: tuple[str, ...]
    against: tuple[str, ...]
    games: int
    min_points: float
    sprt_baseline: str | None
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int | None


@dataclass(frozen=True)
class Running:
    """How the games run: the clock, the bots' resources and sandbox, the build's and the end's
    allowances (as written), and how many games at once."""

    time_control: TimeControl
    limits: ResourceLimits
    sandbox: SandboxPolicy
    build_timeout: str
    end_grace: str
    concurrency: int


@dataclass(frozen=True)
class Outputs:
    """Where the verdict goes besides the terminal, and whether the terminal gets only the verdict."""

    junit: Path | None
    json_path: Path | None
    quiet: bool


def junit_xml(report: CheckReport) -> str:
    """The checks as a JUnit XML test suite (which CI services show as test results).

    Every text goes through :func:`~arena.untrusted.xml_text`: a bot's answer quoted in a
    failure must not make the report unreadable (XML 1.0 forbids most control characters).
    """
    suite = ET.Element(
        "testsuite",
        name="arena check",
        tests=str(len(report.checks)),
        failures=str(report.count(CheckStatus.FAIL)),
        skipped=str(report.count(CheckStatus.SKIP) + report.count(CheckStatus.INCONCLUSIVE)),
        errors="0",
        time=f"{report.seconds:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="command", value=xml_text(shlex.join(report.command)))
    ET.SubElement(props, "property", name="seed", value=str(report.seed))
    for c in report.checks:
        case = ET.SubElement(suite, "testcase", classname="arena.check", name=c.name, time="0")
        if c.status is CheckStatus.FAIL:
            fail = ET.SubElement(case, "failure", message=xml_text(c.detail), type="BotCheckFailure")
            f = report.failure
            if f is not None and f.check == c.name:
                lines = [f"game: {f.game}", f"replay: {f.replay}", "", *map(printable, f.transcript)]
                fail.text = xml_text("\n".join(lines))
                if f.evidence:
                    err = ET.SubElement(case, "system-err")
                    err.text = xml_text("\n".join(map(printable, f.evidence)))
        elif c.status in (CheckStatus.SKIP, CheckStatus.INCONCLUSIVE):
            # An undecided test is neither a pass nor a failure: CI services show it as skipped.
            ET.SubElement(case, "skipped", message=xml_text(f"{c.status.value}: {c.detail}"))
        else:
            ET.SubElement(case, "system-out").text = xml_text(c.detail)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def _argv(command: str, what: str) -> tuple[str, ...]:
    try:
        argv = tuple(shlex.split(command))
    except ValueError as e:
        raise ConfigError(f"{what}: cannot split {command!r} like a shell: {e}") from None
    if not argv:
        raise ConfigError(f"{what}: empty command")
    return builtin_bots.resolve(argv)


@main.command("check")
@click.argument("bot_command", metavar="BOT")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    show_default=True,
    help="Working directory of the bot (and of --build); the opponents start in the current one.",
)
@click.option("--build", help="Run this once first (e.g. 'make'); a failure fails the check.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=1,
    show_default=True,
    help="Same seed, same games: a failure reproduces.",
)
@click.option(
    "--conformance-games",
    type=click.IntRange(MIN_CONFORMANCE_GAMES, 10_000),
    default=24,
    show_default=True,
    help=f"Conformance games played, exactly: {MIN_CONFORMANCE_GAMES} to 10000 ({MIN_CONFORMANCE_GAMES} "
    "play each seat of 2-4 player games on a given and a built board once, one game where an "
    "opponent forfeits and four where the bot runs out of moves).",
)
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    metavar="COMMAND",
    help="Conformance opponent (repeatable; default: the arena's built-in random bot).",
)
@time_control_options
@limits_options
@sandbox_options
@click.option(
    "--build-timeout", default="10m", show_default=True, help="Longest the --build command may run."
)
@click.option("--end-grace", default="1s", show_default=True, help="Time to exit after 'end'.")
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 64),
    default=os.cpu_count() or 1,
    show_default="the number of cores",
    help="Games at once.",
)
@click.option(
    "--against",
    multiple=True,
    metavar="COMMAND",
    help="Strength gate: play 2-player games against this bot (repeatable).",
)
@click.option(
    "--games",
    type=click.IntRange(2, 100_000),
    default=20,
    show_default=True,
    help="Strength games per --against bot (both seat orders on each board).",
)
@click.option(
    "--min-points",
    "--min-score",  # its name before 'points' meant game points everywhere: still accepted
    "min_points",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="Strength gate: the least mean points per game (1 win, 0.5 tie, 0 loss) to pass "
    "(a point estimate: its 95% interval over board pairs is shown beside it). "
    "--min-score is its old name.",
)
@click.option(
    "--sprt",
    "sprt_baseline",
    metavar="COMMAND",
    help="Strength gate: a GSPRT on board pairs against this baseline bot, stopping when the "
    "answer is clear. A pass means the test accepts elo1 over elo0 (wrong with probability "
    "about alpha when the truth is elo0), not that the bot is at least elo1 stronger.",
)
@click.option("--elo0", type=float, default=0.0, show_default=True, help="SPRT: Elo of the null hypothesis.")
@click.option(
    "--elo1", type=float, default=50.0, show_default=True, help="SPRT: Elo to show the bot reaches."
)
@click.option(
    "--alpha",
    type=click.FloatRange(0.001, 0.5),
    default=0.05,
    show_default=True,
    help="SPRT: the chance of a pass when the truth is elo0 (a false pass).",
)
@click.option(
    "--beta",
    type=click.FloatRange(0.001, 0.5),
    default=0.05,
    show_default=True,
    help="SPRT: the chance of a fail when the truth is elo1 (a false fail).",
)
@click.option(
    "--max-games",
    type=click.IntRange(2, 100_000),
    default=None,
    help="SPRT: stop after this many games, undecided (INCONCLUSIVE, exit 3). Default: fitted to the bounds so "
    "that the error rates stay near alpha and beta (1200 games for elo1 - elo0 = 50, "
    "times (50 / (elo1 - elo0))^2).",
)
@click.option(
    "--fail-fast", is_flag=True, help="Stop at the bot's first fault (the checks not reached are skipped)."
)
@click.option("--skip-conformance", is_flag=True, help="Only the strength gate (--against or --sprt).")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here."
)
@click.option("--quiet", "-q", is_flag=True, help="Only the verdict lines.")
@options_as("subject", Subject)
@options_as("opposition", Opposition)
@options_as("running", Running)
@options_as("outputs", Outputs)
def check_cmd(subject: Subject, opposition: Opposition, running: Running, outputs: Outputs) -> None:
    """Check that BOT is fit to enter a league.

    BOT is the bot's folder (built and run as its bot.toml, or its main file MyBot.py,
    MyBot.c, Cargo.toml..., says) or its command line.

    \b
    Conformance checks, each PASS, FAIL or SKIP:
      handshake          hello and ready within the startup allowance
      legal-tiles/-herds/-moves   legal answers in each phase
      2-players, 3-players, 4-players, every-seat
      time               every answer within the time control
      stays-alive        never exits or closes its output mid-game
      protocol           no protocol error (stray lines, bad tokens...)
      exits              exits by itself after 'end', leaving no process behind
      passes             survives being out of moves while the game goes on
      opponent-forfeits  plays on after an opponent forfeits
    With --against or --sprt, a strength gate follows.

    For the first failure it prints the reason, the conversation around it and
    the 'arena play' command that replays that exact game.

    Exit codes: 0 every check passed (or was skipped), 1 a check failed,
    2 a usage or configuration error, 3 nothing failed but the SPRT ran out of
    games (--max-games) before deciding (INCONCLUSIVE).
    """
    echo = (lambda _s: None) if outputs.quiet else echo_printable
    subject = _folder_subject(subject, echo)
    opts = check_options(subject, opposition, running)
    _require_programs(opts)
    _require_something_to_check(opts)
    echo(f"checking {shlex.join(opts.command)} (seed {opts.seed}, {opts.time_control.describe()})")
    note = limits_note(opts.limits, opts.sandbox)
    if note:
        echo(note)
    report = _build_failure(subject, running, opts) or run_check(opts, Lines(echo), _progress(outputs.quiet))
    _print_report(report)
    _write_reports(report, outputs)
    sys.exit(exit_code(report))


def _folder_subject(subject: Subject, echo: Callable[[str], None]) -> Subject:
    """A BOT that is a folder: its command, run there, and its build unless --build gives one."""
    bot = bot_folder(subject.bot_command)
    if bot is None:
        return subject
    if subject.cwd.resolve() not in (Path.cwd(), bot.folder.resolve()):
        raise click.UsageError(f"--cwd: {subject.bot_command!r} is a bot folder, which is where it runs")
    echo(bot.describe())
    build = subject.build or (shlex.join(bot.build) if bot.build else None)
    return replace(subject, bot_command=shlex.join(bot.command), cwd=bot.folder, build=build)


def exit_code(report: CheckReport) -> ExitCode:
    """0 every check passed or was skipped, 3 nothing failed but a test did not decide, else 1."""
    if report.passed:
        return ExitCode.OK
    return ExitCode.INCONCLUSIVE if report.inconclusive else ExitCode.FAILED


def check_options(subject: Subject, opposition: Opposition, running: Running) -> CheckOptions:
    """The check the options ask for; each bot command is split and resolved, each duration read."""
    argv = _argv(subject.bot_command, "BOT_COMMAND")
    sprt = _sprt_options(opposition)
    return CheckOptions(
        command=argv,
        limits=running.limits,
        sandbox=running.sandbox,
        cwd=subject.cwd.resolve(),
        opponents_cwd=Path.cwd(),
        seed=subject.seed,
        conformance_games=subject.conformance_games,
        time_control=running.time_control,
        end_grace_s=parse_duration_ms(running.end_grace, "--end-grace") / 1000,
        concurrency=running.concurrency,
        opponents=tuple(_argv(o, "--opponent") for o in opposition.opponents),
        against=tuple(_argv(a, "--against") for a in opposition.against),
        games=opposition.games,
        min_points=opposition.min_points,
        sprt=sprt,
        conformance=not subject.skip_conformance,
        fail_fast=subject.fail_fast,
    )


def _sprt_options(opposition: Opposition) -> SprtOptions | None:
    """The SPRT gate, if ``--sprt`` asks for one: elo1 must be above elo0."""
    o = opposition
    if o.sprt_baseline is None:
        return None
    if o.elo1 <= o.elo0:
        raise click.BadParameter(f"--elo1 ({o.elo1:g}) must be above --elo0 ({o.elo0:g})")
    return SprtOptions(_argv(o.sprt_baseline, "--sprt"), o.elo0, o.elo1, o.alpha, o.beta, o.max_games)


def _require_programs(opts: CheckOptions) -> None:
    """Refuse an opponent whose program is nowhere to be found, before any game is played."""
    for what, command in [
        *(("--opponent", o) for o in opts.opponents),
        *(("--against", a) for a in opts.against),
        *((("--sprt", opts.sprt.baseline),) if opts.sprt else ()),
    ]:
        if find_program(command, opts.opponents_cwd) is None:
            raise ConfigError(
                f"{what}: program {command[0]!r} not found (looked in {str(opts.opponents_cwd)!r} and PATH)"
            )


def _require_something_to_check(opts: CheckOptions) -> None:
    """Refuse too few conformance games, or no check at all."""
    if opts.conformance:
        check_conformance_games(opts.conformance_games)
    elif not opts.against and opts.sprt is None:
        raise click.UsageError("--skip-conformance leaves nothing to check without --against or --sprt")


def _progress(quiet: bool) -> Callable[[int, int], None]:
    """The games counter, redrawn in place on a terminal's stderr (and nowhere else)."""

    def progress(done: int, total: int) -> None:
        if not quiet and sys.stderr.isatty():
            click.echo(f"\r  games {done}/{total}", nl=done == total, err=True)

    return progress


def _print_report(report: CheckReport) -> None:
    """Each check's line, the first failure with the end of its conversation, the verdict."""
    for c in report.checks:
        # A detail quotes the bot's answer: escaped, it cannot clear the screen or print a verdict.
        click.echo(f"{c.status.word:4}  {c.name:<18} {printable(c.detail)}")
    f = report.failure
    if f is not None:
        click.echo(
            f"\nfirst failure: {f.check}: {printable(f.reason)}\n  game: {f.game}\n  replay it: {printable(f.replay)}"
        )
        for line in f.evidence:
            click.echo(f"  {printable(line)}")
        if f.transcript:
            click.echo("  the end of the conversation (ref> to the bot, bot> from it):")
            for line in f.transcript[-12:]:
                click.echo(f"    {printable(line[:300])}")
    verdict = "PASSED" if report.passed else "INCONCLUSIVE" if report.inconclusive else "FAILED"
    undecided = report.count(CheckStatus.INCONCLUSIVE)
    click.echo(
        f"\n{verdict}: {report.count(CheckStatus.PASS)} passed, "
        f"{report.count(CheckStatus.FAIL)} failed, "
        + (f"{undecided} inconclusive, " if undecided else "")
        + f"{report.count(CheckStatus.SKIP)} skipped in {report.seconds:.1f}s"
    )


def _write_reports(report: CheckReport, outputs: Outputs) -> None:
    """The JUnit and JSON reports asked for; a file that cannot be written is the arena's error."""
    try:
        if outputs.junit is not None:
            outputs.junit.write_text(junit_xml(report), encoding="utf-8")
        if outputs.json_path is not None:
            outputs.json_path.write_text(json.dumps(report.to_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise ArenaError(f"cannot write the report: {e}") from None


def _build_failure(subject: Subject, running: Running, opts: CheckOptions) -> CheckReport | None:
    """With ``--build``, run it first: a failure is the whole report, success is None."""
    if subject.build is None:
        return None
    timeout_s = parse_duration_ms(running.build_timeout, "--build-timeout") / 1000
    return _build(subject.build, opts.cwd, opts.command, opts.seed, running.sandbox, timeout_s)


def _build(
    build: str, cwd: Path, argv: tuple[str, ...], seed: int, sandbox: SandboxPolicy, timeout_s: float
) -> CheckReport | None:
    """Run the build in the bot's sandbox; a failure is the report (the bot is not fit), success is None."""
    result = run_build(_argv(build, "--build"), cwd, sandbox, timeout_s)
    if result.ok:
        return None
    tail = " | ".join(result.tail(5))
    report = CheckReport(argv, seed)
    report.checks = [CheckResult("build", CheckStatus.FAIL, f"{build!r} {result.why}: {tail}")]
    return report
