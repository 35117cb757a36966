#!/usr/bin/env python3
"""Exits with status 7 as soon as it starts, before it has read or answered ``hello``."""

import sys

sys.exit(7)
