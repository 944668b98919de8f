"""One exception tree; every message says how to fix the problem."""


class DevdigestError(Exception):
    """Base of every error devdigest reports to the user as one line."""


class ConfigError(DevdigestError):
    """Malformed or inconsistent configuration, flags or window."""


class GitHubError(DevdigestError):
    """The GitHub API refused or failed a request."""


class RateLimited(GitHubError):
    """The rate limit is exhausted and waiting was not allowed."""

    def __init__(self, message: str, reset_at: float | None = None) -> None:
        super().__init__(message)
        self.reset_at = reset_at


class NotFound(GitHubError):
    """The repository (or object) does not exist or is not visible to this token."""


class Unprocessable(GitHubError):
    """GitHub refused a valid-looking request (422), e.g. a listing paged past its depth limit."""


class AuthError(GitHubError):
    """Bad credentials, or a token without access."""


class StoreError(DevdigestError):
    """The database could not be opened or written."""


class LLMError(DevdigestError):
    """The LLM endpoint refused or failed a request."""


class SiteError(DevdigestError):
    """The static site could not be built."""


class NotifyError(DevdigestError):
    """A notification could not be built or delivered."""
