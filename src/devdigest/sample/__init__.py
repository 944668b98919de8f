"""A seeded, vLLM-sized sample repository (used by `devdigest demo` and by the tests)."""

from devdigest.sample.dataset import (
    DEFAULT_DAY_END,
    Comment,
    Dataset,
    Event,
    Item,
    Review,
    ReviewComment,
    generate_day,
    generate_history,
)

__all__ = [
    "DEFAULT_DAY_END",
    "Comment",
    "Dataset",
    "Event",
    "Item",
    "Review",
    "ReviewComment",
    "generate_day",
    "generate_history",
]
