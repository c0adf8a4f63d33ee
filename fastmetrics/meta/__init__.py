"""Meta-evaluation jobs: which measure to trust.

Strictness and robustness (Amigó et al. 2019, §6.3-6.4), split-half stability (Steingold &
Laclavík n.d., §5), inconsistency between measures (Gösgens et al. 2021, §5), paired
significance and discriminative power. Each returns a :class:`MetaResult` of tidy Arrow tables;
every random choice takes a ``seed``. The axiomatic property checker is the package
:mod:`fastmetrics.meta.axioms` (imported on its own).
"""

from ._common import MetaResult, higher_is_better, labels_array, system_topic_values
from .inconsistency import inconsistency
from .items import adjust, item_tests, mcnemar_p
from .robustness import robustness
from .significance import holm, paired_p_values, power, significance
from .stability import stability
from .strictness import strictness

__all__ = [
    "MetaResult",
    "adjust",
    "item_tests",
    "mcnemar_p",
    "higher_is_better",
    "holm",
    "inconsistency",
    "labels_array",
    "paired_p_values",
    "power",
    "robustness",
    "significance",
    "stability",
    "strictness",
    "system_topic_values",
]
