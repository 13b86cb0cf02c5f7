"""Small made-up evaluation samples that ship with the package (written by this project)."""

from __future__ import annotations

from importlib import resources

from ...errors import NotFound

SAMPLES = {
    "locomo": ("locomo_sample.json", "Maya and Tom: 7 sessions, 62 turns, 20 questions (LoCoMo)"),
    "longmemeval": ("longmemeval_sample.json",
                    "4 questions, each with its own dated history (LongMemEval)"),
}


def sample_bytes(name: str) -> bytes:
    """The bytes of a built-in sample by name."""
    if name not in SAMPLES:
        raise NotFound(f"no built-in sample {name!r}; choose from {', '.join(SAMPLES)}")
    return resources.files(__package__).joinpath(SAMPLES[name][0]).read_bytes()
