"""Readers turn one export file into normalized rows (as a DuckDB SELECT); they never analyse."""
