"""The SQL catalog: the modules under `sql/`, each file's header parsed (what it requires, creates or returns, its
columns), and the order they are built in. It reads files only; sqlmodules runs them.

A module is named by its path: `sql/launches/kernel_gaps.sql` is `launches.kernel_gaps`. Its header says
- `-- requires: scope.kernels, classify.kernel_classes`: the modules to build first (once per scope);
- `-- access: public` (its columns are a contract: an answer's rows, a finding rule's evidence, what
  classification rules read) or `-- access: private` (a step of other modules, free to change);
- `-- unique: a, b` (no two rows share these columns' values; repeatable) and `-- not null: a, b`: checks the
  tests run on every module's output;
- `-- creates: NAME` (it builds a temp table or view called NAME) or `-- returns: rows` (it is one SELECT whose
  rows are the answer), followed by one `--   column  TYPE  meaning (unit)` line per output column, in order, TYPE
  as DuckDB names the column's type (a long meaning goes on in lines indented deeper; after a long type, it starts
  on the next line);
- `-- filled by: MODULE`: the Python module whose function adds rows after the SQL ran (fillers.FILLERS names it;
  the classification rules are user SQL run by nsight_ingest.rules);
- `-- computed by: MODULE`: a pass over ordered rows (passes.PASSES names it): the file's first SELECT gives the
  pass its rows, and the statements after it read the pass's Arrow table as `<module name with _ for .>_pass`
  (`classify.timeline`: `classify_timeline_pass`). A streamed pass takes the SELECT's rows a batch at a time, in
  its order, and its output goes to a Parquet file in the store's spill folder: memory holds one batch whatever
  the capture's size.
Parameters are DuckDB `$name` parameters, taken from the scope's and the call's values by name. The `common.*`
modules (macros and lookup tables) are part of every store connection (store.connect runs them): requiring one
only says that a module uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from nsight_ingest.sqlfiles import sql_root

_REQUIRES = re.compile(r"^--\s*requires:\s*(?P<names>.*?)\s*$", re.M)
_OUTPUT = re.compile(r"^--\s*(?:creates:\s*(?P<creates>\w+)|returns:\s*rows)\s*$")
_TYPE = r"[A-Z][A-Z0-9_]*(?:\((?:[^()]|\([^()]*\))*\))?(?:\[\])*"  # BIGINT, DECIMAL(38,0), STRUCT(a INTEGER)[]
_COLUMN = re.compile(rf"^--\s{{2,}}(?P<name>\w+)\s+(?P<type>{_TYPE})(?:\s+(?P<doc>\S.*?))?\s*$")
_CONTINUED = re.compile(r"^--\s{8,}(?P<doc>\S.*?)\s*$")  # a column's description going on, indented deeper
_FILLED_BY = re.compile(r"^--\s*filled by:\s*(?P<module>[\w.]+)", re.M)
_COMPUTED_BY = re.compile(r"^--\s*computed by:\s*(?P<module>[\w.]+)", re.M)
# declarations start one space after the dashes: a column's meaning, indented deeper, never reads as one
_ACCESS = re.compile(r"^-- ?access:\s*(?P<access>\w+)\s*$", re.M)
_UNIQUE = re.compile(r"^-- ?unique:\s*(?P<names>.*?)\s*$")
_NOT_NULL = re.compile(r"^-- ?not null:\s*(?P<names>.*?)\s*$")
ACCESS = ("public", "private")


class ModuleError(Exception):
    """A module or its header is broken, or names a module that does not exist: a bug, not bad input."""


@dataclass(frozen=True)
class Column:
    """One documented output column of a module: its name, DuckDB type and meaning."""

    name: str
    type: str
    doc: str


@dataclass(frozen=True)
class Module:
    """One SQL file under `sql/` with its declared requirements and outputs."""

    name: str
    path: Path
    requires: tuple[str, ...]
    creates: str | None  # the relation it builds; None: a query whose rows are the answer
    columns: tuple[Column, ...]
    filled_by: str | None
    sql: str
    computed_by: str | None = None  # the Python module of its pass over ordered rows
    access: str | None = None  # public: its columns are a contract; private: a step of other modules
    unique: tuple[tuple[str, ...], ...] = ()  # column sets no two rows share
    not_null: tuple[str, ...] = ()  # columns never NULL

    @property
    def pass_relation(self) -> str:
        """The name under which the statements after its first SELECT read its pass's rows."""
        return self.name.replace(".", "_") + "_pass"

    def statements(self, con: duckdb.DuckDBPyConnection) -> list:
        """The file's statements, parsed by DuckDB (each knows its named parameters)."""
        return con.extract_statements(self.sql)


def _header(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line)
    return lines


def _lists(header: list[str], declaration: re.Pattern = _REQUIRES) -> list[str]:
    """The text of each line of a declaration (`-- requires:` by default), with the comment lines that go on with
    it (a list ending in a comma goes on on the next line)."""
    found = []
    for index, line in enumerate(header):
        if declared := declaration.match(line):
            text, following = declared["names"], iter(header[index + 1:])
            while text.endswith(",") and (more := next(following, None)) is not None:
                text = f"{text} {more.removeprefix('--').strip()}"
            found.append(text)
    return found


@cache
def module(name: str) -> Module:
    """The module called `name` (e.g. `launches.kernel_gaps`), its header parsed."""
    path = sql_root().joinpath(*name.split(".")).with_suffix(".sql")
    if not re.fullmatch(r"\w+(\.\w+)+", name) or not path.is_file():
        raise ModuleError(f"no SQL module {name!r} (looked for {path})")
    text = path.read_text(encoding="utf-8")
    header = _header(text)
    requires = tuple(name for text in _lists(header) for name in _names(text))
    creates, columns, output_seen = None, [], False
    for line in header:
        if output_seen:
            if columns and (more := _CONTINUED.match(line)):
                last = columns[-1]
                columns[-1] = Column(last.name, last.type, f"{last.doc} {more['doc']}".strip())
                continue
            column = _COLUMN.match(line)
            if not column:
                break
            columns.append(Column(column["name"], column["type"], column["doc"] or ""))
        elif output := _OUTPUT.match(line):
            creates, output_seen = output["creates"], True
    if not output_seen:
        raise ModuleError(f"{path}: the header names no output ('-- creates: NAME' or '-- returns: rows')")
    text_of_header = "\n".join(header)
    filled, computed = _FILLED_BY.search(text_of_header), _COMPUTED_BY.search(text_of_header)
    access = _ACCESS.search(text_of_header)
    unique = tuple(_names(text) for text in _lists(header, _UNIQUE))
    not_null = tuple(name for text in _lists(header, _NOT_NULL) for name in _names(text))
    if access and access["access"] not in ACCESS:
        raise ModuleError(f"{path}: 'access: {access['access']}': give public or private")
    if undocumented := sorted(({c for key in unique for c in key} | set(not_null)) - {c.name for c in columns}):
        raise ModuleError(f"{path}: 'unique:' or 'not null:' names {', '.join(undocumented)}, not documented columns")
    return Module(name, path, requires, creates, tuple(columns), filled["module"] if filled else None, text,
                  computed["module"] if computed else None, access["access"] if access else None, unique,
                  not_null)


def _names(text: str) -> tuple[str, ...]:
    """The names of a comma-separated list."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def all_modules() -> list[Module]:
    """Every module under `sql/` (the reader SQL, the classification rules and the finding rules are not modules)."""
    root = sql_root()
    names = []
    for path in sorted(root.rglob("*.sql")):
        relative = path.relative_to(root)
        if relative.parts[0] in ("readers", "rules", "families", "findings") or len(relative.parts) == 1:
            continue
        names.append(".".join(relative.with_suffix("").parts))
    return [module(name) for name in names]


@cache
def common_sql() -> str:
    """The SQL of the `common/` modules (macros and lookup tables every connection has), each after the ones it
    requires, else in name order."""
    names = [f"common.{path.stem}" for path in sorted((sql_root() / "common").glob("*.sql"))]
    return "\n".join(found.sql for _, found in order(names))


def substitute(name: str, replacement: str) -> Module:
    """Module `replacement`, checked to build what module `name` builds: the same relation, the same columns."""
    original, found = module(name), module(replacement)
    if (found.creates, [c.name for c in found.columns]) != (original.creates, [c.name for c in original.columns]):
        raise ModuleError(f"{found.path} cannot stand in for {name}: it must create {original.creates} with the "
                          f"columns {', '.join(c.name for c in original.columns)}")
    return found


def order(names: list[str] | tuple[str, ...], substitutes: dict[str, str] | None = None) -> list[tuple[str, Module]]:
    """The modules `names` need, each once, every module after its requirements, as (name, module) pairs: the
    module is the one `substitutes` puts in that name's place, if any."""
    substitutes = substitutes or {}
    ordered: list[tuple[str, Module]] = []
    visiting: list[str] = []

    def visit(name: str, wanted_by: str | None) -> None:
        if any(done == name for done, _ in ordered):
            return
        if name in visiting:
            raise ModuleError(f"SQL modules require each other in a cycle: {' -> '.join([*visiting, name])}")
        try:
            found = substitute(name, substitutes[name]) if name in substitutes else module(name)
        except ModuleError as exc:
            raise ModuleError(f"{exc}; required by {wanted_by}" if wanted_by else str(exc)) from None
        visiting.append(name)
        for requirement in found.requires:
            visit(requirement, name)
        visiting.pop()
        ordered.append((name, found))

    for name in names:
        visit(name, None)
    return ordered
