"""``arena serve`` (the ladder service), ``arena submit`` (a bot to a ladder) and ``arena
scrimmage`` (unrated games on a ladder)."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from arena.cli.common import ExitCode, echo_printable, main
from arena.errors import ConfigError
from arena.game.sandbox import cgroups
from arena.league import results_folder
from arena.league.config.sections import is_loopback_host
from arena.untrusted import printable

TOKEN_ENV = "ARENA_TOKEN"
DEFAULT_WAIT = "30m"
CONSOLE_LINE_CHARS = 2000


@main.command("serve")
@click.argument("ladder_file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback: put a reverse proxy with TLS in front).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free one, printed).")
@click.option("--add-author", "add_author", metavar="NAME", help="Add an author: a team of one member of that name; print their token once, and exit.")
@click.option("--admin", is_flag=True, help="With --add-author: an organiser (may submit without quotas, sees every report).")
@click.option(
    "--add-authors",
    "roster_file",
    metavar="ROSTER.csv",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Add a class: a CSV 'team,member[,admin]' (teams made as needed, members added to teams that exist), "
    "all or nothing; the new tokens are written once to a file only you can read (--tokens-file), and exit.",
)
@click.option(
    "--tokens-file",
    "tokens_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --add-authors: where the tokens go (a new file, mode 0600; default: ROSTER-tokens-TIME.csv beside the roster).",
)
@click.option("--revoke-member", "revoke", metavar="TEAM/MEMBER", help="Refuse one member's token from now on and end their sessions, and exit.")
@click.option("--new-token", "renew", metavar="TEAM/MEMBER", help="Give one member a new token (the old one is refused), print it once, and exit.")
@click.option("--ban", metavar="NAME", help="Ban an author (every member's token is refused from then on), and exit.")
@click.option(
    "--final",
    "final",
    is_flag=True,
    help="Close submissions and start the final tournament (the service running, or the next one, plays it), and exit.",
)
def serve_cmd(
    ladder_file: Path,
    host: str,
    port: int,
    add_author: str | None,
    admin: bool,
    roster_file: Path | None,
    tokens_file: Path | None,
    revoke: str | None,
    renew: str | None,
    ban: str | None,
    final: bool,
) -> None:
    """Serve the ladder of LADDER_FILE, where authors submit bots.

    Each version sent is unpacked under the ladder's limits, built in the sandbox and
    checked like 'arena check'. A version that passes joins the ladder's continuous
    league as BOT.vN and retires the bot's previous version; the league plays while the
    service runs ('arena standings', 'games', 'replay' and 'report' work on its results
    folder meanwhile).

    \b
    The API (JSON; see docs/ladder-api.md):
      POST /api/bots               a new version (multipart: archive, name, command, build)
      GET  /api/bots               every bot and its versions
      GET  /api/submissions/ID     a version's state; its author also sees the check's report
      GET  /api/ladder             paused or not, versions waiting
      GET  /api/standings          the standings; /api/health: games per hour, queue
    Web pages: / (the live standings), /bots, /games, /ladder (settings and health),
    /authors/TEAM (its members); /login with a member's token, then /submit; each member
    of a team sees the team's bots' logs there; organisers also /log (the action log).
    Admin tokens also: POST /api/ladder/pause|resume, POST|DELETE /api/authors/NAME/ban,
    POST /api/bots/BOT/retire, POST|DELETE /api/bots/BOT/ban, GET /api/log (every action
    with its author and member), POST /api/deadline, POST /api/final,
    DELETE /api/authors/TEAM/members/MEMBER (revoke), POST .../MEMBER/token (a new one).

    \b
    Authors are teams of members, each member with their own token:
      --add-author NAME            a team of one member NAME (token on stdout)
      --add-authors roster.csv     a class at once: header team,member[,admin]
      --revoke-member TEAM/MEMBER  that member's token refused, their sessions ended
      --new-token TEAM/MEMBER      a new token for that member (printed once)

    \b
    The contest's end (see docs/ladder.md): after the ladder file's 'deadline' (or the one
    POST /api/deadline sets) submissions are refused. --final (or POST /api/final) starts
    the final tournament: each team's last passing version, seeded by the standings, in
    a round robin (or gauntlet) of ladder.final.rounds, results in RESULTS-final, shown on
    /final; 'arena standings RESULTS-final --format csv' exports them (a row per team),
    RESULTS-final/teams.csv each team's members.
    Everything is kept in the league's results folder (ladder.sqlite, submissions/):
    a restart takes up the submissions left half checked.
    """
    from arena.ladder.names import check_author_name
    from arena.ladder.settings import load_ladder
    from arena.ladder.store import LadderStore
    from arena.ladder.teams import split_label

    ladder = load_ladder(ladder_file)
    if admin and add_author is None:
        raise click.UsageError("--admin goes with --add-author NAME (in a roster: its admin column)")
    if tokens_file is not None and roster_file is None:
        raise click.UsageError("--tokens-file goes with --add-authors ROSTER.csv")
    if any(x is not None for x in (add_author, roster_file, revoke, renew, ban)) or final:
        store = LadderStore.open(ladder.folder)
        try:
            if roster_file is not None:
                _add_roster(store, roster_file, tokens_file or _default_tokens_file(roster_file))
            if revoke is not None:
                team, member = split_label(revoke, "--revoke-member")
                store.revoke_member(team, member, by=None)
                click.echo(f"member {revoke!r} revoked: their token is refused and their sessions ended")
            if renew is not None:
                team, member = split_label(renew, "--new-token")
                token = store.new_token(team, member, by=None)
                click.echo(f"member {renew!r}: their new token (shown only this once; the old one is refused):", err=True)
                click.echo(token)
            if final:
                from arena.ladder.deadline import ask_final
                from arena.ladder.folders import final_folder

                asked = ask_final(store, by=None)
                click.echo(
                    ("final tournament asked for: submissions are closed" if asked else "the final was asked for already")
                    + f"; it starts once every version has its verdict, results in {final_folder(ladder.folder)}"
                )
            if add_author is not None:
                token = store.add_author(check_author_name(add_author), admin)
                click.echo(f"{'admin' if admin else 'author'} {add_author!r} added; their token (shown only this once):", err=True)
                click.echo(token)
            if ban is not None:
                store.set_banned(ban, True, by=None)
                click.echo(f"author {ban!r} banned")
        finally:
            store.close()
        return
    # Bots a service killed with kill -9 left frozen between their turns take no signal until
    # thawed: the first arena process that looks at the cgroups ends them (see sweep_orphans).
    cgroups.support()
    _serve(ladder, ladder_file, host, port)


def _default_tokens_file(roster_file: Path) -> Path:
    """Beside the roster, the organiser's own file: not in the results folder, which holds only
    what the arena writes there (a first ``arena serve`` refuses a folder with other files)
    and is what gets backed up and copied."""
    return roster_file.resolve().with_name(f"{roster_file.stem}-tokens-{time.strftime('%Y%m%d-%H%M%S')}.csv")


def _add_roster(store: Any, roster_file: Path, tokens_file: Path) -> None:
    """Add the roster's members, all or none, their tokens written once to ``tokens_file``
    (a new file only the organiser can read: removed again if nothing is added)."""
    from arena.errors import LadderError
    from arena.ladder.teams import open_tokens_file, parse_roster, tokens_text

    try:
        data = roster_file.read_bytes()
    except OSError as e:
        raise ConfigError(f"--add-authors {str(roster_file)!r}: {e.strerror or e}") from None
    rows = parse_roster(data, str(roster_file))
    fd = open_tokens_file(tokens_file)
    written = False

    def keep(added: list[tuple[str, str, str]]) -> None:
        nonlocal written
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            written = True
            out.write(tokens_text(added))
            out.flush()
            os.fsync(out.fileno())

    try:
        teams, members = store.add_roster(rows, keep)
    except LadderError as e:
        if not written:
            os.close(fd)
        tokens_file.unlink(missing_ok=True)
        raise ConfigError(f"{roster_file}: {e}; nothing was added") from None
    except BaseException:
        if not written:
            os.close(fd)
        tokens_file.unlink(missing_ok=True)
        raise
    click.echo(f"{teams} team(s) and {members} member(s) added from {roster_file}")
    click.echo(f"their tokens, written once (only you can read the file): {tokens_file}")


def _draining_server_class() -> type:
    import uvicorn

    class DrainingServer(uvicorn.Server):
        """uvicorn's server, but SIGTERM and SIGINT end it with exit code 0 once it has drained
        (uvicorn raises the signal again after its shutdown, which skips our own cleanup)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            old = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in old.items():
                    signal.signal(sig, handler)

    return DrainingServer


LISTEN_BACKLOG = 2048  # uvicorn's own default, which it sets again when it starts serving


def listening_socket(host: str, port: int) -> socket.socket:
    """The service's socket, bound to ``host`` and ``port`` and listening; ConfigError naming
    them if it cannot be.

    Listening from here on, before the service says where it serves: a client that connects
    on that line (a script's ``arena submit`` after ``arena serve &``) waits in the queue
    while the service starts, where a socket only bound refused it.

    Made as a TCP socket by name (``IPPROTO_TCP``, not 0): asyncio sets TCP_NODELAY only on
    the connections of such a socket, and without it every answer on a kept-alive connection
    waited for the client's delayed ACK (about 40 ms each; measured by bench/bench_ladder.py).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as e:
        sock.close()
        raise ConfigError(f"--host {host} --port {port}: cannot listen there: {e.strerror or e}") from None
    return sock


def _serve(ladder: Any, ladder_file: Path, host: str, port: int) -> None:
    _DrainingServer = _draining_server_class()
    from arena.ladder.app import make_app
    from arena.ladder.serving import server_config
    from arena.ladder.store import LadderStore

    if not is_loopback_host(host):
        click.echo(
            f"warning: --host {host} is reachable from other machines, without TLS; "
            "serve on 127.0.0.1 behind a reverse proxy with TLS (see docs/ladder.md)",
            err=True,
        )
    sock = listening_socket(host, port)
    family = sock.family
    with results_folder.hold(ladder.folder, str(ladder_file)):
        store = LadderStore.open(ladder.folder)
        store.on_action = _print_action
        try:
            bound = sock.getsockname()[1]
            shown = f"[{host}]" if family == socket.AF_INET6 else host
            click.echo(f"ladder {ladder.league.name!r} serving on http://{shown}:{bound} (results in {ladder.folder})")
            sys.stdout.flush()
            # Its limits (a deadline for each request's headers, keep-alive, connections at
            # once): see arena.ladder.serving and docs/ladder.md.
            _DrainingServer(server_config(make_app(ladder, store))).run(sockets=[sock])
        finally:
            store.close()
            sock.close()


def _print_action(action: dict[str, Any]) -> None:
    """One line on the console per action the ladder logs: versions, verdicts, the league."""
    when = time.strftime("%H:%M:%S", time.localtime(action["at"]))
    detail = f": {action['detail']}" if action["detail"] else ""
    line = printable(f"{when} {action.get('member') or action['author'] or 'ladder'}: {action['action']} {action['subject']}{detail}")
    click.echo(line[:CONSOLE_LINE_CHARS])  # bounded after escaping, which lengthens a line
    sys.stdout.flush()


def _token(token_file: Path | None) -> str:
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as e:
            raise ConfigError(f"--token-file {str(token_file)!r}: {e.strerror or e}") from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise click.UsageError(f"no token: set {TOKEN_ENV} or give --token-file (the organiser gives each author one)")
    return token


def _default_name(folder: Path) -> str:
    from arena.ladder.names import BOT_NAME_MAX

    name = re.sub(r"[^A-Za-z0-9_.+-]", "-", folder.resolve().name)[:BOT_NAME_MAX]
    return name or "bot"


@main.command("submit")
@click.argument("url")
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--command",
    "command",
    help="How the bot starts, in its folder (e.g. 'python3 bot.py'; default: as the folder's bot.toml or main file says).",
)
@click.option("--build", help="Run once in the sandbox before the check (e.g. 'make'; default: with no --command, the folder's).")
@click.option("--name", help="The bot's name on the ladder (default: the folder's name).")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), help=f"Read the token here (default: ${TOKEN_ENV}).")
@click.option("--wait", is_flag=True, help="Wait for the check and print its verdict (exit code as 'arena check').")
@click.option("--timeout", default=DEFAULT_WAIT, show_default=True, help="With --wait: the longest to wait.")
def submit_cmd(
    url: str, folder: Path, command: str | None, build: str | None, name: str | None, token_file: Path | None, wait: bool, timeout: str
) -> None:
    """Send the bot in FOLDER to the ladder at URL.

    Each time is a new version of the bot, numbered by the ladder.

    The folder is packed without .git, .venv and caches; the ladder unpacks it under its
    limits, builds it (--build) in the sandbox and checks it like 'arena check'. Without
    --command, the folder's bot.toml (or its main file: MyBot.py, MyBot.c, Cargo.toml...)
    says how it is built and run.

    Exit codes: 0 sent (with --wait: the check passed), 1 with --wait: the check failed or
    the archive was refused, 2 a usage error or the ladder refused the request, 3 with
    --wait: nothing failed but the strength test did not decide.
    """
    from arena.durations import parse_duration_ms
    from arena.ladder.client import SubmissionRefused, submit, wait_for_verdict
    from arena.ladder.names import check_bot_name

    token = _token(token_file)
    if command is None:
        from arena.game.convention import resolve

        found = resolve(folder)
        click.echo(found.describe())
        command = shlex.join(found.command)
        build = build or (shlex.join(found.build) if found.build else None)
    bot = check_bot_name(name or _default_name(folder))
    timeout_s = parse_duration_ms(timeout, "--timeout") / 1000
    try:
        answer = submit(url, token, folder, bot, command, build)
    except SubmissionRefused as e:
        echo_printable(f"REFUSED: {e}")
        sys.exit(ExitCode.FAILED)
    status_url = url.rstrip("/") + str(answer.get("status_url"))
    click.echo(f"submitted {bot} version {answer.get('version')}: {status_url}")
    if not wait:
        return
    sub = wait_for_verdict(url, token, str(answer.get("status_url")), timeout_s, lambda s: click.echo(f"  {s}"))
    sys.exit(_print_verdict(sub))


def _print_verdict(sub: dict[str, Any]) -> ExitCode:
    """The verdict, each check's line and the first failure; the exit code it means."""
    state = str(sub.get("state"))
    report = sub.get("report") or {}
    for c in report.get("checks", []):
        echo_printable(f"{str(c.get('status')).upper():4}  {c.get('name')!s:<18} {c.get('detail')}")
    failure = report.get("first_failure")
    if failure:
        echo_printable(f"first failure: {failure.get('check')}: {failure.get('reason')}\n  replay it: {failure.get('replay')}")
        # The hint and its stderr's tail, as `arena check` prints them (the bot's text: escaped).
        evidence = failure.get("evidence")
        for line in evidence if isinstance(evidence, list) else ():
            click.echo(f"  {printable(str(line))}")
    if sub.get("build_log") and state != "passed":
        click.echo("build log:")
        for line in str(sub["build_log"]).splitlines()[-15:]:
            click.echo(f"  {printable(line)}")
    click.echo(f"{state.upper()}: {printable(str(sub.get('reason') or ''))}")
    if state == "passed":
        return ExitCode.OK
    return ExitCode.INCONCLUSIVE if report.get("inconclusive") else ExitCode.FAILED


@main.command("scrimmage")
@click.argument("url")
@click.argument("version")
@click.argument("opponent")
@click.option("--games", type=click.IntRange(1, 100), default=2, show_default=True, help="How many games (the ladder's scrimmage.max_games bounds it).")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), help=f"Read the token here (default: ${TOKEN_ENV}).")
@click.option("--wait", is_flag=True, help="Follow the games to the end and print each result and the score.")
@click.option("--timeout", default=DEFAULT_WAIT, show_default=True, help="With --wait: the longest to wait.")
def scrimmage_cmd(url: str, version: str, opponent: str, games: int, token_file: Path | None, wait: bool, timeout: str) -> None:
    """Ask the ladder at URL for a scrimmage (unrated games).

    VERSION is one of your versions, as BOT.vN (e.g. greedy.v3): one that passed its check,
    or failed it after building, retired or not. OPPONENT is a house bot, a version playing in
    the ladder (BOT.vN), or another of your versions. Each bot moves first in half the games.

    Scrimmages never count in the standings. Their replays, and your bot's stderr and info
    lines turn by turn, are on the ladder's pages for you only (sign in, then /scrimmages).
    The ladder bounds the games of one scrimmage and of a day, and refuses them after the
    deadline. The token is read as by 'arena submit'.

    Exit codes: 0 asked (with --wait: every game over), 2 a usage error or the ladder refused
    the request (the message says why).
    """
    from arena.durations import parse_duration_ms
    from arena.ladder.client import ask_scrimmage, follow_scrimmage

    token = _token(token_file)
    timeout_s = parse_duration_ms(timeout, "--timeout") / 1000
    answer = ask_scrimmage(url, token, version, opponent, games)
    base = url.rstrip("/")
    echo_printable(
        f"scrimmage {answer.get('id')}: {answer.get('games')} games, {answer.get('version')} vs "
        f"{answer.get('opponent')}: {base}{answer.get('page')}"
    )
    if not wait:
        return

    def game_over(game: dict[str, Any]) -> None:
        seats, points = game.get("seats") or [], game.get("points")
        if points is None:
            echo_printable(f"  game {game.get('game')}: not played: {game.get('failure')}")
            return
        score = " - ".join(f"{name} {p:g}" for name, p in zip(seats, points, strict=False))
        echo_printable(f"  game {game.get('game')}: {score}  {base}{game.get('replay')}")

    done = follow_scrimmage(url, token, str(answer.get("status_url")), timeout_s, game_over)
    score = done.get("score") or {}
    echo_printable(
        f"FINISHED: {done.get('version')} {score.get('version', 0):g} - {score.get('opponent', 0):g} {done.get('opponent')}"
        f" over {done.get('games')} games (unrated)"
    )


__all__ = ["listening_socket", "scrimmage_cmd", "serve_cmd", "submit_cmd"]
