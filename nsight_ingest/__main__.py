"""`python -m nsight_ingest` runs the command line."""

from nsight_ingest.cli import main

main()
