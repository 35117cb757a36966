#!/usr/bin/env python3
"""Raises KeyError before it reads anything: the traceback on stderr is the author's only clue."""

settings: dict[str, int] = {}
depth = settings["depth"]
