"""nsight-ingest: NVIDIA Nsight exports -> a DuckDB store -> answers a GPU performance engineer trusts."""

from nsight_ingest.store import connect

__all__ = ["connect"]
__version__ = "0.1.0"
