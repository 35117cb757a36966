"""The exact posterior of the batch TrueSkill model for 2-player games, to check P(better) against.

The model the fit uses: each skill N(mu, sigma^2) a priori, independent; in a game each
performance is skill + N(0, beta^2); a win is a performance difference above the draw
margin, a draw one within it (a game of 3-4 players is a chain of such places, best
first).  For two bots the posterior of the difference is one dimensional and integrated
on a fine grid (:func:`exact_two`); for more, self-normalized importance sampling from a
wide Student t (seeded), whose weights are the exact posterior (:func:`exact_better`:
games of 2 players, and of 3, whose likelihood is a one-dimensional integral).  A game
of 4 players would need a two-dimensional integral per game and sample; those leagues
are sampled by Gibbs sampling instead (:func:`gibbs_better`, any number of players,
checked against the two exact ones).
Used by tests/unit/stats/test_pbetter.py and bench/bench_calibration.py (``--only pbetter``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import draw_margin
from arena.stats.truncated import cdf, log_cdf

Game = Sequence[tuple[str, int]]


def _log_phi(x: np.ndarray) -> np.ndarray:
    """log of the standard normal cdf (checked against math.erfc in tests/unit/stats/test_pbetter.py)."""
    out: np.ndarray = log_cdf(x)
    return out


def _pair_log_lik(diff: np.ndarray, wins: int, draws: int, losses: int, cfg: RatingConfig) -> np.ndarray:
    """log likelihood of ``wins``-``draws``-``losses`` of a bot whose skill is ``diff`` above its opponent's."""
    eps, scale = draw_margin(cfg), math.sqrt(2.0) * cfg.beta
    out = np.zeros_like(diff)
    if wins:
        out += wins * _log_phi((diff - eps) / scale)
    if losses:
        out += losses * _log_phi((-diff - eps) / scale)
    if draws:
        hi = np.exp(_log_phi((eps - diff) / scale))
        lo = np.exp(_log_phi((-eps - diff) / scale))
        out += draws * np.log(np.maximum(hi - lo, 1e-300))
    return out


def exact_two(wins: int, draws: int, losses: int, cfg: RatingConfig | None = None) -> float:
    """P(skill a > skill b) after a's ``wins``-``draws``-``losses`` against b, by a grid."""
    cfg = cfg or RatingConfig()
    d = np.linspace(-12 * cfg.sigma, 12 * cfg.sigma, 40_001)
    log_p = -(d**2) / (4 * cfg.sigma**2) + _pair_log_lik(
        d, wins, draws, losses, cfg
    )  # prior of d: N(0, 2 sigma^2)
    w = np.exp(log_p - log_p.max())
    return float(w[d > 0].sum() / w.sum())


def results(games: Sequence[Game]) -> Counter[tuple[str, str, str]]:
    """(first by name, second, 'w' | 'd' | 'l' of the first) -> count, of the 2-player games."""
    out: Counter[tuple[str, str, str]] = Counter()
    for (a, ra), (b, rb) in (g for g in games if len(g) == 2):
        if a > b:
            (a, ra), (b, rb) = (b, rb), (a, ra)
        out[a, b, "w" if ra < rb else "d" if ra == rb else "l"] += 1
    return out


# Gauss-Hermite nodes for the middle performance of a 3-player game: its integrand is a
# Gaussian times two smooth factors (each a normal cdf, or a difference of two for a tie).
_HERMITE = np.polynomial.hermite.hermgauss(20)


def _three_log_lik(s: np.ndarray, players: Sequence[int], ranks: Sequence[int], cfg: RatingConfig) -> np.ndarray:
    """log P(a 3-player game's places | skills ``s`` (samples, bots)), ``players`` best first.

    The chain of places is p1 above p2 above p3 (by more than the draw margin, or within it
    for a tie), so given the middle performance x the other two are independent:
    P = E_x[P(p1 fits above x) P(p3 fits below x)], x ~ N(s2, beta^2), one dimension.
    """
    eps, beta = draw_margin(cfg), cfg.beta
    nodes, weights = _HERMITE
    top, mid, low = (s[:, [p]] for p in players)
    x = mid + math.sqrt(2.0) * beta * nodes[None, :]
    if ranks[0] == ranks[1]:
        upper = cdf((x + eps - top) / beta) - cdf((x - eps - top) / beta)
    else:
        upper = cdf((top - x - eps) / beta)
    if ranks[1] == ranks[2]:
        lower = cdf((x + eps - low) / beta) - cdf((x - eps - low) / beta)
    else:
        lower = cdf((x - eps - low) / beta)
    lik = (upper * lower) @ weights / math.sqrt(math.pi)
    return np.log(np.maximum(lik, 1e-300))


def exact_better(
    games: Sequence[Game],
    bots: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    centre: np.ndarray,
    cov: np.ndarray,
    cfg: RatingConfig | None = None,
    samples: int = 100_000,
    seed: int = 0,
) -> tuple[list[float], float]:
    """P(skill a > skill b) for each pair under the exact posterior of 2- and 3-player games,
    and the sampling's effective sample size.

    Importance sampling from a Student t (4 degrees of freedom) at ``centre`` with twice the
    spread of ``cov``: the weights are the exact posterior over the proposal, so any proposal
    with heavier tails than the posterior gives the exact figure; a good one (the fit's own
    Gaussian, say) only makes the sampling's noise small.
    """
    cfg = cfg or RatingConfig()
    if any(len(g) > 3 for g in games):
        raise ValueError("exact_better integrates games of 2 or 3 players; for more, gibbs_better samples them")
    index = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    rng = np.random.default_rng(seed)
    df = 4.0
    chol = np.linalg.cholesky(4.0 * cov)
    z = rng.standard_normal((samples, n))
    chi = rng.chisquare(df, (samples, 1))
    s = centre + (z @ chol.T) / np.sqrt(chi / df)
    maha = np.einsum("si,si->s", z, z) * (df / chi[:, 0])  # (s - centre)' (4 cov)^-1 (s - centre)
    log_q = -0.5 * (df + n) * np.log1p(maha / df)
    log_post = -0.5 * (((s - cfg.mu) / cfg.sigma) ** 2).sum(axis=1)
    by_pair: dict[tuple[str, str], list[int]] = {}
    for (a, b, kind), c in results(games).items():
        by_pair.setdefault((a, b), [0, 0, 0])["wdl".index(kind)] += c
    for (a, b), (w, d, lost) in by_pair.items():
        log_post += _pair_log_lik(s[:, index[a]] - s[:, index[b]], w, d, lost, cfg)
    three = Counter(tuple(sorted(g, key=lambda seat: (seat[1], seat[0]))) for g in games if len(g) == 3)
    for game, count in three.items():
        log_post += count * _three_log_lik(s, [index[b] for b, _ in game], [r for _, r in game], cfg)
    log_w = log_post - log_q
    weight = np.exp(log_w - log_w.max())
    weight /= weight.sum()
    ess = float(1.0 / np.sum(weight**2))
    return [float(weight[s[:, index[a]] > s[:, index[b]]].sum()) for a, b in pairs], ess


# -- any number of players: Gibbs sampling of skills and performances ---------------------------
#
# A game of 3-4 players is a chain of places: each performance above the next one's by more
# than the draw margin, or within it for a tie (best first; tied players by name, as the fit
# orders them).  Its likelihood is a multivariate normal box probability with no closed form,
# so the posterior is sampled instead, with the performances as latent variables (Albert
# and Chib's data augmentation): given the skills, each performance is a normal cut to the
# interval its neighbours in the chain leave it; given the performances, each skill is a
# normal (the prior's, updated by its performances).  Both draws are exact, so the chain's
# stationary law is the model's exact posterior; many chains are run side by side from
# the prior, and the spread of their means is the estimate's own noise.

_ACKLAM_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
             -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_ACKLAM_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
             -1.328068155288572e01)  # fmt: skip
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
             4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


def _poly(coef: Sequence[float], x: np.ndarray) -> np.ndarray:
    out = np.full_like(x, coef[0])
    for c in coef[1:]:
        out = out * x + c
    return out


def normal_quantile(p: np.ndarray) -> np.ndarray:
    """The standard normal's quantile function (Acklam's rational approximation, relative
    error below 1.2e-9), for 0 < p < 1."""
    p = np.clip(p, 1e-300, 1 - 1e-16)
    low = p < 0.02425
    high = p > 1 - 0.02425
    mid = ~(low | high)
    out = np.empty_like(p)
    q = p[mid] - 0.5
    r = q * q
    out[mid] = _poly(_ACKLAM_A, r) * q / (_poly(_ACKLAM_B, r) * r + 1)
    t = np.sqrt(-2 * np.log(p[low]))
    out[low] = _poly(_ACKLAM_C, t) / (_poly(_ACKLAM_D, t) * t + 1)
    t = np.sqrt(-2 * np.log1p(-p[high]))
    out[high] = -_poly(_ACKLAM_C, t) / (_poly(_ACKLAM_D, t) * t + 1)
    return out


def truncated_normal(lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Standard normal draws cut to [lo, hi] (either end infinite), by the inverse cdf; an
    interval above 0 is drawn mirrored, where the cdf keeps its precision."""
    flip = lo > 0
    a = np.where(flip, -hi, lo)
    b = np.where(flip, -lo, hi)
    ca, cb = cdf(a), cdf(b)
    x = normal_quantile(ca + rng.random(a.shape) * (cb - ca))
    x = np.clip(x, a, b)  # the approximations' last digits may step outside
    return np.where(flip, -x, x)


def _shift_tied_blocks(
    order: np.ndarray,
    block: np.ndarray,
    perf: np.ndarray,
    skills: np.ndarray,
    eps: float,
    beta: float,
    rng: np.random.Generator,
) -> None:
    """Move each block of tied places as one, by a shift drawn from its exact conditional.

    One performance at a time, tied players can move only within the margin of each other,
    so a tied block wanders by steps of the margin and the chain mixes slowly (a 3-player
    league with ties came out 0.03 off).  Shifting the whole block keeps its ties; the
    shift's conditional is normal (the block's performances about their skills), cut to
    where the block stays below the place above it and above the place below.
    """
    k = perf.shape[2]
    for b in range(k - 1):
        inside = block == b  # (games, k)
        size = inside.sum(axis=1)
        g = np.flatnonzero(size >= 2)  # the games whose block b holds a tie
        if not len(g):
            continue
        inside, size = inside[g], size[g]
        top = np.argmax(inside, axis=1)
        bottom = top + size - 1
        mean = ((skills[:, order[g]] - perf[:, g]) * inside).sum(axis=2) / size  # (chains, len(g))
        sd = beta / np.sqrt(size)
        hi = np.where(top > 0, perf[:, g, np.maximum(top - 1, 0)] - eps - perf[:, g, top], np.inf)
        lo = np.where(bottom < k - 1, perf[:, g, np.minimum(bottom + 1, k - 1)] + eps - perf[:, g, bottom], -np.inf)
        shift = mean + sd * truncated_normal((lo - mean) / sd, (hi - mean) / sd, rng)
        perf[:, g] += np.where(inside[None], shift[:, :, None], 0.0)


def gibbs_better(
    games: Sequence[Game],
    bots: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    cfg: RatingConfig | None = None,
    chains: int = 400,
    sweeps: int = 1200,
    burn: int = 200,
    seed: int = 0,
) -> tuple[list[float], list[float]]:
    """P(skill a > skill b) for each pair under the exact posterior of games of any number
    of players, by Gibbs sampling (see above), and each figure's standard error (the
    spread of the ``chains``' own means over sqrt(chains): the chains are independent)."""
    cfg = cfg or RatingConfig()
    rng = np.random.default_rng(seed)
    index = {b: i for i, b in enumerate(bots)}
    n, eps, beta = len(bots), draw_margin(cfg), cfg.beta
    by_size: dict[int, list[Game]] = {}
    for g in games:
        by_size.setdefault(len(g), []).append(g)
    groups = []
    for k, same in by_size.items():
        ordered = [sorted(g, key=lambda seat: (seat[1], seat[0])) for g in same]  # best first, ties by name
        order = np.array([[index[b] for b, _ in g] for g in ordered])
        ties = np.array([[g[j][1] == g[j + 1][1] for j in range(k - 1)] for g in ordered], dtype=bool)
        # A feasible start: each place below the last by twice the margin, tied places level.
        steps = np.concatenate([np.zeros((len(same), 1)), np.cumsum(~ties, axis=1)], axis=1)
        perf = np.broadcast_to(-steps * 2 * (eps + 1.0), (chains, len(same), k)).copy()
        onehot = np.zeros((len(same) * k, n))
        onehot[np.arange(len(same) * k), order.ravel()] = 1.0
        groups.append((order, ties, steps.astype(np.int64), perf, onehot))
    plays = sum(g[4].sum(axis=0) for g in groups)  # performances per bot
    post_var = 1.0 / (1.0 / cfg.sigma**2 + plays / beta**2)
    skills = cfg.mu + cfg.sigma * rng.standard_normal((chains, n))
    hits = np.zeros((chains, len(pairs)))
    ij = [(index[a], index[b]) for a, b in pairs]
    for sweep in range(burn + sweeps):
        total = np.zeros((chains, n))
        for order, ties, block, perf, onehot in groups:
            k = order.shape[1]
            _shift_tied_blocks(order, block, perf, skills, eps, beta, rng)
            for j in range(k):
                lo = np.full(perf.shape[:2], -np.inf)
                hi = np.full(perf.shape[:2], np.inf)
                if j > 0:  # the place above: below it by the margin, or level within it
                    above, tie = perf[:, :, j - 1], ties[:, j - 1]
                    hi = np.where(tie, above + eps, above - eps)
                    lo = np.where(tie, above - eps, lo)
                if j < k - 1:  # the place below
                    below, tie = perf[:, :, j + 1], ties[:, j]
                    lo = np.maximum(lo, np.where(tie, below - eps, below + eps))
                    hi = np.minimum(hi, np.where(tie, below + eps, np.inf))
                mean = skills[:, order[:, j]]
                perf[:, :, j] = mean + beta * truncated_normal((lo - mean) / beta, (hi - mean) / beta, rng)
            total += perf.reshape(chains, -1) @ onehot
        post_mean = post_var * (cfg.mu / cfg.sigma**2 + total / beta**2)
        skills = post_mean + np.sqrt(post_var) * rng.standard_normal((chains, n))
        if sweep >= burn:
            for p, (i, j) in enumerate(ij):
                hits[:, p] += skills[:, i] > skills[:, j]
    means = hits / sweeps
    return (
        [float(m) for m in means.mean(axis=0)],
        [float(s) for s in means.std(axis=0, ddof=1) / math.sqrt(chains)],
    )
