"""Test doubles: a semantic fake GitHub REST server, its fixtures and an oracle for counts."""

from tests.fakes.github_server import FakeClock, FakeGitHub, Fault, RequestRecord
from tests.fakes.oracle import expected

__all__ = ["FakeClock", "FakeGitHub", "Fault", "RequestRecord", "expected"]
