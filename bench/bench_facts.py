"""Figure extraction on the corpus (tests/corpus): precision, recall and the time per item.

    python bench/bench_facts.py [--repeat 20]

Target: precision and recall ≥ 0.9. The time is for ``compute_item_facts`` on one corpus item
(title, body and comments), parsing included (the parse cache is cleared before each pass).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.corpus import expected_keys, found_keys, load_cases, precision_recall

from devdigest.analysis.facts import compute_item_facts
from devdigest.analysis.facts.text import parse_document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    cases = load_cases()
    pairs = []
    for case in cases:
        facts = compute_item_facts(case.item, case.comments, "vllm-project/vllm")
        found, wanted = found_keys(facts.figures), expected_keys(case.expect)
        pairs.append((found, wanted))
        for key in sorted(found - wanted):
            print(f"  extra   {case.name}: {key}")
        for key in sorted(wanted - found):
            print(f"  missed  {case.name}: {key}")
    precision, recall, hits, found, wanted = precision_recall(pairs)
    times = []
    for _ in range(args.repeat):
        parse_document.cache_clear()
        started = time.perf_counter()
        for case in cases:
            compute_item_facts(case.item, case.comments, "vllm-project/vllm")
        times.append((time.perf_counter() - started) / len(cases))
    times.sort()
    print(
        f"cases={len(cases)} figures expected={wanted} found={found} correct={hits} "
        f"precision={precision:.3f} recall={recall:.3f} "
        f"time/item best={times[0] * 1000:.2f}ms median={times[len(times) // 2] * 1000:.2f}ms"
    )


if __name__ == "__main__":
    main()
