"""A user's control of their own memory: search, forget, correct, erase."""
