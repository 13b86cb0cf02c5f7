"""What a host runs beside the engine: the worker threads of the job queue."""

from .workers import JobWorkers

__all__ = ["JobWorkers"]
