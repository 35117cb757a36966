"""A tiny portable random number generator (SplitMix64).

Boards generated "from a seed" must be identical on every machine, Python
version and, ideally, in other languages, so that a bot author can reproduce
them.  Python's :mod:`random` is stable in practice but its algorithms are not
a documented contract; SplitMix64 is twelve lines in any language.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


class SplitMix64:
    """SplitMix64 by Sebastiano Vigna; the state is one 64-bit integer."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        """The next number of the sequence, a uniform 64-bit unsigned integer."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below() needs n > 0, got {n!r}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n
