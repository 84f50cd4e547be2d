"""Size sets per named dimension: degenerate, non-aligned and threshold sizes."""

from __future__ import annotations

from .._spec import Dim

DEGENERATE = (0, 1)
NON_ALIGNED = (17, 63, 129)
THRESHOLDS = (31, 32, 33, 63, 64, 65, 127, 128, 129)
#: An odd size every default matrix uses where "one shape that is not a power of two" is wanted.
ODD = 129
INT32_LIMIT = 2**31


def fit(dim: Dim, size: int) -> int:
    """Clip ``size`` into the dimension's declared constraints (min, max, multiple_of); 0 stays 0 while min is 0.

    The result always satisfies the constraints: a Dim whose constraints allow no size is refused when it is built.
    """
    return dim.clip(size)


def systematic(dim: Dim) -> list[tuple[int, str]]:
    """The sizes of one dimension with the reason each is there, in order, without repeats."""
    if dim.sizes is not None:
        raw = [(int(s), "declared") for s in dim.sizes]
    else:
        raw = [(s, "degenerate") for s in DEGENERATE]
        raw += [(s, "non-aligned") for s in NON_ALIGNED]
        raw += [(s, "threshold") for s in THRESHOLDS]
        raw += [(dim.nominal, "nominal")]
    seen: set[int] = set()
    out = []
    for s, why in raw:
        f = fit(dim, s)
        if f not in seen:
            seen.add(f)
            out.append((f, why))
    return out


def real_sizes(dim: Dim) -> list[int]:
    return [fit(dim, s) for s in dim.real]
