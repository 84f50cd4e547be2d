"""Compare: kernel outputs against the float64 reference, under the tolerance model ."""

from ._compare import BaselineCheck, Comparison, Mismatch, compare, expected_in, mismatch_mask
from ._locate import Confined, Location, ValueBand, confined, locate, value_band
from ._noop import NoopVerdict, noop_guard
from ._tolerance import Tolerance, reduction_length, rms, rms_of_inputs, tolerance_for

__all__ = ["BaselineCheck", "Comparison", "Confined", "Location", "Mismatch", "NoopVerdict", "Tolerance", "ValueBand",
           "compare", "confined", "expected_in", "locate", "mismatch_mask", "noop_guard", "reduction_length", "rms",
           "rms_of_inputs", "tolerance_for", "value_band"]
