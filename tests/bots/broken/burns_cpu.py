#!/usr/bin/env python3
"""Spins on the CPU before its hello, until the CPU-time limit (``--cpu-seconds``) ends it."""

while True:
    pass
