"""The import graph of a package, read from its source: for the layer tests of the engine and
of the web app."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def package_modules(package: Path) -> dict[str, Path]:
    """Every module of a package folder by dotted name (a package by its folder's name)."""
    out = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def import_targets(name: str, path: Path) -> Iterator[tuple[str, str]]:
    """(module, module.name) for each name module `name` imports, anywhere in it (functions
    included), relative imports resolved; (module, module) for a plain `import module`."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base) + (f".{node.module}" if node.module else "")
            else:
                target = node.module or ""
            for alias in node.names:
                yield target, f"{target}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, alias.name


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph of modules (a module's own package is no edge: its
    __init__ runs before it)."""
    graph = {m: {t for t in deps if not m.startswith(t + ".")} for m, deps in graph.items()}
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                found.append(trail[trail.index(t):] + [t])
            elif t not in state:
                visit(t, trail + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return found
