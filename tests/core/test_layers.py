"""The engine's architecture holds: role folders in layers, no import back up, no import circle."""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import circles, import_targets, package_modules

PACKAGE = Path(__file__).resolve().parents[2] / "memoryos_core"
# Each part may import only from its own layer or the ones below it (lower number).
LAYERS = {
    "errors": 0, "text": 0, "asides": 0, "config": 0, "timeframe": 0, "context": 0, "testing": 0,
    "storage": 0, "llm": 0,
    "memory": 1, "answer": 2, "transfer": 3, "control": 4, "runtime": 5,
    "engine": 6, "__init__": 6,
    "evaluation": 7,  # the lab's harness: throwaway engines, above the engine
    "hosts": 8, "compat": 8, "__main__": 8,
}
TOP_LEVEL_AT_MOST = 12
# Storage's table modules (one per table, and the statements over every table at once) are for
# the memory layers: the engine, the evaluation lab and the hosts go through those layers.
TABLE_MODULES = ("memoryos_core.storage.tables", "memoryos_core.storage.every_table")
MEMORY_LAYERS = {"storage", "memory", "answer", "transfer", "control", "runtime"}
# (the web app's own rule, the store and never a table: tests/webapp/test_layers.py)


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return package_modules(PACKAGE)


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules that module `name` imports (anywhere in it, functions included)."""
    found = {full if full in modules else target for target, full in import_targets(name, path)
             if full in modules or target in modules}
    return found - {name, "memoryos_core"}


def _part(name: str) -> str:
    """The folder (or top-level module) a dotted module name belongs to."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_of_the_engine_has_a_layer_and_imports_only_below_it():
    modules = _modules()
    assert {_part(m) for m in modules} <= set(LAYERS), "a new folder or module needs a layer"
    upward = [f"{m} -> {t}" for m, path in modules.items() for t in _imports(m, path, modules)
              if LAYERS[_part(t)] > LAYERS[_part(m)]]
    assert upward == []


def test_no_import_circle():
    modules = _modules()
    graph = {m: _imports(m, path, modules) for m, path in modules.items()}
    assert circles(graph) == []


def _is_table_module(name: str) -> bool:
    return any(name == t or name.startswith(t + ".") for t in TABLE_MODULES)


def test_only_the_memory_layers_import_a_storage_table():
    modules = _modules()
    assert {m for m in modules if _is_table_module(m)} > {"memoryos_core.storage.tables.exchanges"}
    found = [f"{m} -> {t}" for m, path in modules.items() if _part(m) not in MEMORY_LAYERS
             for t in _imports(m, path, modules) if _is_table_module(t)]
    assert found == []


def test_few_modules_are_left_at_the_top():
    loose = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(loose) <= TOP_LEVEL_AT_MOST, loose
