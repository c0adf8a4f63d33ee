"""``fastmetrics axioms``: which properties each measure satisfies.

The axioms of Sebastiani (2015), the properties of Gösgens et al. (2021) and the constraints of
Amigó et al. (2019).
"""

from __future__ import annotations

import json
import sys

from .._errors import ParameterError
from .._formats import OUTPUT_SUFFIXES
from . import options
from .options import int_at_least, split

VERDICT_KEYS = ("measure", "property", "holds", "counterexample", "note", "numeric")  # of each verdict in .json


def add_parser(sub) -> None:
    """The ``axioms`` command: its options, and :func:`action` to run."""
    p = sub.add_parser(
        "axioms",
        help="decide per measure the axioms of Sebastiani (2015) and the properties of Gösgens et al. (2021) "
        "and Amigó et al. (2019)",
    )
    p.add_argument("measures", nargs="*", help="measures or specs (default: the whole catalog)")
    p.add_argument(
        "--n-max",
        type=int_at_least(1),
        default=12,
        help="largest test set enumerated (default 12; 6 for --classes > 2)",
    )
    p.add_argument(
        "--classes",
        type=int_at_least(2),
        default=2,
        help="2: binary properties; m > 2: Gösgens et al.'s (2021) properties of the native multiclass definitions",
    )
    p.add_argument("--properties", help="comma-separated property ids (default: all)")
    options.smoothing(p, None)
    p.add_argument("--format", choices=("md", "json"), default=None, help="printed format (default md)")
    options.out(
        p,
        "write the profile to this file (atomically), in the format of its suffix: .md the matrix, .json "
        "the verdicts, " + ", ".join(OUTPUT_SUFFIXES[:2] + OUTPUT_SUFFIXES[4:]) + " the verdict table",
    )
    p.set_defaults(func=action)


def action(args) -> None:
    """Decide the properties and print or write the verdicts."""
    from ..meta import axioms
    from ..report import property_matrix_markdown, write_table, write_text

    fmt = _format(args)
    properties = split(args.properties)
    table = axioms.axioms(
        args.measures or None, properties, n_max=args.n_max, smoothing=args.smoothing, classes=args.classes
    )
    if fmt == "table":  # --out with a table suffix: the tidy verdicts, written as the suffix says
        write_table(table, args.out)
        print(f"wrote {table.num_rows} verdicts to {args.out}", file=sys.stderr)
        return
    if fmt == "json":
        rows = [{k: r[k] for k in VERDICT_KEYS} for r in table.to_pylist()]
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    else:
        text = property_matrix_markdown(table)
    if args.out:
        write_text(text, args.out)
        print(f"wrote {table.num_rows} verdicts to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _format(args) -> str:
    """What ``axioms`` writes: ``md`` or ``json`` (printed, or to --out of that suffix) or ``table``
    (the tidy verdicts in the format of another --out suffix; an unknown one is refused)."""
    from ..report.tables import output_path

    if not args.out:
        return args.format or "md"
    suffix, _ = output_path(args.out)  # refused before any work, as every command refuses it
    fmt = {".md": "md", ".json": "json"}.get(suffix, "table")
    if args.format is not None and args.format != fmt:
        raise ParameterError(
            f"--format {args.format} and --out {args.out} disagree: the file is written in the format of "
            "its suffix (.md: the matrix, .json: the verdicts, .csv/.parquet/.tex/.html: the verdict table)."
        )
    return fmt
