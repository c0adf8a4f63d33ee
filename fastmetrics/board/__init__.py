"""Leaderboard stage: system scores aggregated over topics and ranked.

One job a module:

- :mod:`~fastmetrics.board.values`: what a leaderboard ranks (:class:`BoardValues`), each measure
  evaluated once over the per-topic, pooled and baseline counts (:func:`board_values`);
- :mod:`~fastmetrics.board.ranking`: the leaderboard table (:func:`rank_systems`) and
  :func:`leaderboard`, which makes it -- every measure in its own direction, competition ranks;
- :mod:`~fastmetrics.board.baselines`: the non-informative baselines (:func:`random_baseline`,
  :func:`baseline_counts`);
- :mod:`~fastmetrics.board.thresholds`: the best threshold of a sweep and thresholds chosen
  without leakage (:func:`best_thresholds`, :func:`held_out_scores`);
- :mod:`~fastmetrics.board.intervals`: intervals of macro and micro values and of ranks
  (:func:`board_intervals`);
- :mod:`~fastmetrics.board.compare`: many systems at once (:func:`compare`: Friedman's test,
  post-hoc tests, tiers, the critical-difference diagram's data), the Bayesian signed-rank test of
  every pair (:func:`bayesian_tests`) and a leaderboard's tiers (:func:`with_tiers`), on
  :mod:`~fastmetrics.board.friedman` and :mod:`~fastmetrics.board.bayes`.

The paired tests across topics are :mod:`fastmetrics.meta.paired` (run for every pair by
:func:`fastmetrics.meta.significance`), which :func:`leaderboard` runs when asked.
"""

from .baselines import BASELINES, baseline_counts, pooled_squares, random_baseline, random_baselines
from .bayes import signed_rank
from .compare import Comparison, bayesian_tests, compare, separated_pairs, test_sentence, with_tiers
from .friedman import POSTHOC, critical_difference, friedman_test, studentized_range_sf, tiers
from .intervals import INTERVAL_COLUMNS, ONE_TOPIC_NOTE, board_intervals, with_intervals
from .ranking import SIGNIFICANCE, leaderboard, rank_systems
from .thresholds import (
    SELECTIONS,
    SweepCube,
    best_thresholds,
    held_out,
    held_out_scores,
    one_sided,
    sweep_cube,
)
from .values import BoardValues, board_values

__all__ = [
    "BASELINES",
    "POSTHOC",
    "SIGNIFICANCE",
    "Comparison",
    "bayesian_tests",
    "compare",
    "critical_difference",
    "friedman_test",
    "separated_pairs",
    "signed_rank",
    "studentized_range_sf",
    "test_sentence",
    "tiers",
    "with_tiers",
    "INTERVAL_COLUMNS",
    "ONE_TOPIC_NOTE",
    "SELECTIONS",
    "BoardValues",
    "SweepCube",
    "baseline_counts",
    "best_thresholds",
    "board_intervals",
    "board_values",
    "held_out",
    "held_out_scores",
    "leaderboard",
    "one_sided",
    "pooled_squares",
    "random_baseline",
    "random_baselines",
    "rank_systems",
    "sweep_cube",
    "with_intervals",
]
