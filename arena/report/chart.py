"""The geometry of the report's inline SVG drawings: numbers in, coordinates out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Okabe and Ito's colours, told apart by colour-blind readers too; a dash pattern per line
# as well, for more bots than colours and for print.
LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#F0E442")
DASHES = ("", "6 3", "2 2", "8 3 2 3")


@dataclass(frozen=True)
class Line:
    bot: str
    points: str  # "x,y x,y ..." for a <polyline>
    colour: str
    dash: str
    last: tuple[float, float]  # where the line ends
    label_y: float  # its label's baseline: beside its end, moved up or down to clear the others'


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along its axis
    label: str


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: int
    top: int
    right: int  # x of the plot's right edge
    bottom: int  # y of the plot's bottom edge
    lines: tuple[Line, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round values spanning [lo, hi], about ``count`` of them."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 0.1
    step = next(m * magnitude for m in (1, 2, 5, 10, 20, 50) if m * magnitude >= raw)
    start = int(lo // step) * step
    return [start + i * step for i in range(count * 3) if start + i * step <= hi + step * 0.999]


LABEL_GAP = 12.0  # pixels between two end labels' baselines (their font is 11px)


def spread(ys: Sequence[float], lo: float, hi: float, gap: float = LABEL_GAP) -> list[float]:
    """``ys`` moved as little as they need so that any two are ``gap`` apart, within
    [``lo``, ``hi``] where there is room; in their order (equal ones in the order given)."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [ys[i] for i in order]
    for k in range(1, len(placed)):  # down from the top, each at least a gap below the last
        placed[k] = max(placed[k], placed[k - 1] + gap)
    if placed:  # then back up from the bottom edge
        placed[-1] = min(placed[-1], hi)
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
        placed[0] = max(placed[0], lo)
        for k in range(1, len(placed)):  # a chart too short for them all overlaps at the bottom
            placed[k] = max(placed[k], placed[k - 1] + gap)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = round(placed[k], 1)
    return out


def line_chart(
    series: Mapping[str, Sequence[tuple[int, float]]], width: int = 640, height: int = 260
) -> LineChart:
    """A chart of one line per bot: games played (x) against rating (y).  A bot's series
    starts where its first game does (a bot without games has no line)."""
    left, top, right, bottom = 48, 12, width - 110, height - 28
    xs = [x for pts in series.values() for x, _ in pts] or [0, 1]
    ys = [y for pts in series.values() for _, y in pts] or [0.0, 1.0]
    x_hi = max(max(xs), 1)
    y_ticks = _nice_ticks(min(ys), max(ys))
    y_lo, y_hi = y_ticks[0], y_ticks[-1]

    def px(x: float) -> float:
        return round(left + (right - left) * x / x_hi, 1)

    def py(y: float) -> float:
        return round(bottom - (bottom - top) * (y - y_lo) / ((y_hi - y_lo) or 1), 1)

    drawn = [(i, bot, [(px(x), py(y)) for x, y in pts]) for i, (bot, pts) in enumerate(series.items()) if pts]
    # Label baselines: 4px below each line's end, spread so that no two labels overlap.
    label_ys = spread([coords[-1][1] + 4 for _, _, coords in drawn], top + 4, bottom + 4)
    lines = [
        Line(
            bot=bot,
            points=" ".join(f"{x},{y}" for x, y in coords),
            colour=LINE_COLOURS[i % len(LINE_COLOURS)],
            dash=DASHES[(i // len(LINE_COLOURS) + i) % len(DASHES)],
            last=coords[-1],
            label_y=label_y,
        )
        for (i, bot, coords), label_y in zip(drawn, label_ys, strict=True)
    ]
    x_ticks = [Tick(px(x), f"{x:g}") for x in _nice_ticks(0, x_hi) if x == int(x) and x <= x_hi]
    return LineChart(
        width,
        height,
        left,
        top,
        right,
        bottom,
        tuple(lines),
        tuple(x_ticks),
        tuple(Tick(py(y), f"{y:g}") for y in y_ticks),
    )


@dataclass(frozen=True)
class Interval:
    """One bot's rating as a bar: mu - 3 sigma to mu + 3 sigma, with mu marked (pixels)."""

    low: float
    high: float
    mid: float


@dataclass(frozen=True)
class Bars:
    """A table's bars on one scale, and that scale's ticks (drawn as an axis above them)."""

    bars: tuple[Interval, ...]
    ticks: tuple[Tick, ...]
    width: int


def intervals(ratings: Sequence[tuple[float, float]], width: int = 160) -> Bars:
    """Bars for (mu, sigma) pairs, on one scale shared by every bar of a table: from the
    round value at or below the lowest mu - 3 sigma to the one at or above the highest
    mu + 3 sigma, with a tick at each round value between."""
    if not ratings:
        return Bars((), (), width)
    values = _nice_ticks(min(mu - 3 * s for mu, s in ratings), max(mu + 3 * s for mu, s in ratings), 4)
    lo, hi = values[0], values[-1]

    def px(v: float) -> float:
        return round(6 + (width - 12) * (v - lo) / ((hi - lo) or 1.0), 1)

    return Bars(
        tuple(Interval(px(mu - 3 * s), px(mu + 3 * s), px(mu)) for mu, s in ratings),
        tuple(Tick(px(v), f"{v:g}") for v in values),
        width,
    )
