"""Playing a league's games on a Dask cluster (``executor: dask`` or ``dask-local``).

The arena process keeps the schedule, the store and the standings; the
workers play games and send back their records.  :mod:`.placement` gets the
bots onto the workers, :mod:`.worker` is what runs there, :mod:`.pool` is the
arena's side.  Importing this package imports Dask: the local executor never does.
"""

from __future__ import annotations

from arena.cluster.placement import Placement, placement_for
from arena.cluster.pool import DaskGamePool

__all__ = ["DaskGamePool", "Placement", "placement_for"]
