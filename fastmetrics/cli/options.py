"""The options several commands share, each declared once, and the parsing of their values.

A command names the options it takes, in the order its ``--help`` lists them; where its help
says the option differently (``--seed`` seeds the bootstrap of ``evaluate`` and the folds of
``sweep``), the command passes that text and the name, choices, type and default stay here.
Only the standard library is imported: ``fastmetrics --help`` declares every command.
"""

from __future__ import annotations

import argparse

from .._errors import ParameterError
from .._formats import INPUT_FORMATS, OUTPUT_SUFFIXES

DEFAULT_MEASURES = {
    # the first ranks leaderboards and reports: F1 weighs both kinds of error (precision's leader is a
    # system that predicts hardly anything positive) and is defined where MCC is not (constant decisions)
    "binary": "f1,mcc,k,accuracy,precision,recall",
    "multiclass": "accuracy,balanced_accuracy,f1@macro,cohen_kappa,mcc,k",
    "multilabel": "precision,recall,f1,proficiency,permuted_proficiency",
    "top_k": "top_k_accuracy(k=1),top_k_accuracy(k=2),top_k_accuracy(k=3)",  # --thresholds topk
}
TABLE_FILES = ", ".join(OUTPUT_SUFFIXES[:-1]) + " or " + OUTPUT_SUFFIXES[-1]  # what --out writes a table as
INPUTS = "run files, folders, globs, Parquet/CSV files or a counts table"
GRIDS = ("global", "system", "quantile")
THRESHOLDS = (
    "'exact', 'ranks', an int k (even grid over the score range), floats a,b,c, or 'topk' (class "
    "probabilities: the rank of the gold class, for top_k_accuracy)"
)
SCHEDULER = "count on Dask: local, local:N (N worker processes) or a scheduler ADDRESS"
QUIET = "no progress bar on stderr"


# -- the values of options ----------------------------------------------------------------------


def int_at_least(low: int):
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    return parse


seed_type = int_at_least(0)  # numpy's generators take integers >= 0


def positive_int(text: str, option: str) -> int:
    """The value of ``option`` (``--pairs``, ``--thresholds`` of a report), an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        also = " or 'all'" if option == "--pairs" else ""
        raise ParameterError(f"{option} must be a positive integer{also}; got {text!r}.")
    return value


def parse_thresholds(text: str | None):
    """``--thresholds``: None, 'exact', 'ranks' or 'topk', a number k of thresholds, or a list of floats."""
    if text is None:
        return None
    if text in ("exact", "ranks", "topk"):
        return text
    try:
        k = int(text)
    except ValueError:
        pass
    else:
        if k < 1:
            raise ParameterError(
                f"--thresholds {text}: an integer is a number of thresholds k >= 1; for one "
                f"threshold at {k} write {k}.0."
            )
        return k
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise ParameterError(
            f"--thresholds must be 'exact', an integer k, or comma-separated floats. Got {text!r}."
        ) from None


def split(text: str | None):
    """A comma-separated option (``--classes``, ``--properties``) as a list, None when not given."""
    return None if text is None else [c.strip() for c in text.split(",") if c.strip()]


# -- single options, in the words most commands use ---------------------------------------------


def inputs(p, help: str = INPUTS) -> None:
    """The input files, folders and globs."""
    p.add_argument("inputs", nargs="+", help=help)


def gold(p) -> None:
    """--gold, a separate gold table."""
    p.add_argument("--gold", help="gold labels keyed by (topic, item)")


def measures(p, help: str = "comma-separated measure specs (default by task)") -> None:
    """--measures, the measure specs."""
    p.add_argument("--measures", default=None, help=help)


def by(p, help: str = "grouping columns (default system,topic when present)") -> None:
    """--by, the grouping columns."""
    p.add_argument("--by", default=None, help=help)


def task(p, help: str | None = None) -> None:
    """--task, the kind of labels."""
    p.add_argument("--task", choices=("auto", "binary", "multiclass", "multilabel"), default="auto", help=help)


def classes(p, help: str = "comma-separated class labels in order") -> None:
    """--classes, the class labels in order."""
    p.add_argument("--classes", help=help)


def category(p) -> None:
    """--category, the category column of multilabel input in long form."""
    p.add_argument("--category", help="multilabel input with one row per (item, category): the category column")


def scheduler(p, help: str = SCHEDULER) -> None:
    """--scheduler, counting on Dask."""
    p.add_argument("--scheduler", help=help)


def thresholds(p, help: str = THRESHOLDS, default: str | None = None) -> None:
    """--thresholds, the thresholds of a sweep."""
    p.add_argument("--thresholds", default=default, help=help)


def grid(p, help: str, choices: tuple = GRIDS, default: str = "global") -> None:
    """--grid, where k thresholds are placed."""
    p.add_argument("--grid", choices=choices, default=default, help=help)


def ties(p, help: str = "--thresholds ranks: order of equal scores") -> None:
    """--ties, the order of equal scores in ranks."""
    p.add_argument("--ties", choices=("input", "item", "trec"), default="input", help=help)


def missing(p, help: str | None = None) -> None:
    """--missing, gold items a run lacks."""
    p.add_argument("--missing", choices=("error", "negative", "drop"), default="error", help=help)


def profile(p) -> None:
    """--profile and --complete, an official scorer's conventions in one word."""
    p.add_argument(
        "--profile",
        choices=("trec_eval", "trec_eval9", "semeval2016"),
        default=None,
        help="an official scorer's conventions (docs/guides/conventions.md): ranked lists counted and scored as "
        "trec_eval 10 (trec_eval9: 32-bit scores, as 9.x and pytrec_eval) or the SemEval-2016 Task 3 scorer; an "
        "option given explicitly wins",
    )
    p.add_argument(
        "--complete",
        action="store_true",
        help="with --profile trec_eval|trec_eval9: every gold topic counts, 0 where a run lacks it (trec_eval -c)",
    )


def undefined(p, help: str) -> None:
    """--undefined, the value of undefined cells."""
    p.add_argument("--undefined", type=float, default=None, help=help)


def ci(p, help: str) -> None:
    """--ci, a confidence level."""
    p.add_argument("--ci", type=float, default=None, help=help)


def resamples(p, help: str, low: int = 1, default: int | None = 1000) -> None:
    """--resamples, bootstrap replicates."""
    p.add_argument("--resamples", type=int_at_least(low), default=default, help=help)


def test_resamples(p) -> None:
    """--test-resamples, the resamples of the resampling tests (apart from the intervals')."""
    p.add_argument(
        "--test-resamples",
        type=int_at_least(1),
        default=None,
        help="resamples of --significance fisher|bootstrap|item-bootstrap (default: as many as the correction "
        "needs to reach a tenth of --alpha, at least 1000)",
    )


def ci_resamples(p) -> None:
    """--ci-resamples, the replicates of the intervals (apart from the tests')."""
    p.add_argument(
        "--ci-resamples", type=int_at_least(10), default=None, help="replicates of the --ci intervals (default 1000)"
    )


def alpha(p, help: str) -> None:
    """--alpha, a significance level."""
    p.add_argument("--alpha", type=float, default=0.05, help=f"{help} (default 0.05)")


def seed(p, help: str) -> None:
    """--seed, the seed of the command's random choices."""
    p.add_argument("--seed", type=seed_type, default=0, help=help)


def smoothing(
    p, help: str | None = "smoothed probability estimates (Amigó et al. 2019, §5) for smoothable measures"
) -> None:
    """--smoothing, smoothed probability estimates."""
    p.add_argument("--smoothing", choices=("laplace", "noninformative"), default=None, help=help)


def out(p, help: str) -> None:
    """--out, the output file."""
    p.add_argument("--out", help=help)


def table_out(p, what: str) -> None:
    """--out of a table: written in the format of the file's suffix, printed without it."""
    out(p, f"write {what} ({TABLE_FILES}) instead of printing it")


def long_table(p) -> None:
    """--long: the tidy table of a leaderboard instead of its printed layout."""
    p.add_argument(
        "--long",
        action="store_true",
        help="with --out: write the tidy long table (one row per system or baseline and measure: macro, micro, "
        "topics, rank, ...) instead of the ranked board",
    )


def rank_by(p) -> None:
    """--rank-by: the measure a leaderboard ranks by."""
    p.add_argument(
        "--rank-by",
        default=None,
        metavar="MEASURE",
        help="rank by this measure's macro mean over topics (added to --measures if missing) (default: the first "
        "of --measures)",
    )


def quiet(p, help: str = QUIET) -> None:
    """--quiet, no progress bar."""
    p.add_argument("--quiet", action="store_true", help=help)


def cost(p) -> None:
    """--cost, of the commands that evaluate k_cost."""
    p.add_argument(
        "--cost",
        default=None,
        metavar="ordinal|unit|FILE",
        help="cost matrix for k_cost: 'ordinal' = |i - j| over the class order, 'unit' = 1 off the diagonal, or a "
        "CSV/Parquet file: square (a header of class labels, the true class in the first column) or long "
        "(true,pred,cost); costs >= 0, 0 on the diagonal",
    )


def multiclass(p) -> None:
    """--multiclass, how class probabilities are swept."""
    p.add_argument(
        "--multiclass",
        choices=("ovr", "ovo"),
        default="ovr",
        help="class probabilities swept (--thresholds exact|k): one sweep per class against the rest, or per "
        "ordered pair of classes (roc_auc@macro is then Hand & Till's multiclass AUC)",
    )


# -- groups of options --------------------------------------------------------------------------


def counting(p) -> None:
    """The input and how it is counted, as the commands that rank systems take them."""
    inputs(p)
    gold(p)
    measures(p)
    by(p)
    missing(p)
    task(p)
    classes(p)
    seed(p, "seed of every random choice (default 0)")
    quiet(p)
    scheduler(p, SCHEDULER + " (needs the [dask] extra)")


def tables_out(p, what: str, detail: str, replicates: str, default: int | None = 1000) -> None:
    """--out, --detail, --resamples and --smoothing of the jobs whose result is a summary and a detail."""
    table_out(p, what)
    p.add_argument("--detail", help=f"write {detail} to this file ({TABLE_FILES})")
    resamples(p, f"{replicates}" + (f" (default {default})" if default is not None else ""), default=default)
    smoothing(p)


def selection(p, grids: tuple = GRIDS, default: str = "system") -> None:
    """--grid, --select and --folds: thresholds chosen on held-out data."""
    # only sweep offers "auto"; leaderboard's and meta's help named it and hid their default, system
    auto = "; auto: system when some system's range covers less than half of all" if "auto" in grids else ""
    grid(
        p,
        "with --thresholds k: each system's own range (system), its score quantiles (quantile) or one grid "
        f"over all scores (global){auto} (default {default})",
        grids,
        default,
    )
    p.add_argument(
        "--select",
        choices=("same", "cross-topic", "split-half"),
        default="same",
        help="choose each threshold on the data it is scored on (same), on the other topics (cross-topic) or on "
        "the other half of each topic's items (split-half); the last two report held-out values and the optimism",
    )
    p.add_argument(
        "--folds",
        type=int_at_least(2),
        default=None,
        help="cross-topic: topic folds (default: leave one topic out)",
    )


def sweeping(p) -> None:
    """A sweep counted for the jobs that rank systems (leaderboard, meta)."""
    thresholds(
        p,
        "count a sweep: 'exact' (every score) or 'ranks' (each topic's items ranked) for curve and "
        "ranking measures (roc_auc, average_precision, ranked_ap, ...); an int k with --select",
    )
    selection(p)
    ties(p)
    undefined(p, "value for undefined values (default NaN: left out of means)")


def columns(p, probabilities: bool = False) -> None:
    """The names of the runs' columns, the same options on every command that reads runs."""
    group = p.add_argument_group("columns of the runs (and of a separate --gold)")
    group.add_argument(
        "--system",
        default="system",
        metavar="COL",
        help="the column playing the system: any grouping column, e.g. annotator (default system; "
        "outputs keep its name)",
    )
    group.add_argument(
        "--topic", default="topic", metavar="COL", help="the column playing the topic, in runs and gold (default topic)"
    )
    group.add_argument("--item", default="item", metavar="COL", help="the item column, in runs and gold (default item)")
    group.add_argument(
        "--gold-column", default="gold", metavar="COL", help="the gold label column, in runs or gold (default gold)"
    )
    group.add_argument("--pred", default="pred", metavar="COL", help="the hard-prediction column (default pred)")
    per_class = (
        "; a list column, or COL1,COL2,... one per class, holds class probabilities (argmax predictions; "
        "--thresholds topk|exact|k for top-k accuracy and per-class sweeps)"
    )
    group.add_argument(
        "--score",
        default="score",
        metavar="COL",
        help="the score column (default score)" + (per_class if probabilities else ""),
    )
    group.add_argument(
        "--weight", default=None, metavar="COL", help="a column of item weights (costs): weighted counts (default none)"
    )


def reading(p) -> None:
    """How the input and the gold are read: format, relevance level, unjudged items, skipped files."""
    p.add_argument(
        "--format",
        choices=[f for f in INPUT_FORMATS if f != "qrels"],
        default="auto",
        help="input format (default auto: by suffix, then by the first data line; 'run' = SemEval "
        "'topic item rank score label', 'trec' = 'qid Q0 docno rank score tag')",
    )
    p.add_argument(
        "--relevance-level",
        type=float,
        default=None,
        help="graded gold made binary: relevant iff grade >= this level (TREC qrels: default 1; "
        "a numeric gold column of another --gold file: when given)",
    )
    p.add_argument(
        "--unjudged",
        choices=("error", "negative"),
        default="error",
        help="run items the --gold lacks: an error (default), or non-relevant as trec_eval reads qrels "
        "(TREC runs: --unjudged negative --missing negative)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="list the files of the input folders that are skipped (README, .score, hidden files, ...) and why",
    )


def runs(p, probabilities: bool = False) -> None:
    """The reading and column options, last in the help of every command that reads runs."""
    reading(p)
    columns(p, probabilities)
    if probabilities:
        multiclass(p)
