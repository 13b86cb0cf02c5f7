"""memoryos_core: a hierarchical long-term memory engine for chat assistants (after MemoryOS)."""

from .config import SETTINGS, EngineConfig, settings_table
from .engine import MemoryEngine
from .errors import (
    ImportFormatError,
    InvalidInput,
    MemoryOSError,
    ModelError,
    NotFound,
    Stopped,
    StructuredOutputError,
)

__all__ = [
    "SETTINGS", "EngineConfig", "ImportFormatError", "InvalidInput", "MemoryEngine",
    "MemoryOSError", "ModelError", "NotFound", "Stopped", "StructuredOutputError", "settings_table",
]
__version__ = "0.1.0"
