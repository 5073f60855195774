"""Finding rules (SQL): diagnoses of what to fix first, each with the numbers it rests on and a gain ceiling.

Contract of a finding rule (a `*.sql` file of the pack: the bundled sql/findings/, or `--findings DIR`; run in
file-name order):
- header lines `-- finding: ID | DEFINITION` declare the findings the file may emit;
- the body is one SELECT over the evidence relations (analysis.findings.EVIDENCE: each the rows of a documented
  query module, with the window's `nvtx_group` first) returning one row per finding, with the columns
    id               a finding the file declares
    severity         'high', 'medium' or 'low'
    title            one line saying what was found
    evidence         the numbers it rests on, taken from the evidence relations: a STRUCT (or JSON text of an object)
    scope            what it is about: a STRUCT of any of nvtx_group, device, stream, kernel, family, collective
    gain_ceiling_ns  the most time fixing it could save (ns), computed from the evidence, between 0 and the span
    suggestion       what to try
    caveat           what the numbers cannot tell (NULL when nothing);
- a finding rule is exactly one SELECT and runs in a DuckDB sandbox holding only the evidence relations
  (nsight_ingest.user_sql): it reads no file, no store and no other database;
- a rule that reads a relation or column a missing input leaves empty (no launch rows, no API trace, no ncu export)
  is not run: it is listed as skipped, with the reason.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from nsight_ingest import store, user_sql
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.rules import Axis, RuleFile, RuleSet, load_rule_set, rule_rows

if TYPE_CHECKING:
    import pyarrow as pa

FINDINGS = Axis("finding", "findings", "--findings", context_rules=False)
SEVERITIES = ("high", "medium", "low")  # most severe first
GPU_TRACE_ROLE = "gpu_trace"  # the input every finding relies on
COLUMNS = ("id", "severity", "title", "evidence", "scope", "gain_ceiling_ns", "suggestion", "caveat")
SCOPE_KEYS = ("nvtx_group", "device", "stream", "kernel", "family", "collective")


def load_finding_set(directory: str | Path | None = None) -> RuleSet:
    """The finding rules of a folder (the bundled sql/findings/ when None); each finding declared by one file."""
    finding_set = load_rule_set(directory, FINDINGS)
    declared_in: dict[str, Path] = {}
    for rule in finding_set.files:
        names = [name for name, _ in rule.declared]
        if len(set(names)) < len(names):
            raise InputError(f"{rule.path}: declares a finding twice")
        for name in names:
            if declared_in.setdefault(name, rule.path) != rule.path:
                raise InputError(f"{rule.path}: declares finding {name!r}, which {declared_in[name].name} declares "
                                 f"too")
    return finding_set


_JSON_SCALARS = (str, int, float, bool, type(None))
# control characters (C0, DEL, C1) and Unicode line breaks: a line break, or escapes for the terminal
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _plain(value: Any) -> Any:
    """A value of a rule's row as JSON-ready Python: decimals as integers (or floats), maps as objects, dates and times
    as ISO text; TypeError for what JSON cannot hold (bytes, intervals)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(item, tuple) and len(item) == 2 for item in value):  # a MAP
            return {str(k): _plain(v) for k, v in value}
        return [_plain(item) for item in value]
    if not isinstance(value, _JSON_SCALARS):
        raise TypeError(type(value).__name__)
    return value


def _object(rule: RuleFile, column: str, value: Any) -> dict[str, Any]:
    """A rule's evidence or scope as an object: a STRUCT, a MAP or JSON text of an object."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise InputError(f"{rule.path}: {column} is text that is not JSON") from None
    try:
        value = _plain(value)
    except TypeError as exc:
        raise InputError(f"{rule.path}: {column} holds a {exc}, which JSON cannot hold") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{rule.path}: {column} must be a STRUCT or a JSON object, not {type(value).__name__}")
    return value


def _text(rule: RuleFile, column: str, value: Any, optional: bool = False) -> str | None:
    """A rule's title, suggestion or caveat: one line of text (a caveat may be NULL)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{rule.path}: {column} must be text")
    if CONTROL.search(value):
        raise InputError(f"{rule.path}: {column} holds a line break or a control character")
    return value


def _finding(rule: RuleFile, row: dict[str, Any], span_ns: int) -> dict[str, Any]:
    """One row of a rule, checked against the contract, as a JSON finding."""
    if not isinstance(row["id"], str) or row["id"] not in {name for name, _ in rule.declared}:
        raise InputError(f"{rule.path}: emits undeclared finding {row['id']!r}")
    if row["severity"] not in SEVERITIES:
        raise InputError(f"{rule.path}: severity {row['severity']!r} is none of {', '.join(SEVERITIES)}")
    scope = {k: v for k, v in _object(rule, "scope", row["scope"]).items() if v is not None}
    unknown = set(scope) - set(SCOPE_KEYS)
    if unknown:
        raise InputError(f"{rule.path}: scope key(s) {', '.join(sorted(unknown))} are none of "
                         f"{', '.join(SCOPE_KEYS)}")
    if any(not isinstance(v, str | int) or isinstance(v, bool) for v in scope.values()):
        raise InputError(f"{rule.path}: scope values must be text or integers")
    try:
        gain = _plain(row["gain_ceiling_ns"])
    except TypeError:
        gain = row["gain_ceiling_ns"]
    if not isinstance(gain, int | float) or isinstance(gain, bool) or not 0 <= gain <= span_ns:
        raise InputError(f"{rule.path}: gain_ceiling_ns {gain!r} is not a time between 0 and the span, "
                         f"{span_ns} ns")
    return {"id": row["id"], "severity": row["severity"], "title": _text(rule, "title", row["title"]),
            "gain_ceiling_ns": int(gain), "gain_ceiling_percent_of_span": 100.0 * gain / span_ns if span_ns else None,
            "scope": scope, "evidence": _object(rule, "evidence", row["evidence"]),
            "suggestion": _text(rule, "suggestion", row["suggestion"]),
            "caveat": _text(rule, "caveat", row["caveat"], optional=True), "rule_file": rule.path.name}


def rank(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Findings by gain ceiling, largest first; then by severity, id and scope."""
    return sorted(findings, key=lambda f: (-f["gain_ceiling_ns"], SEVERITIES.index(f["severity"]), f["id"],
                                           json.dumps(f["scope"], sort_keys=True, default=str)))


def _rows(box: duckdb.DuckDBPyConnection, rule: RuleFile) -> list[dict[str, Any]]:
    """The rows of one rule in the sandbox, with every contract column."""
    import pyarrow as pa

    table = rule_rows(box, rule, "finding rule")
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"{rule.path}: finding rule SELECT must return {', '.join(missing)}")
    try:
        return table.select(list(COLUMNS)).to_pylist()
    except (OverflowError, ValueError, pa.ArrowException) as exc:  # e.g. an infinite date, which Python cannot hold
        raise InputError(f"{rule.path}: finding rule returned a value Python cannot hold: {first_line(exc)}") from None


def run(finding_set: RuleSet, relations: dict[str, pa.Table], inputs: dict[Any, bool],
        span_ns: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run the pack over the evidence `relations` (in a sandbox holding only them): its findings, ranked, each with
    the inputs it relied on, and the findings it could not look for. `inputs` holds each optional input
    (analysis.findings.OptionalInput) and whether the capture has it."""
    findings, skipped = [], []
    there = {given.role for given, present in inputs.items() if present}
    with user_sql.sandbox(relations, store.MEMORY_LIMIT) as box:
        for rule in finding_set.files:
            reads = user_sql.identifiers(rule.sql)
            lacking = [given.description for given, present in inputs.items()
                       if not present and reads & given.needed_by]
            if lacking:
                skipped += [{"id": name, "rule_file": rule.path.name, "reason": "needs " + " and ".join(lacking)}
                            for name, _ in rule.declared]
                continue
            relied_on = [GPU_TRACE_ROLE, *(given.role for given, present in inputs.items()
                                           if present and given.read_by(reads) and given.stands_in_for not in there)]
            findings += [{**_finding(rule, row, span_ns), "relied_on": relied_on} for row in _rows(box, rule)]
    return rank(findings), skipped
