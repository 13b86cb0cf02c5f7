"""Memory in and out: import formats, one import, the reference's data, versions, re-embedding."""
