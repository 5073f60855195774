"""The one exception type the CLI turns into a one-line message and exit code 2."""

import re


class InputError(Exception):
    """Bad input or configuration that the user can fix; printed as one line, exit code 2."""


def first_line(error: BaseException) -> str:
    """The first line of an error's message (DuckDB's and SQLite's run over several), or its type's name."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


_DUCKDB_LINE = re.compile(r"CSV Error on Line: (\d+)")
_DUCKDB_REASONS = (
    re.compile(r"(Could not convert string .*? to '\w+')"),
    re.compile(r"(Value with unterminated quote found\.)"),
    re.compile(r"(Expected Number of Columns: \d+ Found: \d+)"),
    re.compile(r"(Invalid unicode \(byte sequence mismatch\) detected[^\n]*)"),
    re.compile(r"(Maximum line size of \d+ bytes exceeded[^\n]*)"),
)
_OUT_OF_RANGE = re.compile(r'CHECK constraint failed on table "?(\w+)"? with expression CHECK\(\((\w+) BETWEEN')


def explain_duckdb_csv_error(path: str, error: Exception, lines_before: int = 0) -> InputError:
    """Condense DuckDB's multi-line CSV error into one line naming the file and line (DuckDB read a copy of the
    table that left out the input's first `lines_before` lines)."""
    text = str(error)
    line = _DUCKDB_LINE.search(text)
    reason = next((m.group(1) for p in _DUCKDB_REASONS if (m := p.search(text))), None)
    beyond = _OUT_OF_RANGE.search(text)
    if beyond:  # the store's CHECK on times (schema.sql)
        reason = f"a {beyond[2]} value lies beyond +-2^61 ns (73 years): the file is damaged"
    if reason is None:
        reason = first_line(error)
    if "Expected Number of Columns" in reason:
        reason += " (row truncated or malformed)"
    where = f" line {int(line.group(1)) + lines_before}:" if line else ""
    return InputError(f"{path}:{where} {reason}")


class EmptyScope(InputError):
    """The capture or window holds nothing to analyse."""
