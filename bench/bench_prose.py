"""How Chinese the zh narrative is, and how often a sentence repeats, on generated days and on
the demo's sample day (offline writer).

The Chinese share is CJK characters / (CJK characters + Latin letters) of the zh narrative
outside the appendix, leaving out item titles, quoted evidence (“…”), code and URLs
(``devdigest.writers.quality``). Target ≥ 0.6; no sentence more than twice.

    python bench/bench_prose.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import load_store
from devdigest.config import load_config
from devdigest.report import SAMPLE_REPO, SAMPLE_WEB, generate_reports, sample_window
from devdigest.sample.dataset import generate_day
from devdigest.sample.model import Dataset
from devdigest.writers.quality import (
    cjk_share,
    letter_counts,
    repeated_sentences,
    without_kept_text,
)


def measure(label: str, dataset: Dataset, db: Path) -> None:
    store, _ = load_store(dataset, db)
    run = generate_reports(
        load_config(env={}),
        store,
        dataset.repo,
        sample_window(dataset.end),
        ["zh", "en"],
        writer="offline",
        no_sync=True,
        now=dataset.end,
    )
    store.close()
    zh, en = run.reports
    text = without_kept_text(zh)
    cjk, latin = letter_counts(text)
    repeats = max([0, *repeated_sentences(zh).values(), *repeated_sentences(en).values()])
    print(
        f"{label:<24} zh share={cjk_share(text):.3f} cjk={cjk:>5} latin={latin:>5} "
        f"with quotes={cjk_share(without_kept_text(zh, quotes=True)):.3f} "
        f"most repeated sentence={repeats}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5, help="generated days (seeds 0..N-1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            measure(f"generated day seed {seed}", generate_day(seed=seed), Path(tmp) / f"{seed}.db")
        demo = generate_day(seed=0, repo=SAMPLE_REPO)
        demo.web = SAMPLE_WEB
        measure("demo (sample day)", demo, Path(tmp) / "demo.db")


if __name__ == "__main__":
    main()
