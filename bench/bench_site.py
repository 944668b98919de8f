"""Site build at scale: 3 projects x 365 days, full build then an incremental one.

Run: ``python bench/bench_site.py`` (targets: full build <= 30 s, incremental <= 2 s).
One real report is written offline from the sample dataset (a vLLM-sized day), then cloned
with other dates and counts into a SQLite store under bench/out/.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from devdigest.analysis import compute_window_analysis
from devdigest.config import Config, Project
from devdigest.models import DailyReport
from devdigest.report import upsert_sample
from devdigest.sample.dataset import DEFAULT_DAY_END, generate_day
from devdigest.site import build_site
from devdigest.store import open_store
from devdigest.window import Window
from devdigest.writers import write_offline

OUT = Path(__file__).resolve().parent / "out"
PROJECTS = [("vllm-project/vllm", "vLLM"), ("sgl-project/sglang", "SGLang"), ("o/r", "Demo")]


def real_report(db: str) -> DailyReport:
    """A report written offline over the sample's vLLM-sized day."""
    ds = generate_day(seed=0)
    when = ds.end or DEFAULT_DAY_END
    store = open_store(db)
    upsert_sample(store, ds, when)
    window = Window(when - timedelta(days=1), when)
    analysis = compute_window_analysis(store, Config(db=db), ds.repo, window, now=when)
    store.close()
    return write_offline(analysis, "zh", now=when)


def clone(base: DailyReport, repo: str, name: str, day: date, rng: random.Random) -> DailyReport:
    shift = datetime.combine(day, datetime.min.time(), UTC) - base.window.start.replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    counts = {k: max(0, v + rng.randint(-5, 5)) for k, v in base.counts.model_dump().items()}
    return base.model_copy(
        update={
            "repo": repo,
            "project": name,
            "date": day.isoformat(),
            "counts": base.counts.model_copy(update=counts),
            "window": base.window.model_copy(
                update={"start": base.window.start + shift, "end": base.window.end + shift}
            ),
            "provenance": base.provenance.model_copy(
                update={"generated_at": base.provenance.generated_at + shift}
            ),
        }
    )


def folder_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    args = parser.parse_args()
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    db = str(OUT / "bench_site.sqlite3")
    started = time.perf_counter()
    base = real_report(str(OUT / "sample.sqlite3"))
    rng = random.Random(0)
    store = open_store(db)
    first = date(2025, 1, 1)
    for repo, name in PROJECTS:
        for k in range(args.days):
            store.save_report(clone(base, repo, name, first + timedelta(days=k), rng))
    print(f"stored {len(PROJECTS) * args.days} reports in {time.perf_counter() - started:.1f} s")
    config = Config(db=db, projects=[Project(repo=r, name=n) for r, n in PROJECTS])
    site = OUT / "site"

    full = build_site(store, config, site)
    files, size = folder_size(site)
    print(f"full build: {full.seconds:.2f} s (target <= 30 s), {len(full.written)} files written")
    print(f"output: {files} files, {size / 1e6:.1f} MB")

    repo, name = PROJECTS[0]
    store.save_report(clone(base, repo, name, first + timedelta(days=args.days), rng))
    incremental = build_site(store, config, site)
    print(
        f"incremental build after one new report: {incremental.seconds:.2f} s (target <= 2 s), "
        f"{len(incremental.written)} written, {len(incremental.reused)} unchanged"
    )
    noop = build_site(store, config, site)
    print(f"no-change build: {noop.seconds:.2f} s, {len(noop.written)} written")
    store.close()
    print(f"cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
