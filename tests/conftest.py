"""Shared pytest setup: the database backends and the fake servers' fixtures for every test."""

pytest_plugins = [
    "tests.db",
    "tests.fakes.fixtures",
    "tests.fakes.openai_fixtures",
    "tests.notify_case",
]
