"""The fake OpenAI server fixture: `pytest_plugins = ["tests.fakes.openai_fixtures"]`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running fake OpenAI server; ``fake_openai.url`` is the base URL (key ``test-key``)."""
    with FakeOpenAI() as server:
        yield server
