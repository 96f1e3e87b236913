"""The ``.metrics`` namespace on DataFrame and LazyFrame: forwards to the plain functions."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic

import polars as pl

from pl_metrics import _compare, _curves, _logloss, _ranking, _report, _thresholded
from pl_metrics._frame import FrameT

__all__ = ["MetricsNamespace"]


def _method(function: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``function(frame, **options)`` a namespace method ``frame.metrics.function``."""

    @functools.wraps(function)
    def method(self: MetricsNamespace[Any], *args: Any, **options: Any) -> Any:
        return function(self._frame, *args, **options)

    return method


@pl.api.register_dataframe_namespace("metrics")
@pl.api.register_lazyframe_namespace("metrics")
class MetricsNamespace(Generic[FrameT]):
    """Metrics of a long prediction table; a LazyFrame in gives a LazyFrame out."""

    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    lwlrap = _method(_ranking.lwlrap)
    lrap = _method(_ranking.lrap)
    coverage_error = _method(_ranking.coverage_error)
    label_ranking_loss = _method(_ranking.label_ranking_loss)
    confusion = _method(_thresholded.confusion)
    f1 = _method(_thresholded.f1)
    precision = _method(_thresholded.precision)
    recall = _method(_thresholded.recall)
    balanced_accuracy = _method(_thresholded.balanced_accuracy)
    balanced_f1 = _method(_thresholded.balanced_f1)
    mfif = _method(_thresholded.mfif)
    log_loss = _method(_logloss.log_loss)
    weighted_log_loss = _method(_logloss.weighted_log_loss)
    report = _method(_report.report)
    state = _method(_report.state)
    roc_auc = _method(_curves.roc_auc)
    average_precision = _method(_curves.average_precision)
    padded_cmap = _method(_curves.padded_cmap)
    top_k_accuracy = _method(_curves.top_k_accuracy)
    compare = _method(_compare.compare)
    bootstrap = _method(_compare.bootstrap)
    paired = _method(_compare.paired)
