"""What ``arena submit`` and ``arena scrimmage`` do: pack a bot's folder, send it to a ladder,
follow its check; ask for a scrimmage and follow its games."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from arena.cluster.placement import pack_folder, upload_problem
from arena.errors import LadderError
from arena.ladder.store import State

REQUEST_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 15.0
POLL_S = 1.0


class SubmissionRefused(LadderError):
    """The ladder refused the archive itself (an unpacking rule): the bot's fault, not a usage error."""


def _answer(response: httpx.Response, url: str) -> dict[str, Any]:
    """The JSON of a successful answer; a LadderError quoting the server's error otherwise."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.is_success and isinstance(body, dict):
        return body
    error = body.get("error") if isinstance(body, dict) else None
    if response.status_code == 400 and str(error).startswith("archive refused:"):
        raise SubmissionRefused(f"{url}: {error}")
    raise LadderError(f"{url}: {response.status_code} {response.reason_phrase}: {error or response.text[:200]!r}")


def pack(folder: Path) -> bytes:
    """The folder as a gzipped tar (without .git, .venv and the like); refused like an upload
    to Dask workers when it holds what cannot be sent (special files, links that leave it)."""
    problem = upload_problem(folder)
    if problem is not None:
        raise LadderError(f"cannot send {str(folder)!r}: {problem}")
    return pack_folder(folder)


def submit(
    url: str, token: str, folder: Path, name: str, command: str, build: str | None
) -> dict[str, Any]:
    """Send one version; the server's answer (``bot``, ``version``, ``id``, ``status_url``)."""
    data = pack(folder)
    fields = {"name": name, "command": command, **({"build": build} if build else {})}
    endpoint = url.rstrip("/") + "/api/bots"
    try:
        response = httpx.post(
            endpoint,
            headers={"Authorization": f"Bearer {token}"},
            data=fields,
            files={"archive": (f"{name}.tar.gz", data, "application/gzip")},
            timeout=httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
        )
    except httpx.HTTPError as e:
        raise LadderError(f"{endpoint}: cannot send the bot: {e}") from None
    return _answer(response, endpoint)


def wait_for_verdict(
    url: str, token: str, status_url: str, timeout_s: float, tick: Callable[[str], None] = lambda _s: None
) -> dict[str, Any]:
    """Poll the submission until its check has ended (or ``timeout_s``); its last state.

    One kept-alive connection; a connection that fails (the service restarting, a connect
    that times out) is tried again until the deadline, since the check goes on on the
    server (a restart redoes it): only the ladder's own answers end the wait early.
    """
    endpoint = url.rstrip("/") + status_url
    deadline = time.monotonic() + timeout_s
    last = ""
    lost: str | None = None
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=timeout) as client:
        while True:
            try:
                response = client.get(endpoint)
            except httpx.TransportError as e:
                if time.monotonic() >= deadline:
                    raise LadderError(f"{endpoint}: {e}") from None
                if lost is None:
                    tick(f"(cannot reach the ladder: {e}; trying again)")
                lost = str(e)
                time.sleep(POLL_S)
                continue
            except httpx.HTTPError as e:
                raise LadderError(f"{endpoint}: {e}") from None
            lost = None
            sub = _answer(response, endpoint)
            state = str(sub.get("state"))
            if state != last:
                tick(state)
                last = state
            if state not in {s.value for s in State if s.pending}:
                return sub
            if time.monotonic() >= deadline:
                raise LadderError(f"{endpoint}: still {state!r} after {timeout_s:g} s (it goes on on the server)")
            time.sleep(POLL_S)


def ask_scrimmage(url: str, token: str, version: str, opponent: str, games: int) -> dict[str, Any]:
    """Ask for a scrimmage; the server's answer (``id``, ``status_url``, ``results``...)."""
    endpoint = url.rstrip("/") + "/api/scrimmages"
    try:
        response = httpx.post(
            endpoint,
            headers={"Authorization": f"Bearer {token}"},
            json={"version": version, "opponent": opponent, "games": games},
            timeout=httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
        )
    except httpx.HTTPError as e:
        raise LadderError(f"{endpoint}: cannot ask for the scrimmage: {e}") from None
    return _answer(response, endpoint)


def follow_scrimmage(
    url: str, token: str, status_url: str, timeout_s: float, game_over: Callable[[dict[str, Any]], None] = lambda _g: None
) -> dict[str, Any]:
    """Poll the scrimmage until every game is over (or ``timeout_s``), telling ``game_over``
    of each game as it ends; its last state.  A connection that fails (the service
    restarting) is tried again until the deadline: the games go on on the server."""
    endpoint = url.rstrip("/") + status_url
    deadline = time.monotonic() + timeout_s
    told: set[int] = set()
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=timeout) as client:
        while True:
            try:
                scrimmage = _answer(client.get(endpoint), endpoint)
            except httpx.TransportError as e:
                if time.monotonic() >= deadline:
                    raise LadderError(f"{endpoint}: {e}") from None
                time.sleep(POLL_S)
                continue
            except httpx.HTTPError as e:
                raise LadderError(f"{endpoint}: {e}") from None
            for game in scrimmage.get("results") or []:
                over = game.get("points") is not None or game.get("failure") is not None
                if over and game.get("game") not in told:
                    told.add(game.get("game"))
                    game_over(game)
            if scrimmage.get("state") == "finished":
                return scrimmage
            if time.monotonic() >= deadline:
                raise LadderError(
                    f"{endpoint}: {scrimmage.get('done')} of {scrimmage.get('games')} games over after "
                    f"{timeout_s:g} s (the rest go on on the server)"
                )
            time.sleep(POLL_S)
