"""The dialect's layering: no import circle inside `ge_dialect`, and its leaf
modules stay leaves.

Imports inside functions count as imports (grimp reads them too): a circle
hidden in a function body is still a circle. The circle check covers what
import-linter's `acyclic_siblings` contract (`pyproject.toml`) does not: a
package and its own modules (`ge_dialect.ops` and an op family). That the
format library imports no xDSL is import-linter contracts too.
"""

from __future__ import annotations

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        "ge_dialect", include_external_packages=True, cache_dir=None
    )


def import_circles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """The strongly connected components (of more than one module) of the
    imports among `package`'s modules (Tarjan's algorithm)."""
    modules = sorted(m for m in graph.modules if m.split(".")[0] == package)
    inside = set(modules)
    edges = {
        m: sorted(graph.find_modules_directly_imported_by(m) & inside) for m in modules
    }
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in edges[module]:
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in on_stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    return circles


def test_no_import_circle_inside_ge_dialect(graph):
    assert import_circles(graph, "ge_dialect") == []


def test_the_circle_check_finds_a_circle():
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert import_circles(graph, "pkg") == [["pkg.a", "pkg.b"]]


def test_diagnostics_is_a_leaf(graph):
    """`GEError` imports nothing: not xDSL, not another dialect module."""
    imported = graph.find_modules_directly_imported_by("ge_dialect.diagnostics")
    assert imported <= {"__future__"}, sorted(imported)
