"""The hosts of the engine: the `memoryos` command, MCP over stdio, the reference's API, serve-model."""
