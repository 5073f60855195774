"""Did last night get worse? A rolling-baseline check over the nightly Parquet history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

from nsight_ingest.analysis import dict_rows
from nsight_ingest.nightly import METRICS, history_source
from nsight_ingest.sqlfiles import read_sql


@dataclass(frozen=True)
class Baseline:
    """How a night is judged: against the median of the last `runs` runs, allowing
    max(mad_k x 1.4826 x MAD, min_change x |median|), once at least `min_runs` runs exist."""

    runs: int = 7
    mad_k: float = 3.0
    min_change: float = 0.05
    min_runs: int = 3
    directions: dict[str, str] = field(default_factory=lambda: {m: d for m, (_, d) in METRICS.items() if d})


def check(history: Path, day: date, rule_set_version: str, baseline: Baseline) -> list[dict[str, Any]]:
    """Every checked metric of the night `day` with its baseline, limit and whether it regressed."""
    con = duckdb.connect()
    con.execute("CREATE TEMP TABLE metric_directions (metric VARCHAR, direction VARCHAR)")
    con.executemany("INSERT INTO metric_directions VALUES (?, ?)", list(baseline.directions.items()))
    params = {"day": day, "rule_set_version": rule_set_version, "baseline_runs": baseline.runs,
              "mad_k": baseline.mad_k, "min_change": baseline.min_change, "min_baseline": baseline.min_runs}
    return dict_rows(con.execute(read_sql("analysis/regressions.sql").format(history=history_source(history)), params))


def series(history: Path, rule_set_version: str, captures: list[str]) -> list[dict[str, Any]]:
    """Component time and launch-gap p90 per capture and night, for the report's plots."""
    sql = read_sql("analysis/history_series.sql").format(history=history_source(history))
    return dict_rows(duckdb.connect().execute(sql, {"rule_set_version": rule_set_version, "captures": captures}))
