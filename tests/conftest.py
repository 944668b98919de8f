"""Shared pytest setup: the fake GitHub fixtures are available to every test."""

pytest_plugins = ["tests.fakes.fixtures", "tests.fakes.openai_fixtures", "tests.notify_case"]
