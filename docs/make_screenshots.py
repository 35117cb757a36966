"""Take the README's screenshots of a report: its standings, and one game's replay.

    arena run tournaments/ffa4.yaml
    python docs/make_screenshots.py tournaments/results/ffa4 [--game ID] [--ply N]

writes docs/images/report-standings.png and docs/images/report-replay.png (the
game with the most moves unless --game says which), with headless Chromium
(Debian packages chromium and chromium-driver) through the helper the browser
tests use.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena.league.store import ResultStore  # noqa: E402
from arena.report import report_page, tournament_report  # noqa: E402
from tests.support.browser import chromium, screenshots, unavailable  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="a results folder")
    parser.add_argument("--game", help="the game to show (default: the one with the most moves)")
    parser.add_argument("--ply", type=int, default=16, help="the ply to show (default: 16)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    args = parser.parse_args()
    if (why := unavailable()) is not None:
        print(f"cannot take screenshots: {why}", file=sys.stderr)
        return 2
    with ResultStore.open(args.results) as store:
        bots = [b["name"] for b in (store.get_meta("config") or {}).get("bots", [])]
        data = tournament_report(store, bots)
        # (The report reads its games from the store: both while it is open.)
        game = args.game or max(data.records, key=lambda r: len(r.moves)).game_id
        page = args.results / "report.html"
        page.write_text(report_page(data), encoding="utf-8")
    with chromium(width=1460, height=1400) as driver:  # the page's widest (1440 px and a margin)
        for shot in screenshots(driver, page, game, args.ply, args.out):
            print(f"wrote {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
