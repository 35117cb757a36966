"""A bot's rating history drawn as inline SVG, on the server: mu as a line and its 95%
interval as a band, one colour per version, and a dashed mark where each version joined and
retired.

No script and no style attribute (the pages' Content-Security-Policy allows neither): the
colours are classes of ``static/pages.css``, the rest presentation attributes.  Every text
(a bot's name, a version's) goes through :func:`printable` and is escaped; the numbers are
formatted here.  The table of the same points beside it is the chart's text for those who
cannot see it (and the chart's ``<desc>`` says so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

from arena.ladder.history import BotHistory
from arena.league.history import HistoryPoint
from arena.untrusted import printable

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 26, 34  # margins: the axes' labels
COLOURS = 6  # series-0 ... series-5 in pages.css, in turn


def _text(value: str) -> Markup:
    return escape(printable(value))


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round numbers from ``low`` to ``high``, about ``count`` of them."""
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    step = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    while raw < step / 2 and step > 1e-6:
        step /= 2
    while span / step > count * 1.5:
        step *= 2
    first = int(low // step + 1) * step
    return [first + i * step for i in range(int((high - first) // step) + 1)]


def history_svg(history: BotHistory) -> Markup:
    """The chart of ``history`` (an empty Markup when it has no point)."""
    points = history.points
    if not points:
        return Markup("")
    marks = [m for v in history.versions for m in (v.joined_position, v.retired_position) if m is not None]
    x_low = max(0, min([p.position for p in points] + marks) - 1)  # from just before its first game
    x_high = max([history.games, x_low + 1, *marks])
    y_low = min(p.mu_low for p in points)
    y_high = max(p.mu_high for p in points)
    pad = max((y_high - y_low) * 0.05, 0.5)
    y_low, y_high = y_low - pad, y_high + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(pos: float) -> float:
        return LEFT + (pos - x_low) / (x_high - x_low) * inner_w

    def y(v: float) -> float:
        return TOP + (y_high - v) / (y_high - y_low) * inner_h

    name = _text(history.bot)
    parts: list[str] = [
        f'<svg class="history-chart" id="history-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-labelledby="history-chart-title history-chart-desc" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="history-chart-title">The rating of {name} over the league\'s games</title>',
        '<desc id="history-chart-desc">&#956; after each of its games, with its 95% interval as a band; '
        "dashed lines: where a version joined and retired. The table below lists the same points.</desc>",
    ]
    # Axes: mu on the left, the league's games below.
    for t in _ticks(y_low, y_high):
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}"/>'
            f'<text class="tick" x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
        )
    for t in _ticks(x_low, x_high, 6):
        parts.append(
            f'<text class="tick" x="{x(t):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{t:g}</text>'
        )
    parts.append(
        f'<text class="axis" x="{LEFT}" y="{TOP - 10}">&#956;</text>'
        f'<text class="axis" x="{WIDTH - RIGHT}" y="{HEIGHT - 4}" text-anchor="end">the league\'s games</text>'
        f'<line class="axis-line" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{HEIGHT - BOTTOM}"/>'
        f'<line class="axis-line" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" y2="{HEIGHT - BOTTOM}"/>'
    )
    for i, v in enumerate(history.versions):
        series = [p for p in points if p.name == v.name]
        colour = f"series-{i % COLOURS}"
        label = _text(v.name)
        if series:
            parts.append(_series(series, colour, label, x, y))
        for pos, what in ((v.joined_position, "joined"), (v.retired_position, "retired")):
            if pos is None or v.version is None:
                continue
            at = x(min(max(pos, x_low), x_high))
            parts.append(
                f'<g class="mark {colour}"><title>{label} {what} (game {pos})</title>'
                f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke-dasharray="4 3"/>'
                # A version retires where the next joins: "retired" left of its line, "joined" right.
                f'<text x="{at - 3 if what == "retired" else at + 3:.1f}" y="{TOP + 10}" '
                f'text-anchor="{"end" if what == "retired" else "start"}">v{v.version} {what}</text></g>'
            )
    parts.append("</svg>")
    # Every piece above is either a formatted number, a fixed string or an escaped text.
    return Markup("".join(parts))


Scale = Callable[[float], float]


def _series(series: Sequence[HistoryPoint], colour: str, label: Markup, fx: Scale, fy: Scale) -> str:
    top = " ".join(f"{fx(p.position):.1f},{fy(p.mu_high):.1f}" for p in series)
    bottom = " ".join(f"{fx(p.position):.1f},{fy(p.mu_low):.1f}" for p in reversed(series))
    line = " ".join(f"{fx(p.position):.1f},{fy(p.mu):.1f}" for p in series)
    last = series[-1]
    return (
        f'<g class="series {colour}"><title>{label}: &#956; {last.mu:.2f} &#177; {last.sigma:.2f} '
        f"after {last.games} game(s)</title>"
        f'<polygon class="band" points="{top} {bottom}"/>'
        f'<polyline class="line" points="{line}" fill="none"/>'
        f'<circle class="dot" cx="{fx(last.position):.1f}" cy="{fy(last.mu):.1f}" r="3"/></g>'
    )


def history_table(history: BotHistory) -> list[dict[str, str]]:
    """The chart's points as the table beside it shows them, cell by cell (the template escapes)."""
    return [
        {
            "bot": p.name,
            "games": "now" if p.now else str(p.games),
            "position": str(p.position),
            "mu": f"{p.mu:.2f} ± {p.sigma:.2f}",
            "interval": f"{p.mu_low:.2f} to {p.mu_high:.2f}",
            "finished": p.finished,
        }
        for p in history.points
    ]
