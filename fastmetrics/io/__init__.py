"""Ingest stage: read, validate and dictionary-encode inputs."""

from .readers import Source, open_source, read_gold, read_run_file, read_runs, run_system_name

__all__ = ["Source", "open_source", "read_gold", "read_run_file", "read_runs", "run_system_name"]
