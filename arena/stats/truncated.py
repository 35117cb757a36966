"""Moments of a truncated Gaussian, vectorized: what expectation propagation needs.

The ratio pdf/cdf is computed without forming either (both underflow far in the
tail, where a rating fit of a one-sided league spends its time).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)


def _erfc_parts(z: Array) -> tuple[Array, Array]:
    """erfc(|z|) = t * exp(-z^2 + poly): (t, poly), Numerical Recipes' erfcc (relative error < 1.2e-7).

    The same approximation trueskillthroughtime uses, so the two fits agree closely.
    """
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.5 * a)
    poly = -1.26551223 + t * (
        1.00002368
        + t
        * (
            0.37409196
            + t
            * (
                0.09678418
                + t
                * (
                    -0.18628806
                    + t
                    * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))
                )
            )
        )
    )
    return t, poly


def cdf(x: Array) -> Array:
    """The standard normal's distribution function."""
    z = -x / _SQRT2
    t, poly = _erfc_parts(z)
    half_tail = 0.5 * t * np.exp(-z * z + poly)  # 0.5 erfc(|z|)
    return np.where(z >= 0, half_tail, 1.0 - half_tail)


def log_cdf(x: Array) -> Array:
    """log of the standard normal's distribution function, finite far into the lower tail."""
    z = -x / _SQRT2
    t, poly = _erfc_parts(z)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        lower = np.log(0.5 * t) - z * z + poly  # x <= 0: log(0.5 erfc(z))
        upper = np.log1p(-0.5 * t * np.exp(-z * z + poly))
    return np.where(z >= 0, lower, upper)


def pdf(x: Array) -> Array:
    return np.exp(-0.5 * x * x) / _SQRT2PI


def v_win(x: Array) -> Array:
    """pdf(x) / cdf(x), stable for very negative x (where both underflow)."""
    z = -x / _SQRT2
    t, poly = _erfc_parts(z)
    # For z >= 0 (x <= 0): cdf(x) = 0.5 t exp(-z^2 + poly) and pdf(x) = exp(-z^2) / sqrt(2 pi).
    tail = 1.0 / (_SQRT2PI * 0.5 * t * np.exp(poly))
    return np.where(z >= 0, tail, pdf(x) / cdf(x))


def truncate(mu: Array, var: Array, margin: Array, tie: NDArray[np.bool_]) -> tuple[Array, Array]:
    """Mean and variance of N(mu, var) cut to (margin, inf) where not ``tie``, to (-margin, margin) where it is."""
    # Both sides of every np.where below are computed, and far in a tail the side not taken
    # overflows: numpy's warnings about it would reach the user of ``arena run``.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _truncate(mu, var, margin, tie)


def _truncate(mu: Array, var: Array, margin: Array, tie: NDArray[np.bool_]) -> tuple[Array, Array]:
    sigma = np.sqrt(var)
    # A win: d > margin.
    alpha = (margin - mu) / sigma
    v = v_win(-alpha)
    w = v * (v - alpha)
    # A tie: -margin < d < margin.
    lo = (-margin - mu) / sigma
    hi = (margin - mu) / sigma
    mass = np.maximum(cdf(hi) - cdf(lo), 1e-300)
    v_tie = (pdf(lo) - pdf(hi)) / mass
    u_tie = (lo * pdf(lo) - hi * pdf(hi)) / mass
    w_tie = v_tie * v_tie - u_tie
    v = np.where(tie, v_tie, v)
    w = np.where(tie, w_tie, w)
    # w is in (0, 1) in exact arithmetic; keep it there so a variance never goes negative.
    w = np.clip(w, 0.0, 1.0 - 1e-12)
    return mu + sigma * v, var * (1.0 - w)
