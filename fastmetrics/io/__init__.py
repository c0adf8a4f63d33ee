"""Ingest stage: read, validate and dictionary-encode inputs."""

from .readers import (
    Source,
    list_inputs,
    open_source,
    read_gold,
    read_qrels,
    read_run_file,
    read_runs,
    read_trec_run,
    run_system_name,
)

__all__ = [
    "Source",
    "list_inputs",
    "open_source",
    "read_gold",
    "read_qrels",
    "read_run_file",
    "read_runs",
    "read_trec_run",
    "run_system_name",
]
