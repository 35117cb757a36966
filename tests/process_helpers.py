"""Finding the processes a test started, by a marker in their command line."""

from __future__ import annotations

import os
import time
from pathlib import Path


def leftovers(marker: str) -> list[str]:
    """``"PID: command line"`` of every live process whose command line holds ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def wait_no_leftovers(marker: str, seconds: float = 15.0) -> list[str]:
    """The marked processes still there after up to ``seconds`` (a killed one takes a moment)."""
    deadline = time.monotonic() + seconds
    while (left := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left
