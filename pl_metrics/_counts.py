"""Metrics of a binary confusion matrix, as polars expressions over count expressions.

Shared by the table functions (per class, micro, per id) and the `pl_metrics.expr` builders,
so each formula and its zero-division rule is written once.
"""

from __future__ import annotations

import math

import polars as pl

from pl_metrics._frame import MetricsInputError, is_number, ordered_mean, ordered_sum, shown

__all__ = [
    "check_zero_division",
    "from_counts",
    "nanaverage",
]


def check_zero_division(zero_division: float) -> float:
    """Accept 0, 1 or NaN (as scikit-learn does); return it as a float."""
    if is_number(zero_division) and (zero_division in (0, 1) or math.isnan(zero_division)):
        return float(zero_division)
    warn = (
        " (scikit-learn's 'warn' gives 0, with a warning)" if str(zero_division) == "warn" else ""
    )
    raise MetricsInputError(
        f"option 'zero_division': unknown value {shown(zero_division)}; expected 0, 1 or NaN{warn}"
    )


def _divide(numerator: pl.Expr, denominator: pl.Expr, zero_division: float) -> pl.Expr:
    return pl.when(denominator == 0).then(zero_division).otherwise(numerator / denominator)


def _nanmean2(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """Mean of two values ignoring NaN, as scikit-learn's macro average does."""
    return pl.when(a.is_nan()).then(b).when(b.is_nan()).then(a).otherwise((a + b) / 2)


def _fbeta_shares(beta: float) -> tuple[float, float]:
    """``beta² / (1 + beta²)`` and ``1 / (1 + beta²)``, for any ``beta >= 0``."""
    if beta <= 1:
        b2 = beta * beta
        return b2 / (1 + b2), 1 / (1 + b2)
    inverse = (1 / beta) ** 2  # (0 for a huge beta: recall)
    return 1 / (1 + inverse), inverse / (1 + inverse)


def from_counts(
    metric: str,
    tp: pl.Expr,
    fp: pl.Expr,
    fn: pl.Expr,
    tn: pl.Expr,
    zero_division: float,
    beta: float = 1.0,
) -> pl.Expr:
    """The metric of a binary confusion matrix; a zero denominator gives ``zero_division``.

    F1 is ``2tp / (2tp + fp + fn)`` as in scikit-learn (not the harmonic mean of two rates
    that each fell back to ``zero_division``); F-beta likewise. The Matthews correlation
    of a matrix with an empty row or column is 0, as in scikit-learn.
    """
    tp, fp, fn, tn = (c.cast(pl.Float64) for c in (tp, fp, fn, tn))
    tpr = _divide(tp, tp + fn, zero_division)
    tnr = _divide(tn, tn + fp, zero_division)
    if metric == "precision":
        value = _divide(tp, tp + fp, zero_division)
    elif metric == "recall":
        value = tpr
    elif metric == "f1":
        value = _divide(2 * tp, 2 * tp + fp + fn, zero_division)
    elif metric == "fbeta":
        # The formula divided by 1 + beta², whose factors then stay within [0, 1] (beta²
        # overflows beyond 1.3e154; beta = 0 is precision). Grouped as scikit-learn's
        # beta²(tp + fn) + (tp + fp): negative weights making both sums 0 give 0 there, not
        # the shares' rounding (1 - 0.8 - 0.2 is -2.8e-17, and tp / it 1e16).
        on_fn, on_fp = _fbeta_shares(beta)
        value = _divide(tp, on_fn * (tp + fn) + on_fp * (tp + fp), zero_division)
    elif metric == "specificity":
        value = tnr
    elif metric == "jaccard":
        value = _divide(tp, tp + fp + fn, zero_division)
    elif metric == "matthews_corrcoef":
        # (tp·tn - fp·fn) / sqrt(a·b·c·d); where a weighted count is far from 1 (1e-170,
        # 1e160, or both in one table) those products under- or overflow, and each is taken
        # as a product of ratios of at most 1 instead. Where a·b·c·d < 0 (negative
        # weights) the square root is NaN, as the plain formula's.
        a, b, c, d = tp + fp, tp + fn, tn + fp, tn + fn
        sides = [side.abs() for side in (a, b, c, d)]
        plain = (tp * tn - fp * fn) / (a * b * c * d).sqrt()
        ra, rb, rc, rd = (side.sqrt() for side in sides)
        ratios = tp / (ra * rb) * (tn / (rc * rd)) - fp / (ra * rc) * (fn / (rb * rd))
        in_range = pl.all_horizontal((side >= 2.0**-200) & (side <= 2.0**200) for side in sides)
        value = (
            pl.when((a == 0) | (b == 0) | (c == 0) | (d == 0))
            .then(0.0)
            .when(in_range)
            .then(plain)
            .when(a.sign() * b.sign() * c.sign() * d.sign() < 0)
            .then(float("nan"))
            .otherwise(ratios)
        )
    elif metric == "hamming_loss":
        value = (fp + fn) / (tp + fp + fn + tn)
    elif metric == "balanced_accuracy":
        # zero_division=NaN: the undefined rate left out, as balanced_accuracy_score does
        value = _nanmean2(tpr, tnr)
    elif metric == "balanced_f1":
        # Both rates zero: the harmonic mean's limit, 0 (the BirdCLEF 2022 notebook's eps
        # gives the same).
        value = pl.when(tpr + tnr == 0).then(0.0).otherwise(2 * tpr * tnr / (tpr + tnr))
    elif metric == "mfif":
        inverted_f1 = _divide(2 * tn, 2 * tn + fp + fn, zero_division)
        value = _nanmean2(_divide(2 * tp, 2 * tp + fp + fn, zero_division), inverted_f1)
    else:
        raise MetricsInputError(f"unknown metric {metric!r}")
    return value.cast(pl.Float64)


def nanaverage(value: pl.Expr, weight: pl.Expr | None = None) -> pl.Expr:
    """scikit-learn's ``_nanaverage`` as an aggregation.

    NaN values are left out with their weights; all NaN gives NaN; weights that sum to zero
    fall back to the plain mean.
    """
    valid = value.is_not_nan()
    kept = value.filter(valid)
    if weight is None:
        average = ordered_mean(kept)
    else:
        kept_weight = weight.filter(valid)
        total = ordered_sum(kept_weight)
        average = (
            pl.when(total == 0)
            .then(ordered_mean(kept))
            .otherwise(ordered_sum(kept * kept_weight) / total)
        )
    return pl.when(valid.sum() == 0).then(float("nan")).otherwise(average).cast(pl.Float64)
