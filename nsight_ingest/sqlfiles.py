"""Locate and read the SQL files shipped in `sql/` (a source checkout or the installed package); quote literals."""

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def sql_root() -> Path:
    """The `sql/` folder: inside the installed package, else beside it in a checkout."""
    for candidate in (_PACKAGE / "sql", _PACKAGE.parent / "sql"):
        if (candidate / "schema.sql").is_file():
            return candidate
    raise FileNotFoundError("nsight-ingest's sql/ folder is missing from this installation")


@cache
def read_sql(relative: str) -> str:
    """Text of one SQL file under `sql/`, e.g. `analysis/launch_gaps.sql`."""
    return (sql_root() / relative).read_text(encoding="utf-8")


def sql_string(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"
