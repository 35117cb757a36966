"""``python -m arena`` is the ``arena`` command."""

from __future__ import annotations

from .cli import main

main()
