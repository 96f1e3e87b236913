"""Metrics of a binary problem (one class at a time) as polars expressions.

Use them inside ``select``, ``group_by(...).agg(...)`` or ``over`` next to your own
aggregations; each gives one Float64 value per group, named after the metric (`confusion`
a struct of counts). All take the score and the truth first, columns by name or as
expressions (a number or a bool is a value for every row, as polars takes it), then
keyword options:

* thresholded (`confusion`, `f1`, `precision`, `recall`, `fbeta`, `matthews_corrcoef`,
  `balanced_accuracy`, `balanced_f1`, `mfif`): the score is thresholded at ``threshold``
  (a number, or an expression such as a column of per-row thresholds), or pass ``None``
  as the score and a column of 0/1 predictions as ``pred=``;
* on the scores (`roc_auc`, `average_precision`, `brier_score`, `binary_log_loss`): with
  optional sample weights, ``weight=``.

Unlike the table functions these run no data checks (an expression cannot raise on data):
nulls are ignored (a row with a null score, truth or weight is left out, and one whose
truth or prediction is NaN, a float column's missing value), truth or predictions other
than 0/1 count as 1 (-1/1 labels are all positives: map them first), NaN scores rank above
every number (polars' order; scikit-learn refuses them: filter them first), and what
scikit-learn refuses or warns about gives a value each function documents (null for the
area under the ROC curve of a group with one class). `roc_auc` and `average_precision`
rank the scores in their own type (integers past 2**53 stay apart); text or categorical
scores or truth are refused by polars' own error (not parsed), as are text weights and
list or struct scores (a list of each class's probabilities: explode it into rows of one
class first): map them to numbers or booleans first. A number threshold meets Float32
scores in Float32, as in the table functions; a threshold column is compared as polars
compares two columns (a Float64 column against Float32 scores in Float64, as numpy
compares two arrays): cast it to the scores' type to compare as the table functions do.

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

One row per model, fold and class of a long prediction dump:

>>> oof = pl.read_parquet("data/digits_oof.parquet")
>>> oof.group_by(["model", "fold", "class"]).agg(
...     expr.roc_auc("score", "truth"), expr.brier_score("score", "truth")
... ).sort("model", "fold", "class").head()
shape: (5, 5)
┌────────┬──────┬───────┬──────────┬─────────────┐
│ model  ┆ fold ┆ class ┆ roc_auc  ┆ brier_score │
│ ---    ┆ ---  ┆ ---   ┆ ---      ┆ ---         │
│ str    ┆ i8   ┆ str   ┆ f64      ┆ f64         │
╞════════╪══════╪═══════╪══════════╪═════════════╡
│ forest ┆ 0    ┆ 0     ┆ 1.0      ┆ 0.003208    │
│ forest ┆ 0    ┆ 1     ┆ 0.999957 ┆ 0.013731    │
│ forest ┆ 0    ┆ 2     ┆ 1.0      ┆ 0.008923    │
│ forest ┆ 0    ┆ 3     ┆ 0.999914 ┆ 0.011151    │
│ forest ┆ 0    ┆ 4     ┆ 1.0      ┆ 0.007211    │
└────────┴──────┴───────┴──────────┴─────────────┘
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import polars as pl

from pl_metrics._counts import check_zero_division, from_counts
from pl_metrics._frame import (
    MetricsInputError,
    check_beta,
    check_eps,
    checked_options,
    compared_number,
    is_number,
    shown,
    unit_scale,
)

__all__ = [
    "average_precision",
    "balanced_accuracy",
    "balanced_f1",
    "binary_log_loss",
    "brier_score",
    "confusion",
    "f1",
    "fbeta",
    "matthews_corrcoef",
    "mfif",
    "precision",
    "recall",
    "roc_auc",
]

#: A column by name, an expression, or a value for every row (a number or a bool, numpy's
#: ``np.True_`` of ``array.any()`` too), as polars takes them.
IntoExpr = str | pl.Expr | float | bool | np.bool_

if not TYPE_CHECKING:  # (a type checker still tells a name that is not here)

    def __getattr__(name: str) -> object:
        """Say where a metric of the tables that is no expression is (lwlrap, log_loss...)."""
        from pl_metrics._registry import metric_names

        there = (
            f": {name} is computed on a long table, not as an expression: "
            f"pl_metrics.{name}(frame, by=...)"
            if name in metric_names()
            else ""
        )
        if name == "log_loss":
            there += "; expr.binary_log_loss is one class's"
        raise AttributeError(f"module 'pl_metrics.expr' has no attribute {name!r}{there}")


def _col(value: IntoExpr, option: str) -> pl.Expr:
    """``value`` as polars reads an expression argument: a string names a column."""
    given: object = value  # what a caller may pass, beyond the annotation
    if isinstance(given, str):
        return pl.col(given)
    if isinstance(given, pl.Expr):
        return given
    if isinstance(given, (bool, np.bool_)) or is_number(given):
        return pl.lit(given)
    raise MetricsInputError(
        f"option {option!r}: expected a column name, an expression or a number, got {shown(given)}"
    )


def _flag(value: IntoExpr, option: str) -> pl.Expr:
    """Truth or predictions as booleans; NaN, a float column's missing value, as null.

    (Cast to a boolean, NaN is true: a missing truth counted as a positive.)
    """
    column = _col(value, option)
    # (Text is refused by the cast to booleans, a categorical by the cast to floats: text
    # that is no number casts to a null float, whose rows must reach the boolean cast.)
    nan = column.cast(pl.Float64, strict=False).is_nan()
    return pl.when(nan.not_() | nan.is_null()).then(column.cast(pl.Boolean))


def _weight(weight: IntoExpr) -> pl.Expr:
    """Sample weights as floats; adding 0 refuses text (as scores), which a cast parses."""
    return (_col(weight, "weight") + 0).cast(pl.Float64)


def _pred(score: IntoExpr | None, threshold: float | pl.Expr, pred: IntoExpr | None) -> pl.Expr:
    if score is None and pred is None:
        raise MetricsInputError(
            "option 'score': None takes 0/1 predictions as pred, and none were given; give a "
            "score (with a threshold) or pred"
        )
    if score is not None and pred is not None:
        raise MetricsInputError("give either a score (with a threshold) or pred, not both")
    if pred is not None:
        # (0.5: the default; a table or an array is no threshold here either)
        if isinstance(threshold, pl.Expr) or not (is_number(threshold) and threshold == 0.5):
            raise MetricsInputError(
                "option 'threshold': the predictions are pred, so no threshold applies; give "
                "one of them"
            )
        return _flag(pred, "pred")
    assert score is not None
    # Adding 0 refuses dates and durations, which compare as their integers (days since
    # 1970: every row predicted positive), as the ranking expressions refuse them.
    scores = _col(score, "score") + 0
    if isinstance(threshold, pl.Expr):  # a threshold per row, or any expression
        return scores >= threshold
    if not is_number(threshold):
        raise MetricsInputError(
            f"option 'threshold': expected a number or an expression, got {shown(threshold)}"
        )
    compared = compared_number(threshold)
    if not math.isfinite(compared):
        raise MetricsInputError(
            f"option 'threshold': expected a finite number, got {shown(threshold)}"
        )
    return scores >= compared


def _counts(
    score: IntoExpr | None, truth: IntoExpr, threshold: float | pl.Expr, pred: IntoExpr | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    p, t = _pred(score, threshold, pred), _flag(truth, "truth")
    cells = (p & t, p & ~t, ~p & t, ~p & ~t)
    tp, fp, fn, tn = (c.sum().cast(pl.Int64) for c in cells)  # as the table functions count
    return tp, fp, fn, tn


def _as_f1(value: str) -> Callable[[_F], _F]:
    """Complete the docstring of a thresholded expression whose options are `f1`'s.

    Its Parameters and Returns, and an example on `f1`'s table giving ``value``.
    """

    def documented(function: _F) -> _F:
        name = function.__name__
        function.__doc__ = (function.__doc__ or "") + _AS_F1.format(name=name, value=value)
        return function

    return documented


_F = TypeVar("_F", bound=Callable[..., pl.Expr])
_AS_F1 = """

    Parameters
    ----------
    score, truth, threshold, pred, zero_division
        As in `f1`.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``{name}``, without data checks (as `f1`'s).

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({{"score": [0.9, 0.8, 0.6, 0.4, 0.3, 0.2], "truth": [1, 0, 1, 1, 0, 0]}})
    >>> round(df.select(expr.{name}("score", "truth", threshold=0.35)).item(), 6)
    {value}
    """


def _metric(
    metric: str,
    score: IntoExpr | None,
    truth: IntoExpr,
    threshold: float | pl.Expr,
    pred: IntoExpr | None,
    zero_division: float,
    beta: float = 1.0,
) -> pl.Expr:
    counts = _counts(score, truth, threshold, pred)
    zd = check_zero_division(zero_division)
    return from_counts(metric, *counts, zd, beta).alias(metric)


def _mean(value: pl.Expr, weight: IntoExpr | None) -> pl.Expr:
    """Mean of ``value`` (nulls left out); weighted, rows without a value or weight left out.

    Weights that sum to zero give null.
    """
    if weight is None:
        return value.mean()
    w = pl.when(value.is_not_null()).then(_weight(weight))
    total = w.sum()
    # A row of weight 0 adds 0, also where its value is infinite (log loss with eps=0).
    weighted = pl.when(w != 0).then(value * w).when(w.is_not_null()).then(0.0)
    return pl.when(total != 0).then(weighted.sum() / total)


def _ranking_columns(
    score: IntoExpr, truth: IntoExpr, weight: IntoExpr | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr | None]:
    """Score, truth and weight, less the rows where any of them is null.

    The scores are ranked in their own type (integers past 2**53 stay apart, as the table
    functions keep them); adding 0 refuses text (as polars refuses sums of text) rather
    than sort it as text ("10" before "9"), and ``is_nan`` refuses lists, arrays and
    structs, which would rank as sequences.
    """
    s, t = _col(score, "score") + 0, _flag(truth, "truth")
    w = None if weight is None else _weight(weight)
    valid = s.cast(pl.Float64, strict=False).is_nan().is_not_null() & t.is_not_null()
    if w is not None:
        valid = valid & w.is_not_null()
    return s.filter(valid), t.filter(valid), None if w is None else w.filter(valid)


def _named_after(score: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``value``, with the score as its first column.

    ``name.keep()`` names an expression after its first column: a weighted sum's would be
    the weight, and several score columns at once (``pl.col("a", "b")``) would clash.
    """
    return score.len().mul(0).add(value)


@checked_options
def confusion(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
) -> pl.Expr:
    """Confusion counts as a struct ``{tp, fp, fn, tn}`` (unnest it to get columns).

    Parameters
    ----------
    score, truth, threshold, pred
        As in `f1`.

    Returns
    -------
    pl.Expr
        An aggregation named ``confusion``: a struct of four Int64 counts.

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
    │ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞═════╪═════╪═════╪═════╡
    │ 1   ┆ 1   ┆ 1   ┆ 0   │
    └─────┴─────┴─────┴─────┘
    """
    tp, fp, fn, tn = _counts(score, truth, threshold, pred)
    return pl.struct(tp.alias("tp"), fp.alias("fp"), fn.alias("fn"), tn.alias("tn")).alias(
        "confusion"
    )


@checked_options
def f1(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """F1 ``2tp / (2tp + fp + fn)``, as `sklearn.metrics.f1_score` on a binary problem.

    An aggregation: in a ``select`` over the whole table, or per group in
    ``group_by(...).agg(...)`` (one class at a time: group by the class too).

    Parameters
    ----------
    score, truth
        Columns, by name or as expressions (truth: booleans or numbers 0/1). The
        prediction is ``score >= threshold``; pass ``None`` as the score to give 0/1
        predictions with ``pred``.
    threshold
        A number, or an expression (a threshold per row, e.g. from a join).
    pred
        Predictions as a column or expression of booleans or 0/1, instead of a threshold.
    zero_division
        The value where it divides by zero (no row predicted or truly positive): 0, 1 or
        NaN, as scikit-learn's ``zero_division``.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``f1``. No data checks are run (an expression cannot
        raise on data): nulls (and a NaN truth) are left out and truth other than 0/1
        counts as 1.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame(
    ...     {"model": ["a", "a", "a", "b", "b", "b"], "score": [0.9, 0.8, 0.6, 0.4, 0.3, 0.2],
    ...      "truth": [1, 0, 1, 1, 0, 0]}
    ... )
    >>> df.group_by("model").agg(expr.f1("score", "truth", threshold=0.35)).sort("model")
    shape: (2, 2)
    ┌───────┬─────┐
    │ model ┆ f1  │
    │ ---   ┆ --- │
    │ str   ┆ f64 │
    ╞═══════╪═════╡
    │ a     ┆ 0.8 │
    │ b     ┆ 1.0 │
    └───────┴─────┘
    """
    return _metric("f1", score, truth, threshold, pred, zero_division)


@checked_options
@_as_f1("0.75")
def precision(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Precision ``tp / (tp + fp)``, as `sklearn.metrics.precision_score`."""
    return _metric("precision", score, truth, threshold, pred, zero_division)


@checked_options
@_as_f1("1.0")
def recall(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Recall ``tp / (tp + fn)``, as `sklearn.metrics.recall_score`."""
    return _metric("recall", score, truth, threshold, pred, zero_division)


@checked_options
@_as_f1("0.833333")
def balanced_accuracy(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Balanced accuracy ``(TPR + TNR) / 2`` (see `pl_metrics.balanced_accuracy`)."""
    return _metric("balanced_accuracy", score, truth, threshold, pred, zero_division)


@checked_options
@_as_f1("0.8")
def balanced_f1(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Balanced F1 ``2·TPR·TNR / (TPR + TNR)`` (see `pl_metrics.balanced_f1`)."""
    return _metric("balanced_f1", score, truth, threshold, pred, zero_division)


@checked_options
@_as_f1("0.828571")
def mfif(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Mean of F1 and inverted F1 (see `pl_metrics.mfif`)."""
    return _metric("mfif", score, truth, threshold, pred, zero_division)


@checked_options
def fbeta(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    beta: float = 1.0,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """F-beta ``(1 + b²)tp / ((1 + b²)tp + b²fn + fp)``, as `sklearn.metrics.fbeta_score`.

    Parameters
    ----------
    score, truth
        Columns, by name or as expressions. ``score >= threshold`` is the prediction;
        pass ``None`` as the score to give 0/1 predictions with ``pred``.
    beta
        Recall weighs ``beta`` times as much as precision; a number in [0, 1e150] (0:
        precision).
    threshold, pred, zero_division
        As in `f1`: the value where no row is predicted or truly positive (0, 1 or NaN).

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``fbeta``. No data checks are run (an expression
        cannot raise on data): nulls (and a NaN truth) are left out and truth other than
        0/1 counts as 1.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"score": [0.9, 0.4, 0.6, 0.2], "truth": [1, 1, 0, 0]})
    >>> round(df.select(expr.fbeta("score", "truth", beta=2.0)).item(), 6)
    0.5
    """
    return _metric("fbeta", score, truth, threshold, pred, zero_division, check_beta(beta))


@checked_options
def matthews_corrcoef(
    score: IntoExpr | None,
    truth: IntoExpr,
    *,
    threshold: float | pl.Expr = 0.5,
    pred: IntoExpr | None = None,
) -> pl.Expr:
    """Matthews correlation of the predictions, as `sklearn.metrics.matthews_corrcoef`.

    Parameters
    ----------
    score, truth, threshold, pred
        As in `f1`.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``matthews_corrcoef``; 0 where it is undefined (a
        confusion matrix with an empty row or column), as scikit-learn. No data checks are
        run: nulls (and a NaN truth) are left out and truth other than 0/1 counts as 1.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"score": [0.9, 0.4, 0.6, 0.2], "truth": [1, 1, 0, 0]})
    >>> df.select(expr.matthews_corrcoef("score", "truth")).item()
    0.0
    >>> df.select(expr.matthews_corrcoef("score", "truth", threshold=0.3)).item()
    0.5773502691896258
    """
    return _metric("matthews_corrcoef", score, truth, threshold, pred, 0.0)


@checked_options
def binary_log_loss(
    score: IntoExpr, truth: IntoExpr, *, weight: IntoExpr | None = None, eps: float = 1e-15
) -> pl.Expr:
    """Binary log loss of ``score``, the probability of the positive class.

    Named for what it is: `pl_metrics.log_loss` is the multi-class loss of a long table.

    Probabilities are clipped to ``[eps, 1 - eps]``; otherwise this is
    `sklearn.metrics.log_loss` on a binary problem (which clips at float64's epsilon),
    ``sample_weight=weight`` with a ``weight`` column. Rows with a null are left out;
    weights that sum to zero give null.

    Parameters
    ----------
    score, truth
        Columns, by name or as expressions: the probability of the positive class, and the
        truth (booleans or numbers 0/1).
    weight
        An optional column of sample weights.
    eps
        The clipping bound, a number in ``[0, 0.5)``.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``binary_log_loss``, without data checks.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"p": [0.9, 0.2, 0.65], "truth": [1, 0, 1], "w": [1.0, 2.0, 1.0]})
    >>> round(df.select(expr.binary_log_loss("p", "truth")).item(), 6)
    0.253096
    >>> round(df.select(expr.binary_log_loss("p", "truth", weight="w")).item(), 6)
    0.245608
    """
    eps = check_eps(eps)
    p = (_col(score, "score") + 0).cast(pl.Float64).clip(eps, 1 - eps)  # (+ 0: text refused)
    t = _flag(truth, "truth")
    loss = -pl.when(t).then(p.log()).when(~t).then((1 - p).log())  # null truth: no loss
    return _mean(loss, weight).alias("binary_log_loss")


@checked_options
def brier_score(score: IntoExpr, truth: IntoExpr, *, weight: IntoExpr | None = None) -> pl.Expr:
    """Brier score ``mean((score - truth)²)``, as `sklearn.metrics.brier_score_loss`.

    Parameters
    ----------
    score
        The probability of the positive class, by name or as an expression.
    truth
        0/1 or boolean truth; other non-zero values count as 1 (a NaN truth is left out).
    weight
        Optional sample weights (``sample_weight``): the weighted mean.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``brier_score``. No data checks are run (an expression
        cannot raise on data; scikit-learn refuses scores outside [0, 1]): rows with a null
        are left out, and weights that sum to zero give null.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({"p": [0.9, 0.2, 0.6], "truth": [1, 0, 0], "w": [1.0, 1.0, 2.0]})
    >>> round(df.select(expr.brier_score("p", "truth")).item(), 6)
    0.136667
    >>> round(df.select(expr.brier_score("p", "truth", weight="w")).item(), 6)
    0.1925
    """
    t = _flag(truth, "truth").cast(pl.Float64)
    score_ = (_col(score, "score") + 0).cast(pl.Float64)  # (+ 0: text refused, not parsed)
    return _mean((score_ - t).pow(2), weight).alias("brier_score")


@checked_options
def roc_auc(score: IntoExpr, truth: IntoExpr, *, weight: IntoExpr | None = None) -> pl.Expr:
    """Area under the ROC curve, as `sklearn.metrics.roc_auc_score` on a binary problem.

    The share of (positive, negative) pairs ordered right, a tied pair counting 1/2 (ties
    are one threshold, as scikit-learn draws the curve); with weights, each pair counts the
    product of its two weights.

    Parameters
    ----------
    score
        The score of the positive class (any real numbers: only their order matters).
    truth
        0/1 or boolean truth; other non-zero values count as 1 (a NaN truth is left out).
    weight
        Optional sample weights (``sample_weight``); negative ones as scikit-learn takes them.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``roc_auc``. No data checks are run (an expression
        cannot raise on data): rows with a null score, truth or weight are left out, and a
        group without positives or without negatives (or whose positives' or negatives'
        weights sum to zero or less) gives null, where scikit-learn warns and returns NaN.

    Notes
    -----
    Without weights this is the Mann-Whitney U statistic of the average ranks of the scores
    in the group: ``(sum of the positives' ranks - P(P + 1)/2) / (P N)``. With weights, the
    rows are sorted by score and each positive counts the weight of the negatives scored
    below it plus half of those tied with it; all within one expression, so both work in
    ``select``, ``group_by(...).agg(...)`` and ``over``.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({
    ...     "g": ["a", "a", "a", "a", "b", "b"],
    ...     "score": [0.9, 0.4, 0.4, 0.1, 0.3, 0.8],
    ...     "truth": [1, 1, 0, 0, 1, 1],
    ... })
    >>> df.group_by("g", maintain_order=True).agg(expr.roc_auc("score", "truth"))
    shape: (2, 2)
    ┌─────┬─────────┐
    │ g   ┆ roc_auc │
    │ --- ┆ ---     │
    │ str ┆ f64     │
    ╞═════╪═════════╡
    │ a   ┆ 0.875   │
    │ b   ┆ null    │
    └─────┴─────────┘
    """
    s, t, w = _ranking_columns(score, truth, weight)
    if w is None:
        n_pos = t.sum().cast(pl.Float64)
        n_neg = (~t).sum().cast(pl.Float64)
        rank_sum = s.rank("average").filter(t).sum()
        value = (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
        defined = (n_pos > 0) & (n_neg > 0)
    else:
        # Sorted by score; each row's tie group is the run of equal scores around it.
        ordered = s.sort()
        first, last = ordered.is_first_distinct(), ordered.is_last_distinct()
        w_pos = pl.when(t).then(w).otherwise(0.0).sort_by(s)
        w_neg = pl.when(t).then(0.0).otherwise(w).sort_by(s)
        # The area multiplies the two sides' weights: each scaled first (see `unit_scale`).
        w_pos, w_neg = (side * unit_scale(side.abs().max()) for side in (w_pos, w_neg))
        negatives = w_neg.cum_sum()
        # Weight of the negatives scored below the row, and at most the row's score.
        below = pl.when(first).then(negatives.shift(1, fill_value=0.0)).forward_fill()
        at_most = pl.when(last).then(negatives).backward_fill()
        area = (w_pos * (below + at_most)).sum() / (2 * w_pos.sum() * w_neg.sum())
        value = _named_after(s, area)
        # (Negative weights summing to zero or less leave no area: NaN in scikit-learn.)
        defined = (w_pos.sum() > 0) & (w_neg.sum() > 0)
    return pl.when(defined).then(value).cast(pl.Float64).alias("roc_auc")


@checked_options
def average_precision(
    score: IntoExpr, truth: IntoExpr, *, weight: IntoExpr | None = None
) -> pl.Expr:
    """Average precision, as `sklearn.metrics.average_precision_score` on a binary problem.

    Step-wise (no interpolation): the precision at each distinct score, weighted by the
    recall it adds, ``sum((R_k - R_{k-1}) P_k)``; tied scores are one threshold.

    Parameters
    ----------
    score
        The score of the positive class (any real numbers: only their order matters).
    truth
        0/1 or boolean truth; other non-zero values count as 1 (a NaN truth is left out).
    weight
        Optional sample weights (``sample_weight``); negative ones as scikit-learn takes them.

    Returns
    -------
    pl.Expr
        A Float64 aggregation named ``average_precision``. No data checks are run (an
        expression cannot raise on data): rows with a null score, truth or weight are left
        out. A group without positives scores 0, as scikit-learn (which warns); so does one
        whose positives' weights sum to zero (negative weights), where scikit-learn gives
        the precision at the top score; an empty group gives 0 too.

    Notes
    -----
    Each positive row ``j`` counts the precision at its own score,
    ``P_j / R_j``: the (weight of) positives over all rows scored at least as high as ``j``.
    Without weights these are two ``max`` ranks in descending order, the first among the
    group's positives and the second among all its rows; with weights, cumulative sums
    over the rows sorted by descending score, taken at the end of each run of tied scores.

    Examples
    --------
    >>> import polars as pl
    >>> from pl_metrics import expr
    >>> df = pl.DataFrame({
    ...     "g": ["a", "a", "a", "a", "b", "b"],
    ...     "score": [0.9, 0.4, 0.4, 0.1, 0.3, 0.8],
    ...     "truth": [1, 1, 0, 0, 0, 0],
    ... })
    >>> df.group_by("g", maintain_order=True).agg(expr.average_precision("score", "truth"))
    shape: (2, 2)
    ┌─────┬───────────────────┐
    │ g   ┆ average_precision │
    │ --- ┆ ---               │
    │ str ┆ f64               │
    ╞═════╪═══════════════════╡
    │ a   ┆ 0.833333          │
    │ b   ┆ 0.0               │
    └─────┴───────────────────┘
    """
    s, t, w = _ranking_columns(score, truth, weight)
    if w is None:
        positives = s.filter(t).rank("max", descending=True)
        rows = s.rank("max", descending=True).filter(t)
        total = t.sum().cast(pl.Float64)
        value = (positives / rows).sum() / total
    else:
        last = s.sort(descending=True).is_last_distinct()
        w_pos = pl.when(t).then(w).otherwise(0.0).sort_by(s, descending=True)
        w_neg = pl.when(t).then(0.0).otherwise(w).sort_by(s, descending=True)
        # Weight of the positives and of all rows scored at least as high as the row.
        tp = pl.when(last).then(w_pos.cum_sum()).backward_fill()
        at_least = tp + pl.when(last).then(w_neg.cum_sum()).backward_fill()
        precision = pl.when(at_least != 0).then(tp / at_least).otherwise(0.0)
        total = w_pos.sum()
        value = _named_after(s, (w_pos * precision).sum() / total)
    # No positives (or none with weight): 0, as scikit-learn, which also clips the area at
    # 0 (negative weights can make it negative).
    value = pl.when(total != 0).then(value.clip(lower_bound=0.0)).otherwise(0.0)
    return value.cast(pl.Float64).alias("average_precision")
