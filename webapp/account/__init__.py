"""The account: its chat-model settings and its deletion."""
