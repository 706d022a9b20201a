"""imagelib's Python side: transforms and functions on images held as lists
of rows of 0..255 ints (no numpy). apistamp instruments it from the rules in
examples/imagelib/.apistamp.yaml (the rules with `language: python`)."""

from .functional import histogram, invert, threshold
from .transforms import Compose, Invert, Threshold, Transform

__all__ = ["Compose", "Invert", "Threshold", "Transform", "histogram",
           "invert", "threshold"]
