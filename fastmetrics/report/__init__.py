"""Report stage: writing tidy tables to files and rendering them for people."""

from .tables import format_table, pivot_measures, to_markdown, write_table

__all__ = ["format_table", "pivot_measures", "to_markdown", "write_table"]
