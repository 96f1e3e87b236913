"""The thresholded family: confusion counts, F1, precision, recall, balanced F1, MFIF, ...

Every class of a long table is its own binary problem: ``pred = score >= threshold``, or a
column of 0/1 predictions already made (``pred="column"``). The state is the confusion
matrix of each ``(by..., class)``: four sums over rows, so states of any row-disjoint parts
of a table add up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import polars as pl

from pl_metrics._counts import check_zero_division, from_counts, nanaverage
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    MetricsInputError,
    Ragged,
    aggregate,
    as_like,
    check_option,
    check_state,
    join_on,
    raise_on_problems,
    resolve_columns,
)

__all__ = [
    "balanced_accuracy",
    "balanced_f1",
    "confusion",
    "f1",
    "mfif",
    "precision",
    "recall",
]

Average = Literal["macro", "micro", "weighted", "samples"] | None
_AVERAGES = (None, "macro", "micro", "weighted", "samples")
_SAMPLES_METRICS = ("f1", "precision", "recall")
_COUNTS = tuple(f"{INTERNAL}{name}" for name in ("tp", "fp", "fn", "tn"))
_W = f"{INTERNAL}w"


def _pred_expr(cols: Columns, threshold: float) -> pl.Expr:
    if cols.pred is not None:
        return cols.pred_expr
    assert cols.score is not None
    return pl.col(cols.score) >= threshold


def _count_exprs(cols: Columns, pred: pl.Expr) -> list[pl.Expr]:
    """tp, fp, fn, tn as (weighted) sums over rows; integers without weights."""
    truth = cols.truth_expr
    cells = (pred & truth, pred & ~truth, ~pred & truth, ~pred & ~truth)
    if cols.weight is None:
        return [c.sum().cast(pl.Int64).alias(n) for c, n in zip(cells, _COUNTS, strict=True)]
    weight = cols.weight_expr
    return [weight.filter(c).sum().alias(n) for c, n in zip(cells, _COUNTS, strict=True)]


def _resolve(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    id_col: str,
    class_col: str,
    score_col: str,
    truth_col: str,
    weight_col: str | None,
    by: str | Sequence[str] | None,
    threshold: float,
    pred: str | None,
    ragged: Ragged,
    validate: bool,
) -> Columns:
    cols = resolve_columns(
        frame,
        id_col=id_col,
        class_col=class_col,
        score_col=None if pred is not None else score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        pred_col=pred,
    )
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise MetricsInputError(f"option 'threshold': expected a number, got {threshold!r}")
    if not math.isfinite(threshold):
        raise MetricsInputError(f"option 'threshold': expected a finite number, got {threshold}")
    check_option("ragged", ragged, ("error", "allow"))
    check_option("validate", validate, (True, False))
    return cols


def confusion_state(
    lf: pl.LazyFrame, cols: Columns, *, threshold: float, validate: bool, ragged: Ragged
) -> pl.LazyFrame:
    """Checked confusion counts, one row per ``(by..., class)``."""
    counts = aggregate(lf, [*cols.by, cols.cls], _count_exprs(cols, _pred_expr(cols, threshold)))
    if not validate:
        return raise_on_problems(counts, [], cols.by)  # still refuses an empty table
    checks, problems = check_state(lf, cols, validate=True, ragged=ragged)
    return raise_on_problems(join_on(counts, checks, cols.by), problems, cols.by)


def _samples(
    lf: pl.LazyFrame,
    metric: str,
    cols: Columns,
    *,
    threshold: float,
    zero_division: float,
    validate: bool,
    ragged: Ragged,
) -> pl.LazyFrame:
    """scikit-learn's 'samples' average: the metric of each id, averaged over ids."""
    exprs = [*_count_exprs(cols, _pred_expr(cols, threshold)), cols.weight_expr.first().alias(_W)]
    per_id = lf.group_by([*cols.by, cols.id]).agg(exprs)
    tp, fp, fn, tn = (pl.col(c) for c in _COUNTS)
    value = from_counts(metric, tp, fp, fn, tn, zero_division)
    weight = pl.col(_W) if cols.weight is not None else None
    out = aggregate(per_id, cols.by, [nanaverage(value, weight).alias(metric)])
    if validate:
        checks, problems = check_state(lf, cols, validate=True, ragged=ragged)
        out = raise_on_problems(join_on(out, checks, cols.by), problems, cols.by)
    else:
        out = raise_on_problems(out, [], cols.by)
    return out.sort(list(cols.by)) if cols.by else out


def _metric(
    frame: FrameT,
    metric: str,
    *,
    id_col: str,
    class_col: str,
    score_col: str,
    truth_col: str,
    weight_col: str | None,
    by: str | Sequence[str] | None,
    threshold: float,
    pred: str | None,
    average: Average,
    zero_division: float,
    ragged: Ragged,
    validate: bool,
) -> FrameT:
    check_option("average", average, _AVERAGES)
    zero_division = check_zero_division(zero_division)
    if average == "samples" and metric not in _SAMPLES_METRICS:
        raise MetricsInputError(
            f"option 'average': 'samples' is defined for {', '.join(_SAMPLES_METRICS)}, "
            f"not {metric}"
        )
    cols: Columns = _resolve(
        frame,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        ragged=ragged,
        validate=validate,
    )
    lf = frame.lazy()
    if average == "samples":
        return as_like(
            frame,
            _samples(
                lf,
                metric,
                cols,
                threshold=threshold,
                zero_division=zero_division,
                validate=validate,
                ragged=ragged,
            ),
        )
    state = confusion_state(lf, cols, threshold=threshold, validate=validate, ragged=ragged)
    return as_like(frame, finalize(state, metric, cols.by, cols.cls, average, zero_division))


def finalize(
    state: pl.LazyFrame,
    metric: str,
    by: Sequence[str],
    class_col: str,
    average: Average,
    zero_division: float,
) -> pl.LazyFrame:
    """The metric from confusion counts per ``(by..., class)``."""
    tp, fp, fn, tn = (pl.col(c) for c in _COUNTS)
    by = list(by)
    if average is None:
        value = from_counts(metric, tp, fp, fn, tn, zero_division).alias(metric)
        return state.select([*by, class_col, value]).sort([*by, class_col])
    if average == "micro":
        pooled = from_counts(metric, tp.sum(), fp.sum(), fn.sum(), tn.sum(), zero_division)
        exprs = [pooled.alias(metric)]
    else:
        per_class = from_counts(metric, tp, fp, fn, tn, zero_division)
        support = (tp + fn).cast(pl.Float64) if average == "weighted" else None
        exprs = [nanaverage(per_class, support).alias(metric)]
    out = aggregate(state, by, exprs)
    return out.sort(by) if by else out


def confusion(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Confusion counts of each class: rows ``(by..., class, tp, fp, fn, tn)``.

    Counts are Int64, or Float64 sums of weights when ``weight_col`` is given. Per class they
    equal `sklearn.metrics.multilabel_confusion_matrix` (``[[tn, fp], [fn, tp]]``).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    ragged, validate
        As in `lrap`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 1, 1, 2, 2],
    ...     "class": ["cat", "dog"] * 3,
    ...     "score": [0.9, 0.2, 0.6, 0.7, 0.1, 0.4],
    ...     "truth": [1, 0, 0, 1, 0, 1],
    ... })
    >>> df.metrics.confusion()
    shape: (2, 5)
    ┌───────┬─────┬─────┬─────┬─────┐
    │ class ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ ---   ┆ --- ┆ --- ┆ --- ┆ --- │
    │ str   ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞═══════╪═════╪═════╪═════╪═════╡
    │ cat   ┆ 1   ┆ 1   ┆ 0   ┆ 1   │
    │ dog   ┆ 1   ┆ 0   ┆ 1   ┆ 1   │
    └───────┴─────┴─────┴─────┴─────┘
    """
    cols: Columns = _resolve(
        frame,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        ragged=ragged,
        validate=validate,
    )
    state = confusion_state(
        frame.lazy(), cols, threshold=threshold, validate=validate, ragged=ragged
    )
    names = {c: c.removeprefix(INTERNAL) for c in _COUNTS}
    out = state.select([*cols.by, cols.cls, *_COUNTS]).rename(names)
    return as_like(frame, out.sort([*cols.by, cols.cls]))


def f1(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """F1 score of each class's binary problem: `sklearn.metrics.f1_score`.

    ``F1 = 2tp / (2tp + fp + fn)``; averaged as scikit-learn averages the multilabel
    indicator matrix (``average=None`` gives its per-class array).

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``; each class is a binary problem.
    id_col, class_col, score_col, truth_col
        Column names. Truth is boolean or integer 0/1.
    weight_col
        Optional per-id sample weight: counts become weighted sums.
    by
        Column name(s) to group by.
    threshold
        ``pred = score >= threshold``. Ignored when ``pred`` is given.
    pred
        Name of a boolean or 0/1 column of predictions already made (no score is read).
    average
        ``None``: one row per class; ``"macro"``: mean over classes; ``"micro"``: the metric
        of the counts pooled over classes; ``"weighted"``: mean weighted by each class's
        positives; ``"samples"``: the metric of each id, averaged over ids (with their
        weights). NaN values (from ``zero_division=nan``) are left out of averages.
    zero_division
        Value of a ratio whose denominator is zero: 0 (default), 1 or NaN.
    ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        column named after the method.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 1, 1, 2, 2],
    ...     "class": ["cat", "dog"] * 3,
    ...     "score": [0.9, 0.2, 0.6, 0.7, 0.1, 0.4],
    ...     "truth": [1, 0, 0, 1, 0, 1],
    ... })
    >>> df.metrics.f1(average=None)
    shape: (2, 2)
    ┌───────┬──────────┐
    │ class ┆ f1       │
    │ ---   ┆ ---      │
    │ str   ┆ f64      │
    ╞═══════╪══════════╡
    │ cat   ┆ 0.666667 │
    │ dog   ┆ 0.666667 │
    └───────┴──────────┘
    >>> df.metrics.f1(average="micro", threshold=0.3).item()
    0.857142...
    """
    return _metric(
        frame,
        "f1",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


def precision(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Precision ``tp / (tp + fp)`` of each class: `sklearn.metrics.precision_score`.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.precision().item()
    0.3333...
    """
    return _metric(
        frame,
        "precision",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


def recall(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Recall (true positive rate) ``tp / (tp + fn)``: `sklearn.metrics.recall_score`.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.recall().item()
    0.5
    """
    return _metric(
        frame,
        "recall",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


def balanced_accuracy(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Balanced accuracy ``(TPR + TNR) / 2`` of each class's binary problem (seed 004).

    A rate whose denominator is zero takes ``zero_division``, which matches seed 004's
    formula without its ``eps``. Per class this equals
    `sklearn.metrics.balanced_accuracy_score` on the class's column when the column has
    both positives and negatives; when it has only one kind, scikit-learn drops the missing
    rate and returns the other, where this averages it with ``zero_division``.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.balanced_accuracy().item()
    0.25
    """
    return _metric(
        frame,
        "balanced_accuracy",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


def balanced_f1(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Balanced F1: the harmonic mean ``2·TPR·TNR / (TPR + TNR)`` (seed 004).

    No scikit-learn equivalent. Rates with a zero denominator take ``zero_division``; when
    both rates are 0 the value is 0.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.4],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.balanced_f1().item()
    0.5
    """
    return _metric(
        frame,
        "balanced_f1",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


def mfif(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Mean of F1 and inverted F1: ``(F1(pred, truth) + F1(not pred, not truth)) / 2``.

    Seed 004's MFIF. Per class it equals ``sklearn.metrics.f1_score(truth, pred,
    average="macro", labels=[0, 1])`` on the class's column.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "pred": [1, 1, 0, 0],
    ...                    "truth": [1, 0, 1, 0]})
    >>> df.metrics.mfif(pred="pred").item()
    0.5
    """
    return _metric(
        frame,
        "mfif",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred=pred,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )
