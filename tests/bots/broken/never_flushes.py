#!/usr/bin/env python3
"""Answers every request correctly but never flushes its output: as a C bot writing with printf
to a pipe, or a Python bot on a fully buffered stdout, its lines never reach the referee."""

import os
import sys

out = os.fdopen(1, "w", buffering=65536)  # a full buffer, whatever PYTHONUNBUFFERED says
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "hello":
        out.write("hello 1 never_flushes\n")
    elif word == "game":
        out.write("ready\n")
