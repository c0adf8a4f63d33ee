"""The axiomatic property checker: each measure's profile, decided by enumeration.

Every property of Sebastiani (2015), Gösgens et al. (2021) and Amigó et al. (2019) is decided by
running the measure's vectorized kernel
over *all* confusion matrices with ``1 <= n <= n_max`` (and, where the property is about
expectations, by exact hypergeometric or binomial sums). A failing property comes with the
smallest counterexample found (smallest n first). "Holds" therefore means "holds for every test
set up to n_max" -- a proof for the finite cases, evidence beyond them. Measures are oriented so
that higher is better, as Gösgens et al. (2021, §3) does.

Layout
------
- :mod:`.properties` -- the registry: one :class:`~.properties.Property` record per property
  (id, seed, section, title, one-line definition, binary check, multiclass check);
- :mod:`.sebastiani`, :mod:`.goesgens`, :mod:`.amigo` -- the checks of Sebastiani (2015),
  Gösgens et al. (2021) and Amigó et al. (2019), named after their paper (``sebastiani_sym`` is
  Sebastiani's (2015) ``SYM``, ``goesgens_sym`` Gösgens et al.'s (2021) ``sym``);
- :mod:`.engines` -- what several properties share, written once over m x m matrices
  (extremes, invariances, monotone moves, constancy); the binary case is m = 2;
- :mod:`.spaces` -- the measure on every enumerated matrix and the wording of counterexamples
  (binary ``(tp, fp, fn, tn)``, multiclass ``[c00 c01; ...]``); :mod:`.evaluators` -- the
  measure as an oriented function of counts or matrices;
- :mod:`.matrices` -- the enumerator (all matrices up to n, all labelings of a few items);
- :mod:`.random_classifier` -- every expectation over a random classifier, on top of
  :mod:`fastmetrics.measures.chance`;
- :mod:`.table3` -- Gösgens et al. (2021, Table 3) (indistinguishable measures);
- :mod:`.api` -- :func:`check`, :func:`check_multiclass`, :func:`axioms`.

Measures a user writes are registered with :func:`fastmetrics.measures.registry.register_function`
(re-exported here) and checked like the built-in ones.
"""

from ...measures.registry import register_function
from .api import DEFAULT_N_MAX, Verdict, axioms, check, check_multiclass
from .evaluators import BinaryMeasure, MatrixMeasure
from .matrices import all_class_matrices, all_matrices
from .properties import AUTHORS, MULTICLASS_PROPERTIES, PROPERTIES, REGISTRY, Property
from .random_classifier import expected_random
from .sebastiani import N_CON
from .spaces import EQ, N_DIST, N_DIST_MULTICLASS, TOL, BinarySpace, MatrixSpace
from .table3 import indistinguishable

__all__ = [
    "AUTHORS",
    "DEFAULT_N_MAX",
    "EQ",
    "MULTICLASS_PROPERTIES",
    "N_CON",
    "N_DIST",
    "N_DIST_MULTICLASS",
    "PROPERTIES",
    "REGISTRY",
    "TOL",
    "BinaryMeasure",
    "BinarySpace",
    "MatrixMeasure",
    "MatrixSpace",
    "Property",
    "Verdict",
    "all_class_matrices",
    "all_matrices",
    "axioms",
    "check",
    "check_multiclass",
    "expected_random",
    "indistinguishable",
    "register_function",
]
