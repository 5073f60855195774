"""Write docs/sql-reference.md, the reference of every SQL module, from the modules' headers (`make sql-reference`;
a test fails when the page is not what this writes).

    python tools/sql_reference.py [--check]
"""

from __future__ import annotations

import re
import sys
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nsight_ingest.sqlcatalog import Module, all_modules  # noqa: E402

PAGE = ROOT / "docs" / "sql-reference.md"
_DECLARATION = re.compile(r"^--\s*(requires|computed by|filled by|access|unique|not null|creates|returns):", re.I)

INTRODUCTION = """# SQL module reference

Every module under `sql/`, from its header (written by `make sql-reference`; a test fails when this page is not
current). A module answers one question: it **requires** the modules whose relations it reads, and **creates** a
relation (a table or view that later modules read) or **returns rows** (a query whose rows are an answer). A module
*computed by* Python hands its first SELECT's rows, in order, to a pass (`nsight_ingest.passes`); one *filled by*
Python has its rows put there by that module. Each output column has its DuckDB type; times are in nanoseconds unless
a column says otherwise.

A **public** module's columns are a contract: an answer is made of its rows, a finding rule reads it as evidence, or
classification rules read it, so renaming or retyping one breaks someone's SQL or JSON reader. A **private** module
is a step of other modules and may change at any time. **Checks** are what a module declares of its rows (no two rows
share the values of a `unique` column set, NULLs alike; a `not null` column is never NULL); the tests run them on
every module's output. The store's own tables are documented in `sql/schema.sql`; the `common.*` modules (macros and
lookup tables) are part of every store connection.
"""


def description(found: Module) -> str:
    """The header's prose: its comment lines before the first declaration, as one paragraph."""
    lines = []
    for line in found.sql.splitlines():
        if not line.startswith("--") or _DECLARATION.match(line):
            break
        lines.append(line.removeprefix("--").strip())
    return " ".join(line for line in lines if line)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section(found: Module) -> list[str]:
    """The reference of one module."""
    lines = [f"### `{found.name}`", "", description(found), ""]
    if found.requires:
        lines.append("- requires: " + ", ".join(f"`{name}`" for name in found.requires))
    if found.computed_by:
        lines.append(f"- computed by: `{found.computed_by}`")
    if found.filled_by:
        lines.append(f"- filled by: `{found.filled_by}`")
    lines.append(f"- creates: `{found.creates}`" if found.creates else "- returns: rows")
    if found.access:
        lines.append(f"- access: {found.access}")
    checks = [f"unique ({', '.join(f'`{c}`' for c in key)})" for key in found.unique]
    checks += [f"not null: {', '.join(f'`{c}`' for c in found.not_null)}"] if found.not_null else []
    if checks:
        lines.append("- checks: " + "; ".join(checks))
    if found.columns:
        lines += ["", "| column | type | meaning |", "|---|---|---|"]
        lines += [f"| `{column.name}` | `{_cell(column.type)}` | {_cell(column.doc)} |" for column in found.columns]
    return [*lines, ""]


def _listed(found: Module) -> str:
    """A module in the contents: public ones in bold."""
    name = f"`{found.name.split('.', 1)[1]}`"
    return f"**{name}**" if found.access == "public" else name


def render() -> str:
    """The whole page."""
    modules = all_modules()
    lines = [INTRODUCTION, "## Contents", "", "Public modules in bold.", ""]
    grouped = [(folder, list(members)) for folder, members in groupby(modules, key=lambda m: m.name.split(".")[0])]
    for folder, members in grouped:
        lines.append(f"- [{folder}](#{folder}): " + ", ".join(_listed(m) for m in members))
    lines.append("")
    for folder, members in grouped:
        lines += [f"## {folder}", ""]
        for found in members:
            lines += section(found)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    text = render()
    if "--check" in sys.argv[1:]:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
            sys.exit(f"{PAGE} is not current: run make sql-reference")
        return
    PAGE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
