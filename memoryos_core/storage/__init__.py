"""Storage: the SQLite record store and FAISS vector indexes behind small Protocols."""

from .sqlite import SQLiteStore
from .vectors import FaissVectorIndex, VectorIndex

__all__ = ["FaissVectorIndex", "SQLiteStore", "VectorIndex"]
