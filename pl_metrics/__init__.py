"""Evaluation metrics native to polars: lazy, grouped, and equal to scikit-learn.

Importing the package registers the ``.metrics`` namespace on DataFrame and LazyFrame.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from pl_metrics import _namespace, expr  # noqa: F401  (_namespace registers .metrics)
from pl_metrics._adapters import from_numpy, from_wide
from pl_metrics._compare import bootstrap, compare, paired
from pl_metrics._curve_tables import (
    binary_log_loss,
    brier_score,
    calibration_curve,
    expected_calibration_error,
    precision_recall_curve,
    roc_curve,
)
from pl_metrics._curves import average_precision, padded_cmap, roc_auc, top_k_accuracy
from pl_metrics._driver import cluster_by_id, scan, score
from pl_metrics._frame import MetricsInputError, UnknownOptionError
from pl_metrics._logloss import log_loss, weighted_log_loss
from pl_metrics._ndcg import ndcg
from pl_metrics._ranking import coverage_error, label_ranking_loss, lrap, lwlrap
from pl_metrics._registry import metric_names
from pl_metrics._report import MetricOptions, chunk_key, merge_states, report, state
from pl_metrics._state import MetricState
from pl_metrics._thresholded import (
    accuracy,
    balanced_accuracy,
    balanced_f1,
    confusion,
    f1,
    fbeta,
    hamming_loss,
    jaccard,
    matthews_corrcoef,
    mfif,
    precision,
    recall,
    specificity,
)
from pl_metrics._thresholds import best_threshold, threshold_sweep

__all__ = [
    "MetricOptions",
    "MetricState",
    "MetricsInputError",
    "UnknownOptionError",
    "accuracy",
    "average_precision",
    "balanced_accuracy",
    "balanced_f1",
    "best_threshold",
    "binary_log_loss",
    "bootstrap",
    "brier_score",
    "calibration_curve",
    "chunk_key",
    "cluster_by_id",
    "compare",
    "confusion",
    "coverage_error",
    "expected_calibration_error",
    "expr",
    "f1",
    "fbeta",
    "from_numpy",
    "from_wide",
    "hamming_loss",
    "jaccard",
    "label_ranking_loss",
    "log_loss",
    "lrap",
    "lwlrap",
    "matthews_corrcoef",
    "merge_states",
    "metric_names",
    "mfif",
    "ndcg",
    "padded_cmap",
    "paired",
    "precision",
    "precision_recall_curve",
    "recall",
    "report",
    "roc_auc",
    "roc_curve",
    "scan",
    "score",
    "specificity",
    "state",
    "threshold_sweep",
    "top_k_accuracy",
    "weighted_log_loss",
]

try:
    __version__ = _metadata.version("pl_metrics")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
