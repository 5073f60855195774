"""nsight-ingest: NVIDIA Nsight exports -> a DuckDB store -> answers a GPU performance engineer trusts.

From Python (nsight_ingest.api): `nsight_ingest.open(path)` gives a capture whose methods answer each command, as
its JSON (`.to_dict()`) or as pandas DataFrames (`.frames()`); `ranks`, `compare` and `ncu` answer theirs;
`connect` opens a store for SQL of your own.
"""

__all__ = ["compare", "connect", "ncu", "open", "ranks"]
__version__ = "0.1.0"

_API = {"open", "ranks", "compare", "ncu"}


def __getattr__(name: str):
    # loaded on first use, so a worker process that reads SQLite (importing this package) loads no DuckDB
    if name == "connect":
        from nsight_ingest.store import connect

        return connect
    if name in _API:
        from nsight_ingest import api

        return getattr(api, name)
    raise AttributeError(name)
