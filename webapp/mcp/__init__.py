"""MCP over Streamable HTTP at /mcp and the access-token pages."""
