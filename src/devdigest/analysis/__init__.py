"""Analysis: pure functions over one window of stored data."""
