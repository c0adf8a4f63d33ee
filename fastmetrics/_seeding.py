"""Seeds of every random choice (splits, topic pairs, resamples): same seed, same result.

Outside the stages, so that counting (split halves) and meta-evaluation share one rule.
"""

from __future__ import annotations

import numpy as np

from ._errors import ParameterError


def rng_of(seed) -> np.random.Generator:
    """A numpy Generator from an integer seed >= 0; anything else is refused."""
    if seed is None or isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"A seed must be an integer >= 0 (same seed, same result); got {seed!r}.")
    return np.random.default_rng(int(seed))


def seed_key(seed) -> int:
    """The 64-bit key of a seed (refused as :func:`rng_of` refuses it): the first word of numpy's
    ``SeedSequence(seed).generate_state(1, uint64)``, which counter-based draws (split halves)
    hash with what they draw for."""
    rng_of(seed)
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])
