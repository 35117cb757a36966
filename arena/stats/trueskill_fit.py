"""TrueSkill fitted to a whole league at once: ratings that do not depend on game order.

Sequential TrueSkill (:mod:`arena.league.rating`) rates a stream: each game moves the
ratings once, and what a game says depends on the games before it.  A league has
all its games at once, so here the same model (each bot's skill a Gaussian, its
performance in a game skill + N(0, beta^2), the game's ranking a chain of
"performance above the next one's by more than the draw margin" or "within the
margin" for a tie) is fitted to every game together by expectation propagation:
each game keeps a Gaussian message to each of its players, and every message is
recomputed from the others until none moves.  That is TrueSkill Through Time
(Dangauthier et al. 2007, Landfried 2023) with all games in one time slice, and
the tests check this fit against that library (``trueskillthroughtime``).

Games are put in a canonical order before fitting and all messages of a sweep are
updated together (parallel EP), so any order of the same games gives the same
floating-point result, not merely a close one.  Parallel EP also means that
identical games (the same bots in the same order of places, ties alike) start
with the same messages and see the same cavities, so their messages stay equal
at every sweep: each distinct game is iterated once and weighted by how many
times it was played, which gives the same fit as iterating every copy.  With
few bots most games repeat (5,000 4-player games of 5 bots had 66
distinct outcomes), so a sweep costs little whatever the league's size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import trueskill
from numpy.typing import NDArray

from arena.stats import MAX_SWEEPS, TOLERANCE
from arena.stats.game_table import GameTable
from arena.stats.joint import DirectGames, JointPosterior
from arena.stats.settings import RatingConfig
from arena.stats.truncated import truncate

Array = NDArray[np.float64]
Seats = Sequence[tuple[str, int]]  # (bot, rank) per seat; rank 1 is first, equal ranks tie

MIN_DAMPING = 1 / 1024
CHAIN_SWEEPS = 10  # passes along one game's chain of places (trueskillthroughtime's limit)


@dataclass(frozen=True)
class FitResult:
    """Each bot's fitted (mu, sigma), and how the fit went."""

    ratings: dict[str, trueskill.Rating]
    sweeps: int
    converged: bool
    joint: JointPosterior | None = None  # the skills' joint Gaussian (for P(better))


class _Group:
    """The distinct games with ``k`` players: bots best first, ties between neighbours, how
    many times each was played, and each one's messages (those of every copy)."""

    def __init__(self, bots: NDArray[np.int64], tie: NDArray[np.bool_]) -> None:
        k = bots.shape[1]
        # np.unique sorts the rows: the distinct games come in a canonical order too.
        rows, count = np.unique(
            np.concatenate([bots, tie.astype(np.int64)], axis=1), axis=0, return_counts=True
        )
        self.idx = rows[:, :k]  # (distinct games, k)
        self.tie = rows[:, k:].astype(bool)  # (distinct games, k - 1)
        self.count = count.astype(np.float64)[:, None]  # (distinct games, 1)
        self.msg_pi = np.zeros(self.idx.shape)
        self.msg_tau = np.zeros(self.idx.shape)


def _minus(m: Array, v: Array, lp: Array, lt: Array) -> tuple[Array, Array]:
    """N(m, v) minus the variable with natural parameters (lp, lt), as natural parameters.

    Written so that a message with no information (lp = 0) gives no information.
    """
    den = 1.0 + lp * v
    return lp / den, (m * lp - lt) / den


def _plus(m: Array, v: Array, lp: Array, lt: Array) -> tuple[Array, Array]:
    den = 1.0 + lp * v
    return lp / den, (m * lp + lt) / den


def _game_messages(
    cav_mu: Array, cav_var: Array, tie: NDArray[np.bool_], beta2: float, margin: float
) -> tuple[Array, Array]:
    """Each player's message from its game, given the cavity skills (games, k), best first."""
    pi, tau, _, _ = _game_chain(cav_mu, cav_var, tie, beta2, margin)
    return pi, tau


def _game_chain(
    cav_mu: Array, cav_var: Array, tie: NDArray[np.bool_], beta2: float, margin: float
) -> tuple[Array, Array, Array, Array]:
    """:func:`_game_messages`, and the messages on the differences of adjacent performances
    (games, k - 1): the game's sites, as natural parameters (precision, precision times mean)."""
    games, k = cav_mu.shape
    pp = 1.0 / (cav_var + beta2)  # the performance's prior, natural parameters
    pt = cav_mu * pp
    # Messages into each performance from the difference below it (win) and above it (lose).
    win_pi, win_tau = np.zeros((games, k)), np.zeros((games, k))
    lose_pi, lose_tau = np.zeros((games, k)), np.zeros((games, k))
    marg = np.full(games, margin)

    def diff_message(e: int) -> tuple[Array, Array, Array, Array, Array, Array]:
        # Place e's performance without the message from diff e, and e+1's without diff e's.
        a_pi, a_tau = pp[:, e] + lose_pi[:, e], pt[:, e] + lose_tau[:, e]
        b_pi, b_tau = pp[:, e + 1] + win_pi[:, e + 1], pt[:, e + 1] + win_tau[:, e + 1]
        a_m, a_v = a_tau / a_pi, 1.0 / a_pi
        b_m, b_v = b_tau / b_pi, 1.0 / b_pi
        d_m, d_v = a_m - b_m, a_v + b_v
        t_m, t_v = truncate(d_m, d_v, marg, tie[:, e])
        lp = np.maximum(1.0 / t_v - 1.0 / d_v, 0.0)
        lt = t_m / t_v - d_m / d_v
        return a_m, a_v, b_m, b_v, lp, lt

    for _ in range(CHAIN_SWEEPS if k > 2 else 0):
        step = 0.0
        for e in range(k - 2):
            a_m, a_v, _b_m, _b_v, lp, lt = diff_message(e)
            new_pi, new_tau = _minus(a_m, a_v, lp, lt)
            step = max(step, float(np.max(np.abs(new_pi - lose_pi[:, e + 1]), initial=0.0)))
            lose_pi[:, e + 1], lose_tau[:, e + 1] = new_pi, new_tau
        for e in range(k - 2, 0, -1):
            _a_m, _a_v, b_m, b_v, lp, lt = diff_message(e)
            new_pi, new_tau = _plus(b_m, b_v, lp, lt)
            step = max(step, float(np.max(np.abs(new_pi - win_pi[:, e]), initial=0.0)))
            win_pi[:, e], win_tau[:, e] = new_pi, new_tau
        if step < 1e-9:
            break
    _a_m, _a_v, b_m, b_v, lp, lt = diff_message(0)
    win_pi[:, 0], win_tau[:, 0] = _plus(b_m, b_v, lp, lt)
    a_m, a_v, _b_m, _b_v, lp, lt = diff_message(k - 2)
    lose_pi[:, k - 1], lose_tau[:, k - 1] = _minus(a_m, a_v, lp, lt)
    # From each performance back to the skill: add the performance noise beta^2.
    perf_pi, perf_tau = win_pi + lose_pi, win_tau + lose_tau
    den = 1.0 + perf_pi * beta2
    sites = [diff_message(e)[4:] for e in range(k - 1)]
    site_pi = np.stack([lp for lp, _ in sites], axis=1)
    site_tau = np.stack([lt for _, lt in sites], axis=1)
    return perf_pi / den, perf_tau / den, site_pi, site_tau


def draw_margin(cfg: RatingConfig) -> float:
    """The margin of performance within which two players tie, as TrueSkill sets it from draw_probability."""
    return NormalDist().inv_cdf((cfg.draw_probability + 1.0) / 2.0) * math.sqrt(2.0) * cfg.beta


def _components(groups: Sequence[_Group], n: int) -> NDArray[np.int64]:
    """Each bot's connected component (bots linked by games), labelled by its lowest bot number."""
    label = np.arange(n)
    while True:
        before = label.copy()
        for g in groups:
            low = label[g.idx].min(axis=1)
            for column in g.idx.T:
                np.minimum.at(label, column, low)
        if np.array_equal(label, before):
            return label


def _level_shift(
    mu: Array, post_pi: Array, prior_pi: float, prior_mu: float, comp: NDArray[np.int64]
) -> Array:
    """The shift of each bot's messages that brings the mean mu of its component to the prior's.

    When every skill of a component (bots linked by games) moves by the same amount,
    every message follows its cavity (a game depends only on differences), so this is
    the component's overall level, held only by the prior: sweeps move it by a small
    fraction each (137 sweeps for 5 bots in 5,000 4-player games).  At the fit's fixed
    point each component's mean mu is the prior's (every bot has the same prior and no
    game says anything about the mean), so it is set there each sweep; the fit still ends
    only when a sweep changes nothing, so this decides how fast it converges, never
    where to.  Shifting messages by ``s`` moves each mu by ``s (1 - prior_pi / post_pi)``.
    """
    size = np.bincount(comp, minlength=len(mu)).astype(np.float64)
    size[size == 0] = 1.0
    moved = np.bincount(comp, 1.0 - prior_pi / post_pi, minlength=len(mu)) / size
    gap = prior_mu - np.bincount(comp, mu, minlength=len(mu)) / size
    shift = np.where(moved > 1e-12, gap / np.where(moved > 1e-12, moved, 1.0), 0.0)
    out: Array = shift[comp]
    return out


def fit(
    games: Iterable[Seats] | GameTable,
    bots: Sequence[str],
    cfg: RatingConfig | None = None,
    max_sweeps: int | None = None,
    joint: bool = True,
) -> FitResult:
    """TrueSkill fitted to every game in ``games`` at once; ``bots`` start at the prior.

    It stops when no mu or sigma moves by :data:`TOLERANCE` in a sweep, or after
    ``max_sweeps`` (default :data:`MAX_SWEEPS`) with ``converged`` False.  Without ``joint``
    the skills' joint posterior is not built (a reader of mu and sigma alone: the history).
    """
    cfg = cfg or RatingConfig()
    limit = MAX_SWEEPS if max_sweeps is None else max_sweeps
    if isinstance(games, GameTable):
        table = games
    else:
        table = GameTable(bots)
        for seats in games:
            table.add(seats)
    table.include(bots)
    groups = [_Group(bots, tie) for bots, tie in table.groups()]
    names = table.canonical_names()  # the numbering of groups()
    n = len(names)
    prior_pi = 1.0 / cfg.sigma**2
    prior_tau = cfg.mu * prior_pi
    beta2 = cfg.beta**2
    margin = draw_margin(cfg)
    post_pi, post_tau = np.full(n, prior_pi), np.full(n, prior_tau)
    mu, sigma = post_tau / post_pi, 1.0 / np.sqrt(post_pi)
    sweeps, converged = 0, not groups
    comp = _components(groups, n)
    # Parallel EP can overshoot and swing (two bots and many games between them swing
    # further each sweep): messages then move only part of the way, ``damping``, halved
    # whenever a sweep moves more than the one before, or swings back by more than half
    # as much.  The fixed point is the same; only the way there changes.
    damping, last_step, last_move = 1.0, math.inf, np.zeros(n)
    while not converged and sweeps < limit:
        sweeps += 1
        shift = _level_shift(mu, post_pi, prior_pi, cfg.mu, comp)
        if np.any(shift):
            for g in groups:
                g.msg_tau = g.msg_tau + g.msg_pi * shift[g.idx]
            post_tau = post_tau + (post_pi - prior_pi) * shift
            # The sweep's change is measured from here: a fixed point of the sweep itself.
            mu = post_tau / post_pi
        for g in groups:
            cav_pi = post_pi[g.idx] - g.msg_pi
            cav_tau = post_tau[g.idx] - g.msg_tau
            new_pi, new_tau = _game_messages(cav_tau / cav_pi, 1.0 / cav_pi, g.tie, beta2, margin)
            g.msg_pi = g.msg_pi + damping * (new_pi - g.msg_pi)
            g.msg_tau = g.msg_tau + damping * (new_tau - g.msg_tau)
        post_pi, post_tau = np.full(n, prior_pi), np.full(n, prior_tau)
        for g in groups:
            post_pi += np.bincount(g.idx.ravel(), (g.msg_pi * g.count).ravel(), minlength=n)
            post_tau += np.bincount(g.idx.ravel(), (g.msg_tau * g.count).ravel(), minlength=n)
        new_mu, new_sigma = post_tau / post_pi, 1.0 / np.sqrt(post_pi)
        move = new_mu - mu
        step = max(float(np.max(np.abs(move))), float(np.max(np.abs(new_sigma - sigma))))
        mu, sigma = new_mu, new_sigma
        converged = step < TOLERANCE
        swing = float(np.dot(move, last_move)) < 0
        if step > last_step or (swing and step > 0.5 * last_step):
            damping = max(damping / 2, MIN_DAMPING)
        elif not swing and step < 0.5 * last_step:
            damping = min(damping * 2, 1.0)
        last_step, last_move = step, move
    ratings = {name: trueskill.Rating(float(mu[i]), float(sigma[i])) for i, name in enumerate(names)}
    if not joint:
        return FitResult(ratings, sweeps, converged)
    return FitResult(ratings, sweeps, converged, _joint(groups, names, mu, post_pi, post_tau, cfg))


def _joint(
    groups: Sequence[_Group], names: list[str], mu: Array, post_pi: Array, post_tau: Array, cfg: RatingConfig
) -> JointPosterior:
    """The joint Gaussian of every skill: the prior, and each game's sites on the differences of
    its adjacent performances (from the fitted cavities) carried to the skills.

    A site N(D; m, 1/p) on the performance differences D = A perf, with perf = skill + N(0,
    beta^2 I), is N(A skill; m, 1/p + beta^2 A A^T) on the skills: precision A^T S A with
    S = (I + diag(p) beta^2 A A^T)^-1 diag(p), the form that stays finite where p is 0.
    """
    n = len(names)
    beta2 = cfg.beta**2
    margin = draw_margin(cfg)
    precision = np.eye(n) / cfg.sigma**2
    linear = np.full(n, cfg.mu / cfg.sigma**2)
    direct: dict[tuple[int, int], DirectGames] = {}
    for g in groups:
        cav_pi = post_pi[g.idx] - g.msg_pi
        cav_tau = post_tau[g.idx] - g.msg_tau
        _, _, site_pi, site_tau = _game_chain(cav_tau / cav_pi, 1.0 / cav_pi, g.tie, beta2, margin)
        k = g.idx.shape[1]
        a = np.eye(k - 1, k) - np.eye(k - 1, k, 1)  # adjacent differences, best first
        noise = beta2 * a @ a.T
        inner = np.linalg.inv(np.eye(k - 1) + site_pi[:, :, None] * noise[None])  # (games, k-1, k-1)
        s_mat = inner * site_pi[:, None, :]
        prec = np.einsum("ei,gef,fj->gij", a, s_mat, a) * g.count[:, :, None]
        lin = np.einsum("ei,gef,gf->gi", a, inner, site_tau) * g.count
        for i in range(k):
            linear += np.bincount(g.idx[:, i], lin[:, i], minlength=n)
            for j in range(k):
                np.add.at(precision, (g.idx[:, i], g.idx[:, j]), prec[:, i, j])
        if k == 2:
            _add_direct(direct, g, prec[:, 0, 0], lin[:, 0])
    return JointPosterior(names, mu.copy(), precision, linear, margin, 2 * beta2, direct, cfg.mu, cfg.sigma)


def _add_direct(direct: dict[tuple[int, int], DirectGames], g: _Group, prec: Array, lin: Array) -> None:
    """The 2-player games of ``g`` into ``direct``, by pair (lower bot number first)."""
    for (first, second), tie, count, p, t in zip(
        g.idx.tolist(), g.tie[:, 0], g.count[:, 0], prec, lin, strict=True
    ):
        pair = (min(first, second), max(first, second))
        sign = 1.0 if first == pair[0] else -1.0  # the site is on first - second
        old = direct.get(pair, DirectGames())
        win, draw, loss = (
            (0.0, float(count), 0.0)
            if tie
            else (float(count), 0.0, 0.0)
            if sign > 0
            else (0.0, 0.0, float(count))
        )
        direct[pair] = DirectGames(
            old.wins + win,
            old.draws + draw,
            old.losses + loss,
            old.precision + float(p),
            old.linear + sign * float(t),
        )
