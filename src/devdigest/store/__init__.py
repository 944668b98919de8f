"""The store: the only code that writes SQL."""

from devdigest.store.queries import Store, open_store

__all__ = ["Store", "open_store"]
