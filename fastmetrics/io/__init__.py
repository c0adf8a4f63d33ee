"""Ingest stage: read, validate and dictionary-encode inputs."""

from .gold import read_gold
from .paths import list_inputs, run_system_name
from .runfiles import read_qrels, read_run_file, read_trec_run
from .source import Source, open_source, read_runs

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
