"""Stored background jobs: the progress fragment and page."""
