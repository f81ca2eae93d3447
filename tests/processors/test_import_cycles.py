"""The worker's modules import one another in one direction only (no cycle, not even
one of type-checking imports): the web views take the worker as a Protocol."""

from __future__ import annotations

import ast
from pathlib import Path

import tablewatch.processors

PACKAGE = Path(tablewatch.processors.__file__).resolve().parent


def _imports() -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports."""
    names = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module.removeprefix("tablewatch.processors.")
                found.update({module} & names)
                if node.module == "tablewatch.processors":
                    found.update({alias.name for alias in node.names} & names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    found.update({alias.name.removeprefix("tablewatch.processors.")} & names)
        graph[name] = found - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or None."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for imported in sorted(graph[name]):
            found = visit(imported, [*path, name])
            if found:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name, [])
        if found:
            return found
    return None


def test_no_import_cycle_among_the_workers_modules() -> None:
    graph = _imports()
    assert {"app", "web"} <= set(graph)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
