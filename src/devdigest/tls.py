"""One certificate-verification context per process, shared by every HTTP client."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default certificate verification, built once: building it reads the CA bundle,
    about 20 ms for each client otherwise (a Celery worker opens two per sync)."""
    return httpx.create_ssl_context()
