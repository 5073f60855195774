"""nsight-ingest: NVIDIA Nsight exports -> a DuckDB store -> answers a GPU performance engineer trusts."""

__all__ = ["connect"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # `connect` loads the store (and DuckDB) on first use, so a worker process that reads SQLite does not
    if name == "connect":
        from nsight_ingest.store import connect

        return connect
    raise AttributeError(name)
