"""The engine's architecture holds: role folders in layers, no import back up, no import circle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memoryos_core"
# Each part may import only from its own layer or the ones below it (lower number).
LAYERS = {
    "errors": 0, "text": 0, "config": 0, "timeframe": 0, "context": 0, "testing": 0,
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
# what the web app may import of the engine's storage: opening a store, its errors, its types
STORE_OPENING = {"memoryos_core.storage", "memoryos_core.storage.base", "memoryos_core.storage.db",
                 "memoryos_core.storage.errors", "memoryos_core.storage.sqlite",
                 "memoryos_core.storage.postgres"}
WEBAPP = PACKAGE.parent / "webapp"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules that module `name` imports (anywhere in it, functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base) + (f".{node.module}" if node.module else "")
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    found.add(f"{target}.{alias.name}")
                elif target in modules:
                    found.add(target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
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
    # a module's own package __init__ runs before it: that edge is not a circle
    graph = {m: {t for t in deps if not m.startswith(t + ".")} for m, deps in graph.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                circles.append(trail[trail.index(t):] + [t])
            elif t not in state:
                visit(t, trail + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert circles == []


def _is_table_module(name: str) -> bool:
    return any(name == t or name.startswith(t + ".") for t in TABLE_MODULES)


def test_only_the_memory_layers_import_a_storage_table():
    modules = _modules()
    assert {m for m in modules if _is_table_module(m)} > {"memoryos_core.storage.tables.exchanges"}
    found = [f"{m} -> {t}" for m, path in modules.items() if _part(m) not in MEMORY_LAYERS
             for t in _imports(m, path, modules) if _is_table_module(t)]
    assert found == []


def _storage_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The engine's storage modules a file outside the package imports (absolute imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.startswith("memoryos_core.storage") and name in modules:
                found.add(name)
    return found


def test_the_web_app_opens_the_store_and_calls_the_engine_never_a_table():
    modules = _modules()
    found = sorted(f"{path.relative_to(WEBAPP.parent)} -> {t}" for path in WEBAPP.rglob("*.py")
                   for t in _storage_imports(path, modules) if t not in STORE_OPENING)
    assert found == []


def test_few_modules_are_left_at_the_top():
    loose = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(loose) <= TOP_LEVEL_AT_MOST, loose
