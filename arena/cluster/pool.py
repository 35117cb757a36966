"""The arena's side of a Dask cluster: connect, register the run, hand out games, collect records.

:class:`DaskGamePool` is a :class:`arena.league.pool.Pool`, as the local
:class:`arena.league.executor.GamePool` is, so ``run_tournament`` stores
each record the moment it arrives, exactly as with local workers: the arena
stays the one writer of ``results.sqlite``, and resume, standings and
progress work unchanged.

Games are Dask tasks (:func:`arena.cluster.worker.play`), each restricted to
the workers found fit for this run, and submitted a few at a time (two per
fit worker), in schedule order, as records come back: a worker that joins or
becomes ready later gets the next games, and Ctrl-C has little to cancel.
A worker lost mid-game is Dask's to handle: the scheduler runs the game again
on another worker, and nothing of the lost attempt reaches a record, so no
bot is charged.  A game that the scheduler gives up on (it lost a worker
``distributed.scheduler.allowed-failures`` times, 3 by default) or that fails
in the arena's own code counts as one failure, retried up to ``retries``
times like a local worker's, then reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import ssl
import time
import uuid
import weakref
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from distributed import Client, Future, LocalCluster
from distributed.security import Security

from arena.cluster.placement import Placement
from arena.cluster.worker import ArenaPlugin, play, plugin_name, report
from arena.errors import ClusterError, ConfigError
from arena.game.record import GameRecord
from arena.league.config import ExecutorConfig, scheduler_problem
from arena.league.executor import GameSettings
from arena.league.listener import Lines, Listener
from arena.league.pool import Pool, PoolRun, arena_error, bots_text
from arena.league.schedule import ScheduledGame

POLL_S = 0.5  # how often the arena looks at the cluster's workers while games run
GAMES_PER_WORKER = 2  # in flight per fit worker: one playing, the next one waiting there


@contextlib.contextmanager
def connect(executor: ExecutorConfig, workers: int) -> Iterator[Client]:
    """A client of the tournament's cluster: its scheduler's, or a LocalCluster of ``workers``
    processes started here and stopped at the end.

    A Dask scheduler runs whatever a client sends, so the local cluster is closed to
    everyone but this run: it listens on loopback only (scheduler, nannies, workers; no
    dashboard) and speaks TLS with certificates made for the run, so even another process
    of this machine (a bot given the network among them) cannot submit work.
    """
    timeout_s = executor.connect_timeout_ms / 1000
    cluster: LocalCluster | None = None
    if executor.kind == "dask-local":
        security = _run_security()
        cluster = LocalCluster(
            n_workers=executor.workers or workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            protocol="tls",
            security=security,
            dashboard_address=None,
            # The scheduler serves a few HTTP routes even without a dashboard, on 8787 unless
            # told otherwise: any free port of loopback instead, so two runs never collide.
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        )
        client = Client(cluster, set_as_default=False)
    else:
        client = _client_of(executor, timeout_s)
    CLUSTER_LOGS.watch(client)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


# What ends a connection, as distributed's own log records carry it (CommClosedError and
# tornado's StreamClosedError are OSErrors).
_CONNECTION_ENDS = (OSError, TimeoutError, asyncio.CancelledError)


class ClusterLogs(logging.Filter):
    """Keeps distributed's own account of a lost connection off the arena's stderr.

    The arena says a lost scheduler in one line of its own (the :class:`ClusterError` that
    ends the run: "lost the Dask scheduler ... mid-run"), and a worker that left in another.
    distributed says the same events its own way, with tracebacks, on a timing of its own:
    a batched write that met the closed connection (at INFO, with the traceback, often
    before the client has noticed), the client's reconnect attempts, and the tracebacks of
    its closing, some of them from its event loop's thread after the run has ended.

    So this filter drops, of the records of distributed and of the libraries it runs on
    (tornado, asyncio), every one that carries the end of a connection, and every one
    while a client the arena opened is not connected.  It sits on the handlers those
    records reach (a filter on a logger would miss its children's records): distributed's
    own, or whatever the application configured.  It stays installed: a closed client is
    watched until it is garbage, so that what its loop logs late is dropped too.
    """

    LIBRARIES = frozenset({"distributed", "tornado", "asyncio"})

    def __init__(self) -> None:
        super().__init__()
        self.clients: weakref.WeakSet[Client] = weakref.WeakSet()

    def watch(self, client: Client) -> None:
        """Filter distributed's records for ``client`` from now on (installing the filter once)."""
        self.clients.add(client)
        for name in ("distributed", "distributed.client", "tornado", "tornado.application", "asyncio"):
            logger: logging.Logger | None = logging.getLogger(name)
            while logger is not None:
                for handler in logger.handlers:
                    handler.addFilter(self)  # (no-op when already there)
                logger = logger.parent if logger.propagate else None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.split(".")[0] not in self.LIBRARIES:
            return True
        if record.exc_info and isinstance(record.exc_info[1], _CONNECTION_ENDS):
            return False
        return all(c.status == "running" for c in list(self.clients))


CLUSTER_LOGS = ClusterLogs()


def _run_security() -> Security:
    """TLS for a local cluster: a certificate authority and a certificate made for this run."""
    try:
        security: Security = Security.temporary()
        return security
    except ImportError:
        raise ConfigError(
            "executor: dask-local needs the 'cryptography' package for its TLS (pip install -e '.[dask]')"
        ) from None


def _client_of(executor: ExecutorConfig, timeout_s: float) -> Client:
    """A client of the scheduler the tournament names, with its TLS files if it gives them."""
    address = executor.scheduler or ""
    problem = scheduler_problem(address, executor.security is not None, executor.insecure)
    if problem is not None:
        raise ConfigError(f"{executor.where}: executor.scheduler {problem}")
    security = None
    if executor.security is not None:
        security = Security(
            tls_ca_file=str(executor.security.ca),
            tls_client_cert=str(executor.security.cert),
            tls_client_key=str(executor.security.key),
            require_encryption=True,
        )
    try:
        return Client(address, timeout=timeout_s, set_as_default=False, security=security)
    except (OSError, TimeoutError, ValueError, TypeError, ssl.SSLError) as e:
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(
            f"cannot reach the Dask scheduler {address!r} (from {executor.where}) "
            f"within {timeout_s:g} s: {why}"
        ) from None


class Roster:
    """The cluster's workers as this run sees them: fit to play, unfit (and why), or not yet known.

    A worker is fit when it has prepared the bots without a problem, runs one
    task at a time (one thread), and its machine has a core for it beside the
    fit workers already there (one game per core: no oversubscription).
    """

    def __init__(self, client: Client, key: str, listener: Listener) -> None:
        self.client = client
        self.key = key
        self.listener = listener
        self.fit: set[str] = set()
        self.unfit: dict[str, str] = {}
        self.hosts: dict[str, str] = {}  # fit worker -> its machine (boot id, not host name)
        self.waiting = 0  # workers still preparing the bots
        self.noted: set[str] = set()  # workers told to wait for a core (said once)

    def poll(self) -> None:
        """Look at the cluster's workers again: note those that left, ask the new ones whether they can play.

        Raises ConnectionError once the client has given the scheduler up (it tries to
        reconnect for a while first: meanwhile the roster stays as it was)."""
        status = self.client.status
        if status == "connecting":
            return
        if status != "running":
            raise ConnectionError(f"the connection to it closed (client {status})")
        alive = set(self.client.scheduler_info(n_workers=-1).get("workers", ()))
        for address in sorted(self.fit - alive):
            self.listener.say(f"worker {address} left the cluster: its game, if any, is played again elsewhere")
            self.fit.discard(address)
            self.hosts.pop(address, None)
        self.unfit = {a: why for a, why in self.unfit.items() if a in alive}
        undecided = sorted(alive - self.fit - set(self.unfit))
        self.waiting = 0
        if not undecided:
            return
        facts = self.client.run(report, self.key, workers=undecided, on_error="return")
        per_host = Counter(self.hosts.values())
        for address in undecided:
            f = facts.get(address)
            if isinstance(f, ImportError):
                self._reject(address, f"cannot load the arena (is it installed on this worker?): {f}")
            elif not isinstance(f, dict) or not f["ready"]:
                self.waiting += 1  # still preparing, or not answering yet: ask again
            elif f["problem"] is not None:
                self._reject(address, f["problem"])
            elif f["threads"] != 1:
                self._reject(
                    address,
                    f"it has {f['threads']} threads; the arena plays one game per worker process: "
                    "start workers with --nthreads 1 (and --nworkers N for N games at once)",
                )
            elif per_host[f["machine"]] >= f["cores"]:
                if address not in self.noted:
                    self.noted.add(address)
                    self.listener.say(
                        f"worker {address} waits: its machine {f['host']!r} has {f['cores']} core(s), "
                        "each already playing for another worker (one game per core)"
                    )
            else:
                self.fit.add(address)
                self.hosts[address] = f["machine"]
                per_host[f["machine"]] += 1
                self.listener.say(f"worker {address} ready ({f['host']}, {f['id']})")

    def _reject(self, address: str, why: str) -> None:
        self.unfit[address] = why
        self.listener.say(f"worker {address} takes no games: {why}")

    def why_none(self) -> str:
        """Why no worker plays, for the error that ends a run without any."""
        if not self.unfit:
            return "no worker has joined the cluster"
        return "no worker can play: " + "; ".join(f"{a}: {w.splitlines()[0]}" for a, w in sorted(self.unfit.items()))


@dataclass
class _Task:
    game: ScheduledGame
    workers: frozenset[str]  # where it may run: the fit workers when it was submitted


class DaskGamePool(Pool):
    """Plays games on a Dask cluster; the same :meth:`~arena.league.pool.Pool.run` as the local pool."""

    def __init__(
        self,
        settings: GameSettings,
        executor: ExecutorConfig,
        placement: Placement,
        workers: int,
        listener: Listener | None = None,
    ) -> None:
        if executor.kind == "dask" and not executor.scheduler:
            raise ConfigError(
                f"{executor.where}: executor 'dask' needs the scheduler's address: "
                "'executor.scheduler' in the file, or --scheduler ADDRESS"
            )
        self.settings = settings
        self.executor = executor
        self.placement = placement
        self.workers = workers  # LocalCluster size for ``dask-local`` without its own
        self.listener: Listener = Lines() if listener is None else listener
        # How long the run waits with no fit worker (and none preparing) before it gives up.
        self.no_worker_s = executor.connect_timeout_ms / 1000

    def play(self, run: PoolRun) -> None:
        """Play ``run``'s games on the cluster (see :meth:`arena.league.pool.Pool.run`)."""
        key = uuid.uuid4().hex[:12]  # this run's plugin, tasks and worker folders
        with connect(self.executor, self.workers) as client:
            try:
                client.register_plugin(ArenaPlugin(key, self.settings, self.placement), name=plugin_name(key))
            except Exception as e:
                raise ClusterError(
                    f"a worker could not take the arena's plugin (is the arena, this version, installed "
                    f"on every worker?): {type(e).__name__}: {str(e).strip().splitlines()[:1]}"
                ) from None
            try:
                _Run(client, key, self, run).play()
            except (OSError, TimeoutError) as e:
                if client.status == "running":
                    raise
                why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                which = repr(self.executor.scheduler) if self.executor.scheduler else "of the local cluster"
                raise ClusterError(
                    f"lost the Dask scheduler {which} mid-run ({why}); "
                    "finished games are kept: run the same command again to resume"
                ) from None
            finally:
                with contextlib.suppress(Exception):
                    client.unregister_worker_plugin(plugin_name(key))  # stops the kept bots


class _Run:
    """One :meth:`DaskGamePool.play` call: the run's queue, the cluster's workers and the tasks in flight."""

    def __init__(self, client: Client, key: str, pool: DaskGamePool, run: PoolRun) -> None:
        self.client = client
        self.key = key
        self.pool = pool
        self.run = run
        self.queue = run.queue
        self.roster = Roster(client, key, pool.listener)
        self.inflight: dict[Future[Any], _Task] = {}
        self.done: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()  # filled by the client's thread
        self.submitted = 0

    def play(self) -> None:
        """Hand out the games as fit workers have room, and collect them, until none is left."""
        last_poll = -POLL_S
        no_worker_since: float | None = None
        # A local cluster's workers all start here: hand out games once each has said whether
        # it can play (bounded), so that every worker plays rather than the first one ready.
        local = self.pool.executor.workers or self.pool.workers if self.pool.executor.kind == "dask-local" else 0
        gather_until = time.monotonic() + self.pool.no_worker_s
        try:
            while self._games_waiting() or self.inflight:
                now = time.monotonic()
                if local and len(self.roster.fit) + len(self.roster.unfit) < local and now < gather_until:
                    self.roster.poll()
                    time.sleep(POLL_S / 5)
                    continue
                if now - last_poll >= POLL_S:
                    self.roster.poll()
                    last_poll = now
                    self._rescue_stranded()
                    if self.roster.fit or self.roster.waiting:
                        no_worker_since = None
                    elif no_worker_since is None:
                        no_worker_since = now
                    elif now - no_worker_since > self.pool.no_worker_s:
                        raise ClusterError(
                            f"{self.roster.why_none()} (waited {self.pool.no_worker_s:g} s); "
                            "finished games are kept: run the same command again to resume"
                        )
                self._feed()
                if not self.inflight:
                    time.sleep(POLL_S)
                    continue
                try:
                    done = [self.done.get(timeout=POLL_S)]
                except queue.Empty:
                    continue
                with contextlib.suppress(queue.Empty):
                    while True:
                        done.append(self.done.get_nowait())
                done = [f for f in done if f in self.inflight]  # not one we cancelled
                for future in sorted(done, key=lambda f: self.inflight[f].game.index):
                    self._finish(future, self.inflight.pop(future).game)
        finally:
            if self.inflight:  # Ctrl-C or an error: nothing more is played, finished games are kept
                with contextlib.suppress(Exception):
                    self.client.cancel(list(self.inflight))

    def _games_waiting(self) -> bool:
        """Whether games wait to be handed out, after asking ``refill`` for more when none
        does and a worker has room (or nothing is in flight)."""
        if self.run.refill is not None and not self.queue:
            room = GAMES_PER_WORKER * len(self.roster.fit) - len(self.inflight)
            if room > 0 or not self.inflight:
                self.queue.extend(self.run.refill(max(1, room)))
        return bool(self.queue)

    def _feed(self) -> None:
        fit = frozenset(self.roster.fit)
        while fit and self.queue and len(self.inflight) < GAMES_PER_WORKER * len(fit):
            game = self.queue.popleft()
            self.submitted += 1
            future = self.client.submit(
                play,
                self.key,
                game,
                key=f"arena-{self.key}-{game.game_id}-{self.submitted}",
                workers=sorted(fit),
                allow_other_workers=False,
                pure=False,
            )
            self.inflight[future] = _Task(game, fit)
            future.add_done_callback(self.done.put)

    def _rescue_stranded(self) -> None:
        """Submit again, not as a failure, the games whose every allowed worker has left
        (Dask would hold them for those workers forever)."""
        if not self.roster.fit:
            return
        stranded = [f for f, t in self.inflight.items() if not t.workers & self.roster.fit]
        if stranded:
            self.client.cancel(stranded)
            for future in sorted(stranded, key=lambda f: self.inflight[f].game.index, reverse=True):
                self.queue.appendleft(self.inflight.pop(future).game)

    def _fetch(self, future: Future[Any]) -> tuple[str, Any, str] | None:
        """A finished task's result, or None when it was lost with its worker meanwhile.

        The record stays on the worker until fetched; a worker that dies first takes it
        along, and Dask would compute it again only on the workers the task was bound
        to, which may all be gone: so never wait for a result that is no longer there.
        """
        while True:
            try:
                outcome: tuple[str, Any, str] = future.result(timeout=POLL_S)
                return outcome
            except TimeoutError:
                if future.status != "finished":
                    return None

    def _finish(self, future: Future[Any], game: ScheduledGame) -> None:
        if future.status == "cancelled" and self.client.status != "running":  # the client gave up
            raise ConnectionError(f"the connection to it closed (client {self.client.status})")
        if future.status == "cancelled":  # not by us: the scheduler dropped it
            raise ClusterError(
                f"the Dask cluster dropped game {game.game_id} ({future.exception()!r}); "
                "finished games are kept: run the same command again to resume"
            )
        if future.status == "finished":
            outcome = self._fetch(future)
            if outcome is None:  # its worker died before the record reached us: play it again
                self.client.cancel([future])
                self.queue.appendleft(game)
                return
            kind, payload, worker = outcome
            if kind == "done":
                self._feed()  # the next game first: storing this one can wait
                self.run.on_result(game, GameRecord.from_dict(payload))
                return
            reason = arena_error(game, str(payload).strip(), f" on worker {worker}")
        else:
            error: Any = future.exception()
            text = str(error).strip()
            reason = (
                f"game {game.game_id} (bots: {bots_text(game)}) failed on the cluster: "
                f"{type(error).__name__}: {text.splitlines()[0] if text else ''}\n{text}"
            )
        self.run.failed(game, reason)
