"""The web app's shape holds: blueprints over shared modules, no import back up, no circle."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import circles, import_targets, package_modules

PACKAGE = Path(__file__).resolve().parents[2] / "webapp"
# 0: the shared modules every blueprint may use; 1: one folder per blueprint, each importing
# only the shared modules and its own folder; 2: create_app, which nothing in webapp imports
SHARED = {"config", "extensions", "errors", "rendering", "actions", "forms", "security",
          "metrics", "keybox", "models", "maintenance", "warmup", "job_status", "storage",
          "local_models", "numbers"}
BLUEPRINTS = {"auth", "account", "chat", "memory", "imports", "jobs", "lab", "mcp",
              "introspection"}
LAYERS = {**dict.fromkeys(SHARED, 0), **dict.fromkeys(BLUEPRINTS, 1), "__init__": 2}
# the engine's storage modules the web may use: the store itself, never a table's rows
STORE_MODULES = {"memoryos_core.storage", "memoryos_core.storage.sqlite"}


def _modules() -> dict[str, Path]:
    """Every module of the web app by dotted name."""
    return package_modules(PACKAGE)


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules `name` imports (anywhere in it), as dotted names: the web's own resolved."""
    found = {full if full in known or _engine_module(full) else target
             for target, full in import_targets(name, path)}
    return found - {name}


def _engine_module(name: str) -> bool:
    """Whether a dotted name is a module of the engine package (not a name inside one)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return name.startswith("memoryos_core.") and (path.with_suffix(".py").exists()
                                                  or (path / "__init__.py").exists())


def _part(name: str) -> str:
    """The folder (or top-level module) a dotted web module belongs to."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_has_a_layer_and_imports_only_below_it():
    modules = _modules()
    assert {_part(m) for m in modules} <= set(LAYERS), "a new folder or module needs a layer"
    wrong = []
    for m, path in modules.items():
        for t in _imports(m, path, modules) & set(modules):
            if t == "webapp" and m != "webapp":
                wrong.append(f"{m} -> webapp (create_app is for the entry points)")
            elif LAYERS[_part(t)] > LAYERS[_part(m)]:
                wrong.append(f"{m} -> {t}")
            elif _part(m) in BLUEPRINTS and _part(t) in BLUEPRINTS and _part(t) != _part(m):
                wrong.append(f"{m} -> {t} (another blueprint)")
    assert wrong == []


def test_no_import_circle():
    modules = _modules()
    graph = {m: _imports(m, path, modules) & set(modules) for m, path in modules.items()}
    assert circles(graph) == []


def test_the_web_uses_the_engine_store_but_no_table_rows():
    """Rows are the memory layers' business: the web goes through MemoryEngine's methods."""
    modules = _modules()
    rows = sorted(f"{m} -> {t}" for m, path in modules.items()
                  for t in _imports(m, path, modules)
                  if t.startswith("memoryos_core.storage") and t not in STORE_MODULES)
    assert rows == []


def test_the_engine_knows_no_web_accounts():
    engine = PACKAGE.parent / "memoryos_core"
    assert not (engine / "storage" / "accounts.py").exists()
    web = [p.name for p in engine.rglob("*.py") for node in ast.walk(ast.parse(p.read_text()))
           if isinstance(node, ast.ImportFrom | ast.Import) and any(
               (getattr(node, "module", None) or a.name).startswith("webapp")
               for a in node.names)]
    assert web == []
