"""The answer path: retrieval, the memory block, the recent exchanges, the prompt and its guard."""
