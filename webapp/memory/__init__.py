"""The memory pages: tiers, segments, pages, events, the profile, versions and forced analysis."""
