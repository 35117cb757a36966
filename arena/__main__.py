"""``python -m arena`` is the ``arena`` command."""

from __future__ import annotations

from arena.cli import main

main()
