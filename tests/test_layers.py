"""The package's floors: data flows one way, readers -> store and SQL -> questions -> front door -> outputs. No
module imports from a floor above its own (type-only imports excepted: they run under a type checker, never at
run time), and no modules import each other in a cycle, at module level or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "nsight_ingest"

# Lowest first. A module not named here fails the test: each new module takes a floor.
FLOORS = {
    "foundation": ("errors", "settings", "sqlfiles", "cache", "user_sql", "text", "tables"),
    "readers": ("readers",),
    "store and SQL": ("store", "store_cache", "sqlcatalog", "rules", "finding_rules", "passes", "graph_loops",
                      "fillers", "sqlmodules"),
    "questions": ("windows", "analysis", "history"),
    "front door": ("registry", "runs", "cluster", "ranks_job", "pipeline"),
    "outputs": ("report", "api", "nightly", "cli", "__main__"),
}
ENTRY = "__init__"  # the package's own module: `nsight_ingest.open` and `connect`, imported when first used


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def floor(name: str) -> int:
    for number, (_, tops) in enumerate(FLOORS.items()):
        if name.split(".")[0] in tops:
            return number
    raise AssertionError(f"nsight_ingest.{name} has no floor in tests/test_layers.py FLOORS")


def _type_only(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(source: str, own: str, modules: set[str]) -> set[str]:
    """The package modules the source of module `own` imports when it runs (type-only imports left out)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name.removeprefix("nsight_ingest.") for a in node.names if a.name.startswith("nsight_"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nsight_ingest"):
            base = node.module.removeprefix("nsight_ingest").lstrip(".")
            for alias in node.names:
                submodule = f"{base}.{alias.name}".lstrip(".")
                found.add(submodule if submodule in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return {name for name in found if name and name != own}


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: imports(path.read_text(encoding="utf-8"), name, set(paths)) for name, path in paths.items()}


def test_every_module_has_a_floor_and_imports_none_above_it():
    upward = []
    for name, imported in graph().items():
        if name == ENTRY:
            continue
        upward += [f"{name} ({floor(name)}) -> {other} ({floor(other)})" for other in imported
                   if other != ENTRY and floor(other) > floor(name)]
    assert not upward, "imports from a floor above:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    edges = graph()
    cycles = []

    def walk(name: str, path: list[str]) -> None:
        for other in sorted(edges.get(name, ())):
            if other in path:
                cycles.append(" -> ".join([*path[path.index(other):], other]))
            elif other not in done:
                walk(other, [*path, other])
        done.add(name)

    done: set[str] = set()
    for start in sorted(edges):
        if start not in done:
            walk(start, [start])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("source", ["from nsight_ingest.store import connect\n",
                                    "def f():\n    from nsight_ingest import report\n",
                                    "if TYPE_CHECKING:\n    from nsight_ingest import report\nelse:\n    import x\n"])
def test_an_import_is_seen_at_module_level_and_in_a_function_but_not_a_type_only_one(source):
    found = imports(source, "probe", {"store", "report"})
    assert found == (set() if "TYPE_CHECKING" in source else {"store"} if "store" in source else {"report"})
