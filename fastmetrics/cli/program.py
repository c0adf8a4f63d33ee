"""The ``fastmetrics`` program: the parser assembled from the command modules, and :func:`main`,
which runs a command and turns every mistake the user can make into one line and exit status 2."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings

from .. import __version__
from .._errors import FastmetricsError, ParameterError
from . import axioms, compare, count, demo, evaluate, leaderboard, measures, meta, report, sweep
from .output import forget_inputs_hashing, hash_inputs_early
from .process import Terminated, install_handlers, main_thread, skip_unused_imports
from .reading import read_gold_once

# in the order of the program's help; each module's add_parser declares the command beside its action
COMMANDS = (measures, evaluate, count, leaderboard, compare, meta, sweep, report, axioms, demo)


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's one rule: a usage mistake is one line, exit 2."""

    def error(self, message):
        self.exit(2, f"fastmetrics: error: {self.prog}: {message} (see '{self.prog} --help').\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``fastmetrics`` argument parser, one subcommand per command module.

    Returns
    -------
    argparse.ArgumentParser
        The program's parser; each subcommand's parser sets ``func``, the action it runs.
    """
    description = "Classification evaluation at leaderboard scale. 'fastmetrics COMMAND --help' describes a command."
    parser = _Parser(prog="fastmetrics", description=description)
    parser.add_argument("--version", action="version", version=f"fastmetrics {__version__}")
    parser.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="largest tensor to allocate, e.g. 64G (default: the memory available now; "
        "FASTMETRICS_MEMORY_LIMIT in the environment does the same)",
    )
    parser.add_argument(
        "--no-native",
        action="store_true",
        help="read every input file with pyarrow only, not with fastmetrics' own Parquet, CSV and run-file "
        "readers (the counts are the same; FASTMETRICS_NATIVE=0 in the environment does the same)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_parser(sub)
    for command in sub.choices.values():
        _say_defaults(command)
    return parser


def _say_defaults(parser) -> None:
    """Every option's help says its default: those whose text does not get ``(default X)``."""
    for action in parser._actions:
        if action.help and action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
            if "default" not in action.help.lower():
                action.help += f" (default {action.default})"


def main(argv=None, *, own_process: bool = False) -> int:
    """Run the command line; returns the exit status.

    0 on success; 2 for every failure the input, the options or the environment cause (one line
    ``fastmetrics: error: ...`` on stderr); 130 after Ctrl-C and 143 after SIGTERM (one line, no
    output file left behind). A bug of fastmetrics keeps its traceback (exit 1).

    With ``own_process`` (the ``fastmetrics`` program, :func:`run`) the process skips imports
    the command never uses (:func:`~fastmetrics.cli.process.skip_unused_imports`); a caller's
    process is left as it is.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program's name (default: ``sys.argv[1:]``).
    own_process : bool, default False
        Whether the process is the ``fastmetrics`` program's own.

    Returns
    -------
    int
        The exit status.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    parser.typed = _typed_options(sys.argv[1:] if argv is None else argv)
    if own_process:
        skip_unused_imports(args)
    previous = install_handlers() if main_thread() else {}
    try:
        _refuse_contradictions(args)
        _refuse_unused(args, parser.typed)
        hash_inputs_early(args)
        if args.memory_limit is not None:
            from .. import _memory

            os.environ[_memory.ENV] = str(_memory.parse_size(args.memory_limit))
        from ..io.native import setting

        with setting(False if args.no_native else None), warnings.catch_warnings():
            if hasattr(args, "inputs") and hasattr(args, "relevance_level"):
                read_gold_once(args)
            warnings.simplefilter("ignore", RuntimeWarning)
            args.func(args)
    except FastmetricsError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system refused a path the user gave (permission, full disk ...)
        where = f" '{exc.filename}'" if exc.filename else ""
        return _fail(f"cannot use{where}: {exc.strerror or exc}.")
    except MemoryError:
        return _fail(
            "out of memory while counting or evaluating: use fewer thresholds, fewer --by axes, "
            "or count on Dask (--scheduler)."
        )
    except Terminated:
        print("fastmetrics: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("fastmetrics: interrupted", file=sys.stderr)
        return 130
    finally:
        forget_inputs_hashing()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def run() -> int:
    """Run the ``fastmetrics`` program: :func:`main` in a process of its own.

    The console script and ``python -m fastmetrics`` call it.

    Returns
    -------
    int
        The exit status, as :func:`main` returns it.
    """
    return main(own_process=True)


def _fail(message: str) -> int:
    print(f"fastmetrics: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _refuse_contradictions(args) -> None:
    """Refuse an option that the others would leave without effect, and two outputs on one file."""
    given = {name: getattr(args, name, None) for name in ("ci", "ci_method", "folds", "select", "significance")}
    needs = [
        ("--ci-method", given["ci_method"] is not None and given["ci"] is None, "--ci", "the intervals it chooses"),
        ("--folds", given["folds"] is not None and given["select"] != "cross-topic", "--select cross-topic", "folds"),
    ]
    for option in ("correction", "holm"):  # compare corrects its post-hoc tests: it has no --significance
        if getattr(args, option, None) and hasattr(args, "significance") and given["significance"] is None:
            needs.append((f"--{option}", True, "--significance", "the paired tests whose p-values it corrects"))
    for option, unused, wanted, what in needs:
        if unused:
            raise ParameterError(f"{option} has no effect without {wanted} ({what}): add {wanted} or drop {option}.")
    if getattr(args, "holm", False) and getattr(args, "correction", None) not in (None, "holm"):
        raise ParameterError(f"--holm and --correction {args.correction} ask for two corrections: give one.")
    outputs = [(f"--{o}", getattr(args, o, None)) for o in ("out", "detail", "curves")]
    outputs = [(o, os.path.realpath(v)) for o, v in outputs if v]
    for i, (option, path) in enumerate(outputs):
        for other, same in outputs[:i]:
            if path == same:
                raise ParameterError(f"{other} and {option} name the same file '{path}': give each its own.")


def _typed_options(argv) -> set:
    """The long options the user typed (``--name`` or ``--name=value``), defaults left out."""
    return {str(token).split("=", 1)[0] for token in argv if str(token).startswith("--")}


_RESAMPLED = "--significance fisher, bootstrap or item-bootstrap (the tests that resample)"


def _refuse_unused(args, typed: set) -> None:
    """Refuse an option typed where the command would leave it without effect."""
    command = getattr(args, "command", None)
    job = getattr(args, "job", None)
    ranks = str(getattr(args, "thresholds", None)) == "ranks"
    significance = getattr(args, "significance", None)
    intervals = getattr(args, "ci", None) is not None or significance is not None
    unused = [
        ("--relevance-level", getattr(args, "gold", None) is None, "a --gold file (the grades it reads)"),
        ("--missing", getattr(args, "gold", None) is None, "a --gold file (items the runs miss)"),
        ("--unjudged", getattr(args, "gold", None) is None, "a --gold file (items it does not judge)"),
        ("--ties", not ranks, "--thresholds ranks (the order of equal scores)"),
        ("--resamples", command in ("evaluate", "leaderboard") and not intervals, "--ci or --significance"),
        ("--test-resamples", significance not in ("fisher", "bootstrap", "item-bootstrap"), _RESAMPLED),
        ("--ci-resamples", getattr(args, "ci", None) is None, "--ci"),
        ("--rope", significance != "bayes", "--significance bayes"),
        ("--alpha", command == "leaderboard" and significance is None, "--significance (the tiers' level)"),
        ("--pairs", command == "meta" and job != "robustness", "meta robustness"),
        ("--splits", command == "meta" and job != "stability", "meta stability"),
    ]
    for option, idle, wanted in unused:
        if option in typed and idle:
            raise ParameterError(f"{option} has no effect without {wanted}: add it or drop {option}.")
