"""The web app's shape holds: blueprints over shared modules, no import back up, no circle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "webapp"
# 0: the shared modules every blueprint may use; 1: one folder per blueprint, each importing
# only the shared modules and its own folder; 2: create_app, which nothing in webapp imports
SHARED = {"config", "extensions", "errors", "rendering", "actions", "forms", "security",
          "metrics", "keybox", "models", "maintenance", "warmup", "job_status", "storage"}
BLUEPRINTS = {"auth", "account", "chat", "memory", "imports", "jobs", "lab", "mcp",
              "introspection"}
LAYERS = {**dict.fromkeys(SHARED, 0), **dict.fromkeys(BLUEPRINTS, 1), "__init__": 2}
# the engine's storage modules the web may use: the store itself, never a table's rows
STORE_MODULES = {"memoryos_core.storage", "memoryos_core.storage.sqlite"}


def _modules() -> dict[str, Path]:
    """Every module of the web app by dotted name."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules `name` imports (anywhere in it), as dotted names: the web's own resolved."""
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
                full = f"{target}.{alias.name}"
                found.add(full if full in known or _engine_module(full) else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
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
