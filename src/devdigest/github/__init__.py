"""GitHub ingestion: the only code that talks to GitHub."""
