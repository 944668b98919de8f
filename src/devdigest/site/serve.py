"""``site serve``: a local preview on 127.0.0.1 that rebuilds when the store has changed.

Each request first compares a cheap store fingerprint (number of reports and the newest save
time) with the one of the last build; when it differs the site is rebuilt (incrementally) before
the file is served. Rebuilds and file opens share one lock, so a request never sees the folder
swap half-way (an open file stays readable after the swap). A path whose resolved location lies
outside the site folder (a symbolic link to ``/etc/passwd``) is answered with 404.
"""

from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from devdigest.config import Config
from devdigest.site.build import BuildReport, build_site


class SiteServer:
    """The preview server's state: where the site is, and what it was built from."""

    def __init__(self, store, config: Config, out: Path, log=print) -> None:
        self.store = store
        self.config = config
        self.out = Path(out).absolute()
        self.lock = threading.Lock()
        self.built_from: object = None
        self.log = log
        self.last: BuildReport | None = None

    def refresh(self) -> BuildReport | None:
        """Rebuild if the store changed since the last build (call with the lock held)."""
        version = self.store.reports_version()
        if version == self.built_from and self.out.is_dir():
            return None
        self.last = build_site(self.store, self.config, self.out)
        self.built_from = version
        self.log(f"rebuilt {self.last.summary()}")
        return self.last

    def holds(self, path: str) -> bool:
        """Whether ``path`` is inside the site once links are resolved (links never lead out)."""
        root = os.path.realpath(self.out)
        return os.path.commonpath([root, os.path.realpath(path)]) == root


def make_server(site: SiteServer, port: int = 8000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server for ``site`` (``port=0`` picks a free port); call ``serve_forever``."""
    with site.lock:
        site.refresh()
    handler = functools.partial(_Handler, site=site)
    return ThreadingHTTPServer((host, port), handler)


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, *args, site: SiteServer, **kwargs) -> None:
        self.site = site
        super().__init__(*args, directory=str(site.out), **kwargs)

    def send_head(self):
        with self.site.lock:
            path = self.path.split("?", 1)[0]
            if path.endswith((".html", "/", ".xml", ".json")):
                self.site.refresh()
            if not self.site.holds(self.translate_path(self.path)):
                self.send_error(404, "File not found")
                return None
            return super().send_head()

    def log_message(self, format: str, *args) -> None:
        pass
