"""Figure phrases in prose: verbatim, nothing invented, no version numbers or GPU counts."""

from __future__ import annotations

import pytest

from devdigest.analysis.facts import figure_texts as extract_figures


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("This gives +6.2% throughput on H100.", ["+6.2% throughput"]),
        ("We see a 1.8x speedup on decode.", ["1.8x speedup"]),
        ("TTFT -12% and TPOT -5% at 64 concurrent requests", ["TTFT -12%", "TPOT -5%"]),
        ("This reduces latency by 15% for long prompts.", ["reduces latency by 15%"]),
        ("Throughput goes from 1200 to 1450 tok/s.", ["from 1200 to 1450 tok/s"]),
        ("Output improved from 1200 tok/s to 1450 tok/s", ["from 1200 tok/s to 1450 tok/s"]),
        ("throughput +12.5% on MI300X (Qwen3, 1k in / 1k out)", ["throughput +12.5%"]),
        ("no measurable change in throughput (+0.5%)", ["throughput (+0.5%)"]),
        (
            "about 6% higher throughput and 15% lower latency",
            ["6% higher throughput", "15% lower latency"],
        ),
        ("improves decode throughput by ~1.3x", ["improves decode throughput by ~1.3x"]),
        ("TTFT: 35 ms -> 29 ms", ["TTFT: 35 ms -> 29 ms"]),
        ("ITL from 35ms to 29ms", ["ITL from 35ms to 29ms"]),
        ("memory usage reduced by 20%", ["memory usage reduced by 20%"]),
        ("Speedup of 1.8x over baseline", ["Speedup of 1.8x"]),
        ("It is 2x slower on CPU", ["2x slower"]),
        ("up to 3× lower latency", ["up to 3× lower latency"]),
        ("E2E latency\n-7% at batch 64", ["E2E latency -7%"]),
    ],
)
def test_figures_found_verbatim(text: str, figures: list[str]) -> None:
    found = extract_figures(text)
    assert found == figures
    flat = " ".join(text.split())
    assert all(f in flat for f in found)  # never invented: each is a phrase of the text


@pytest.mark.parametrize(
    "text",
    [
        "Upgrade to v0.6.3 and fix #1234 on 2026-03-12",
        "100% of the tests pass",
        "GPU: 8x H100",
        "Ran on 8x MI300X with TP=8 and --gpu-memory-utilization 0.9",
        "bump version 1.2.3 -> 1.2.4",
        "scale from 2 to 4 GPUs",
        "reduces the number of kernels by 2",
        "Improved the code by 2 lines and 12.5% more coverage",
        "See https://github.com/x/y/pull/1234",
        "PyTorch version: 2.9.0+cu128, vLLM Version: 0.11.2",
        "",
    ],
)
def test_not_figures(text: str) -> None:
    assert extract_figures(text) == []
