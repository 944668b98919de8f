"""Inline SVG charts built at build time: no script, no network, colours from the page's CSS.

Series values are per day, ``None`` for a day without a report (drawn as a gap, not as zero).
"""

from __future__ import annotations

from datetime import date, timedelta
from html import escape

from devdigest.models import Counts

SERIES = ("new", "merged", "closed")


def last_days(end: str, days: int = 30) -> list[str]:
    """``days`` ISO dates ending with ``end`` (inclusive), oldest first."""
    last = date.fromisoformat(end)
    return [(last - timedelta(days=k)).isoformat() for k in range(days - 1, -1, -1)]


def series_values(counts: Counts) -> dict[str, int]:
    """The three charted series of one day's counts."""
    return {
        "new": counts.new_issues + counts.new_prs,
        "merged": counts.merged_prs,
        "closed": counts.closed_issues + counts.closed_unmerged_prs,
    }


def total_activity(counts: Counts) -> int:
    return sum(series_values(counts).values())


def sparkline_svg(values: list[int | None], label: str, width: int = 150, height: int = 32) -> str:
    """Bars, one per day; missing days leave a gap."""
    top = max((v for v in values if v is not None), default=0) or 1
    step = width / max(len(values), 1)
    bars = []
    for k, value in enumerate(values):
        if value is None:
            continue
        h = max(1.0, (height - 2) * value / top)
        bars.append(
            f'<rect x="{k * step + 0.5:.1f}" y="{height - h:.1f}" width="{step - 1:.1f}" '
            f'height="{h:.1f}" rx="1"><title>{value}</title></rect>'
        )
    return (
        f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
        + "".join(bars)
        + "</svg>"
    )


def _nice_max(value: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if value <= step * 4:
            return step * 4
    return value


def _segments(points: list[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


def line_chart_svg(
    days: list[str], series: dict[str, list[int | None]], labels: dict[str, str], title: str
) -> str:
    """A line chart of several daily series with a y grid and date ticks every 7 days."""
    width, height, left, right, top, bottom = 640, 200, 36, 22, 12, 26
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((v for vals in series.values() for v in vals if v is not None), default=0)
    y_max = _nice_max(peak)
    step = plot_w / max(len(days) - 1, 1)

    def y_of(value: float) -> float:
        return top + plot_h - plot_h * value / y_max

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for k in range(5):
        value = y_max * k / 4
        y = y_of(value)
        parts.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>'
        )
    for k in range(len(days) - 1, -1, -7):
        x = left + k * step
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{height - 8}" text-anchor="middle">'
            f"{escape(days[k][5:])}</text>"
        )
    for name, values in series.items():
        points = [None if v is None else (left + k * step, y_of(v)) for k, v in enumerate(values)]
        label = escape(labels.get(name, name))
        for run in _segments(points):
            coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            parts.append(f'<polyline class="s-{escape(name)}" points="{coords}"/>')
        for k, point in enumerate(points):
            if point is not None:
                parts.append(
                    f'<circle class="s-{escape(name)}" cx="{point[0]:.1f}" cy="{point[1]:.1f}" '
                    f'r="2.5"><title>{escape(days[k])} {label}: {values[k]}</title></circle>'
                )
    parts.append("</svg>")
    return "".join(parts)
