"""``fastmetrics measures``: the measure catalog as Markdown, CSV or JSON."""

from __future__ import annotations

import json
import sys

COLUMNS = (
    "name",
    "aliases",
    "formula",
    "range_low",
    "range_high",
    "higher_is_better",
    "family",
    "kind",
    "params",
    "undefined_when",
    "smoothable",
    "multiclass",
    "reference",
)


def add_parser(sub) -> None:
    """The ``measures`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("measures", help="print the measure catalog")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.set_defaults(func=action)


def action(args) -> None:
    """Print the measure catalog in the format of ``--format``."""
    import pyarrow as pa

    from .._numbers import parameter
    from ..measures import api as measures_api
    from ..report import to_markdown

    catalog = measures_api.measures()
    if args.format == "json":
        print(json.dumps(catalog.to_pylist(), indent=1, default=str))
    elif args.format == "csv":
        import pyarrow.csv as pacsv

        aliases = [", ".join(a) for a in catalog.column("aliases").to_pylist()]
        flat = catalog.set_column(catalog.schema.get_field_index("aliases"), "aliases", pa.array(aliases, pa.string()))
        sink = pa.BufferOutputStream()
        pacsv.write_csv(flat, sink)
        sys.stdout.write(sink.getvalue().to_pybytes().decode())
    else:
        view = catalog.select(list(COLUMNS))
        view = view.set_column(1, "aliases", pa.array([", ".join(a) for a in view.column("aliases").to_pylist()]))
        view = view.set_column(2, "formula", pa.array([f"`{f}`" for f in view.column("formula").to_pylist()]))
        for end in ("range_low", "range_high"):  # written as a parameter is: -1, 0.5, inf
            i = view.schema.get_field_index(end)
            view = view.set_column(i, end, pa.array([parameter(v) for v in view.column(i).to_pylist()]))
        sys.stdout.write(to_markdown(view))
