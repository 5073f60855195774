"""Classification rule files (SQL): load a rule set and run its files inside a scope's classification modules.

Two kinds of rule set classify kernels on two independent axes (`Axis`): the user's *components* (sql/rules/,
`--rules DIR`) and the built-in kernel *families* (sql/families/, `--families DIR`). Contract of a rule file (`*.sql`
in the folder, run in file-name order):
- header lines `-- component: NAME | POLICY` (`-- family: NAME | POLICY` for families) declare the classes the file
  may emit, in output order;
- the body is one SELECT, either a *name rule* over `kernel_names(name, bare_name, short_name)` returning `name,
  component, priority` (`name, family, priority`), or (components only) a *context rule* over `kernel_contexts` (a
  name with its neighbours on the stream, see sql/classify/kernel_contexts.sql) returning `context_key, component,
  priority`; component rules may add `sub_component`;
- per kernel the matching row with the lowest priority wins, ties broken by file name; unmatched kernels are
  `other`. Each distinct name (and each distinct context) is classified once, then joined back to the kernels;
- a rule file is exactly one SELECT (anything else is refused) and runs in a DuckDB sandbox holding only its
  relation (nsight_ingest.user_sql): it reads no file, no store and no other database.
The modules classify.name_matches, classify.context_matches, classify.kernel_classes, classify.family_matches and
classify.kernel_families call the fillers below; the scope's context holds the rule sets (`rule_set`,
`family_set`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from nsight_ingest import store, user_sql
from nsight_ingest.errors import InputError, first_line
from nsight_ingest.sqlfiles import sql_root, sql_string

if TYPE_CHECKING:
    import pyarrow as pa

    from nsight_ingest.sqlmodules import Scope  # fillers.FILLERS names the fillers below

OTHER = "other"
OTHER_POLICY = "all unmatched kernels"
RULE_SECONDS = 60.0  # the longest a rule file (classification or finding) may run: the bundled ones take milliseconds


@dataclass(frozen=True)
class Axis:
    """What a kind of rule set classifies kernels into."""

    column: str  # the class a rule row carries: 'component' or 'family'
    folder: str  # the bundled default set, under sql/
    flag: str  # the option that replaces it
    context_rules: bool  # whether its files may be context rules (over kernel_contexts)

    def declaration(self) -> re.Pattern[str]:
        """The header line that declares one class."""
        return re.compile(rf"^--\s*{self.column}:\s*(?P<name>[A-Za-z0-9_]+)\s*(?:\|\s*(?P<policy>.*?))?\s*$", re.M)


COMPONENTS = Axis("component", "rules", "--rules", context_rules=True)
FAMILIES = Axis("family", "families", "--families", context_rules=False)  # what a kernel is, whatever its neighbours


@dataclass(frozen=True)
class RuleFile:
    """One rule file: its SELECT and the classes it declares."""

    path: Path
    sql: str
    declared: tuple[tuple[str, str], ...]
    by_context: bool  # a context rule: it reads `kernel_contexts` (else a name rule, over `kernel_names`)


@dataclass(frozen=True)
class RuleSet:
    """An ordered set of rule files of one axis, with a content version."""

    directory: Path
    files: tuple[RuleFile, ...]
    version: str
    axis: Axis = COMPONENTS

    def classes(self) -> list[tuple[str, str]]:
        """(class, policy) in declaration order, first declaration wins, `other` last."""
        seen: dict[str, str] = {}
        for rule in self.files:
            for name, policy in rule.declared:
                seen.setdefault(name, policy)
        other_policy = seen.pop(OTHER, OTHER_POLICY)
        return [*seen.items(), (OTHER, other_policy)]


def _rule_text(path: Path) -> str:
    """A rule file's text; a folder, an unreadable file or bytes that are not UTF-8 are refused."""
    if not path.is_file():
        raise InputError(f"{path}: is not a file (rule files are the *.sql files of the folder)")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: rule file is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read rule file ({exc.strerror or exc})") from None


def load_rule_set(directory: str | Path | None = None, axis: Axis = COMPONENTS) -> RuleSet:
    """Read every `*.sql` file of a rules folder of `axis` (its bundled default when None)."""
    folder = Path(directory) if directory is not None else sql_root() / axis.folder
    if not folder.is_dir():
        raise InputError(f"{folder}: {axis.flag} folder not found")
    paths = sorted(folder.glob("*.sql"))
    if not paths:
        raise InputError(f"{folder}: no .sql rule files in the {axis.flag} folder")
    digest = hashlib.sha256()
    files = []
    for path in paths:
        text = _rule_text(path)
        digest.update(path.name.encode() + b"\0" + text.encode() + b"\0")
        declared = tuple((m["name"], m["policy"] or "") for m in axis.declaration().finditer(text))
        if not declared:
            raise InputError(f"{path}: declares no {axis.column} (add a line '-- {axis.column}: NAME | POLICY')")
        sql = user_sql.one_statement(text, f"{path}: rule file")
        by_context = "kernel_contexts" in user_sql.identifiers(sql)
        if by_context and not axis.context_rules:
            raise InputError(f"{path}: reads kernel_contexts; {axis.column} rules are name rules over kernel_names")
        files.append(RuleFile(path, sql, declared, by_context))
    return RuleSet(folder, tuple(files), digest.hexdigest()[:16], axis)


def load_family_set(directory: str | Path | None = None) -> RuleSet:
    """The kernel-family rule set of a folder (the bundled sql/families/ when None)."""
    return load_rule_set(directory, FAMILIES)



_NOT_NULL = re.compile(r"NOT NULL constraint failed: \w+\.\"?(\w+)")  # a keyword column is quoted
_CONTEXT_COLUMNS = ("context_key", "component", "sub_component", "priority")


def _name_columns(axis: Axis) -> tuple[str, ...]:
    """What a name rule of `axis` returns (only components have sub-components)."""
    if axis is COMPONENTS:
        return "name", "component", "sub_component", "priority"
    return "name", axis.column, "priority"


def _matches(rank: int, rule: RuleFile, columns: tuple[str, ...]) -> str:
    """The SELECT of one rule file's matches (its result registered as `rule_rows`) with `columns`, matched by
    name (missing ones arrive as NULL); a context rule's matches get their context's name."""
    wanted = "[" + ", ".join(sql_string(c) for c in columns) + "]"
    result = f"(SELECT COLUMNS(lambda c: list_contains({wanted}, c)) FROM rule_rows)"
    if rule.by_context:
        result = f"(SELECT r.*, c.name FROM {result} r JOIN kernel_contexts c USING (context_key))"
    return f"SELECT *, {rank} AS rule_rank, {sql_string(rule.path.name)} AS rule_file FROM {result}"


def rule_rows(box: duckdb.DuckDBPyConnection, rule: RuleFile, what: str) -> pa.Table:
    """The rows of a rule file's SELECT in its sandbox, interrupted after RULE_SECONDS; a failure is one line that
    names the file (`what` names the kind of rule)."""
    try:
        return user_sql.rows_within(box, rule.sql, RULE_SECONDS)
    except duckdb.InterruptException:
        raise InputError(f"{rule.path}: {what} ran longer than {RULE_SECONDS:g} s (a recursion that never ends?)"
                         ) from None
    except duckdb.Error as exc:
        raise InputError(f"{rule.path}: {what} failed: {first_line(exc)}") from None


def _collect(scope: Scope, rule_set: RuleSet, table: str, by_context: bool) -> None:
    """Run the rule set's name (or context) rules in a sandbox holding only their relation, and add their matches
    to `table`; a failure names the rule file."""
    relation, columns = (("kernel_contexts", _CONTEXT_COLUMNS) if by_context
                         else ("kernel_names", _name_columns(rule_set.axis)))
    rules = [(rank, rule) for rank, rule in enumerate(rule_set.files) if rule.by_context == by_context]
    if not rules:
        return
    rows_given = scope.con.sql(f"SELECT * FROM {relation}").to_arrow_table()
    with user_sql.sandbox({relation: rows_given}, store.MEMORY_LIMIT) as box:
        for rank, rule in rules:
            rows = rule_rows(box, rule, "rule SQL")
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


def fill_name_matches(scope: Scope) -> None:
    """Run the name rules over kernel_names."""
    _collect(scope, scope.context.rule_set, "name_rule_matches", by_context=False)


def fill_context_matches(scope: Scope) -> None:
    """Run the context rules over kernel_contexts."""
    _collect(scope, scope.context.rule_set, "context_rule_matches", by_context=True)


def _refuse_undeclared(rule_set: RuleSet, emitted: list[tuple[int, str]]) -> None:
    """Refuse a (rule rank, class) a rule file emits without declaring it."""
    for rank, name in sorted(emitted):
        rule = rule_set.files[rank]
        if name not in {declared for declared, _ in rule.declared} | {OTHER}:
            raise InputError(f"{rule.path}: emits undeclared {rule_set.axis.column} {name!r}")


def check_and_record(scope: Scope) -> None:
    """Refuse components a rule file does not declare; record each name's class under the rule-set version."""
    rule_set: RuleSet = scope.context.rule_set
    _refuse_undeclared(rule_set, scope.con.execute(
        "SELECT DISTINCT rule_rank, component FROM name_rule_matches UNION "
        "SELECT DISTINCT rule_rank, component FROM context_rule_matches").fetchall())
    scope.con.execute(
        "INSERT OR IGNORE INTO name_classes BY NAME "
        "SELECT ? AS rule_set_version, * EXCLUDE (name_id) FROM name_winners",
        [rule_set.version],
    )


def fill_family_matches(scope: Scope) -> None:
    """Run the family rules over kernel_names."""
    _collect(scope, scope.context.family_set, "family_rule_matches", by_context=False)


def check_and_record_families(scope: Scope) -> None:
    """Refuse families a rule file does not declare; record each name's family under the family-set version."""
    family_set: RuleSet = scope.context.family_set
    _refuse_undeclared(family_set, scope.con.execute(
        "SELECT DISTINCT rule_rank, family FROM family_rule_matches").fetchall())
    scope.con.execute(
        "INSERT OR IGNORE INTO name_families BY NAME "
        "SELECT ? AS family_set_version, * EXCLUDE (name_id, short_name) FROM kernel_families",
        [family_set.version],
    )
