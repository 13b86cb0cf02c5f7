"""The web app's own store: accounts, sessions, endpoints and MCP tokens (users.sqlite3, or PostgreSQL)."""
