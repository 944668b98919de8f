"""What crosses the boundary with the user: URLs and server text made safe to print, and the
checks on where the token may go (an http(s) API URL, the API origin, plain http warnings)."""

from __future__ import annotations

import ipaddress
import json
import re
import sys
from urllib.parse import urlsplit

import httpx

from devdigest.config import redact_url
from devdigest.errors import ConfigError

_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (window title…), BEL or ST terminated
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor moves)
    r"|[\x00-\x1f\x7f-\x9f]"  # any other control character, \r included
)


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def clean_text(text: str, limit: int = 300) -> str:
    """Server text made safe for a terminal: control and escape sequences removed, shortened."""
    cleaned = " ".join(_CONTROL.sub(" ", text).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def shown(url: object) -> str:
    """A URL for messages: credentials hidden, control characters removed."""
    return clean_text(redact_url(str(url)), 500)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port made explicit."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"https": 443, "http": 80}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


def server_message(resp: httpx.Response, content: bytes) -> str:
    """The server's ``message`` (or the reason phrase), safe to print."""
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("message"):
        return clean_text(str(data["message"]))
    return clean_text(resp.reason_phrase or "error")


def check_api_url(url: str) -> None:
    """A clear error for an API URL without an http(s) scheme, before any request."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"the GitHub API URL {shown(url)!r} is not an http:// or https:// URL: write it "
            "in full, e.g. https://api.github.com or https://HOST/api/v3 (--github-api-url)"
        )
