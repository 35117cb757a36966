#!/usr/bin/env python3
"""Attack: reach the machine's network.

Arguments: ``PORT ABSTRACT [outside]``: a TCP port the test listens on at
127.0.0.1, the name of an abstract Unix socket the test listens on, and
``outside`` to also try an address beyond the machine (10.255.255.1:9, a
non-routed address: only ``connect`` is tried, nothing is sent).  At startup it
tries each connection (1 s timeout) and reports the outcomes and the network
interfaces it has, then plays randomly.
"""

import socket
import sys

from _common import outcome, play, report

PORT = int(sys.argv[1])
ABSTRACT = sys.argv[2]
OUTSIDE = len(sys.argv) > 3 and sys.argv[3] == "outside"


def connect(family: int, address: object) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        s.connect(address)


def attack() -> None:
    results = {
        "loopback": outcome(lambda: connect(socket.AF_INET, ("127.0.0.1", PORT))),
        "abstract": outcome(lambda: connect(socket.AF_UNIX, "\0" + ABSTRACT)),
    }
    if OUTSIDE:
        results["outside"] = outcome(lambda: connect(socket.AF_INET, ("10.255.255.1", 9)))
    report(attack="network", results=results, interfaces=sorted(name for _, name in socket.if_nameindex()))


if __name__ == "__main__":
    play("uses-network", attack)
