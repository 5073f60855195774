"""Load classification rule files (SQL) and classify each distinct kernel name once.

Contract of a rule file (`*.sql` in the rules folder, run in file-name order):
- header lines `-- component: NAME | POLICY` declare the components the file may emit, in output order;
- the body is one SELECT over the relation `kernel_names(name)` returning `name, component, priority`
  and optionally `sub_component`;
- per name the row with the lowest priority wins, ties broken by file name; unmatched names are `other`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from nsight_ingest.errors import InputError
from nsight_ingest.sqlfiles import default_rules_dir, read_sql

OTHER = "other"
OTHER_POLICY = "all unmatched kernels"
_DECLARATION = re.compile(r"^--\s*component:\s*(?P<name>[A-Za-z0-9_]+)\s*(?:\|\s*(?P<policy>.*?))?\s*$", re.M)
_REQUIRED = ("name", "component", "priority")


@dataclass(frozen=True)
class RuleFile:
    """One rule file: its SELECT and the components it declares."""

    path: Path
    sql: str
    declared: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RuleSet:
    """An ordered set of rule files with a content version."""

    directory: Path
    files: tuple[RuleFile, ...]
    version: str

    def components(self) -> list[tuple[str, str]]:
        """(component, policy) in declaration order, first declaration wins, `other` last."""
        seen: dict[str, str] = {}
        for rule in self.files:
            for name, policy in rule.declared:
                seen.setdefault(name, policy)
        other_policy = seen.pop(OTHER, OTHER_POLICY)
        return [*seen.items(), (OTHER, other_policy)]


def load_rule_set(directory: str | Path | None = None) -> RuleSet:
    """Read every `*.sql` file of a rules folder (the bundled default when None)."""
    folder = Path(directory) if directory is not None else default_rules_dir()
    if not folder.is_dir():
        raise InputError(f"{folder}: rules folder not found")
    paths = sorted(folder.glob("*.sql"))
    if not paths:
        raise InputError(f"{folder}: no .sql rule files in the rules folder")
    digest = hashlib.sha256()
    files = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        digest.update(path.name.encode() + b"\0" + text.encode() + b"\0")
        declared = tuple((m["name"], m["policy"] or "") for m in _DECLARATION.finditer(text))
        if not declared:
            raise InputError(f"{path}: declares no component (add a line '-- component: NAME | POLICY')")
        body = text.strip().rstrip(";")
        files.append(RuleFile(path, body, declared))
    return RuleSet(folder, tuple(files), digest.hexdigest()[:16])


def _columns(con: duckdb.DuckDBPyConnection, rule: RuleFile) -> list[str]:
    try:
        return [d[0] for d in con.execute(f"SELECT * FROM ({rule.sql}) LIMIT 0").description]
    except duckdb.Error as exc:
        raise InputError(f"{rule.path}: rule SQL failed: {str(exc).splitlines()[0]}") from None


def classify_names(con: duckdb.DuckDBPyConnection, rule_set: RuleSet, names_query: str) -> None:
    """Fill temp table `kernel_classes` (one class per name) and record it in the store's `name_classes`."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE kernel_names AS SELECT DISTINCT name FROM ({names_query})")
    con.execute(read_sql("rules_engine/create_matches.sql"))
    for rank, rule in enumerate(rule_set.files):
        columns = _columns(con, rule)
        missing = [c for c in _REQUIRED if c not in columns]
        if missing:
            raise InputError(f"{rule.path}: rule SELECT must return {', '.join(missing)}")
        sub = "sub_component" if "sub_component" in columns else "NULL"
        try:
            con.execute(
                f"INSERT INTO rule_matches SELECT name, component, {sub}, priority, ?, ? FROM ({rule.sql})",
                [rank, rule.path.name],
            )
        except duckdb.Error as exc:
            raise InputError(f"{rule.path}: rule SQL failed: {str(exc).splitlines()[0]}") from None
        declared = {name for name, _ in rule.declared} | {OTHER}
        stray = con.execute(
            "SELECT DISTINCT component FROM rule_matches WHERE rule_rank = ? AND NOT list_contains(?, component)",
            [rank, sorted(declared)],
        ).fetchall()
        if stray:
            raise InputError(f"{rule.path}: emits undeclared component {stray[0][0]!r}")
    con.execute(read_sql("rules_engine/pick_winners.sql"))
    con.execute(
        "INSERT OR IGNORE INTO name_classes BY NAME SELECT ? AS rule_set_version, * FROM kernel_classes",
        [rule_set.version],
    )
