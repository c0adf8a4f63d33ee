"""Report stage: writing tidy tables to files and rendering them for people."""

from .tables import format_table, pivot_measures, property_matrix_markdown, to_markdown, write_table, write_text

__all__ = ["format_table", "pivot_measures", "property_matrix_markdown", "to_markdown", "write_table", "write_text"]
