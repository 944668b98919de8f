"""Report windows: half-open ``[start, end)`` in UTC. All time zone logic lives here."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from devdigest.errors import ConfigError

_DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
DAY = timedelta(days=1)
LONGEST_DAY = timedelta(hours=25)  # a calendar day across a DST change; longer is a period
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# A fixed offset as reports print it: UTC+8, UTC-4, UTC+5:30 (also UTC+08:00, GMT+0545).
_OFFSET = re.compile(r"^(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


def resolve_tz(name: str | None) -> tzinfo:
    """A time zone by IANA name (``Asia/Shanghai``) or fixed offset (``UTC+8``); ``None`` is UTC."""
    fixed = _OFFSET.match((name or "").strip())
    if fixed:
        sign, hours, minutes = fixed.groups()
        offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if offset <= timedelta(hours=14) and int(minutes or 0) < 60:
            return timezone(-offset if sign == "-" else offset)
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"unknown time zone {name!r}: use an IANA name such as Asia/Shanghai (which follows "
            "daylight saving where there is one) or a fixed offset such as UTC+8"
        ) from exc


def parse_duration(text: str) -> timedelta:
    """``24h``, ``2d``, ``90m``, ``1w`` → timedelta."""
    match = _DURATION.match(text)
    if not match or int(match.group(1)) == 0:
        raise ConfigError(
            f"bad duration {text!r}: write a positive number and a unit, e.g. 24h or 2d"
        )
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


Note = Callable[[str], None]  # receives one-line notes for stderr


def parse_instant(
    text: str, tz: tzinfo = UTC, *, option: str = "time", note: Note | None = None
) -> datetime:
    """An ISO 8601 time; a naive time is read in ``tz`` and ``note`` is told so. In UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(f"bad time {text!r}: use ISO 8601, e.g. 2026-03-12T03:24:00Z") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
        if note is not None:
            label = utc_offset_label(value, tz)
            zone = label if isinstance(tz, timezone) else f"{tz} ({label})"  # fixed: UTC+8
            note(
                f"{option} {text.strip()} has no UTC offset: read in {zone}; "
                f"write {value.isoformat()} or add Z for UTC to be explicit"
            )
    return value.astimezone(UTC)


def utc_offset_label(moment: datetime, tz: tzinfo) -> str:
    """``UTC+8``, ``UTC-4``, ``UTC+5:30`` or ``UTC`` for ``moment`` in ``tz``."""
    offset = moment.astimezone(tz).utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def format_local(moment: datetime, tz: tzinfo) -> str:
    """``2026-03-12 11:24 (UTC+8)``."""
    return f"{moment.astimezone(tz):%Y-%m-%d %H:%M} ({utc_offset_label(moment, tz)})"


@dataclass(frozen=True)
class Window:
    """A half-open interval ``[start, end)``; ``start``/``end`` are aware UTC datetimes."""

    start: datetime
    end: datetime
    tz: str = "UTC"

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise ConfigError("window bounds must carry a time zone")
        if self.end <= self.start:
            raise ConfigError(
                f"empty window: end {self.end:%Y-%m-%dT%H:%MZ} is not after start "
                f"{self.start:%Y-%m-%dT%H:%MZ}; swap --since and --until"
            )
        object.__setattr__(self, "start", self.start.astimezone(UTC))
        object.__setattr__(self, "end", self.end.astimezone(UTC))

    @property
    def zone(self) -> tzinfo:
        return resolve_tz(self.tz)

    def contains(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end

    @property
    def label(self) -> str:
        """``2026-03-12 11:24 (UTC+8) ~ 2026-03-13 11:24 (UTC+8)``."""
        return f"{format_local(self.start, self.zone)} ~ {format_local(self.end, self.zone)}"

    @property
    def local_date(self) -> date:
        """The calendar date of the start in the window's time zone (names report files)."""
        return self.start.astimezone(self.zone).date()

    @property
    def duration(self) -> timedelta:
        return self.end - self.start

    def calendar_day(self, tz: str | None = None) -> date | None:
        """The date if this is exactly one calendar day in ``tz`` (default: the window's zone)."""
        tz = tz or self.tz
        day = self.start.astimezone(resolve_tz(tz)).date()
        whole = day_window(day, tz)
        return day if (self.start, self.end) == (whole.start, whole.end) else None

    @property
    def slug(self) -> str:
        """``2026-03-12T1124+0800_24h``: the local start with its UTC offset, and the length."""
        local = self.start.astimezone(self.zone)
        clock = local.strftime("%H%M%S" if local.second else "%H%M")
        return f"{local:%Y-%m-%d}T{clock}{local:%z}_{duration_label(self.duration)}"

    def previous(self, days: int = 1) -> Window:
        """The window of the same length ending where this one starts (shifted by whole days)."""
        return Window(self.start - timedelta(days=days), self.end - timedelta(days=days), self.tz)

    def to_json(self) -> dict[str, str]:
        return {"start": iso_z(self.start), "end": iso_z(self.end), "tz": self.tz}

    @property
    def is_period(self) -> bool:
        """Longer than a calendar day: written as a period (weekly, monthly) report."""
        return self.duration > LONGEST_DAY

    @property
    def local_end_date(self) -> date:
        """The calendar date of the last instant of the window in its time zone."""
        return (self.end - timedelta(microseconds=1)).astimezone(self.zone).date()


def duration_label(length: timedelta) -> str:
    """``24h``, ``90m`` or ``5415s``: the shortest exact form."""
    seconds = int(length.total_seconds())
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def iso_z(moment: datetime) -> str:
    """``2026-03-12T03:24:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_window(day: date, tz: str) -> Window:
    """The calendar day ``day`` in ``tz`` (23 or 25 hours long across a DST change)."""
    zone = resolve_tz(tz)
    start = datetime.combine(day, time(0), tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone)
    return Window(start, end, tz)


def week_window(text: str, tz: str) -> Window:
    """``2026-W11``: the ISO week (Monday 00:00 to the next Monday) in ``tz``."""
    match = _WEEK.match(text.strip())
    try:
        if not match:
            raise ValueError(text)
        monday = date.fromisocalendar(int(match.group(1)), int(match.group(2)), 1)
    except ValueError as exc:
        raise ConfigError(f"bad --week {text!r}: use an ISO week such as 2026-W11") from exc
    return days_window(monday, monday + timedelta(days=7), tz)


def month_window(text: str, tz: str) -> Window:
    """``2026-03``: the calendar month in ``tz``."""
    match = _MONTH.match(text.strip())
    try:
        if not match:
            raise ValueError(text)
        first = date(int(match.group(1)), int(match.group(2)), 1)
    except ValueError as exc:
        raise ConfigError(f"bad --month {text!r}: use YYYY-MM, e.g. 2026-03") from exc
    return days_window(first, next_month(first), tz)


def next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)


def days_window(first: date, stop: date, tz: str) -> Window:
    """Local midnight of ``first`` to local midnight of ``stop`` (exclusive) in ``tz``."""
    zone = resolve_tz(tz)
    start = datetime.combine(first, time(0), tzinfo=zone)
    return Window(start, datetime.combine(stop, time(0), tzinfo=zone), tz)


def _local_days(window: Window) -> tuple[date, date] | None:
    """(first, stop) when the window runs from one local midnight to another, else ``None``."""
    start, end = window.start.astimezone(window.zone), window.end.astimezone(window.zone)
    if start.timetz().replace(tzinfo=None) != time(0) or end.timetz().replace(tzinfo=None) != time(
        0
    ):
        return None
    return start.date(), end.date()


def period_name(window: Window) -> str | None:
    """``2026-W11`` for an ISO week, ``2026-03`` for a calendar month, else ``None``."""
    days = _local_days(window)
    if days is None:
        return None
    first, stop = days
    if first.isoweekday() == 1 and stop - first == timedelta(days=7):
        year, week, _ = first.isocalendar()
        return f"{year}-W{week:02d}"
    if first.day == 1 and stop == next_month(first):
        return f"{first:%Y-%m}"
    return None


def previous_period(window: Window) -> Window:
    """The period just before ``window``: the previous week or month, else the same length
    (in local days when the window is made of whole local days)."""
    days = _local_days(window)
    if days is not None and (name := period_name(window)) and "-W" not in name:
        return completed_period("month", window.start, window.tz)
    if days is not None:
        first, stop = days
        return days_window(first - (stop - first), first, window.tz)
    return Window(window.start - window.duration, window.start, window.tz)


def completed_period(kind: str, now: datetime, tz: str) -> Window:
    """The last ``week`` (ISO) or ``month`` in ``tz`` that ended at or before ``now``."""
    today = now.astimezone(resolve_tz(tz)).date()
    if kind == "week":
        monday = today - timedelta(days=today.isoweekday() - 1)
        return days_window(monday - timedelta(days=7), monday, tz)
    if kind == "month":
        first = today.replace(day=1)
        before = date(first.year - (first.month == 1), (first.month - 2) % 12 + 1, 1)
        return days_window(before, first, tz)
    raise ConfigError(f"unknown period {kind!r}: use week or month")


def period_days(window: Window) -> list[Window]:
    """The calendar days of ``window`` in its time zone, clipped to it: they tile the window."""
    out = []
    day = window.start.astimezone(window.zone).date()
    while True:
        whole = day_window(day, window.tz)
        if whole.start >= window.end:
            return out
        out.append(Window(max(whole.start, window.start), min(whole.end, window.end), window.tz))
        day += DAY


def build_window(
    *,
    now: datetime,
    tz: str | None = None,
    on_date: str | None = None,
    since: str | None = None,
    until: str | None = None,
    last: str | None = None,
    week: str | None = None,
    month: str | None = None,
    note: Note | None = None,
) -> Window:
    """The window described by CLI-style options; exactly one style may be used.

    ``--date D`` (a calendar day in ``tz``), ``--week 2026-W11`` (an ISO week in ``tz``),
    ``--month 2026-03``, ``--since``/``--until`` (``until`` defaults to now), or ``--last 24h``
    (ending now). With none of them: the last 24 hours. Times without an offset are read in
    ``tz``, and ``note`` is told which zone was assumed.
    """
    tz = tz or "UTC"
    zone = resolve_tz(tz)
    given = (
        ("--date", on_date),
        ("--week", week),
        ("--month", month),
        ("--since", since),
        ("--last", last),
    )
    styles = [name for name, value in given if value]
    if len(styles) > 1:
        raise ConfigError(f"choose one of {', '.join(styles)} to describe the window")
    if until and not since:
        raise ConfigError("--until needs --since")
    if on_date:
        try:
            day = date.fromisoformat(on_date)
        except ValueError as exc:
            raise ConfigError(f"bad --date {on_date!r}: use YYYY-MM-DD") from exc
        return day_window(day, tz)
    if week:
        return week_window(week, tz)
    if month:
        return month_window(month, tz)
    if since:
        notes: list[str] = []  # said only once the window is known to be valid
        start = parse_instant(since, zone, option="--since", note=notes.append)
        end = parse_instant(until, zone, option="--until", note=notes.append) if until else now
        window = Window(start, end, tz)
        for message in notes if note else []:
            note(message)
        return window
    length = parse_duration(last or "24h")
    return Window(now - length, now, tz)
