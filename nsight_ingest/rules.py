"""Load classification rule files (SQL) and classify the kernels of the current scope.

Contract of a rule file (`*.sql` in the rules folder, run in file-name order):
- header lines `-- component: NAME | POLICY` declare the components the file may emit, in output order;
- the body is one SELECT, either a *name rule* over `kernel_names(name)` returning `name, component, priority`,
  or a *context rule* over `kernel_contexts` (a name with its neighbours on the stream, see
  sql/rules_engine/kernel_contexts.sql) returning `context_key, component, priority`; both may add `sub_component`;
- per kernel the matching row with the lowest priority wins, ties broken by file name; unmatched kernels are
  `other`. Each distinct name (and each distinct context) is classified once, then joined back to the kernels.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from nsight_ingest.errors import InputError
from nsight_ingest.sqlfiles import default_rules_dir, read_sql, sql_string

OTHER = "other"
OTHER_POLICY = "all unmatched kernels"
_DECLARATION = re.compile(r"^--\s*component:\s*(?P<name>[A-Za-z0-9_]+)\s*(?:\|\s*(?P<policy>.*?))?\s*$", re.M)
_CONTEXT_RELATION = re.compile(r"\bkernel_contexts\b")


@dataclass(frozen=True)
class RuleFile:
    """One rule file: its SELECT and the components it declares."""

    path: Path
    sql: str
    declared: tuple[tuple[str, str], ...]

    @property
    def by_context(self) -> bool:
        """True for a context rule (it reads `kernel_contexts`)."""
        return bool(_CONTEXT_RELATION.search(self.sql))


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


_RESULT_COLUMNS = "['context_key', 'name', 'component', 'sub_component', 'priority']"
_NOT_NULL = re.compile(r"NOT NULL constraint failed: rule_matches\.(\w+)")


def _matches(rank: int, rule: RuleFile) -> str:
    """The SELECT of one rule file's matches as rule_matches rows (columns matched by name)."""
    result = f"(SELECT COLUMNS(lambda c: list_contains({_RESULT_COLUMNS}, c)) FROM ({rule.sql}))"
    if rule.by_context:
        source = f"SELECT r.*, c.name FROM {result} r JOIN kernel_contexts c USING (context_key)"
    else:
        source = f"SELECT * FROM {result}"
    return f"SELECT *, {rank} AS rule_rank, {sql_string(rule.path.name)} AS rule_file FROM ({source})"


def _collect_one(con: duckdb.DuckDBPyConnection, rank: int, rule: RuleFile) -> None:
    """Add one rule file's matches to rule_matches; a failure names the file."""
    try:
        con.execute(f"INSERT INTO rule_matches BY NAME {_matches(rank, rule)}")
    except duckdb.Error as exc:
        missing = _NOT_NULL.search(str(exc))  # a column the rule does not return arrives as NULL
        if missing:
            raise InputError(f"{rule.path}: rule SELECT must return {missing[1]}") from None
        raise InputError(f"{rule.path}: rule SQL failed: {str(exc).splitlines()[0]}") from None


def _collect(con: duckdb.DuckDBPyConnection, rules: list[tuple[int, RuleFile]]) -> None:
    """Add the matches of these rule files to temp table rule_matches in one statement; when it fails, file by
    file, so that the error names the file at fault."""
    if not rules:
        return
    try:
        con.execute("INSERT INTO rule_matches BY NAME " + " UNION ALL BY NAME ".join(_matches(*r) for r in rules))
    except duckdb.Error:
        for rank, rule in rules:
            _collect_one(con, rank, rule)


def _check_declared(con: duckdb.DuckDBPyConnection, rule_set: RuleSet) -> None:
    emitted = con.execute("SELECT DISTINCT rule_rank, component FROM rule_matches").fetchall()
    for rank, component in emitted:
        rule = rule_set.files[rank]
        if component not in {name for name, _ in rule.declared} | {OTHER}:
            raise InputError(f"{rule.path}: emits undeclared component {component!r}")


def classify_scope(con: duckdb.DuckDBPyConnection, rule_set: RuleSet) -> None:
    """Fill temp table `kernel_classes` (one class per kernel context of the scope) and record name classes."""
    con.execute("CREATE OR REPLACE TEMP VIEW kernel_names AS SELECT name FROM scope_names")
    con.execute(read_sql("rules_engine/create_matches.sql"))
    ranked = list(enumerate(rule_set.files))
    _collect(con, [(rank, rule) for rank, rule in ranked if not rule.by_context])
    con.execute(read_sql("rules_engine/pick_name_winners.sql"))
    by_context = [(rank, rule) for rank, rule in ranked if rule.by_context]
    if by_context:
        con.execute(read_sql("rules_engine/kernel_contexts.sql"))
        _collect(con, by_context)
    _check_declared(con, rule_set)
    con.execute(read_sql("rules_engine/pick_winners.sql"))
    con.execute(
        "INSERT OR IGNORE INTO name_classes BY NAME "
        "SELECT ? AS rule_set_version, * EXCLUDE (name_id) FROM name_winners",
        [rule_set.version],
    )
