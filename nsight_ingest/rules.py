"""Classification rule files (SQL): load a rule set and run its files inside a scope's classification modules.

Contract of a rule file (`*.sql` in the rules folder, run in file-name order):
- header lines `-- component: NAME | POLICY` declare the components the file may emit, in output order;
- the body is one SELECT, either a *name rule* over `kernel_names(name)` returning `name, component, priority`,
  or a *context rule* over `kernel_contexts` (a name with its neighbours on the stream, see
  sql/classify/kernel_contexts.sql) returning `context_key, component, priority`; both may add `sub_component`;
- per kernel the matching row with the lowest priority wins, ties broken by file name; unmatched kernels are
  `other`. Each distinct name (and each distinct context) is classified once, then joined back to the kernels;
- a rule file is exactly one SELECT (anything else is refused) and runs in a DuckDB sandbox holding only its
  relation (nsight_ingest.user_sql): it reads no file, no store and no other database.
The modules classify.name_matches, classify.context_matches and classify.kernel_classes call the fillers below;
the scope's context holds the rule set (`rule_set`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from nsight_ingest import store, user_sql
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.sqlfiles import default_rules_dir, sql_string
from nsight_ingest.sqlmodules import Scope, fills

OTHER = "other"
OTHER_POLICY = "all unmatched kernels"
_DECLARATION = re.compile(r"^--\s*component:\s*(?P<name>[A-Za-z0-9_]+)\s*(?:\|\s*(?P<policy>.*?))?\s*$", re.M)


@dataclass(frozen=True)
class RuleFile:
    """One rule file: its SELECT and the components it declares."""

    path: Path
    sql: str
    declared: tuple[tuple[str, str], ...]
    by_context: bool  # a context rule: it reads `kernel_contexts` (else a name rule, over `kernel_names`)


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


def _rule_text(path: Path) -> str:
    """A rule file's text; a folder, an unreadable file or bytes that are not UTF-8 are refused."""
    if not path.is_file():
        raise InputError(f"{path}: is not a file (rule files are the *.sql files of the rules folder)")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: rule file is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read rule file ({exc.strerror or exc})") from None


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
        text = _rule_text(path)
        digest.update(path.name.encode() + b"\0" + text.encode() + b"\0")
        declared = tuple((m["name"], m["policy"] or "") for m in _DECLARATION.finditer(text))
        if not declared:
            raise InputError(f"{path}: declares no component (add a line '-- component: NAME | POLICY')")
        sql = user_sql.one_statement(text, f"{path}: rule file")
        files.append(RuleFile(path, sql, declared, "kernel_contexts" in user_sql.identifiers(sql)))
    return RuleSet(folder, tuple(files), digest.hexdigest()[:16])


_NOT_NULL = re.compile(r"NOT NULL constraint failed: \w+\.(\w+)")
_NAME_COLUMNS = ("name", "component", "sub_component", "priority")
_CONTEXT_COLUMNS = ("context_key", "component", "sub_component", "priority")


def _matches(rank: int, rule: RuleFile, columns: tuple[str, ...]) -> str:
    """The SELECT of one rule file's matches (its result registered as `rule_rows`) with `columns`, matched by
    name (missing ones arrive as NULL); a context rule's matches get their context's name."""
    wanted = "[" + ", ".join(sql_string(c) for c in columns) + "]"
    result = f"(SELECT COLUMNS(lambda c: list_contains({wanted}, c)) FROM rule_rows)"
    if rule.by_context:
        result = f"(SELECT r.*, c.name FROM {result} r JOIN kernel_contexts c USING (context_key))"
    return f"SELECT *, {rank} AS rule_rank, {sql_string(rule.path.name)} AS rule_file FROM {result}"


def _collect(scope: Scope, table: str, by_context: bool) -> None:
    """Run the rule set's name (or context) rules in a sandbox holding only their relation, and add their matches
    to `table`; a failure names the rule file."""
    relation, columns = ("kernel_contexts", _CONTEXT_COLUMNS) if by_context else ("kernel_names", _NAME_COLUMNS)
    rules = [(rank, rule) for rank, rule in enumerate(scope.context["rule_set"].files) if rule.by_context == by_context]
    if not rules:
        return
    rows_given = scope.con.sql(f"SELECT * FROM {relation}").to_arrow_table()
    with user_sql.sandbox({relation: rows_given}, store.MEMORY_LIMIT) as box:
        for rank, rule in rules:
            try:
                rows = box.sql(rule.sql).to_arrow_table()
            except duckdb.Error as exc:
                raise InputError(f"{rule.path}: rule SQL failed: {first_line(exc)}") from None
            if by_context and "context_key" not in rows.column_names:
                raise InputError(f"{rule.path}: rule SELECT must return context_key")
            scope.con.register("rule_rows", rows)
            try:
                scope.con.execute(f"INSERT INTO {table} BY NAME {_matches(rank, rule, columns)}")
            except duckdb.Error as exc:
                missing = _NOT_NULL.search(str(exc))  # a column the rule does not return arrives as NULL
                if missing:
                    raise InputError(f"{rule.path}: rule SELECT must return {missing[1]}") from None
                raise InputError(f"{rule.path}: rule rows do not fit: {first_line(exc)}") from None
            finally:
                scope.con.unregister("rule_rows")


@fills("classify.name_matches")
def fill_name_matches(scope: Scope) -> None:
    """Run the name rules over kernel_names."""
    _collect(scope, "name_rule_matches", by_context=False)


@fills("classify.context_matches")
def fill_context_matches(scope: Scope) -> None:
    """Run the context rules over kernel_contexts."""
    _collect(scope, "context_rule_matches", by_context=True)


@fills("classify.kernel_classes")
def check_and_record(scope: Scope) -> None:
    """Refuse components a rule file does not declare; record each name's class under the rule-set version."""
    rule_set: RuleSet = scope.context["rule_set"]
    emitted = scope.con.execute("SELECT DISTINCT rule_rank, component FROM name_rule_matches UNION "
                                "SELECT DISTINCT rule_rank, component FROM context_rule_matches").fetchall()
    for rank, component in sorted(emitted):
        rule = rule_set.files[rank]
        if component not in {name for name, _ in rule.declared} | {OTHER}:
            raise InputError(f"{rule.path}: emits undeclared component {component!r}")
    scope.con.execute(
        "INSERT OR IGNORE INTO name_classes BY NAME "
        "SELECT ? AS rule_set_version, * EXCLUDE (name_id) FROM name_winners",
        [rule_set.version],
    )
