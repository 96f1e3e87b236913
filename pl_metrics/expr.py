"""Single-pass metrics of a binary problem as polars expressions.

Use them inside ``select``, ``group_by(...).agg(...)`` or ``over`` next to your own
aggregations. Each takes the score (thresholded at ``threshold``) or a column of 0/1
predictions (``pred=``), and the truth; columns are given by name or as expressions.

Unlike the table functions these run no data checks (an expression cannot raise on data):
nulls are ignored by the sums, and integer truth or predictions other than 0/1 count as 1.

Examples
--------
>>> import polars as pl
>>> from pl_metrics import expr
>>> df = pl.DataFrame({
...     "fold": [0, 0, 0, 0, 1, 1, 1, 1],
...     "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.7, 0.2, 0.3],
...     "truth": [1, 1, 0, 0, 1, 0, 1, 0],
... })
>>> df.group_by("fold", maintain_order=True).agg(
...     expr.f1("score", "truth"),
...     expr.balanced_accuracy("score", "truth", threshold=0.35),
...     pl.len(),
... )
shape: (2, 4)
┌──────┬─────┬───────────────────┬─────┐
│ fold ┆ f1  ┆ balanced_accuracy ┆ len │
│ ---  ┆ --- ┆ ---               ┆ --- │
│ i64  ┆ f64 ┆ f64               ┆ u32 │
╞══════╪═════╪═══════════════════╪═════╡
│ 0    ┆ 0.5 ┆ 0.75              ┆ 4   │
│ 1    ┆ 0.5 ┆ 0.5               ┆ 4   │
└──────┴─────┴───────────────────┴─────┘
"""

from __future__ import annotations

import polars as pl

from pl_metrics._counts import check_zero_division, from_counts
from pl_metrics._frame import MetricsInputError

__all__ = [
    "balanced_accuracy",
    "balanced_f1",
    "binary_log_loss",
    "confusion",
    "f1",
    "mfif",
    "precision",
    "recall",
]

IntoExpr = str | pl.Expr


def _col(value: IntoExpr) -> pl.Expr:
    return pl.col(value) if isinstance(value, str) else value


def _pred(score: IntoExpr | None, threshold: float, pred: IntoExpr | None) -> pl.Expr:
    if (score is None) == (pred is None):
        raise MetricsInputError("give either a score (with a threshold) or pred, not both")
    if pred is not None:
        return _col(pred).cast(pl.Boolean)
    assert score is not None
    return _col(score) >= threshold


def _counts(
    score: IntoExpr | None, truth: IntoExpr, threshold: float, pred: IntoExpr | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    p, t = _pred(score, threshold, pred), _col(truth).cast(pl.Boolean)
    return (p & t).sum(), (p & ~t).sum(), (~p & t).sum(), (~p & ~t).sum()


def _metric(
    metric: str,
    score: IntoExpr | None,
    truth: IntoExpr,
    threshold: float,
    pred: IntoExpr | None,
    zero_division: float,
) -> pl.Expr:
    counts = _counts(score, truth, threshold, pred)
    return from_counts(metric, *counts, check_zero_division(zero_division)).alias(metric)


def confusion(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
) -> pl.Expr:
    """Confusion counts as a struct ``{tp, fp, fn, tn}`` (unnest it to get columns).

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"score": [0.9, 0.4, 0.6], "truth": [True, True, False]})
    >>> df.select(expr.confusion("score", "truth")).unnest("confusion")
    shape: (1, 4)
    ┌─────┬─────┬─────┬─────┐
    │ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ --- ┆ --- ┆ --- ┆ --- │
    │ u32 ┆ u32 ┆ u32 ┆ u32 │
    ╞═════╪═════╪═════╪═════╡
    │ 1   ┆ 1   ┆ 1   ┆ 0   │
    └─────┴─────┴─────┴─────┘
    """
    tp, fp, fn, tn = _counts(score, truth, threshold, pred)
    return pl.struct(tp.alias("tp"), fp.alias("fp"), fn.alias("fn"), tn.alias("tn")).alias(
        "confusion"
    )


def f1(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """F1 ``2tp / (2tp + fp + fn)``, as `sklearn.metrics.f1_score` on a binary problem."""
    return _metric("f1", score, truth, threshold, pred, zero_division)


def precision(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Precision ``tp / (tp + fp)``, as `sklearn.metrics.precision_score`."""
    return _metric("precision", score, truth, threshold, pred, zero_division)


def recall(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Recall ``tp / (tp + fn)``, as `sklearn.metrics.recall_score`."""
    return _metric("recall", score, truth, threshold, pred, zero_division)


def balanced_accuracy(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Balanced accuracy ``(TPR + TNR) / 2`` (see `pl_metrics.balanced_accuracy`)."""
    return _metric("balanced_accuracy", score, truth, threshold, pred, zero_division)


def balanced_f1(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Balanced F1 ``2·TPR·TNR / (TPR + TNR)`` (see `pl_metrics.balanced_f1`)."""
    return _metric("balanced_f1", score, truth, threshold, pred, zero_division)


def mfif(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Mean of F1 and inverted F1 (see `pl_metrics.mfif`)."""
    return _metric("mfif", score, truth, threshold, pred, zero_division)


def binary_log_loss(score: IntoExpr, truth: IntoExpr, *, eps: float = 1e-15) -> pl.Expr:
    """Binary log loss of ``score``, the probability of the positive class.

    Named for what it is: `pl_metrics.log_loss` is the multi-class loss of a long table.

    Probabilities are clipped to ``[eps, 1 - eps]``; otherwise this is
    `sklearn.metrics.log_loss` on a binary problem (which clips at float64's epsilon).

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"p": [0.9, 0.2, 0.65], "truth": [1, 0, 1]})
    >>> round(df.select(expr.binary_log_loss("p", "truth")).item(), 6)
    0.253096
    """
    p = _col(score).cast(pl.Float64).clip(eps, 1 - eps)
    t = _col(truth).cast(pl.Boolean)
    return (-pl.when(t).then(p.log()).otherwise((1 - p).log()).mean()).alias("binary_log_loss")
