"""Pytest fixtures for the fakes. Register with `pytest_plugins = ["tests.fakes.fixtures"]`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devdigest.sample.dataset import Dataset, generate_day
from tests.fakes.github_server import FakeClock, FakeGitHub


@pytest.fixture(scope="session")
def day_dataset() -> Dataset:
    """`generate_day(seed=0)`, shared by the session: do not change it (use `.copy()`)."""
    return generate_day(seed=0)


@pytest.fixture
def fake_clock(day_dataset: Dataset) -> FakeClock:
    """A simulated clock at the end of the sample day."""
    return FakeClock(day_dataset.end)


@pytest.fixture
def fake_github(day_dataset: Dataset, fake_clock: FakeClock) -> Iterator[FakeGitHub]:
    """The fake GitHub server over the sample day; `fake_github.url` is the API base URL."""
    with FakeGitHub(day_dataset, clock=fake_clock) as server:
        yield server
