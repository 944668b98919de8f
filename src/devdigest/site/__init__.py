"""The static site: pages, charts, feeds, the JSON index and the Jekyll export."""

from devdigest.site.build import BuildReport, build_from_reports, build_site

__all__ = ["BuildReport", "build_from_reports", "build_site"]
