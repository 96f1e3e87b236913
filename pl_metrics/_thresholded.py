"""The thresholded family: confusion counts, F1, precision, recall, balanced F1, MFIF, ...

Every class of a long table is its own binary problem: ``pred = score >= threshold``, or a
column of 0/1 predictions already made (``pred_col="column"``). The state is the confusion
matrix of each ``(by..., class)``: four sums over rows, so states of any row-disjoint parts
of a table add up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
import polars as pl

from pl_metrics import _kernel
from pl_metrics._counts import from_counts, nanaverage
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    aggregate,
    checked_options,
    listed,
    ordered_mean,
    ordered_sum,
)
from pl_metrics._registry import info
from pl_metrics._report import report
from pl_metrics._runs import ClassCounts, RunColumns
from pl_metrics._spec import THRESHOLD_ROW, Average, Options, Thresholds
from pl_metrics._state import Family, Parts, register

__all__ = [
    "COUNTS",
    "accuracy",
    "balanced_accuracy",
    "balanced_f1",
    "confusion",
    "f1",
    "fbeta",
    "hamming_loss",
    "jaccard",
    "matthews_corrcoef",
    "mfif",
    "precision",
    "pred_expr",
    "recall",
    "samples_names",
    "specificity",
]

_CELLS = ("tp", "fp", "fn", "tn")
COUNTS = tuple(f"{INTERNAL}{name}" for name in _CELLS)
_ID_COUNTS = tuple(f"{INTERNAL}id_{name}" for name in _CELLS)
_W = f"{INTERNAL}w"
_EXACT = f"{INTERNAL}exact"  # per id: every class predicted right
_EXACT_SUM = f"{INTERNAL}exact_sum"
_EXACT_W = f"{INTERNAL}exact_w"
_RUN_PRED = f"{INTERNAL}run_pred"  # the kernel's input: each row's prediction
#: Metrics of the counts pooled over all classes, whatever ``average`` says.
_POOLED = ("hamming_loss",)


def pred_expr(cols: Columns, threshold: float | Thresholds) -> pl.Expr:
    """Each row's prediction: the given 0/1 column, or the score against its threshold."""
    if cols.pred is not None:
        return cols.pred_expr
    assert cols.score is not None
    if isinstance(threshold, Thresholds):  # joined onto the rows (`Thresholds.joined`)
        row = pl.col(THRESHOLD_ROW)
        narrow = cols.narrow_score
        return pl.col(cols.score) >= (row if narrow is None else row.cast(narrow))
    return pl.col(cols.score) >= threshold  # a literal takes the scores' type


def _count_exprs(
    cols: Columns, threshold: float | Thresholds, names: Sequence[str]
) -> list[pl.Expr]:
    """tp, fp, fn, tn as (weighted) sums over rows; integers without weights."""
    pred, truth = pred_expr(cols, threshold), cols.truth_expr
    cells = (pred & truth, pred & ~truth, ~pred & truth, ~pred & ~truth)
    if cols.weight is None:
        return [c.sum().cast(pl.Int64).alias(n) for c, n in zip(cells, names, strict=True)]
    weight = cols.weight_expr
    return [weight.filter(c).sum().alias(n) for c, n in zip(cells, names, strict=True)]


def samples_names(metric: str) -> tuple[str, str, str, str]:
    """Sums that make scikit-learn's NaN-ignoring weighted mean of per-id values mergeable."""
    base = f"{INTERNAL}samples_{metric}_"
    return base + "n", base + "v", base + "wv", base + "w"


class _Thresholded(Family):
    """Each class a binary problem: confusion counts per (group, class)."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        parts = Parts()
        if isinstance(opts.threshold, Thresholds) and cols.pred is None:
            parts.prepare = [opts.threshold.joined]
            table = opts.threshold
            shown = sorted({str(row[table.keys.index(cols.cls)]) for row in table.rows})
            classes = f"{len(shown):,} {'class' if len(shown) == 1 else 'classes'}"
            are = "is" if len(shown) == 1 else "are"
            # A group the table lacks shows as its classes all missing: its groups named too.
            # (in the call's order, then the table's keys that pool, a fold say)
            group_keys = [k for k in cols.by if k in table.keys]
            group_keys += [k for k in table.keys if k not in (cols.cls, *cols.by)]
            groups = sorted(
                {
                    ", ".join(f"{k}={row[table.keys.index(k)]!r}" for k in group_keys)
                    for row in table.rows
                }
            )
            of_groups = (
                f" (in {len(groups):,} {'group' if len(groups) == 1 else 'groups'}: "
                f"{listed(groups, 12, len(groups), separator='; ')})"
                if group_keys
                else ""
            )
            missing = Problem(
                "no_threshold",
                cols.cls,
                "rows",
                "have no threshold in the threshold table",
                "give a threshold for every class (and group) of the data; the threshold "
                f"table's {classes}{of_groups}, compared as text, {are} "
                f"{listed([repr(c) for c in shown], 12)}",
            )
            parts.id_checks = [(missing, pl.col(THRESHOLD_ROW).is_null().sum().cast(pl.Int64))]
        # 'samples' averages each id's value; metrics without it (confusion, hamming_loss)
        # still need the per-class counts.
        by_id = opts.average == "samples"
        samples = [m for m in metrics if by_id and "samples" in info(m).averages]
        # (accuracy is of the per-id matches alone.)
        if set(metrics) - {*samples, "accuracy"}:
            parts.class_exprs = _count_exprs(cols, opts.threshold, COUNTS)
            if not isinstance(opts.threshold, Thresholds):
                predicted = pred_expr(cols, opts.threshold)
                cells = dict(zip(COUNTS, _CELLS, strict=True))
                weight = None if cols.weight is None else cols.weight_expr
                parts.class_counts = ClassCounts(predicted, cells, weight)
        per_run: list[pl.Expr] = []  # per-id columns the kernel may count (`_run_columns`)
        if "accuracy" in metrics:
            pred, truth = pred_expr(cols, opts.threshold), cols.truth_expr
            w = pl.col(_W)
            exact = (pred != truth).sum().eq(0).cast(pl.Float64).alias(_EXACT)
            parts.id_exprs += [exact, cols.weight_expr.first().alias(_W)]
            per_run.append(exact)
            parts.group_exprs += [
                ordered_sum(w * pl.col(_EXACT)).alias(_EXACT_SUM),
                ordered_sum(w).alias(_EXACT_W),
            ]
        if samples or (opts.per_id and "hamming_loss" in metrics):
            # The id's counts are unweighted (its weight is one number): its value is its
            # own, weight 0 included, as per_id gives it.
            id_counts = _count_exprs(replace(cols, weight=None), opts.threshold, _ID_COUNTS)
            parts.id_exprs += [*id_counts, cols.weight_expr.first().alias(_W)]
            per_run += id_counts
        if samples:  # scikit-learn's 'samples' average: each id's metric, averaged over ids
            tp, fp, fn, tn = (pl.col(c) for c in _ID_COUNTS)
            w, no = pl.col(_W), pl.lit(0)
            for metric in samples:
                value = from_counts(metric, tp, fp, fn, tn, opts.zero_division, opts.beta)
                if cols.weight is not None:
                    # scikit-learn weighs the counts, so an id of weight 0 has none: its
                    # value is the zero-division one (which the plain mean of a group of
                    # weight 0 takes, and NaN leaves out).
                    nothing = from_counts(metric, no, no, no, no, opts.zero_division, opts.beta)
                    value = pl.when(w == 0).then(nothing).otherwise(value)
                valid = value.is_not_nan()
                n, v, wv, ws = samples_names(metric)
                parts.group_exprs += [
                    valid.sum().cast(pl.Int64).alias(n),
                    ordered_sum(value.filter(valid)).alias(v),
                    ordered_sum((value * w).filter(valid)).alias(wv),
                    ordered_sum(w.filter(valid)).alias(ws),
                ]
        if per_run and in_memory and _kernel.available() and not parts.prepare:
            parts.run_columns = _run_columns(pred_expr(cols, opts.threshold), per_run)
        return parts

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        if metric == "accuracy":
            return [pl.col(_EXACT).alias(metric)]
        tp, fp, fn, tn = (pl.col(c) for c in _ID_COUNTS)
        if metric == "hamming_loss":  # the share of the id's classes predicted wrong
            return [((fp + fn) / (tp + fp + fn + tn)).cast(pl.Float64).alias(metric)]
        value = from_counts(metric, tp, fp, fn, tn, opts.zero_division, opts.beta)
        return [value.alias(metric)]

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        by = list(cols.by)
        if metric == "confusion":
            assert classes is not None
            names = {c: c.removeprefix(INTERNAL) for c in COUNTS}
            return classes.select([*by, cols.cls, *COUNTS]).rename(names)
        if metric == "accuracy":
            total = pl.col(_EXACT_W)
            value = pl.when(total == 0).then(float("nan")).otherwise(pl.col(_EXACT_SUM) / total)
            return groups.select(*by, value.cast(pl.Float64).alias(metric))
        if opts.average == "samples" and "samples" in info(metric).averages:
            n, v, wv, ws = (pl.col(c) for c in samples_names(metric))
            # scikit-learn's _nanaverage: NaN left out; weights summing to zero: plain mean.
            value = pl.when(n == 0).then(float("nan")).when(ws == 0).then(v / n).otherwise(wv / ws)
            return groups.select(*by, value.cast(pl.Float64).alias(metric))
        assert classes is not None
        tp, fp, fn, tn = (pl.col(c) for c in COUNTS)
        zd, beta = opts.zero_division, opts.beta
        if opts.average is None and metric not in _POOLED:
            value = from_counts(metric, tp, fp, fn, tn, zd, beta).alias(metric)
            return classes.select([*by, cols.cls, value])
        if opts.average == "micro" or metric in _POOLED:
            s_tp, s_fp, s_fn, s_tn = (ordered_sum(c) for c in (tp, fp, fn, tn))
            pooled = from_counts(metric, s_tp, s_fp, s_fn, s_tn, zd, beta)
            return aggregate(classes, by, [pooled.alias(metric)])
        per_class = from_counts(metric, tp, fp, fn, tn, zd, beta)
        if "zero_division" not in info(metric).options:
            # (MCC: a class's NaN comes of negative weights, not of zero_division=nan; the
            # mean of scikit-learn's per-class values keeps it.)
            return aggregate(classes, by, [ordered_mean(per_class).cast(pl.Float64).alias(metric)])
        support = (tp + fn).cast(pl.Float64) if opts.average == "weighted" else None
        return aggregate(classes, by, [nanaverage(per_class, support).alias(metric)])


def _run_columns(pred: pl.Expr, aggregations: list[pl.Expr]) -> RunColumns:
    """Each id's exact match (accuracy) or confusion counts ('samples') over its run of rows.

    In the counts pass: sums over each run of the prediction and truth flags, for a
    fraction of the per-id aggregation (accuracy of 5M rows: 0.14 s, then 0.06 s).
    """
    names = [e.meta.output_name() for e in aggregations]

    def over_runs(
        df: pl.DataFrame, runs: _kernel.IdRuns, truth: np.ndarray, classes: _kernel.ClassCodes
    ) -> dict[str, np.ndarray] | None:
        column = df[_RUN_PRED]
        if column.null_count():  # (unchecked nulls: polars leaves them out of its sums)
            return None
        predicted, starts = _kernel.flags(column), runs.starts
        if starts[0] != 0 or starts[-1] != len(predicted):  # (runs cover the rows)
            return None

        def per_run(marks: np.ndarray) -> np.ndarray:
            return np.add.reduceat(marks.view(np.uint8), starts[:-1], dtype=np.int64)

        out = {}
        if _EXACT in names:
            out[_EXACT] = (per_run(predicted != truth) == 0).astype(np.float64)
        if _ID_COUNTS[0] in names:
            tp, predicted_of, positives = (
                per_run(m) for m in (predicted & truth, predicted, truth)
            )
            cells = (
                tp,
                predicted_of - tp,
                positives - tp,
                np.diff(starts) - positives - predicted_of + tp,
            )
            out |= dict(zip(_ID_COUNTS, cells, strict=True))
        return out

    return RunColumns([pred.alias(_RUN_PRED)], pl.Schema(), over_runs, aggregations=aggregations)


register("_thresholded", _Thresholded())


@checked_options
def confusion(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Confusion counts of each class: rows ``(by..., class, tp, fp, fn, tn)``.

    Counts are Int64, or Float64 sums of weights when ``weight_col`` is given. Per class they
    equal `sklearn.metrics.multilabel_confusion_matrix` (``[[tn, fp], [fn, tp]]``).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, tp, fp, fn, tn)``: Int64 counts, or Float64 sums of weights
        with ``weight_col``.

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
    return report(
        frame,
        "confusion",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def f1(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    per_id: bool = False,
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
        Column names. Truth is boolean or numbers 0/1.
    weight_col
        Optional per-id sample weight: counts become weighted sums.
    by
        Column name(s) to group by.
    threshold
        ``pred = score >= threshold``: a number, or a table of per-class thresholds with
        columns ``(class, threshold)`` or ``(by..., class, threshold)`` (what
        `best_threshold` returns). Not with ``pred_col``, which holds the predictions.
        Compared in the scores' type (Float32 scores: the threshold rounded to Float32, as
        numpy compares; Float16 likewise), the same way in every form and in
        `threshold_sweep`.
    pred_col
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
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, f1)`` (with
        ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
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
    return report(
        frame,
        "f1",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def precision(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Precision ``tp / (tp + fp)`` of each class: `sklearn.metrics.precision_score`.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, precision)``
        (with ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``precision`` column; with ``per_id=True`` and ``average="samples"``, rows ``(by...,
        id, precision)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.precision().item()
    0.3333...
    """
    return report(
        frame,
        "precision",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def recall(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Recall (true positive rate) ``tp / (tp + fn)``: `sklearn.metrics.recall_score`.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, recall)``
        (with ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``recall`` column; with ``per_id=True`` and ``average="samples"``, rows ``(by...,
        id, recall)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.recall().item()
    0.5
    """
    return report(
        frame,
        "recall",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def balanced_accuracy(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Balanced accuracy ``(TPR + TNR) / 2`` of each class's binary problem.

    As in the BirdCLEF 2022 metrics notebook. A rate whose denominator is zero takes
    ``zero_division``, which matches the notebook's formula without its ``eps``. Per class
    this equals `sklearn.metrics.balanced_accuracy_score` on the class's column when the
    column has both positives and negatives; when it has only one kind, scikit-learn drops
    the missing rate and returns the other, where this averages it with ``zero_division``
    (``zero_division=nan`` leaves it out: scikit-learn's value).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``balanced_accuracy`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.balanced_accuracy().item()
    0.25
    """
    return report(
        frame,
        "balanced_accuracy",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def balanced_f1(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Balanced F1: the harmonic mean ``2·TPR·TNR / (TPR + TNR)``.

    From the BirdCLEF 2022 metrics notebook, whose formula it is without its ``eps``; no
    scikit-learn equivalent. Rates with a zero denominator take ``zero_division``; when
    both rates are 0 the value is 0.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``balanced_f1`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.4],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.balanced_f1().item()
    0.5
    """
    return report(
        frame,
        "balanced_f1",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def mfif(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Literal["macro", "micro", "weighted"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Mean of F1 and inverted F1: ``(F1(pred, truth) + F1(not pred, not truth)) / 2``.

    The MFIF of the BirdCLEF 2022 metrics notebook (Kaggle), without its ``eps``. Per class
    it equals ``sklearn.metrics.f1_score(truth, pred, average="macro", labels=[0, 1])`` on
    the class's column.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1` (no ``"samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``mfif`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "pred": [1, 1, 0, 0],
    ...                    "truth": [1, 0, 1, 0]})
    >>> df.metrics.mfif(pred_col="pred").item()
    0.5
    """
    return report(
        frame,
        "mfif",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def fbeta(
    frame: FrameT,
    *,
    beta: float = 1.0,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """F-beta score of each class: `sklearn.metrics.fbeta_score` on the indicator matrix.

    ``(1 + beta²)·tp / ((1 + beta²)·tp + beta²·fn + fp)``: recall weighs ``beta`` times as
    much as precision (``beta=1`` is `f1`).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    beta
        Weight of recall against precision: a number in [0, 1e150] (0: precision).
    average, zero_division, ragged, validate
        As in `f1`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, fbeta)``
        (with ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``fbeta`` column; with ``per_id=True`` and ``average="samples"``, rows ``(by..., id,
        fbeta)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, True, True]})
    >>> round(df.metrics.fbeta(beta=2.0).item(), 6)
    0.666667
    """
    return report(
        frame,
        "fbeta",
        beta=beta,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def jaccard(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Jaccard index ``tp / (tp + fp + fn)`` of each class: `sklearn.metrics.jaccard_score`.

    ``average="samples"`` gives each id's intersection over union of its predicted and
    true label sets, averaged over ids, as scikit-learn.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average, zero_division, ragged, validate
        As in `f1`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, jaccard)``
        (with ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``jaccard`` column; with ``per_id=True`` and ``average="samples"``, rows ``(by...,
        id, jaccard)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["cat", "dog"] * 2,
    ...                    "score": [0.9, 0.7, 0.2, 0.6], "truth": [1, 0, 1, 1]})
    >>> df.metrics.jaccard(average="samples").item()
    0.5
    """
    return report(
        frame,
        "jaccard",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def specificity(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Literal["macro", "micro"] | None = "macro",
    zero_division: float = 0.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Specificity (true negative rate) ``tn / (tn + fp)`` of each class.

    Per class it equals ``sklearn.metrics.recall_score(truth, pred, pos_label=0)`` on the
    class's column; ``"micro"`` pools the counts of all classes.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average
        ``None`` (per class), ``"macro"`` or ``"micro"``.
    zero_division, ragged, validate
        As in `f1`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``specificity`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.6],
    ...                    "truth": [True, False, False, False]})
    >>> round(df.metrics.specificity().item(), 6)
    0.333333
    """
    return report(
        frame,
        "specificity",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        zero_division=zero_division,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def matthews_corrcoef(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    average: Literal["macro", "micro"] | None = "macro",
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Matthews correlation coefficient of each class: `sklearn.metrics.matthews_corrcoef`.

    ``(tp·tn - fp·fn) / sqrt((tp + fp)(tp + fn)(tn + fp)(tn + fn))`` per class column; 0
    when a factor is 0 (a class always or never predicted, or always or never true), as
    scikit-learn. ``"macro"`` averages the classes; ``"micro"`` is the coefficient of the
    counts pooled over classes. Negative weights can make a class's product negative: its
    coefficient is NaN, as scikit-learn's, and so is the macro average.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    average
        ``None`` (per class), ``"macro"`` or ``"micro"``.
    ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``matthews_corrcoef`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "x", "score": [0.9, 0.8, 0.3, 0.1],
    ...                    "truth": [True, False, True, False]})
    >>> df.metrics.matthews_corrcoef().item()
    0.0
    """
    return report(
        frame,
        "matthews_corrcoef",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        average=average,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def hamming_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Hamming loss: the share of ``(id, class)`` cells predicted wrong.

    `sklearn.metrics.hamming_loss` on the indicator matrices; with ``weight_col`` each id's
    cells weigh its weight.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    ragged, validate
        As in `lrap`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id,
        hamming_loss)``, the share of the id's classes predicted wrong. Their mean (weighted
        by ``weight_col``) is the metric where every id has every class (``ragged="allow"``
        pools the cells: an id of fewer classes weighs less).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns, then a Float64 ``hamming_loss`` column; with ``per_id=True``,
        rows ``(by..., id, hamming_loss)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["cat", "dog"] * 2,
    ...                    "score": [0.9, 0.7, 0.2, 0.6], "truth": [1, 0, 1, 1]})
    >>> df.metrics.hamming_loss().item()
    0.5
    """
    return report(
        frame,
        "hamming_loss",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def accuracy(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    pred_col: str | None = None,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Subset accuracy: the share of ids whose whole label set is predicted exactly.

    `sklearn.metrics.accuracy_score` on the indicator matrices (every class of an id right).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, threshold, pred_col
        As in `f1`.
    ragged, validate
        As in `lrap`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, accuracy)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns, then a Float64 ``accuracy`` column; with ``per_id=True``, rows
        ``(by..., id, accuracy)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["cat", "dog"] * 2,
    ...                    "score": [0.9, 0.2, 0.2, 0.6], "truth": [1, 0, 1, 1]})
    >>> df.metrics.accuracy().item()
    0.5
    """
    return report(
        frame,
        "accuracy",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        threshold=threshold,
        pred_col=pred_col,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
