"""devdigest: daily development reports for busy open-source repositories."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("devdigest")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"
