"""Shared by the run tests: three small projects on the fake GitHub server, and a CLI driver."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from devdigest.cli import main
from devdigest.sample.dataset import generate_day
from devdigest.sample.model import Dataset

END = datetime(2026, 3, 13, 3, 24, tzinfo=UTC)  # the sample days end here
PROJECTS = {  # repo → (tz, cutoff, window kind); every cutoff is 03:24 UTC or midnight local
    "acme/alpha": ("UTC", "03:24", "day"),
    "acme/beta": ("Asia/Shanghai", "11:24", "24h"),
    "acme/gamma": ("America/New_York", "midnight", "day"),
}


def datasets(keep_every: int = 10) -> list[Dataset]:
    """Three seeded repositories (a busy last day, three lighter days before it), thinned to
    every ``keep_every``-th item so that the tests stay fast."""
    return [
        thin(generate_day(seed=k, repo=repo, history_days=3), keep_every)
        for k, repo in enumerate(PROJECTS, 1)
    ]


def thin(ds: Dataset, keep_every: int) -> Dataset:
    """``ds`` with only every ``keep_every``-th item and the discussion on those items."""
    ds.items = {n: item for n, item in ds.items.items() if n % keep_every == 0}
    ds.comments = [c for c in ds.comments if c.number in ds.items]
    ds.review_comments = [c for c in ds.review_comments if c.number in ds.items]
    ds.reviews = [r for r in ds.reviews if r.number in ds.items]
    ds.invalidate()
    return ds


def write_config(path: Path, tmp: Path, repos: list[str], langs: str = '["en"]') -> Path:
    lines = [
        f'out = "{tmp / "reports"}"',
        f'site_out = "{tmp / "site"}"',
        'site_lang = "en"',
        'site_url = "https://digest.example.org/"',
        "[schedule]",
        f"langs = {langs}",
        'writer = "offline"',
    ]
    for repo in repos:
        tz, cutoff, kind = PROJECTS.get(repo, ("UTC", "03:24", "day"))
        lines += [
            "[[projects]]",
            f'repo = "{repo}"',
            f'tz = "{tz}"',
            "[projects.schedule]",
            f'cutoff = "{cutoff}"',
            f'window = "{kind}"',
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_cli(config: Path, db: str, api: str, *args: str) -> int:
    return main(["--config", str(config), "--db", db, "--github-api-url", api, *args])
