"""Elo-scale ratings with 95% intervals, as BayesElo / cutechess users expect.

Every game counts as the results between each two of its players (the higher
place wins, equal places draw), so a 4-player game is six pairwise results.  A
Bradley-Terry model is fitted to the results, with one virtual draw between every
two bots that met (so that a bot that won or lost everything still gets a finite
figure), and turned into Elo: 400 log10 of the strength, the mean over bots 0.
The fit is Newton's method on the log-likelihood (it converges in a few steps
where Hunter's MM algorithm, one bot at a time, crawls: a lopsided league could
end 20 Elo off after 200 MM sweeps); past :data:`NEWTON_BOTS` bots, whose matrices
a Newton step would have to solve, MM sweeps, up to :data:`MM_SWEEPS`.  Either
stops when no Elo moves by :data:`ELO_TOLERANCE`, and says when it did not.

The standings' interval (:func:`fit_elo`) is a cluster-robust Wald interval around
the plain maximum-likelihood fit, clustered by *board* (a board's games, both seat
orders of a 2-player pairing or a 4-player game's six results, are not independent):
it covers 93-97% in simulated leagues of 0-400 Elo spreads and 40-10,000 games at
200 leagues a cell, and the cells outside 94-96% there covered 94.6-95.9% at 1,000
(``bench/bench_calibration.py --only elo``, docs/PERFORMANCE.md), where the bootstrap of the virtual-draw
fit (:func:`board_bootstrap`: boards drawn with replacement, the fit redone, the 2.5%
and 97.5% quantiles) carries the draws' pull into every resample and covers less.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.stats import ELO_TOLERANCE  # converged: no Elo moved by this much in the last step
from arena.stats.game_table import GameTable
from arena.stats.seats import t_quantile

SAMPLES = 200  # bootstrap resamples
NEWTON_STEPS = 100  # a Newton fit's limit (it needs 5-10 steps)
MM_SWEEPS = 5000  # an MM fit's limit
NEWTON_BOTS = 100  # Newton up to this many bots (a step solves a bots x bots system); MM beyond
LIGHT = 0.01  # weight of the virtual draws in the plain fit the interval is built around
MAX_STEP = 1.0  # the most a Newton step moves a log-strength (e: 174 Elo), so that it never overshoots
# Fewer degrees of freedom than this give no interval: with 1 (5 bots, one round of 4-player
# games) Student's t is 12.7 and an interval 2,500 Elo wide says nothing a reader can use.
MIN_DF = 3
GRADIENT_NOISE = 1e-11  # a gradient this small per game is rounding: the fit is at its maximum
_ELO = 400 / math.log(10)  # Elo per unit of log-strength
FIRTH_ROUNDS = 3  # fixed-point rounds of Firth's correction (the leverages move little after 2)
FLOOR = 0.5  # of the model's variance, the least the interval's may be (see _sandwich)
MATRIX_BYTES = 32 * 2**20  # the most one bots x bots matrix of a chunk of resamples may take


@dataclass(frozen=True)
class Elo:
    elo: float
    low: float  # 95% interval, from resampled boards
    high: float


@dataclass(frozen=True)
class EloFit:
    """Each bot's Elo, and how its fits went: the most steps one took, and whether all converged."""

    elo: dict[str, Elo]
    iterations: int
    converged: bool


Array = NDArray[np.float64]


def _newton(points: Array, games: Array) -> tuple[Array, int, bool]:
    """Log-strengths maximizing the Bradley-Terry likelihood, rows batched: (samples, n, n) -> (samples, n).

    The likelihood is concave and its Hessian a weighted graph Laplacian, singular along each
    connected group's level (which no result says anything of): a tiny ridge keeps the solve
    regular, and the gradient, which sums to 0 over every group, moves no level.
    """
    n = points.shape[-1]
    wins = points.sum(axis=-1)
    theta = np.zeros(points.shape[:-1])
    scale = 1.0 + float(games.sum(axis=-1).max())
    ridge = 1e-10 * scale * np.eye(n)
    for step in range(1, NEWTON_STEPS + 1):
        p = 1.0 / (1.0 + np.exp(theta[..., None, :] - theta[..., :, None]))  # P(i beats j)
        q = games * p * (1.0 - p)
        grad = wins - (games * p).sum(axis=-1)
        # At the maximum the gradient is 0 but for rounding; its rounding, divided by the
        # ridge along the level, moves the level by ~1e-4 Elo a step for ever: converged then,
        # whatever the step (a level no result speaks of, which the fit centres anyway).
        if float(np.max(np.abs(grad), initial=0.0)) <= GRADIENT_NOISE * scale:
            return theta, step, True
        hess = q.sum(axis=-1)[..., :, None] * np.eye(n) - q + ridge
        delta = np.linalg.solve(hess, grad[..., None])[..., 0]
        big = np.max(np.abs(delta), axis=-1, keepdims=True)
        delta *= np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))
        theta = theta + delta
        if float(np.max(np.abs(delta), initial=0.0)) * _ELO < ELO_TOLERANCE:
            return theta, step, True
    return theta, NEWTON_STEPS, False


def _mm(points: Array, games: Array) -> tuple[Array, int, bool]:
    """:func:`_newton` by Hunter's MM sweeps (a sweep costs bots^2, not bots^3)."""
    wins = points.sum(axis=-1)
    gamma = np.ones(points.shape[:-1])
    for sweep in range(1, MM_SWEEPS + 1):
        denom = (games / (gamma[..., :, None] + gamma[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))  # keep the scale fixed
        move = float(np.max(np.abs(np.log(new) - np.log(gamma)), initial=0.0)) * _ELO
        gamma = new
        if move < ELO_TOLERANCE:
            return np.log(gamma), sweep, True
    return np.log(gamma), MM_SWEEPS, False


def _bradley_terry(points: Array, games: Array) -> tuple[Array, int, bool]:
    """Elo (mean 0) from pairwise points and games, rows batched: (samples, n, n) -> (samples, n);
    and the fit's steps, and whether it converged."""
    fit = _newton if points.shape[-1] <= NEWTON_BOTS else _mm
    theta, steps, converged = fit(points, games)
    elo: Array = _ELO * theta
    centred: Array = elo - elo.mean(axis=-1, keepdims=True)
    return centred, steps, converged


@dataclass(frozen=True)
class _Results:
    """A league's games as pairwise results, in a canonical order (the same games in any order
    give the same sums, to the last bit)."""

    n: int
    where: NDArray[np.int64]  # each result's board, numbered 0..boards-1
    a: NDArray[np.int64]
    b: NDArray[np.int64]
    score: Array  # a's points against b
    boards: int

    def matrices(self, weight: Array, virtual: float = 1.0) -> tuple[Array, Array]:
        """Points and games between each two bots, boards weighted by ``weight``, with a virtual
        draw of weight ``virtual`` between bots that met."""
        n, a, b, w = self.n, self.a, self.b, weight[self.where]
        pts = np.bincount(a * n + b, w * self.score, n * n) + np.bincount(b * n + a, w * (1 - self.score), n * n)
        cnt = np.bincount(a * n + b, w, n * n) + np.bincount(b * n + a, w, n * n)
        pts, cnt = pts.reshape(n, n), cnt.reshape(n, n)
        met = virtual * (cnt > 0).astype(float)
        return pts + 0.5 * met, cnt + met


def _results(table: GameTable) -> _Results | None:
    """Every game of ``table`` as the results between each two of its players (None: no result)."""
    rows = []
    for board, bots, ranks in table.arrays():
        k = bots.shape[1]
        first, second = np.triu_indices(k, 1)
        rows.append(
            np.stack(
                [
                    np.repeat(board, len(first)),
                    bots[:, first].ravel(),
                    bots[:, second].ravel(),
                    ranks[:, first].ravel(),
                    ranks[:, second].ravel(),
                ],
                axis=1,
            )
        )
    if not rows:
        return None
    every = np.concatenate(rows)
    every = every[every[:, 1] != every[:, 2]]  # a bot against itself
    every = every[np.lexsort(every.T[::-1])]
    if len(every) == 0:
        return None
    _, where = np.unique(every[:, 0], return_inverse=True)
    ra, rb = every[:, 3], every[:, 4]
    score = np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))
    n = len(table.canonical_names())
    return _Results(n, where, every[:, 1], every[:, 2], score, int(where.max()) + 1)


def _no_games(names: list[str]) -> dict[str, Elo]:
    return {name: Elo(0.0, -math.inf, math.inf) for name in names}


def board_bootstrap(table: GameTable, samples: int = SAMPLES, seed: int = 0) -> dict[str, Elo]:
    """Each bot's Elo and a 95% interval from resampling the boards of ``table`` (200 resamples
    of the fit with its virtual draws, their 2.5% and 97.5% quantiles).

    The virtual draws pull lopsided results in, in every resample too, so in a league of
    unequal bots this interval covers less than 95%: the standings use :func:`fit_elo`.
    """
    names = table.canonical_names()
    data = _results(table)
    if data is None:
        return _no_games(names)
    n = data.n
    pts, cnt = data.matrices(np.ones(data.boards))
    estimate = _bradley_terry(pts[None], cnt[None])[0][0]
    rng = np.random.default_rng(seed)
    uniform = np.full(data.boards, 1.0 / data.boards)
    # One resample's counts at a time (all at once would hold samples x boards: 80 MB at
    # 50,000 boards), fitted in chunks whose bots x bots matrices stay within MATRIX_BYTES
    # (all 200 at once held 14 GB a matrix for 3,000 bots).
    chunk = max(1, MATRIX_BYTES // (8 * n * n))
    fitted = []
    for start in range(0, samples, chunk):
        stacked = [
            data.matrices(rng.multinomial(data.boards, uniform).astype(float))
            for _ in range(min(chunk, samples - start))
        ]
        fitted.append(_bradley_terry(np.stack([p for p, _ in stacked]), np.stack([c for _, c in stacked]))[0])
    low, high = np.quantile(np.concatenate(fitted), [0.025, 0.975], axis=0)
    played = cnt.sum(axis=1) > 0
    return {
        name: Elo(float(estimate[i]), float(low[i]), float(high[i])) if played[i] else Elo(0.0, -math.inf, math.inf)
        for i, name in enumerate(names)
    }


def fit_elo(table: GameTable) -> EloFit:
    """Each bot's Elo and 95% interval from the games in ``table``, and whether its fits converged.

    The Elo is the fit with one virtual draw between every two bots that met.  The interval
    is not built around it (the draws' pull would go into it too): it is a Wald interval
    around Firth's bias-reduced fit (:func:`_firth`; the plain maximum-likelihood fit puts
    a lopsided bot too far out with few games), with the cluster-robust variance over boards
    (the games of one board, both seat orders or a 4-player game's six results, are not
    independent) (each board's residuals as the fit without it leaves them: the cluster
    jackknife), never below half the model's variance, and Student's t for boards - (bots - 1)
    degrees of freedom; widened to hold the Elo and the plain fit.  With
    fewer than :data:`MIN_DF` degrees of freedom there is no interval (-inf, inf).
    """
    names = table.canonical_names()
    data = _results(table)
    if data is None:
        return EloFit(_no_games(names), 0, True)
    ones = np.ones(data.boards)
    pts, cnt = data.matrices(ones)
    point, steps, converged = _bradley_terry(pts[None], cnt[None])
    plain, theta, mle_steps, mle_converged = _firth(data)
    low, high = _sandwich(data, theta, point[0])
    # Widened to hold the plain fit too: past a perfect record it runs off (the interval's
    # open side), and Firth's centre and the model's variance alone would close it.
    low, high = np.minimum(low, plain), np.maximum(high, plain)
    played = cnt.sum(axis=1) > 0
    figures = {
        name: Elo(float(point[0, i]), float(low[i]), float(high[i])) if played[i] else Elo(0.0, -math.inf, math.inf)
        for i, name in enumerate(names)
    }
    return EloFit(figures, max(steps, mle_steps), converged and mle_converged)


def _components(data: _Results) -> NDArray[np.int64]:
    """Each bot's group of bots linked by results, labelled by its lowest bot number."""
    label = np.arange(data.n)
    while True:
        low = np.minimum(label[data.a], label[data.b])
        before = label.copy()
        np.minimum.at(label, data.a, low)
        np.minimum.at(label, data.b, low)
        if np.array_equal(label, before):
            return label


def _information_inverse(data: _Results, theta: Array) -> tuple[Array, Array, Array]:
    """P(a beats b) and its variance for each result at ``theta``, and the inverse of the
    information (on what the results say: each linked group's level is held fixed)."""
    a, b, n = data.a, data.b, data.n
    p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))  # P(a beats b)
    w = p * (1.0 - p)
    info = np.zeros((n, n))
    np.add.at(info, (a, a), w)
    np.add.at(info, (b, b), w)
    np.add.at(info, (a, b), -w)
    np.add.at(info, (b, a), -w)
    # Singular along each group's level (no result says anything of it, and each group's
    # mean is held at 0, as the fits hold it): the inverse on what the results do say.
    label = _components(data)
    size = np.bincount(label, minlength=n)[label]
    level = (label[:, None] == label[None, :]) / size[:, None]
    return p, w, np.linalg.inv(info + level) - level


def _firth(data: _Results) -> tuple[Array, Array, int, bool]:
    """The plain fit's Elo (virtual draws of weight :data:`LIGHT`, only to keep a perfect
    record finite), and the log-strengths by Firth's bias-reduced likelihood (Jeffreys'
    prior), the interval's centre.

    With few games the plain maximum-likelihood fit puts a lopsided bot too far out (a bot
    that lost 7 of 8 sits below its true Elo more often than above), and a Wald interval
    around it missed the weakest and strongest of 5 bots 400 Elo apart with 20 games 10% and
    7% of the time.  Firth's correction is, for results between pairs, a virtual draw of
    weight h for each result of leverage h (Kosmidis & Firth 2009's pseudo-data; the
    leverages sum to the fitted strengths, bots - 1, however many the games): it vanishes as
    the games grow, unlike the standings' one draw a pair.  Found by fixed point: the
    leverages at the last fit, the fit redone, :data:`FIRTH_ROUNDS` times.
    """
    n = data.n
    pts, cnt = data.matrices(np.ones(data.boards), LIGHT)
    fit = _newton if n <= NEWTON_BOTS else _mm
    theta, steps, converged = fit(pts[None], cnt[None])
    plain = _ELO * (theta[0] - theta[0].mean())
    most = steps
    for _ in range(FIRTH_ROUNDS):
        _p, w, inverse = _information_inverse(data, theta[0])
        x = inverse[data.a, data.a] + inverse[data.b, data.b] - 2 * inverse[data.a, data.b]
        lever = np.bincount(data.a * n + data.b, w * x, n * n).reshape(n, n)
        lever = lever + lever.T
        theta, steps, ok = fit((pts + 0.5 * lever)[None], (cnt + lever)[None])
        most, converged = max(most, steps), converged and ok
    return plain, theta[0], most, converged


def _sandwich(data: _Results, theta: Array, point: Array) -> tuple[Array, Array]:
    """The 95% interval (Elo) around the log-strengths ``theta``, widened to hold ``point``."""
    a, b, n = data.a, data.b, data.n
    centre = _ELO * (theta - theta.mean())
    # Degrees of freedom: the boards, less the strengths fitted from them (their level aside).
    df = data.boards - (n - 1)
    if df < MIN_DF:
        return np.full(n, -math.inf), np.full(n, math.inf)
    p, w, inverse = _information_inverse(data, theta)
    # The residuals' spread over boards understates the variance with few boards (they were
    # fitted to the same boards), most where a board holds a lopsided pair: each board's
    # residuals are taken as the fit without that board would leave them (the cluster
    # jackknife, CR3; scaling by boards / df instead covered 88.7% at 400 Elo and 20 games).
    resid = _jackknife_residuals(data, inverse, p, w)
    residual = np.zeros((data.boards, n))
    np.add.at(residual, (data.where, a), resid)
    np.add.at(residual, (data.where, b), -resid)
    cov = inverse @ (residual.T @ residual) @ inverse * (data.boards - 1) / data.boards
    # Never below FLOOR times the model's own variance: at a lopsided record the residuals all
    # fall one way and are tiny (24-0: 0.02 a game at Firth's fit), and alone they gave 24-0 an
    # interval 120 Elo wide.  (The whole model variance as the floor also binds by chance where
    # the residuals are sound: equal bots with 400 games covered 96.3%; with half, 95.0%.)
    var = np.maximum(np.diag(cov), FLOOR * np.diag(inverse))
    half = t_quantile(0.975, df) * np.sqrt(np.maximum(var, 0.0)) * _ELO
    return np.minimum(centre - half, point), np.maximum(centre + half, point)


def _jackknife_residuals(data: _Results, inverse: Array, p: Array, w: Array) -> Array:
    """Each result's residual (score - p), each board's taken as it would be were the board left
    out of the fit: (I - H_gg)^-1 r_g, H_gg the board's leverage (CR3, the cluster jackknife)."""
    resid = data.score - p
    out = resid.copy()
    starts = np.flatnonzero(np.r_[True, np.diff(data.where) != 0])
    ends = np.r_[starts[1:], len(data.where)]
    sizes = ends - starts
    for r in np.unique(sizes):
        first = starts[sizes == r]
        idx = first[:, None] + np.arange(r)[None, :]  # (boards, r)
        a, b = data.a[idx], data.b[idx]
        # x_k' M x_l for x = e_a - e_b
        m = (
            inverse[a[:, :, None], a[:, None, :]]
            - inverse[a[:, :, None], b[:, None, :]]
            - inverse[b[:, :, None], a[:, None, :]]
            + inverse[b[:, :, None], b[:, None, :]]
        )
        h = m * w[idx][:, None, :]  # the board's leverage H_gg = X_g M X_g' W_g
        try:
            out[idx] = np.linalg.solve(np.eye(r)[None] - h, resid[idx][..., None])[..., 0]
        except np.linalg.LinAlgError:  # a board that alone fits some strength: what is left of it
            out[idx] = (np.linalg.pinv(np.eye(r)[None] - h) @ resid[idx][..., None])[..., 0]
    return out
