"""The memory tiers: admission, segments and their heat, eviction, analysis, the persona."""
