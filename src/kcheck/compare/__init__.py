"""Compare: kernel outputs against the float64 reference, under the tolerance model ."""

from ._compare import BaselineCheck, Comparison, Mismatch, compare, expected_in, mismatch_mask
from ._locate import (
    EDGE_BAND_MAX_SHARE,
    Confined,
    EdgeBand,
    Location,
    ValueBand,
    confined,
    edge_band,
    locate,
    slice_hits,
    value_band,
)
from ._noop import NoopVerdict, noop_guard
from ._tolerance import Tolerance, reduction_length, rms, rms_of_inputs, tolerance_for

__all__ = ["EDGE_BAND_MAX_SHARE", "BaselineCheck", "Comparison", "Confined", "EdgeBand", "Location", "Mismatch",
           "NoopVerdict", "Tolerance", "ValueBand", "compare", "confined", "edge_band", "expected_in", "locate",
           "mismatch_mask", "noop_guard", "reduction_length", "rms", "rms_of_inputs", "slice_hits", "tolerance_for",
           "value_band"]
