"""``fastmetrics report``: leaderboard, meta-evaluation and figures in one HTML or Markdown file."""

from __future__ import annotations

import sys
import threading

from .._errors import ParameterError
from . import options
from .counting import count_from_args, measure_list, task_of
from .options import positive_int
from .reading import columns, open_runs


def add_parser(sub) -> None:
    """The ``report`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("report", help="an HTML or Markdown report: ranked table, figures, definitions")
    options.counting(p)
    options.out(
        p,
        "the report: .html (one self-contained file, figures embedded as PNG) or .md (figures as PNG and SVG "
        "in <name>_figures beside it)",
    )
    options.resamples(
        p, "replicates of the leaderboard's intervals and of the tests between adjacent ranks (default 1000)"
    )
    p.add_argument("--figures", help="also save every figure as PNG and SVG in this folder")
    options.thresholds(p, "points of each system's threshold curve when scores exist (default 51)", default="51")
    p.add_argument("--pairs", default="1000", help="topic pairs of the robustness figure (default 1000)")
    p.add_argument("--title", default="fastmetrics report", help="the report's title")
    p.add_argument(
        "--scatter",
        help="measure pairs to plot output by output, e.g. f1:mcc,accuracy:k "
        "(default: the first measure against the second and the third)",
    )
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Compute what the report shows, once, and write it with its figures."""
    from ..pipeline import report_data
    from ..report.html import check_report_paths, write_report
    from .output import provenance

    if not args.out:
        raise ParameterError("report needs --out report.html or --out report.md.")
    # the options are checked before the input is read: a mistake costs no counting
    check_report_paths(args.out, args.figures)
    thresholds = positive_int(args.thresholds, "--thresholds")
    pairs = "all" if args.pairs == "all" else positive_int(args.pairs, "--pairs")
    scatter = _scatter_pairs(args.scatter)
    # matplotlib is imported (pure Python, a large part of a small report) while numba compiles the
    # kernels, whose LLVM passes release the GIL: on a first call the two overlap instead of adding up
    threading.Thread(target=_import_figures, daemon=True).start()
    src = open_runs(args)
    tensor = count_from_args(args, src)
    runs = None
    if args.score in src.column_names and args.system in src.column_names and task_of(tensor) == "binary":
        runs = src.read_all()
    data = report_data(
        tensor,
        measure_list(args, task_of(tensor)),
        runs=runs,
        gold=args.gold,
        thresholds=thresholds,
        seed=args.seed,
        resamples=args.resamples,
        pairs=pairs,
        title=args.title,
        scatter=scatter,
        weight=args.weight,
        progress=not args.quiet,
        **{k: v for k, v in columns(args).items() if k not in ("pred", "weight")},
    )
    made = provenance(args)  # a last section: version, options, the inputs' names and hashes
    figures = write_report(data, args.out, figures_dir=args.figures, progress=not args.quiet, provenance=made)
    print(f"wrote {args.out} ({len(figures)} figures)", file=sys.stderr)


def _import_figures() -> None:
    """Import matplotlib for the figures (in a thread of its own)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:  # the report says so when it draws
        pass


def _scatter_pairs(text):
    """--scatter: measure pairs a:b, separated by commas."""
    from ..measures import registry

    if not text:
        return None
    pairs = []
    for part in registry.split_specs(text):
        if ":" not in part:
            raise ParameterError(f"--scatter takes measure pairs a:b separated by commas; got {part!r}.")
        a, b = (x.strip() for x in part.split(":", 1))
        pairs.append((a, b))
    return pairs
