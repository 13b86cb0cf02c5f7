"""Chat: the page, streamed answers, conversations, the trace and the "Memory updated" note."""
