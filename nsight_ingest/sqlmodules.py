"""Running SQL modules (sqlcatalog reads them): a Scope builds a module's requirements once, runs its statements
with their parameters, then the Python that completes it: a filler (fillers.FILLERS) that adds rows SQL alone cannot
give, or a pass over ordered rows (passes.PASSES)."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from nsight_ingest.fillers import FILLERS
from nsight_ingest.sqlcatalog import Module, ModuleError, module, order

if TYPE_CHECKING:  # pyarrow and numpy are imported where a pass runs: a cached answer needs neither
    import pyarrow as pa

    # the types the context holds, from the floors above (their modules use this one)
    from nsight_ingest.analysis.ranks import RankSource
    from nsight_ingest.history import Baseline
    from nsight_ingest.passes import Columns, Pass, Stream
    from nsight_ingest.rules import RuleSet
    from nsight_ingest.windows import Window


def _filler(found: Module) -> Callable[[Scope], None]:
    """The Python that fills module `found` (its header says `-- filled by:`)."""
    if found.name not in FILLERS:
        raise ModuleError(f"{found.path}: filled by {found.filled_by}, but fillers.FILLERS has no filler for it")
    return FILLERS[found.name]


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


def _streamed(con: duckdb.DuckDBPyConnection, found: Module, rows: duckdb.DuckDBPyRelation,
              kind: type[Stream]) -> Path:
    """Run the streamed pass `kind` over the rows, a batch at a time; the Parquet file that holds its output."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nsight_ingest.passes import STREAM_BATCH

    ((spill,),) = con.execute("SELECT current_setting('temp_directory')").fetchall()
    folder = Path(spill)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{found.pass_relation}-{id(con):x}.parquet"
    stream, writer = kind(), None
    try:
        for batch in chain(rows.to_arrow_reader(STREAM_BATCH), [None]):
            out = stream.finish() if batch is None else stream.step(_numpy(batch))
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


def _pass(found: Module) -> Pass | type[Stream]:
    """The pass over ordered rows that computes module `found` (its header says `-- computed by:`)."""
    from nsight_ingest.passes import PASSES  # numpy: imported where a pass runs

    if found.name not in PASSES:
        raise ModuleError(f"{found.path}: computed by {found.computed_by}, but passes.PASSES has no pass for it")
    return PASSES[found.name]


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
            if isinstance(run_pass, type):  # a streamed pass: a class whose instances take batches
                streamed = _streamed(con, found, rows, run_pass)
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


@dataclass(frozen=True)
class ScopeContext:
    """The Python objects a scope's fillers and analyses read besides its SQL parameters."""

    window: Window | None = None  # the part of the capture asked for (None: all of it)
    rule_set: RuleSet | None = None  # the component rules
    family_set: RuleSet | None = None  # the kernel-family rules
    finding_set: RuleSet | None = None  # the finding rules
    nvtx_groups: tuple[tuple[str, int, int, int | None], ...] = ()  # a --by-nvtx timeline's (group, start_ns,
    # end_ns, tid) ranges
    timings_path: Path | None = None  # compare --abba: the per-update timings CSV
    baseline: Baseline | None = None  # the nightly job's regression thresholds and metric directions
    sources: tuple[RankSource, ...] = ()  # ranks: the GPUs of the scope's captures, each with its rank
    nccl_kernels: Mapping[int, pa.Table] = field(default_factory=dict)  # ranks: each rank's collective kernels
    clocks: Mapping[int, dict[str, Any]] = field(default_factory=dict)  # ranks: each rank's clock offset


@dataclass
class Scope:
    """What an analysis looks at (a capture, a window of it, ncu launches) on one connection, with the modules
    built for it so far. `values` are the scope's parameters (trace ids, ...); `context` holds the Python
    objects fillers and analyses need (the rule sets, the window); `substitutes` names modules that build a
    relation in this scope's own way in place of another (a window copies its part of the capture where a whole
    capture is read through a view).
    A connection holds one scope's relations at a time: using a scope again after another one used the connection
    builds its modules again."""

    con: duckdb.DuckDBPyConnection
    values: dict[str, Any]
    context: ScopeContext = ScopeContext()
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
            elif found.name in FILLERS:
                raise ModuleError(f"{found.path}: fillers.FILLERS has a filler for it, but its header says no "
                                  f"'filled by'")
            self.built.add(name)
            self.seconds[name] = time.perf_counter() - started

    def forget(self, family: str) -> None:
        """Build the modules of `family` (whatif: whatif.*) again when next asked: the values they read changed."""
        self.built = {name for name in self.built if not name.startswith(f"{family}.")}

    def release(self, family: str) -> None:
        """Drop the relations the built modules of `family` created (their memory is free for what follows); they
        are built again when next asked."""
        for name in [name for name in self.built if name.startswith(f"{family}.")]:
            created = module(name).creates
            if created is not None:
                _drop_other_kind(self.con, created)
        self.forget(family)

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
