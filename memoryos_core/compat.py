"""The reference library's API at its documented import path (`from memoryos_core.compat import Memoryos`)."""

from .hosts.compat import Memoryos

__all__ = ["Memoryos"]
