"""Imports: a dialogue or chat export, and a reference MemoryOS data folder."""
