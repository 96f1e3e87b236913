"""Evaluation metrics native to polars: lazy, grouped, and equal to scikit-learn.

Importing the package registers the ``.metrics`` namespace on DataFrame and LazyFrame.
"""

from __future__ import annotations

from pl_metrics import _namespace  # noqa: F401  (registers the .metrics namespace)
from pl_metrics._frame import MetricsInputError
from pl_metrics._ranking import coverage_error, label_ranking_loss, lrap, lwlrap

__all__ = [
    "MetricsInputError",
    "coverage_error",
    "label_ranking_loss",
    "lrap",
    "lwlrap",
]
__version__ = "0.1.0"
