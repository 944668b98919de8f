"""The site build and preview server never follow links out of the site, nor widen permissions."""

from __future__ import annotations

import os
import stat
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from devdigest.site import build_from_reports
from devdigest.site.serve import SiteServer, make_server
from devdigest.store import open_store
from tests.site_reports import make_report
from tests.test_site import small_config, small_reports


def test_build_does_not_keep_symlinks(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    out = tmp_path / "site"
    build_from_reports(small_reports(), small_config(), out)
    (out / "passwd").symlink_to("/etc/passwd")
    (out / "notes").symlink_to(tmp_path)
    day = out / "vllm-project/vllm/2026-03-12.html"
    day.unlink()
    day.symlink_to(secret)  # an unchanged page replaced by a link
    (out / "CNAME").write_text("example.org\n")
    result = build_from_reports(small_reports(), small_config(), out)
    links = [p for p in out.rglob("*") if p.is_symlink()]
    assert links == []
    assert "top secret" not in day.read_text("utf-8") and "<html" in day.read_text("utf-8")
    assert secret.read_text() == "top secret\n"
    assert result.kept == ["CNAME"]


def test_serve_does_not_follow_symlinks(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite3")
    store = open_store(db)
    store.save_report(make_report())
    out = tmp_path / "site"
    site = SiteServer(store, small_config(db), out, log=lambda _: None)
    server = make_server(site, port=0)
    (out / "passwd.html").symlink_to("/etc/passwd")
    (out / "etc").symlink_to("/etc")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        for path in ("passwd.html", "etc/passwd", "etc/"):
            with pytest.raises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(base + path)
            assert caught.value.code == 404, path
        with urllib.request.urlopen(base + "index.html") as reply:
            assert reply.status == 200
    finally:
        server.shutdown()
        server.server_close()
        store.close()


@pytest.mark.parametrize("fmt", ["jekyll", "html"])
def test_export_keeps_folder_permissions(tmp_path: Path, fmt: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    if fmt == "jekyll":  # a Jekyll site's own folder, with its own files
        (docs / "_config.yml").write_text("title: x\n")
    os.chmod(docs, 0o750)
    for _ in range(2):
        build_from_reports(small_reports(), small_config(), docs, fmt=fmt)
        assert stat.S_IMODE(docs.stat().st_mode) == 0o750


def test_new_site_folder_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        build_from_reports(small_reports(), small_config(), tmp_path / "new", fmt="jekyll")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
