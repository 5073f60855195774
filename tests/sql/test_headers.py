"""Every module's header against the module: its requirements exist, it says whether it is public, it documents its
columns, the columns it documents (name and DuckDB type) are the columns it outputs, in order, and its declared
checks (unique, not null) hold (run on a real small capture, an ncu export, a tiny Parquet history, a tiny timings
CSV). Plus the loader's errors for a missing module, a requirement cycle and a broken declaration."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nsight_ingest import history, runs, sqlcatalog, sqlmodules, store, windows
from nsight_ingest.analysis import ranks
from nsight_ingest.analysis.ncu import COMMON_METRICS
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.rules import load_rule_set
from tests.conftest import DATA, SAMPLES

MODULES = [m.name for m in sqlcatalog.all_modules() if not m.name.startswith("common.")]

# Documented columns that differ from the output (module -> reason); each is an expected failure until fixed.
KNOWN_MISMATCHES: dict[str, str] = {}


def test_there_are_modules_of_every_family():
    families = {name.split(".")[0] for name in MODULES}
    assert families >= {"audit", "classify", "compare", "history", "launches", "ncu", "ranks", "scope"}


@pytest.mark.parametrize("name", MODULES)
def test_requirements_exist_and_columns_are_documented(name):
    found = sqlcatalog.module(name)
    ordered = [done for done, _ in sqlcatalog.order([name])]  # raises when a requirement does not exist
    assert ordered[-1] == name and set(found.requires) <= set(ordered)
    assert found.columns, f"{name}: the header documents no output column"
    assert found.access in sqlcatalog.ACCESS, f"{name}: the header says no 'access: public' or 'access: private'"
    assert len({c.name for c in found.columns}) == len(found.columns), f"{name}: a column documented twice"


# The parameters of the capture modules' queries (each takes those it names).
CAPTURE_PARAMS = {
    "top": 5, "device": None, "calls": 3,  # launches.*, audit.unclassified; classify.timeline
    "latency_below": 60, "bound_at_least": 70, "dominance": 1.2,  # the bound verdicts
    "bins": 10,  # timeline.counters
    "count": 5, "parts": 3, "from_ns": 0, "to_ns": 2**62, "before_ns": 2**62,  # timeline.*
    "per_decade": 4,  # launches.gap_histogram
}
# the replay's edits: a scope's values (whatif.* modules create their tables with them)
WHATIF_PARAMS = {"edits": [{"edit": "kernel_speedup_family", "pattern": "gemm", "factor": 2.0},
                           {"edit": "remove_syncs", "pattern": "Synchronize", "factor": None}],
                 "launch_latency_ns": 2000, "overlap_communication": True}


@dataclass
class Inputs:
    """The scopes every family of modules runs in, and the parameters modules take (each takes those it names)."""

    capture: sqlmodules.Scope
    window: sqlmodules.Scope
    ncu: sqlmodules.Scope
    ranks: sqlmodules.Scope
    history: sqlmodules.Scope
    compare: sqlmodules.Scope
    params: dict

    def scope_of(self, name: str) -> sqlmodules.Scope:
        if name in runs.WINDOW_SUBSTITUTES.values():
            return self.window
        if name == "scope.ncu_ops":
            return self.ncu
        if name == "compare.kernels":  # a capture's kernels, for comparing two captures
            return self.capture
        family = name.split(".")[0]
        return getattr(self, family) if family in ("ncu", "ranks", "history", "compare") else self.capture


def tiny_history(folder: Path) -> None:
    """Two nights of one capture, as nsight_ingest.history writes them."""
    for night in (1, 2):
        day = folder / f"date=2026-11-0{night}"
        day.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist([
            {"run_id": f"r{night}", "capture": "c", "trace_sha256": f"s{night}", "metric": "component_ms",
             "component": "gemm", "value": 10.0 + night, "unit": "ms", "rule_set_version": "v"},
            {"run_id": f"r{night}", "capture": "c", "trace_sha256": f"s{night}", "metric": "kernel_time_ms",
             "component": None, "value": 20.0 + night, "unit": "ms", "rule_set_version": "v"},
        ]), day / "x.parquet")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Inputs:
    folder = tmp_path_factory.mktemp("headers")
    run = runs.Run(store.connect(details=True), load_rule_set())  # timeline.ops reads the grid and block
    capture = runs.open_capture(run, CaptureFiles(
        str(SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv"),
        nvtx_trace=str(SAMPLES / "h200_dit_graph_nvtx_pushpop_trace.csv")))
    assert capture.kern_exec is not None and capture.nvtx is not None
    ncu_run = runs.Run(store.connect(), run.rule_set)  # its own connection: it builds scope_kernels too
    ncu = store.ingest_ncu(ncu_run.con, DATA / "ncu" / "h200_dit_raw_metrics.csv")
    facts = ranks.capture_facts(run.con, capture, None)
    sources = ranks.assign([facts])
    rank_scope = sqlmodules.Scope(run.con, {"span_start": 12_000_000, "span_end": 22_000_000},
                                  sqlmodules.ScopeContext(
                                      sources=tuple(sources), clocks={s.rank: {"offset_ns": 0} for s in sources},
                                      nccl_kernels={s.rank: d.nccl_kernels
                                                    for s, d in zip(sources, facts.devices, strict=True)},
                                      family_set=run.family_set), runs.RANK_SUBSTITUTES)
    tiny_history(folder / "history")
    history_scope = sqlmodules.Scope(store.connect(), {
        "history_files": str(folder / "history" / "date=*/*.parquet"), "day": dt.date(2026, 11, 2),
        "rule_set_version": "v", "family_set_version": "f", "family_metrics": list(history.FAMILY_METRICS),
        "baseline_runs": 7}, sqlmodules.ScopeContext(baseline=history.Baseline()))  # the night history.baselines builds
    timings = folder / "timings.csv"
    timings.write_text("trial,variant,update,seconds\n1,before,1,2.0\n1,before,2,2.2\n2,after,1,1.5\n2,after,2,1.7\n")
    compare_scope = sqlmodules.Scope(store.connect(), {}, sqlmodules.ScopeContext(timings_path=timings))
    params = {
        **CAPTURE_PARAMS,
        "traces": [ncu.trace_id], "common": COMMON_METRICS, "all_metrics": False,  # ncu.*
        "reference": 0, "ranks": 2, "span_start": 12_000_000, "span_end": 22_000_000,  # ranks.*
        "day": dt.date(2026, 11, 2), "rule_set_version": "v",  # history.*
        "family_set_version": "f", "finding_set_version": "g",
        "mad_k": 3.0, "min_change": 0.05, "min_baseline": 3, "bounded_metrics": list(history.SHARES),
        "warmup": 0, "final": 0,  # compare.abba
        "nvtx_trace": capture.nvtx.trace_id, "name": "step 1", "pattern": "step \\d+",  # scope.nvtx_ranges
    }
    # a window on a connection of its own: its substitutes replace the capture's views by tables
    window_run = runs.Run(store.connect(), run.rule_set)
    window_capture = runs.open_capture(window_run, CaptureFiles(
        str(SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv"),
        nvtx_trace=str(SAMPLES / "h200_dit_graph_nvtx_pushpop_trace.csv")))
    window = runs.capture_scope(window_run, window_capture, windows.time_range("0:"))
    whole = runs.capture_scope(run, capture)
    for scope in (whole, window):
        scope.values.update(WHATIF_PARAMS)
    return Inputs(whole, window, runs.ncu_scope(ncu_run, [ncu]), rank_scope,
                  history_scope, compare_scope, params)


def output_columns(inputs: Inputs, name: str) -> list[tuple[str, str]]:
    """The columns module `name` outputs, (name, DuckDB type): its relation's, or its query's."""
    found = sqlcatalog.module(name)
    scope = inputs.scope_of(name)
    if found.creates:
        scope.build(name)
        return [(row[0], row[1]) for row in scope.con.execute(f"DESCRIBE {found.creates}").fetchall()]
    cursor = scope.cursor(name, **inputs.params)
    columns = [(d[0], str(d[1])) for d in cursor.description]
    cursor.fetchall()  # the connection is free for the next module
    return columns


def output_rows(scope: sqlmodules.Scope, name: str, params: dict) -> list[dict]:
    """The rows module `name` outputs in `scope`."""
    found = sqlcatalog.module(name)
    if found.creates:
        scope.build(name)
        return scope.con.sql(f"SELECT * FROM {found.creates}").to_arrow_table().to_pylist()
    return scope.rows(name, **params)


def assert_checks_hold(found: sqlcatalog.Module, rows: list[dict]) -> None:
    """No two rows share the values of a `unique:` column set (NULLs alike); no `not null:` column is NULL."""
    for key in found.unique:
        values = [tuple(row[c] for c in key) for row in rows]
        assert len(set(values)) == len(values), f"{found.name}: two rows share ({', '.join(key)})"
    for column in found.not_null:
        assert all(row[column] is not None for row in rows), f"{found.name}: {column} is NULL in a row"


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[n])) if n in KNOWN_MISMATCHES
    else n for n in MODULES])
def test_documented_columns_are_the_output_columns(inputs, name):
    documented = [(c.name, c.type) for c in sqlcatalog.module(name).columns]
    assert output_columns(inputs, name) == documented


@pytest.mark.parametrize("name", [n for n in MODULES
                                  if sqlcatalog.module(n).unique or sqlcatalog.module(n).not_null])
def test_declared_checks_hold(inputs, name):
    assert_checks_hold(sqlcatalog.module(name), output_rows(inputs.scope_of(name), name, inputs.params))


CAPTURE_FAMILIES = ("scope", "classify", "launches", "idle", "communication", "memory", "audit", "timeline", "graph",
                    "whatif")


@pytest.mark.parametrize("path", [SAMPLES / "h200_llm_serve.sqlite", SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv",
                                  DATA / "multi_rank" / "2gpu_mfu_before_nccl.sqlite"],
                         ids=["llm_sqlite", "dit_csv", "two_gpus"])
def test_declared_checks_hold_on_the_samples(path):
    """The capture modules' checks on whole real captures of other forms: an export with API and NVTX traces, a CSV
    set, two GPUs."""
    run = runs.Run(store.connect(details=True), load_rule_set())
    scope = runs.capture_scope(run, runs.open_capture(run, CaptureFiles(str(path))))
    scope.values.update(WHATIF_PARAMS)
    skipped = {*runs.WINDOW_SUBSTITUTES.values(), "scope.ncu_ops", "scope.nvtx_ranges", "timeline.groups"}
    checked = 0
    for found in sqlcatalog.all_modules():
        if found.name.split(".")[0] not in CAPTURE_FAMILIES or found.name in skipped or not (
                found.unique or found.not_null):
            continue
        rows = output_rows(scope, found.name, CAPTURE_PARAMS)
        assert_checks_hold(found, rows)
        checked += bool(rows)
    assert checked >= 30  # most checked modules have rows on a real capture


def test_what_answers_and_rules_read_is_public():
    """The modules an answer, a finding rule's evidence or a classification rule reads are public: their columns
    are a contract."""
    from nsight_ingest import registry
    from nsight_ingest.analysis import findings

    read = {m for analysis in registry.ALL for m in analysis.modules}
    read |= {item.module for item in findings.EVIDENCE} | {"classify.kernel_names", "classify.kernel_contexts"}
    assert {name for name in read if sqlcatalog.module(name).access != "public"} == set()


def test_the_sample_inputs_give_rows(inputs):
    """The header check above looks at columns only; make sure its inputs are not all empty."""
    assert inputs.capture.rows("scope.summary")[0]["kernel_count"] > 0
    assert inputs.ncu.rows("ncu.launches", **inputs.params)
    assert inputs.ranks.rows("ranks.per_rank", **inputs.params)
    assert inputs.history.rows("history.regressions", **inputs.params)
    assert len(inputs.compare.rows("compare.abba", **inputs.params)) == 2
    assert inputs.capture.rows("scope.nvtx_ranges", **inputs.params) == [
        {"range_name": "step 0", "start_ns": 12578249, "end_ns": 17835450, "tid": 449, "group_name": ""},
        {"range_name": "step 1", "start_ns": 17849016, "end_ns": 18140080, "tid": 449, "group_name": ""},
        {"range_name": "step 2", "start_ns": 18142625, "end_ns": 21013701, "tid": 449, "group_name": ""},
        {"range_name": "step 3", "start_ns": 21021053, "end_ns": 21184772, "tid": 449, "group_name": ""},
    ]  # the four rows of the NVTX export: 'step 1' by name, the others by the pattern


def test_a_missing_module_is_named():
    with pytest.raises(sqlcatalog.ModuleError, match=r"no SQL module 'no\.such_module'"):
        sqlcatalog.order(["no.such_module"])


@pytest.fixture
def sql_root(tmp_path, monkeypatch):
    """A temporary sql root in place of the real one: call it with {name path: text} to write modules there."""

    def write(files: dict[str, str]) -> None:
        for name, text in files.items():
            path = tmp_path / f"{name}.sql"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    monkeypatch.setattr(sqlcatalog, "sql_root", lambda: tmp_path)
    sqlcatalog.module.cache_clear()
    yield write
    sqlcatalog.module.cache_clear()  # no module of the temporary root stays cached for the other tests


def test_a_missing_requirement_names_who_requires_it(sql_root):
    sql_root({"a/one": "-- requires: a.missing\n-- creates: one\n--   x  BIGINT  a column\n"})
    with pytest.raises(sqlcatalog.ModuleError, match=r"'a\.missing'.*required by a\.one"):
        sqlcatalog.order(["a.one"])


def test_a_requirement_cycle_is_reported(sql_root):
    sql_root({"a/one": "-- requires: a.two\n-- creates: one\n--   x  BIGINT  a column\n",
              "a/two": "-- requires: a.one\n-- creates: two\n--   x  BIGINT  a column\n"})
    with pytest.raises(sqlcatalog.ModuleError, match=r"cycle: a\.one -> a\.two -> a\.one"):
        sqlcatalog.order(["a.one"])


def test_a_requirement_list_goes_on_on_the_next_line(sql_root):
    sql_root({"a/one": "-- requires: a.two,\n--   a.three\n-- creates: one\n--   x  BIGINT  a column\n",
              "a/two": "-- creates: two\n--   x  BIGINT  a column\n",
              "a/three": "-- creates: three\n--   x  BIGINT  a column\n"})
    assert sqlcatalog.module("a.one").requires == ("a.two", "a.three")
    assert [name for name, _ in sqlcatalog.order(["a.one"])] == ["a.two", "a.three", "a.one"]


def test_a_header_parses_types_and_declarations(sql_root):
    sql_root({"a/one": "-- access: public\n-- unique: x, y\n-- unique: z\n-- not null: x\n-- returns: rows\n"
                       "--   x  DECIMAL(38,0)  a sum\n--   y  STRUCT(p50_ns DOUBLE, \"name\" VARCHAR)[]\n"
                       "--                      a list, its meaning below\n--   z  VARCHAR\n"})
    found = sqlcatalog.module("a.one")
    assert [(c.name, c.type, c.doc) for c in found.columns] == [
        ("x", "DECIMAL(38,0)", "a sum"), ("y", 'STRUCT(p50_ns DOUBLE, "name" VARCHAR)[]', "a list, its meaning below"),
        ("z", "VARCHAR", "")]
    assert (found.access, found.unique, found.not_null) == ("public", (("x", "y"), ("z",)), ("x",))


def test_a_declared_list_goes_on_and_a_meaning_is_no_declaration(sql_root):
    sql_root({"a/one": "-- not null: x,\n--   y\n-- returns: rows\n--   x  BIGINT  a column\n"
                       "--   y  BIGINT  another, of the\n--            unique: kind\n"})
    found = sqlcatalog.module("a.one")
    assert (found.not_null, found.unique) == (("x", "y"), ())
    assert found.columns[1].doc == "another, of the unique: kind"


@pytest.mark.parametrize(("declaration", "said"), [
    ("-- access: open", "'access: open': give public or private"),
    ("-- unique: x, w", "names w, not documented columns"), ("-- not null: w, v", "names v, w, not documented")])
def test_a_broken_declaration_is_a_bug(sql_root, declaration, said):
    sql_root({"a/one": f"{declaration}\n-- returns: rows\n--   x  BIGINT  a column\n"})
    with pytest.raises(sqlcatalog.ModuleError, match=said):
        sqlcatalog.module("a.one")


def test_the_sql_reference_page_is_current():
    """docs/sql-reference.md is what the headers say (make sql-reference writes it)."""
    from tools import sql_reference

    page = sql_reference.PAGE.read_text(encoding="utf-8")
    assert page == sql_reference.render(), "docs/sql-reference.md is not current: run make sql-reference"
    for found in sqlcatalog.all_modules():  # every module is there, with every documented column
        assert f"### `{found.name}`" in page
        assert all(f"| `{column.name}` |" in page for column in found.columns)


@pytest.mark.parametrize(("name", "replacement"),
                         [*runs.WINDOW_SUBSTITUTES.items(), ("scope.ops", "scope.ncu_ops")])
def test_substitutes_build_what_they_stand_in_for(name, replacement):
    found = sqlcatalog.substitute(name, replacement)  # raises unless the relation and its columns are the same
    assert found.creates == sqlcatalog.module(name).creates


def test_a_substitute_must_build_the_same_relation():
    with pytest.raises(sqlcatalog.ModuleError, match=r"cannot stand in for scope\.ops"):
        sqlcatalog.substitute("scope.ops", "scope.launches")


@pytest.mark.parametrize("name", ["common.units", "common.ncu_metric_aliases"])
def test_common_tables_have_their_documented_columns(name):
    found = sqlcatalog.module(name)
    columns = [(row[0], row[1]) for row in store.connect().execute(f"DESCRIBE {found.creates}").fetchall()]
    assert columns == [(c.name, c.type) for c in found.columns]


def test_the_filler_and_pass_tables_match_the_headers():
    """A module's `-- filled by:` / `-- computed by:` header names the Python module whose function the
    fillers.FILLERS / passes.PASSES table holds for it, and every entry of the tables is such a module's."""
    from nsight_ingest import fillers, passes

    modules = {found.name: found for found in sqlcatalog.all_modules()}
    filled = {name: found.filled_by for name, found in modules.items() if found.filled_by}
    computed = {name: found.computed_by for name, found in modules.items() if found.computed_by}
    assert set(fillers.FILLERS) == set(filled)
    assert set(passes.PASSES) == set(computed)
    assert all(fillers.FILLERS[name].__module__ == module for name, module in filled.items())
    assert all(passes.PASSES[name].__module__ == module for name, module in computed.items())
