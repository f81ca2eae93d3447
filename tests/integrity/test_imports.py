"""Integrity's modules import nothing of the worker's (``tablewatch.processors``): verify
recomputes a chain by the same rules as the worker only through modules both import
(``tablewatch.message_fate``), never by reaching up into the worker."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tablewatch.integrity

PACKAGE = Path(tablewatch.integrity.__file__).resolve().parent
WORKER = "tablewatch.processors"


def imported(source: str, package: str) -> set[str]:
    """Every module (and module.name) the source of a module of ``package`` imports, anywhere
    in it (type-checking and function-level imports too), relative ones resolved."""
    here = package.split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def of_worker(names: set[str]) -> list[str]:
    return sorted(name for name in names if name == WORKER or name.startswith(f"{WORKER}."))


@pytest.mark.parametrize(
    "line",
    [
        "from tablewatch.processors.poison import event_problem",
        "import tablewatch.processors.processor",
        "from tablewatch import processors",
        "from ..processors import poison",
        "if TYPE_CHECKING:\n    from tablewatch.processors.processor import LiveProcessor",
        "def late() -> None:\n    from ..processors.poison import Origin",
    ],
)
def test_the_scan_finds_each_way_of_importing_the_worker(line: str) -> None:
    assert of_worker(imported(line, "tablewatch.integrity")), line


def test_nothing_under_integrity_imports_the_worker() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 5
    upward = {}
    for path in modules:
        package = ".".join(["tablewatch", *path.relative_to(PACKAGE.parent).parent.parts])
        names = of_worker(imported(path.read_text(), package))
        if names:
            upward[str(path.relative_to(PACKAGE))] = names
    assert upward == {}
