"""Scorer profiles: an official scorer's conventions in one word, as plain data.

A profile is what a counting and an evaluation must be told to give the numbers an official
scorer prints: the keyword values of the count (how a ranked list is ordered, what an unjudged
or a missing item is) and the conventions of the measures (what an undefined value becomes,
which topics the means run over). :func:`with_profile` merges a profile *under* the keywords a
user gives: an explicit keyword always wins.

======================  =========================================================================
profile                 what it sets
======================  =========================================================================
``trec_eval``           trec_eval 10.0: ranks by score, equal scores by decreasing document id
                        (``ties="trec"``), the rank column ignored; unjudged documents
                        non-relevant, judged ones never retrieved counted as missed
                        (``unjudged="negative"``, ``missing="negative"``); relevant from grade 1
                        (``relevance_level``, trec_eval's ``-l``); a topic without a relevant
                        document scores 0 (``undefined=0``); run topics absent from the qrels
                        ignored (``topics="gold"``); ``complete=True`` is ``-c``: every qrels
                        topic a run lacks scores 0 and counts in the means.
``trec_eval9``          The same with scores rounded to 32-bit floats before ranking
                        (``score_bits=32``), as trec_eval up to 9.x and pytrec_eval rank:
                        scores equal in 32 bits tie there.
``semeval2016``         The SemEval-2016 Task 3 scorer (Nakov et al., 2016): ranks by score,
                        equal scores in input order (``ties="input"``), MAP and MRR of a topic
                        without a relevant item 0 (``undefined=0``); AvgRec pooled over the
                        questions; P, R, F1 and accuracy of the ``true`` class pooled over the
                        items each run labels (micro; an item a run lacks is left out of them,
                        as ranked last for MAP, AvgRec and MRR). Its measures are the official
                        table's: MAP, AvgRec, MRR, P, R, F1, Acc.
======================  =========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .._errors import ParameterError, suggest

_TREC_COUNT = {"thresholds": "ranks", "ties": "trec", "unjudged": "negative", "missing": "negative"}
# the measures of trec_eval's default output that a leaderboard averages (bpref reads graded
# judgements, see fastmetrics.count_graded), when no measure is named
_TREC_MEASURES = ("map", "gm_map", "Rprec", "recip_rank", "P_5", "P_10", "P_20", "P_100")
_TREC_CONVENTIONS = {"undefined": 0.0, "topics": "gold", "complete": False, "score_bits": 64, "relevance_level": 1}

PROFILES = MappingProxyType(
    {
        "trec_eval": {"count": _TREC_COUNT, "conventions": _TREC_CONVENTIONS, "measures": _TREC_MEASURES},
        "trec_eval9": {
            "count": _TREC_COUNT,
            "conventions": {**_TREC_CONVENTIONS, "score_bits": 32},
            "measures": _TREC_MEASURES,
        },
        "semeval2016": {
            # the official table's columns, when no measure is named
            "measures": (
                "ranked_ap_retrieved(cutoff=10)",
                "avgrec(cutoff=10)",
                "reciprocal_rank(cutoff=10)",
                "precision",
                "recall",
                "f1",
                "accuracy",
            ),
            "count": {"ties": "input", "missing": "negative"},
            # P, R, F1 and accuracy over the items each run labels: one it lacks is left out
            "hard": {"missing": "drop"},
            "conventions": {"undefined": 0.0, "topics": "runs", "complete": False, "average": "micro"},
        },
    }
)
CONVENTIONS = ("undefined", "topics", "complete", "score_bits", "relevance_level", "average")


def with_profile(profile: str | None, explicit: Mapping[str, object]) -> tuple[dict, dict]:
    """A profile's settings with the user's explicit keywords over them.

    Parameters
    ----------
    profile : str or None
        A name of :data:`PROFILES`, or None (no profile: the keywords as given).
    explicit : mapping
        The keywords the user gave (count options and conventions alike); they win over the
        profile's.

    Returns
    -------
    count_options : dict
        The keywords of the count: the profile's, then the user's count keywords.
    conventions : dict
        ``undefined``, ``topics`` (``"gold"``: run topics absent from the gold ignored;
        ``"runs"``: kept), ``complete``, ``score_bits`` (32: scores rounded to float32 before
        ranking), ``relevance_level`` and ``average``: the profile's, then the user's.

    Raises
    ------
    ParameterError
        An unknown profile.
    """
    if profile is None:
        base = {"count": {}, "conventions": {}}
    elif isinstance(profile, str) and profile in PROFILES:
        base = PROFILES[profile]
    else:
        raise ParameterError(
            f"Unknown profile {profile!r} (--profile); profiles: {', '.join(PROFILES)}."
            + (suggest(profile, list(PROFILES)) if isinstance(profile, str) else "")
        )
    count_options = {**base["count"], **{k: v for k, v in explicit.items() if k not in CONVENTIONS}}
    conventions = {**base["conventions"], **{k: v for k, v in explicit.items() if k in CONVENTIONS}}
    return count_options, conventions
