"""The ladder service's state, and its one refusal.

:class:`Service` is what every handler of the API, the pages and the forms is handed (see
:mod:`arena.ladder.app`): the ladder file, its store, its check queue and league loop, the
key that signs the pages' cookies, the standings reader, and who is looking
(:class:`Viewer`).  :meth:`Service.start` and :meth:`Service.stop` run and end the queue's,
the league's, the final tournament's and the scrimmages' threads.

:class:`Refused` is every answer other than success, whoever gives it: its HTTP status, one
line saying why, and its headers (``Retry-After``, ``WWW-Authenticate``, a redirect's
``Location``).  It is rendered once, as JSON for the API and as a page for the rest
(:mod:`arena.ladder.web`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from arena.errors import LadderError
from arena.ladder.final import FinalLoop
from arena.ladder.folders import final_folder
from arena.ladder.history import HistoryCache
from arena.ladder.league import LeagueLoop
from arena.ladder.queue import CheckQueue
from arena.ladder.relocate import move_old_versions
from arena.ladder.results import Owners, StandingsReader
from arena.ladder.scrimmage_loop import ScrimmageLoop
from arena.ladder.scrimmage_store import ScrimmageStore
from arena.ladder.session import MAX_COOKIE_CHARS, SESSION_S, new_session_token, session_hash
from arena.ladder.settings import Ladder
from arena.ladder.store import Author, LadderStore, Member
from arena.ladder.teams import member_label


class Refused(LadderError):
    """A request the ladder does not do as asked: the answer's ``status``, one line saying
    why (``message``), and the answer's ``headers``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


@dataclass(frozen=True)
class Viewer:
    """Who asked: a signed-in author (a team, maybe the organisers'), the token of their
    session (the forms' CSRF tokens are bound to it) and the member of the team who signed
    in (or sent the API's token), or nobody."""

    author: Author | None
    session: str | None = None
    member: str | None = None

    def may_see(self, owner: str | None) -> bool:
        """Whether this viewer may read the private parts (stderr, info lines, build logs,
        the check's evidence) of a bot of ``owner`` (None: a house bot, the organisers'):
        every member of the owning team, and the organisers."""
        a = self.author
        return a is not None and (a.admin or (owner is not None and owner == a.name))

    @property
    def actor(self) -> str | None:
        """Who the action log names for what this viewer does: ``team/member`` (the team
        alone when no member is known; None: nobody signed in)."""
        if self.author is None:
            return None
        return self.author.name if self.member is None else member_label(self.author.name, self.member)


UPLOADS_PER_AUTHOR = 2  # one author's uploads received at once (each counts in their quota)
UPLOADS_AT_ONCE = 8  # every author's together: what the server reads and unpacks at once
UPLOAD_RETRY_S = 10  # the Retry-After of an upload refused for those: uploads take seconds


class Place:
    """One upload's place among those being received, given back once (when the upload is
    stored as a version, or at the latest when its request ends)."""

    def __init__(self, uploads: Uploads, author: str) -> None:
        self._uploads = uploads
        self.author = author
        self._held = True

    def others(self) -> int:
        """The author's other uploads being received now (each a version to come)."""
        return self._uploads.of(self.author) - (1 if self._held else 0)

    def give_back(self) -> None:
        """Give the place back (once; a second call does nothing)."""
        if self._held:
            self._held = False
            self._uploads.release(self.author)


class Uploads:
    """The uploads being received, by author: taken before a body is read, so that neither
    one author nor all of them can make the server read and unpack more than a few at once."""

    def __init__(self, per_author: int = UPLOADS_PER_AUTHOR, at_once: int = UPLOADS_AT_ONCE) -> None:
        self.per_author = per_author
        self.at_once = at_once
        self._lock = threading.Lock()
        self._of: dict[str, int] = {}

    def of(self, author: str) -> int:
        """How many uploads of ``author`` are being received."""
        with self._lock:
            return self._of.get(author, 0)

    def release(self, author: str) -> None:
        """One upload of ``author`` is no longer being received."""
        with self._lock:
            self._of[author] -= 1
            if not self._of[author]:
                del self._of[author]

    @contextlib.contextmanager
    def taking(self, author: str) -> Iterator[Place]:
        """Hold one place for an upload of ``author`` while it is received; Refused (503, or
        429 for the author's own) when none is free."""
        with self._lock:
            if sum(self._of.values()) >= self.at_once:
                raise Refused(
                    503,
                    f"the ladder is receiving {self.at_once} uploads already; try again in {UPLOAD_RETRY_S} s",
                    {"Retry-After": str(UPLOAD_RETRY_S)},
                )
            if self._of.get(author, 0) >= self.per_author:
                raise Refused(
                    429,
                    f"{self.per_author} uploads of yours are being received already; "
                    f"send the next when one is done (try again in {UPLOAD_RETRY_S} s)",
                    {"Retry-After": str(UPLOAD_RETRY_S)},
                )
            self._of[author] = self._of.get(author, 0) + 1
        place = Place(self, author)
        try:
            yield place
        finally:
            place.give_back()


class Service:
    """One ladder being served: what every handler shares."""

    def __init__(self, ladder: Ladder, store: LadderStore) -> None:
        self.ladder = ladder
        self.store = store
        self.league = LeagueLoop(ladder, store)
        self.final = FinalLoop(ladder, store)
        # The scrimmages' own store (never the league's) and the loop that plays them.
        self.scrimmages = ScrimmageStore.open(ladder.folder)
        self.scrimmage_loop = ScrimmageLoop(ladder, store, self.scrimmages)
        self.queue = CheckQueue(ladder, store, on_verdict=self._verdict)
        self.secret = store.session_secret()
        self.standings = StandingsReader(ladder.folder)
        self.final_standings = StandingsReader(final_folder(ladder.folder))
        self.history = HistoryCache(ladder.folder, ladder.league.rating)  # the bots' pages' charts
        self.house = frozenset(b.name for b in ladder.league.bots)
        self.uploads = Uploads()
        self._running = False
        self._starting = threading.Lock()

    def start(self) -> None:
        """Start checking versions and playing the league, once every version of an older
        arena is out of the results folder (no sandbox is given a path inside it)."""
        with self._starting:
            move_old_versions(self.ladder.folder, self.store)
            self.queue.start()
            self.league.start()
            self.final.start()
            self.scrimmage_loop.start()
            self._running = True

    def stop(self) -> None:
        """Stop checking versions (a check in flight is redone on the next start), then the
        league (finished games kept); nothing when they were never started."""
        with self._starting:
            if not self._running:
                return
            self._running = False
        self.queue.stop()
        self.league.stop()
        self.final.stop()
        self.scrimmage_loop.stop()

    def _verdict(self) -> None:
        """A version has its verdict: the league may grow, the final may start."""
        self.league.changed()
        self.final.changed()

    def owners(self) -> Owners:
        """Who owns each bot the league plays, as the store says now."""
        return Owners(self.store.bot_owners(), self.house)

    def viewer(self, session: str | None) -> Viewer:
        """Who holds the session token ``session``: its author and member, if the session is
        one this ladder began, it has not ended nor expired, the member's token stands and the
        author is in good standing (reads the store: call it in a worker thread)."""
        if not session or len(session) > MAX_COOKIE_CHARS:
            return Viewer(None)
        found = self.store.session_holder(session_hash(session), time.time(), SESSION_S)
        if found is None or found[0].banned:
            return Viewer(None)
        return Viewer(found[0], session, found[1].name)

    def sign_in(self, author: Author, held: str | None, member: Member | None = None) -> str:
        """Begin a new session of ``member`` of ``author`` (None: the team's first member) and
        end the one the browser held (``held``, maybe someone else's): the new session's token."""
        if held:
            self.sign_out(held)
        token = new_session_token()
        self.store.begin_session(author, session_hash(token), time.time(), SESSION_S, member)
        return token

    def sign_out(self, session: str) -> None:
        """End the session ``session``: a copy of its cookie no longer signs in."""
        if len(session) <= MAX_COOKIE_CHARS:
            self.store.end_session(session_hash(session))
