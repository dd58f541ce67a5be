"""Comparing results with a reference, with IEEE special values taken as data.

`ge-run --check` and `ge-dump-compare` both ask "how far is ours from the
reference?". Two results that are NaN at the same places, or the same
infinity at the same places, agree there (a graph fed NaN or Inf inputs
propagates them the same way on both sides); NaN on one side only, or an
infinity against a finite value or the opposite infinity, is an infinite
error. Nothing here emits NumPy warnings.

```python
max_abs_error(np.array([np.nan, 1.0]), np.array([np.nan, 1.5]))  # 0.5
max_abs_error(np.array([np.inf]), np.array([1.0]))                # inf
largest_magnitude(np.array([np.inf, -3.0, np.nan]))               # 3.0
```
"""

from __future__ import annotations

import numpy as np

DEFAULT_RTOL = 1e-3
"""How far ours may be from the reference, relative to the reference's
largest magnitude, by default (`ge-dump-compare --rtol`)."""
DEFAULT_ATOL = 1e-6
"""How far ours may be from the reference in absolute terms, by default
(`ge-dump-compare --atol`)."""


def max_abs_error(ours: np.ndarray, reference: np.ndarray) -> float:
    """max |ours - reference| over the elements, special values as above
    (strings: 0 where all are equal, else infinity)."""
    if is_text(reference):
        return 0.0 if np.array_equal(ours, reference) else float("inf")
    a = np.atleast_1d(np.asarray(ours, dtype=np.float64))
    b = np.atleast_1d(np.asarray(reference, dtype=np.float64))
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.abs(a - b)
    difference[same] = 0.0
    difference[np.isnan(difference)] = np.inf
    return float(difference.max(initial=0.0))


def largest_magnitude(reference: np.ndarray) -> float:
    """max |reference| over its finite elements (0 if it has none or holds
    strings)."""
    if is_text(reference):
        return 0.0
    values = np.atleast_1d(np.asarray(reference, dtype=np.float64))
    finite = values[np.isfinite(values)]
    return float(np.abs(finite).max(initial=0.0))


def is_text(array: np.ndarray) -> bool:
    """Whether `array` holds strings (NumPy's `StringDType` or unicode)."""
    return np.asarray(array).dtype.kind in "TU"
