"""SQL modules: the files under `sql/` that answer questions, each declaring what it requires and returns.

A module is named by its path: `sql/launches/kernel_gaps.sql` is `launches.kernel_gaps`. Its header says
- `-- requires: scope.kernels, classify.kernel_classes`: the modules to build first (once per scope);
- `-- creates: NAME` (it builds a temp table or view called NAME) or `-- returns: rows` (it is one SELECT whose
  rows are the answer), followed by one `--   column  meaning (unit)` line per output column, in order (a long
  meaning goes on in lines indented deeper);
- `-- filled by: MODULE`: a Python module whose function, registered with `fills`, adds rows after the SQL ran
  (the classification rules are user SQL run by nsight_ingest.rules);
- `-- computed by: MODULE`: a pass over ordered rows, registered with `computes` (nsight_ingest.passes): the
  file's first SELECT gives the pass its rows, and the statements after it read the pass's Arrow table as
  `<module name with _ for .>_pass` (`classify.timeline`: `classify_timeline_pass`). A pass registered with
  `streams` takes the SELECT's rows a batch at a time, in its order, and its output goes to a Parquet file in the
  store's spill folder: memory holds one batch whatever the capture's size.
Parameters are DuckDB `$name` parameters, taken from the scope's and the call's values by name. The `common.*`
modules (macros and lookup tables) are part of every store connection (store.connect runs them): requiring one
only says that a module uses it.
"""

from __future__ import annotations

import importlib
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import duckdb

from nsight_ingest.sqlfiles import sql_root

if TYPE_CHECKING:  # pyarrow and numpy are imported where a pass runs: a cached answer needs neither
    import pyarrow as pa

_REQUIRES = re.compile(r"^--\s*requires:\s*(?P<names>.*?)\s*$", re.M)
_OUTPUT = re.compile(r"^--\s*(?:creates:\s*(?P<creates>\w+)|returns:\s*rows)\s*$")
_COLUMN = re.compile(r"^--\s{2,}(?P<name>\w+)\s+(?P<doc>\S.*?)\s*$")
_CONTINUED = re.compile(r"^--\s{8,}(?P<doc>\S.*?)\s*$")  # a column's description going on, indented deeper
_FILLED_BY = re.compile(r"^--\s*filled by:\s*(?P<module>[\w.]+)", re.M)
_COMPUTED_BY = re.compile(r"^--\s*computed by:\s*(?P<module>[\w.]+)", re.M)


class ModuleError(Exception):
    """A module or its header is broken, or names a module that does not exist: a bug, not bad input."""


@dataclass(frozen=True)
class Column:
    """One documented output column of a module."""

    name: str
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


def _requirements(header: list[str]) -> list[str]:
    """The text of each `-- requires:` line, with the comment lines that go on with it (a list ending in a comma
    goes on on the next line)."""
    found = []
    for index, line in enumerate(header):
        if declared := _REQUIRES.match(line):
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
    requires = tuple(name.strip() for text in _requirements(header) for name in text.split(",") if name.strip())
    creates, columns, output_seen = None, [], False
    for line in header:
        if output_seen:
            if columns and (more := _CONTINUED.match(line)):
                columns[-1] = Column(columns[-1].name, f"{columns[-1].doc} {more['doc']}")
                continue
            column = _COLUMN.match(line)
            if not column:
                break
            columns.append(Column(column["name"], column["doc"]))
        elif output := _OUTPUT.match(line):
            creates, output_seen = output["creates"], True
    if not output_seen:
        raise ModuleError(f"{path}: the header names no output ('-- creates: NAME' or '-- returns: rows')")
    filled = _FILLED_BY.search("\n".join(header))
    computed = _COMPUTED_BY.search("\n".join(header))
    return Module(name, path, requires, creates, tuple(columns), filled["module"] if filled else None, text,
                  computed["module"] if computed else None)


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


_FILLERS: dict[str, Callable[[Scope], None]] = {}


def fills(name: str) -> Callable[[Callable[[Scope], None]], Callable[[Scope], None]]:
    """Register the Python function that adds rows to module `name`'s relation after its SQL ran."""

    def register(function: Callable[[Scope], None]) -> Callable[[Scope], None]:
        _FILLERS[name] = function
        return function

    return register


def _filler(found: Module) -> Callable[[Scope], None]:
    if found.name not in _FILLERS:
        importlib.import_module(found.filled_by)  # registers its fillers
    if found.name not in _FILLERS:
        raise ModuleError(f"{found.path}: filled by {found.filled_by}, which registers no filler for {found.name}")
    return _FILLERS[found.name]


Columns = dict[str, Any]  # numpy arrays by column name (masked arrays where NULL), as DuckDB's fetchnumpy gives
Pass = Callable[[Columns], Columns]
_PASSES: dict[str, Pass] = {}


def computes(name: str) -> Callable[[Pass], Pass]:
    """Register the pass of module `name`: a function from its first SELECT's columns (numpy arrays, masked where
    NULL) to the columns its later statements read."""

    def register(function: Pass) -> Pass:
        _PASSES[name] = function
        return function

    return register


class Stream(Protocol):
    """A streamed pass: rows a batch at a time, in the order of the module's first SELECT; output as it goes."""

    def step(self, rows: Columns) -> Columns | None:
        """Take one batch (numpy arrays, masked where NULL); give the output rows it settles, if any."""

    def finish(self) -> Columns | None:
        """Give the output rows left once every batch was taken."""


_STREAMED: set[str] = set()
STREAM_BATCH = 1 << 18  # rows a streamed pass holds at a time


def streams(name: str) -> Callable[[type[Stream]], type[Stream]]:
    """Register the streamed pass of module `name`: a class whose instances take its first SELECT's rows a batch at
    a time (Stream)."""

    def register(kind: type[Stream]) -> type[Stream]:
        _PASSES[name] = kind  # type: ignore[assignment]
        _STREAMED.add(name)
        return kind

    return register


def _numpy(batch: pa.RecordBatch) -> Columns:
    """A batch's columns as fetchnumpy gives them: numpy arrays, masked where NULL."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {}
    for name, values in zip(batch.schema.names, batch.columns, strict=True):
        if values.null_count:
            mask = values.is_null().to_numpy(zero_copy_only=False)
            filled = pc.fill_null(values, pa.scalar(False if pa.types.is_boolean(values.type) else 0, values.type))
            columns[name] = np.ma.masked_array(filled.to_numpy(zero_copy_only=False), mask=mask)
        else:
            columns[name] = values.to_numpy(zero_copy_only=False)
    return columns


def _arrow(rows: Columns) -> pa.RecordBatch:
    """Pass output (numpy arrays, masked where NULL) as an Arrow batch."""
    import numpy as np
    import pyarrow as pa

    return pa.record_batch({name: pa.array(np.ma.getdata(values), mask=np.ma.getmaskarray(values))
                            if isinstance(values, np.ma.MaskedArray) else pa.array(values)
                            for name, values in rows.items()})


def _streamed(con: duckdb.DuckDBPyConnection, found: Module, rows: duckdb.DuckDBPyRelation) -> Path:
    """Run a streamed pass over the rows, a batch at a time; the Parquet file that holds its output."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ((spill,),) = con.execute("SELECT current_setting('temp_directory')").fetchall()
    folder = Path(spill)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{found.pass_relation}-{id(con):x}.parquet"
    stream, writer = _PASSES[found.name](), None  # type: ignore[call-arg]
    try:
        for batch in chain(rows.to_arrow_reader(STREAM_BATCH), [None]):
            out = stream.finish() if batch is None else stream.step(_numpy(batch))  # type: ignore[attr-defined]
            if out is not None:
                table = pa.Table.from_batches([_arrow(out)])
                # lz4 and no dictionaries: the file is read once, and at 1M kernels this writes it 3x faster than
                # the default (snappy, dictionaries) for a read back as fast
                writer = writer or pq.ParquetWriter(path, table.schema, compression="lz4", use_dictionary=False)
                writer.write_table(table.cast(writer.schema))  # a batch of NULLs only may come typed otherwise
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        raise ModuleError(f"{found.path}: its streamed pass gave no output, not even an empty batch")
    return path


def _pass(found: Module) -> Pass:
    if found.name not in _PASSES:
        importlib.import_module(found.computed_by)  # registers its passes
    if found.name not in _PASSES:
        raise ModuleError(f"{found.path}: computed by {found.computed_by}, which registers no pass for {found.name}")
    return _PASSES[found.name]


def _parameters(found: Module, statement: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The values of the parameters a statement of the module names."""
    missing = statement.named_parameters - values.keys()
    if missing:
        raise ModuleError(f"{found.path}: no value for parameter(s) {', '.join(sorted(missing))}")
    return {k: values[k] for k in statement.named_parameters}


def _run(con: duckdb.DuckDBPyConnection, found: Module, values: dict[str, Any], *, relation: bool = False) -> Any:
    """Run a module's statements, each with the values of the parameters it names; the last one's cursor (with
    `relation`, the last one, a SELECT, as a DuckDB relation). A computed module's first SELECT goes to its pass,
    whose rows the later statements read."""
    cursor, statements = con, found.statements(con)
    computed = found.computed_by is not None
    streamed: Path | None = None
    if computed:
        con.unregister(found.pass_relation)  # a pass of another scope
    for index, statement in enumerate(statements):
        # relations, not cursors, for rows handed to Python: DuckDB hands a cursor's rows over through one more copy
        if computed and statement.type == duckdb.StatementType.SELECT:
            rows = con.sql(statement.query, params=_parameters(found, statement, values))
            run_pass = _pass(found)
            if found.name in _STREAMED:
                streamed = _streamed(con, found, rows)
                if found.creates is None:  # few rows: the file is gone when they are read
                    import pyarrow.parquet as pq

                    con.register(found.pass_relation, pq.read_table(streamed))
                else:  # DuckDB reads the file itself, within its memory limit
                    path = str(streamed).replace("'", "''")
                    con.execute(f"CREATE OR REPLACE TEMP VIEW {found.pass_relation} AS "
                                f"SELECT * FROM read_parquet('{path}')")
            else:
                con.register(found.pass_relation, run_pass(rows.fetchnumpy()))
            computed = False
        elif relation and index == len(statements) - 1:
            cursor = con.sql(statement.query, params=_parameters(found, statement, values))
        else:
            cursor = con.execute(statement, _parameters(found, statement, values))
    if computed:
        raise ModuleError(f"{found.path}: computed by a pass, but it has no SELECT to give the pass its rows")
    if found.computed_by is not None and found.creates is not None:
        con.unregister(found.pass_relation)  # what the module created holds its rows now
    if streamed is not None:
        if found.creates is not None:
            con.execute(f"DROP VIEW {found.pass_relation}")
        streamed.unlink()
    return cursor


def _drop_other_kind(con: duckdb.DuckDBPyConnection, relation: str) -> None:
    """Drop the temp view or table called `relation` that another scope left on this connection: one scope's
    module may make it a view where another's makes it a table, and CREATE OR REPLACE cannot change the kind."""
    kinds = con.execute("SELECT 'VIEW' FROM duckdb_views() WHERE temporary AND view_name = $name UNION ALL "
                        "SELECT 'TABLE' FROM duckdb_tables() WHERE temporary AND table_name = $name",
                        {"name": relation}).fetchall()
    for (kind,) in kinds:
        con.execute(f'DROP {kind} temp."{relation}"')


# The scope whose relations each connection holds now: the relations are temp tables and views with fixed names, so
# a scope made later on the same connection replaces them.
_CURRENT: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, int] = weakref.WeakKeyDictionary()


@dataclass
class Scope:
    """What an analysis looks at (a capture, a window of it, ncu launches) on one connection, with the modules
    built for it so far. `values` are the scope's parameters (trace ids, ...); `context` holds Python objects
    fillers need (the rule set); `substitutes` names modules that build a relation in this scope's own way in
    place of another (a window copies its part of the capture where a whole capture is read through a view).
    A connection holds one scope's relations at a time: using a scope again after another one used the connection
    builds its modules again."""

    con: duckdb.DuckDBPyConnection
    values: dict[str, Any]
    context: dict[str, Any] = field(default_factory=dict)
    substitutes: dict[str, str] = field(default_factory=dict)
    built: set[str] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)  # per module: time to build it, or to run and fetch
    # its rows (rows())
    asked: list[str] = field(default_factory=list)  # the modules asked for by name, in order (not their requirements)

    def __post_init__(self) -> None:
        _CURRENT[self.con] = id(self)

    def build(self, *names: str) -> None:
        """Build these modules and their requirements, each once for this scope."""
        self.asked.extend(names)
        self._build(names)

    def _build(self, names: tuple[str, ...]) -> None:
        if names and _CURRENT.get(self.con) != id(self):  # another scope replaced this one's relations
            _CURRENT[self.con] = id(self)
            self.built.clear()
        for name, found in order(names, self.substitutes):
            if name in self.built or name.startswith("common."):
                continue
            started = time.perf_counter()
            if found.creates is None:
                raise ModuleError(f"{found.path}: returns rows; a module can only require modules that create")
            try:
                _run(self.con, found, self.values)
            except duckdb.CatalogException as exc:
                if "trying to replace" not in str(exc):
                    raise
                _drop_other_kind(self.con, found.creates)
                _run(self.con, found, self.values)
            if found.filled_by:
                _filler(found)(self)
            elif found.name in _FILLERS:
                raise ModuleError(f"{found.path}: a filler is registered for it, but its header says no 'filled by'")
            self.built.add(name)
            self.seconds[name] = time.perf_counter() - started

    def _ready(self, name: str) -> Module:
        """The query module `name`, its requirements built."""
        found = module(name)
        if found.creates is not None:
            raise ModuleError(f"{found.path}: creates {found.creates}; query it, or require it")
        self.asked.append(name)
        self._build(found.requires)
        return found

    def cursor(self, name: str, /, **params: Any) -> duckdb.DuckDBPyConnection:
        """Run the query module `name` (after its requirements) and return the cursor with its rows."""
        return _run(self.con, self._ready(name), {**self.values, **params})

    def rows(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """The rows of the query module `name` as dicts."""
        found = self._ready(name)
        started = time.perf_counter()  # the query's own time, its requirements' apart
        rows = dict_rows(_run(self.con, found, {**self.values, **params}))
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        return rows

    def table(self, name: str, /, **params: Any) -> pa.Table:
        """The rows of the query module `name` as an Arrow table (column types kept)."""
        found = self._ready(name)
        started = time.perf_counter()
        table = _run(self.con, found, {**self.values, **params}, relation=True).to_arrow_table()
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        return table

    def row(self, name: str, /, **params: Any) -> dict[str, Any]:
        """The one row of a query module that returns one."""
        (only,) = self.rows(name, **params)
        return only


def dict_rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The rows of an executed query as dicts keyed by column name."""
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def query(con: duckdb.DuckDBPyConnection, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """The rows of a query module that reads the store alone (it requires no module of a scope)."""
    found = module(name)
    if found.creates is not None or any(not r.startswith("common.") for r in found.requires):
        raise ModuleError(f"{found.path}: not a query of the store alone; run it in a Scope")
    return dict_rows(_run(con, found, params))
