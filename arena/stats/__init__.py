"""Statistics over a league's games: the order-free rating fit and its helpers.

Nothing here reads a store or a record: every function takes plain values.
"""

# The batch fit's stopping rule (here, not in trueskill_fit, so that showing it loads no numpy):
# it has converged when no mu or sigma moves by TOLERANCE in a sweep (trueskillthroughtime's
# figure), and it gives up after MAX_SWEEPS, saying it did not converge.
TOLERANCE = 1e-6
MAX_SWEEPS = 500
# The Elo fit's (arena.stats.elo): converged when no Elo moves by ELO_TOLERANCE in a step.
ELO_TOLERANCE = 1e-4
