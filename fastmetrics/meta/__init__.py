"""Meta-evaluation jobs: which measure to trust.

strictness and robustness (seed 004 §6.3-6.4), split-half stability (seed 001 §5), inconsistency
between measures (seed 003 §5), paired significance and discriminative power. Each returns a
:class:`MetaResult` of tidy Arrow tables; every random choice takes a ``seed``. The axiomatic
property checker is the package :mod:`fastmetrics.meta.axioms` (imported on its own).
"""

from ._common import MetaResult
from .inconsistency import inconsistency
from .robustness import robustness
from .significance import holm, power, significance
from .stability import stability
from .strictness import strictness

__all__ = ["MetaResult", "holm", "inconsistency", "power", "robustness", "significance", "stability",
           "strictness"]
