"""Sentence extraction of the offline writer."""

from __future__ import annotations

from devdigest.writers.extract import (
    best_sentences,
    first_sentence,
    has_disagreement,
    is_bare_approval,
    neutralize_mentions,
    repeats_title,
    sections,
    summary_sentences,
    trim,
)

PR_BODY = """<!-- Thanks for contributing! Please fill in the template. -->
## Purpose
This PR makes the scheduler skip empty batches. It also removes a lock from the hot path.
Fixes #123

## Test Plan
pytest tests/v1/core -k scheduler

## Test Result
```text
===== 42 passed in 3.1s =====
```
"""

ISSUE_BODY = """### Your current environment
```text
PyTorch version: 2.9.0+cu128
GPU: 8x MI300X
```

### 🐛 Describe the bug
When serving GLM-5 with FP8 the server crashes after ten minutes.
```text
RuntimeError: CUDA error: an illegal memory access was encountered
```
It started after the latest change to the sampler.
"""


def test_summary_comes_from_the_purpose_section_not_the_template():
    assert summary_sentences(PR_BODY, 2) == [
        "This PR makes the scheduler skip empty batches.",
        "It also removes a lock from the hot path.",
    ]


def test_environment_blocks_and_logs_are_skipped():
    assert first_sentence(ISSUE_BODY) == (
        "When serving GLM-5 with FP8 the server crashes after ten minutes."
    )
    text = " ".join(p for _, paras in sections(ISSUE_BODY) for p in paras)
    assert "RuntimeError" not in text and "PyTorch version" not in text


def test_first_paragraph_when_there_are_no_headings():
    body = "Short intro about the KV cache manager refactor.\n\nSecond paragraph here."
    assert first_sentence(body) == "Short intro about the KV cache manager refactor."


def test_empty_or_code_only_body_has_no_sentence():
    assert first_sentence("") is None
    assert first_sentence("```\nonly code\n```") is None


def test_best_sentence_skips_quotes_lgtm_and_code():
    bodies = [
        "LGTM",
        "> I think we should merge this now.\n\nI'm not sure we should change the default "
        "here; it affects every user of prefix caching.",
        "```python\nprint('hello world, this is a long line of code')\n```",
    ]
    assert best_sentences(bodies) == (
        "I'm not sure we should change the default here; it affects every user of prefix caching."
    )


def test_best_sentence_is_none_for_bare_approvals():
    assert best_sentences(["LGTM", "+1", "Thanks!"]) is None
    assert is_bare_approval("LGTM, thanks for the fix!")
    assert is_bare_approval("+1")
    assert not is_bare_approval("LGTM but please add a test for the ROCm path.")


def test_mentions_are_neutralized_but_emails_kept():
    text = "@alice-dev could you check? cc @bob. Mail me at carol@example.com"
    assert neutralize_mentions(text) == (
        "alice-dev could you check? cc bob. Mail me at carol@example.com"
    )
    assert "@" not in best_sentences(["@alice could you take a look at the sampler change?"])


def test_trim_cuts_at_a_sentence_boundary():
    text = "First sentence is short. " + "Second sentence is much longer " * 10 + "end."
    assert trim(text, 60) == "First sentence is short."
    long_clause = "word " * 80
    trimmed = trim(long_clause, 50)
    assert len(trimmed) <= 50 and trimmed.endswith("…")


def test_disagreement_markers():
    assert has_disagreement("I'd rather keep the old behaviour behind a flag.")
    assert has_disagreement("Why not reuse the existing allocator instead?")
    assert not has_disagreement("Thanks, merged.")


def test_a_body_sentence_that_only_repeats_the_title_is_skipped():
    title = "[Perf] Speed up the sampler for torch.compile"
    body = "## Purpose\nSpeed up the sampler for torch.compile.\nThe change removes a host sync."
    assert repeats_title("Speed up the sampler for torch.compile.", title)
    assert not repeats_title("The change removes a host sync.", title)
    assert first_sentence(body, title) == "The change removes a host sync."
    assert first_sentence(body) == "Speed up the sampler for torch.compile."
