"""Metrics and tables of each class's scores: curves, calibration, Brier score, log loss.

Everything here comes from the curves table of the state (see `pl_metrics._curves`): for
each ``(by..., class, distinct score)``, the weight of positive and negative rows there. It
is a sum over rows, so states of any parts of a table merge into the state of the whole,
and `score` computes these in class-disjoint chunks like ROC AUC:

* ``roc_curve`` and ``precision_recall_curve``: the cumulative weights down the scores;
* ``brier_score`` and ``binary_log_loss``: each distinct score's loss times its weights;
* ``calibration_curve`` and ``expected_calibration_error``: the scores binned as
  scikit-learn's ``calibration_curve`` bins them (``np.searchsorted`` on the inner edges:
  a score on an edge goes to the lower bin; quantile edges by ``np.percentile``'s linear
  rule, computed the same way to the bit).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import partial
from typing import Literal

import numpy as np
import polars as pl

from pl_metrics._curves import (
    FP,
    N_ALL,
    P_ALL,
    TP,
    average_classes,
    cumulated,
    probability_check,
    with_class_counts,
)
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    aggregate,
    checked_options,
    join_asof_by,
    ordered_sum,
)
from pl_metrics._kernel import (
    are_counts,
    blocks_in_key_order,
    falling_key_blocks,
    key_blocks,
    planned,
    sorted_rising,
    sums_from_last,
)
from pl_metrics._report import report
from pl_metrics._spec import Options, Strategy
from pl_metrics._state import CURVE_NEG as _NEG
from pl_metrics._state import CURVE_POS as _POS
from pl_metrics._state import (
    CURVE_SCORE,
    Family,
    Parts,
    curve_exprs,
    register,
    sums_to_zero,
    weighs_something,
)

__all__ = [
    "binary_log_loss",
    "brier_score",
    "calibration_curve",
    "cell_loss",
    "expected_calibration_error",
    "precision_recall_curve",
    "roc_curve",
    "thinned",
    "weighted_mean",
    "weightless_class",
]

_N = f"{INTERNAL}n"
_ABS_N = f"{INTERNAL}abs_n"  # the weights' magnitudes: their sum's rounding (`sums_to_zero`)
_LOSS = f"{INTERNAL}loss"
_BIN = f"{INTERNAL}bin"
_EDGE = f"{INTERNAL}edge"
_K = f"{INTERNAL}k"
_ROW = f"{INTERNAL}row"
_END = f"{INTERNAL}end"
# The calibration table's columns, internal until calibration_curve names them: a key of the
# caller's may have their names (its result refuses that, expected_calibration_error need not).
_PROB_PRED, _PROB_TRUE, _COUNT = (f"{INTERNAL}{n}" for n in ("prob_pred", "prob_true", "count"))
_PROBABILITIES = ("brier_score", "binary_log_loss", "expected_calibration_error")


class _CurveTables(Family):
    """Curves, calibration and per-cell losses, from the curves table."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        parts = Parts(curve_exprs=curve_exprs(cols))
        probabilities = [m for m in metrics if m in _PROBABILITIES or m == "calibration_curve"]
        if probabilities:
            parts.id_checks = [probability_check(cols, probabilities)]
        return parts

    def result_problems(self, metric: str, cols: Columns, opts: Options) -> list[Problem]:
        problem = weightless_class(metric, cols, opts)
        return [] if problem is None else [problem]

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        assert curves is not None
        by, keys = list(cols.by), [*cols.by, cols.cls]
        if metric == "roc_curve":
            return thinned(_roc_curve(curves, keys), keys, opts.max_points, metric)
        if metric == "precision_recall_curve":
            return thinned(_pr_curve(curves, keys), keys, opts.max_points, metric)
        if metric == "calibration_curve":
            bins = _calibration_bins(curves, keys, opts.n_bins, opts.strategy)
            return bins.select(
                *keys,
                pl.col(_BIN).alias("bin"),
                pl.col(_PROB_PRED).alias("prob_pred"),
                pl.col(_PROB_TRUE).alias("prob_true"),
                # Rows (calibration takes no weights), summed as the curves' float counts.
                pl.col(_COUNT).cast(pl.Int64).alias("count"),
            )
        if metric == "expected_calibration_error":
            bins = _calibration_bins(curves, keys, opts.n_bins, opts.strategy)
            gap = pl.col(_COUNT) * (pl.col(_PROB_TRUE) - pl.col(_PROB_PRED)).abs()
            values = aggregate(
                bins.sort([*keys, _BIN]),
                keys,
                [
                    (ordered_sum(gap) / ordered_sum(pl.col(_COUNT))).alias(metric),
                    ordered_sum(pl.col(_PROB_TRUE) * pl.col(_COUNT)).alias(_POS),
                ],
            )
        else:
            pooled = opts.average == "micro"
            values = _cell_losses(curves, by if pooled else keys, cols.cls, metric, opts.eps)
            if pooled:
                return values.select(*by, metric)
        if opts.average is None:
            return _with_weightless(values.select(*keys, metric), values, metric, keys, cols, opts)
        out = average_classes(values, metric, by, "macro")
        if by:  # every group gets a row
            out = groups.select(by).join(out, on=by, how="left", nulls_equal=True)
        out = out.with_columns(pl.col(metric).fill_null(float("nan")))
        return _with_weightless(out, values, metric, by, cols, opts)


def weightless_class(metric: str, cols: Columns, opts: Options) -> Problem | None:
    """The check of ``metric``'s classes for weights summing to zero; None where unchecked."""
    per_class = metric in ("brier_score", "binary_log_loss") and opts.average != "micro"
    if not per_class or cols.weight is None:
        return None
    return Problem(
        f"weightless_class_{metric}",
        cols.weight,
        "classes",
        "have weights that sum to zero (their ids weigh 0, or cancel)",
        f"{metric} is a weighted mean over each class's ids; drop those classes' rows",
        examples=True,
    )


def _with_weightless(
    out: pl.LazyFrame,
    values: pl.LazyFrame,
    metric: str,
    keys: list[str],
    cols: Columns,
    opts: Options,
) -> pl.LazyFrame:
    """Add the count of classes whose weights sum to zero (and some of them) to ``out``.

    Their weighted mean is undefined (NaN), and so was the macro average over the classes.
    A group's weights summing to zero are refused first (`pl_metrics._state`): a class gets
    here in a ragged table, of ids of weight 0 only (or weights that cancel). Raised with
    the data checks, after them, as roc_auc's undefined classes are.
    """
    problem = weightless_class(metric, cols, opts)
    if problem is None:
        return out
    weightless = sums_to_zero(pl.col(_N), pl.col(_ABS_N))
    return with_class_counts(out, values, keys, problem, weightless, cols.cls)


def cell_loss(metric: str, score: pl.Expr, pos: pl.Expr, neg: pl.Expr, eps: float) -> pl.Expr:
    """The weighted loss (brier_score or binary_log_loss) at one score.

    ``pos`` and ``neg``: the weights of the positives and negatives holding the score (one
    row: its weight on its side, 0 on the other).
    """
    s = score.cast(pl.Float64)
    if metric == "brier_score":
        return pos * (s - 1) ** 2 + neg * s**2
    # binary_log_loss, clipped as log_loss
    p = s.clip(eps, 1 - eps)
    # A side of no weight adds 0, also where its log is -inf (eps below 2**-53 leaves a
    # score of 1 at 1: 0 * -inf would be NaN).
    return -(
        pl.when(pos != 0).then(pos * p.log()).otherwise(0.0)
        + pl.when(neg != 0).then(neg * (1 - p).log()).otherwise(0.0)
    )


def weighted_mean(summed: pl.Expr, total: pl.Expr, magnitude: pl.Expr | None = None) -> pl.Expr:
    """A weighted mean from its sums: NaN where the weights sum to 0.

    Given their absolute sum, ``magnitude``: NaN where they cancel, up to rounding.
    """
    zero = total == 0 if magnitude is None else sums_to_zero(total, magnitude)
    return pl.when(zero).then(float("nan")).otherwise(summed / total)


def _cell_losses(
    curves: pl.LazyFrame, keys: list[str], cls: str, metric: str, eps: float
) -> pl.LazyFrame:
    """Per ``keys``: the cells' weighted mean loss, the weights (positives', all, |all|)."""
    plan = partial(_cell_losses_plan, keys=keys, cls=cls, metric=metric, eps=eps)
    if cls not in keys:  # classes pooled: their sums run across blocks
        return plan(curves)
    return planned(curves, plan, partial(_cell_losses_in_blocks, keys=keys, metric=metric, eps=eps))


def _cell_losses_plan(
    curves: pl.LazyFrame, keys: list[str], cls: str, metric: str, eps: float
) -> pl.LazyFrame:
    """`_cell_losses` in polars, for any curves table."""
    pos, neg = pl.col(_POS), pl.col(_NEG)
    loss = cell_loss(metric, pl.col(CURVE_SCORE), pos, neg, eps)
    # Sorted by class and score within the keys: the sums in a fixed order.
    ordered = sorted_rising(curves, [*keys, cls], CURVE_SCORE).with_columns(loss.alias(_LOSS))
    weight = ordered_sum(pos + neg)
    value = weighted_mean(ordered_sum(pl.col(_LOSS)), weight)
    exprs = [
        value.alias(metric),
        ordered_sum(pos).alias(_POS),
        weight.alias(_N),
        ordered_sum(pos.abs() + neg.abs()).alias(_ABS_N),
    ]
    return aggregate(ordered, keys, exprs)


def _cell_losses_in_blocks(
    df: pl.DataFrame, keys: list[str], metric: str, eps: float
) -> pl.DataFrame | None:
    """`_cell_losses` of a table with each key's scores in a block, falling; else None.

    Each block's sums, added from its lowest score up as the plan adds them, without the
    plan's gather of every row into that order.
    """
    blocks = falling_key_blocks(df, keys, CURVE_SCORE)
    if blocks is None:
        return None
    starts, firsts = blocks
    pos, neg = pl.col(_POS), pl.col(_NEG)
    loss = cell_loss(metric, pl.col(CURVE_SCORE), pos, neg, eps)
    magnitude = pos.abs() + neg.abs()
    cells = df.select(loss.alias(_LOSS), (pos + neg).alias(_N), pos, magnitude.alias(_ABS_N))
    sums = sums_from_last([c.to_numpy() for c in cells.cast(pl.Float64).get_columns()], starts)
    summed, weight, positives, magnitudes = (pl.lit(pl.Series(v)) for v in sums.T)
    value = weighted_mean(summed, weight)
    return firsts.select(
        *keys,
        value.alias(metric),
        positives.alias(_POS),
        weight.alias(_N),
        magnitudes.alias(_ABS_N),
    )


def _weighed(points: pl.LazyFrame) -> pl.LazyFrame:
    """The curve's points at scores of some weight: scikit-learn drops rows of weight 0."""
    return points.filter(weighs_something())


def _roc_curve(curves: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Sklearn's ``roc_curve(drop_intermediate=False)``: a first row at threshold inf."""
    table = _in_blocks(cumulated(curves, keys), keys, _roc_points, first=True)
    negatives, positives = pl.col(N_ALL), pl.col(P_ALL)
    return table.select(
        *keys,
        "threshold",
        pl.when(negatives > 0).then(pl.col(FP) / negatives).otherwise(float("nan")).alias("fpr"),
        pl.when(positives > 0).then(pl.col(TP) / positives).otherwise(float("nan")).alias("tpr"),
    )


def _roc_points(every: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The points of `_roc_curve` from `cumulated`, each class's first at threshold inf."""
    points = _weighed(every).select(*keys, _THRESHOLD, TP, FP, P_ALL, N_ALL)
    start = (  # every class's, also one whose weights are all zero
        every.select(*keys, P_ALL, N_ALL)
        .unique()
        .with_columns(threshold=pl.lit(float("inf")), **{TP: pl.lit(0.0), FP: pl.lit(0.0)})
    )
    return pl.concat([start, points], how="diagonal_relaxed").sort(
        [*keys, "threshold"], descending=[False] * len(keys) + [True], maintain_order=True
    )


def _pr_curve(curves: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Sklearn's ``precision_recall_curve``: thresholds rising, then precision 1, recall 0."""
    return _in_blocks(cumulated(curves, keys), keys, _pr_points, first=False)


def _pr_points(every: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """`_pr_curve` from `cumulated`."""
    table = _weighed(every).select(*keys, _THRESHOLD, *_PR_VALUES)
    end = (
        every.select(keys)
        .unique()
        .with_columns(threshold=pl.lit(None, pl.Float64), precision=pl.lit(1.0), recall=pl.lit(0.0))
    )
    return pl.concat([table, end], how="vertical_relaxed").sort(
        [*keys, "threshold"], nulls_last=True, maintain_order=True
    )


_THRESHOLD = pl.col(CURVE_SCORE).alias("threshold")
_PREDICTED = pl.col(TP) + pl.col(FP)
_PR_VALUES = (
    pl.when(_PREDICTED != 0).then(pl.col(TP) / _PREDICTED).otherwise(0.0).alias("precision"),
    pl.when(pl.col(P_ALL) == 0).then(1.0).otherwise(pl.col(TP) / pl.col(P_ALL)).alias("recall"),
)


def _in_blocks(
    every: pl.LazyFrame,
    keys: list[str],
    plan: Callable[[pl.LazyFrame, list[str]], pl.LazyFrame],
    *,
    first: bool,
) -> pl.LazyFrame:
    """``plan(every, keys)``: a curve's points and an end point per class, in order.

    The end point is ROC's first (at threshold inf) or PR's last (at none). Where
    `cumulated` holds each class's scores in a block, falling, the points are taken from it
    in place, the end points put between the blocks: no concatenation and sort of every
    row by several columns (5M rows: 0.5 s). The plan takes any other table.
    """
    return planned(
        every, lambda lf: plan(lf, keys), partial(_points_in_blocks, keys=keys, first=first)
    )


def _points_in_blocks(df: pl.DataFrame, keys: list[str], *, first: bool) -> pl.DataFrame | None:
    """`_in_blocks`' points of `cumulated` in blocks; None for other tables."""
    # Null keys first in ROC's order, last in PR's (as the plans sort them).
    blocks = blocks_in_key_order(df, keys, nulls_last=not first, falling=CURVE_SCORE)
    if blocks is None:
        return None
    table, starts = blocks
    rows = np.flatnonzero(table.select(weighs_something()).to_series().to_numpy())
    n_blocks, n = len(starts) - 1, len(starts) - 1 + len(rows)
    before = np.searchsorted(rows, starts)  # the points (weighed rows) before each block
    ends = before[:-1] + np.arange(n_blocks) if first else before[1:] + np.arange(n_blocks)
    is_end = np.zeros(n, np.bool_)
    is_end[ends] = True
    if not first:  # PR: thresholds rising, each block's points the other way round
        block = np.searchsorted(starts, rows, side="right") - 1
        rows = rows[before[block] + before[block + 1] - 1 - np.arange(len(rows))]
    index = np.empty(n, np.int64)
    index[ends], index[~is_end] = starts[:-1], rows  # an end point takes its block's keys
    points = table[index].with_columns(pl.Series(_END, is_end))
    end = pl.col(_END)
    if first:
        zero = pl.lit(0.0)
        return points.select(
            *keys,
            pl.when(end).then(float("inf")).otherwise(pl.col(CURVE_SCORE)).alias("threshold"),
            *(pl.when(end).then(zero).otherwise(pl.col(c)).alias(c) for c in (TP, FP)),
            P_ALL,
            N_ALL,
        )
    precision, recall = _PR_VALUES
    return points.select(
        *keys,
        pl.when(~end).then(pl.col(CURVE_SCORE)).alias("threshold"),
        pl.when(end).then(1.0).otherwise(precision).alias("precision"),
        pl.when(end).then(0.0).otherwise(recall).alias("recall"),
    )


#: The axes of each curve's plane, along which `thinned` spreads its rows.
CURVE_AXES = {"roc_curve": ("fpr", "tpr"), "precision_recall_curve": ("recall", "precision")}


def thinned(table: FrameT, keys: list[str], max_points: int | None, metric: str) -> FrameT:
    """At most ``max_points`` rows per class of a ``metric`` curve, evenly spread along it.

    Spread by the curve's length in its plane (`CURVE_AXES`), not by rows: rows crowd where
    the scores do, often on a flat tail, and rows spread evenly left a perfect PR curve
    thinned to 10 rows with 9 on its tail. Kept: the first row, the first at or past each of
    ``max_points - 1`` equal steps of length, and the last. ``keys``: one curve per value
    (none: the table is one curve).
    """
    if max_points is None:
        return table
    plan = partial(_thinned_plan, keys=keys, max_points=max_points, metric=metric)

    def in_blocks(df: pl.DataFrame) -> pl.DataFrame | None:
        keep = _kept_in_blocks(df, keys, max_points, metric)
        return None if keep is None else df.filter(pl.Series(keep))

    return planned(table, plan, in_blocks)


def _thinned_plan(
    table: pl.LazyFrame, keys: list[str], max_points: int, metric: str
) -> pl.LazyFrame:
    """`thinned` in polars, for any table."""
    x, y = (pl.col(c).cast(pl.Float64) for c in CURVE_AXES[metric])
    # NaN coordinates (a class without negatives has NaN fpr) add no length.
    step = (x.diff().fill_null(0).fill_nan(0) ** 2 + y.diff().fill_null(0).fill_nan(0) ** 2).sqrt()
    row, rows = pl.int_range(pl.len()), pl.len()
    length = pl.when(step.sum() > 0).then(step.cum_sum()).otherwise(row)
    steps = max_points - 1
    # The step of length a row reaches; the last row's (the whole length) is kept apart.
    reached = (length * steps / length.max()).floor().clip(upper_bound=steps - 1)
    first = (row == 0) | (reached > reached.shift(1))
    keep = (rows <= max_points) | first | (row == rows - 1)
    return table.filter(keep.over(keys) if keys else keep)


def _kept_in_blocks(
    df: pl.DataFrame, keys: list[str], max_points: int, metric: str
) -> np.ndarray | None:
    """The rows `thinned` keeps, where each curve's rows are together; None otherwise.

    `_thinned_plan`'s operations in numpy, a curve (block) at a time only for the lengths'
    cumulative sums: the plan's windows over every row took 1.8 s for 5M rows.
    """
    axes = [df[c].cast(pl.Float64) for c in CURVE_AXES[metric]]
    if not df.height or any(a.null_count() for a in axes):
        return None
    if keys:
        blocks = key_blocks(df, keys)
        if blocks is None:
            return None
        starts = blocks[0]
    else:
        starts = np.array([0, df.height])
    firsts, lengths = starts[:-1], np.diff(starts)
    row = np.arange(df.height) - np.repeat(firsts, lengths)
    squares = []
    for axis in axes:
        values = axis.to_numpy()
        diff = np.diff(values, prepend=values[:1])
        diff[firsts] = 0.0
        squares.append(np.where(np.isnan(diff), 0.0, diff) ** 2)
    step = np.sqrt(squares[0] + squares[1])
    length = row.astype(np.float64)
    for a, b in zip(firsts, starts[1:], strict=True):
        if (step[a:b] > 0).any():
            np.cumsum(step[a:b], out=length[a:b])
    steps = max_points - 1
    with np.errstate(invalid="ignore", divide="ignore"):  # a curve of one row: 0 / 0
        most = np.repeat(np.maximum.reduceat(length, firsts), lengths)
        # polars divides by a scalar as it multiplies by its inverse: so here too (a row at
        # a step's boundary falls on the same side of it).
        reached = np.minimum(np.floor(length * steps * (1.0 / most)), steps - 1)
    before = np.concatenate([reached[:1], reached[:-1]])
    rows = np.repeat(lengths, lengths)
    keep: np.ndarray = (rows <= max_points) | (row == 0) | (reached > before) | (row == rows - 1)
    return keep


def _calibration_bins(
    curves: pl.LazyFrame, keys: list[str], n_bins: int, strategy: Strategy
) -> pl.LazyFrame:
    """Per ``keys`` and non-empty bin: count, mean score and share of positives.

    As ``sklearn.calibration.calibration_curve``: the bins are ``np.searchsorted`` of the
    inner edges (a score on an edge goes to the lower bin).
    """
    plan = partial(_calibration_plan, keys=keys, n_bins=n_bins, strategy=strategy)
    fast = partial(_bins_in_blocks, keys=keys, n_bins=n_bins, strategy=strategy)
    return planned(curves, plan, fast)


def _bins_in_blocks(
    df: pl.DataFrame, keys: list[str], n_bins: int, strategy: Strategy
) -> pl.DataFrame | None:
    """`_calibration_bins` of a table with each key's scores in a block, falling.

    Each bin's sums added from its lowest score up, as the plan adds them, without the
    plan's as-of joins and sorts of every row; quantile edges as `_quantile_edges` finds
    them, of counts only (whose totals are exact in any order). None for other tables.
    """
    blocks = falling_key_blocks(df, keys, CURVE_SCORE) if keys else None
    if blocks is None:
        return None
    starts, firsts = blocks
    s, n = pl.col(CURVE_SCORE).cast(pl.Float64), pl.col(_POS) + pl.col(_NEG)
    cells = df.select(s, (s * n).alias(_PROB_PRED), _POS, n.alias(_N)).cast(pl.Float64)
    score, *summands = (c.to_numpy() for c in cells.get_columns())
    rows = summands[2]
    if strategy == "quantile" and not (are_counts(rows) and rows.all()):
        return None
    if strategy == "uniform":  # the number of edges below each score
        bins = np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], score, side="left")
    else:
        quantiles = np.linspace(0, 1, n_bins + 1)[1:-1] * 100 / 100
        bins = np.empty(len(score), np.int64)
        for a, b in itertools.pairwise(starts):
            inner = np.sort(_quantiles_of(score[a:b][::-1], rows[a:b][::-1], quantiles))
            bins[a:b] = np.searchsorted(inner, score[a:b], side="left")
    # Each block's bins are runs of its rows (scores falling): summed from the lowest up.
    first = np.ones(len(score), np.bool_)
    first[1:] = bins[1:] != bins[:-1]
    first[starts[:-1]] = True
    run_starts = np.append(np.flatnonzero(first), len(score))
    summed, positives, count = (pl.Series(v) for v in sums_from_last(summands, run_starts).T)
    block_of = np.searchsorted(starts, run_starts[:-1], side="right") - 1
    table = firsts[block_of].with_columns(
        pl.Series(_BIN, bins[run_starts[:-1]]),
        (summed / count).alias(_PROB_PRED),
        (positives / count).alias(_PROB_TRUE),
        count.alias(_COUNT),
    )
    return table.sort([*keys, _BIN])


def _quantiles_of(rising: np.ndarray, counts: np.ndarray, quantiles: np.ndarray) -> np.ndarray:
    """`_quantile_edges` of one key's distinct scores ``rising``, each ``counts`` times.

    The plan's operations, in numpy: numpy's 'linear' percentile of the scores repeated.
    """
    cumulated = np.cumsum(counts)  # (counts: exact)
    total = cumulated[-1]
    h = (total - 1) * quantiles
    lo = np.floor(h)
    hi = np.minimum(lo + 1, total - 1)
    share = h - lo
    # The score at 0-based position i: the first whose cumulated count exceeds i.
    below = rising[np.searchsorted(cumulated, lo + 1, side="left")]
    above = rising[np.searchsorted(cumulated, hi + 1, side="left")]
    diff = above - below
    edges: np.ndarray = np.where(share >= 0.5, above - diff * (1 - share), below + diff * share)
    return edges


def _calibration_plan(
    curves: pl.LazyFrame, keys: list[str], n_bins: int, strategy: Strategy
) -> pl.LazyFrame:
    """`_calibration_bins` in polars, for any curves table."""
    s = pl.col(CURVE_SCORE).cast(pl.Float64)
    cells = curves.select(
        *keys, s.alias(CURVE_SCORE), _POS, (pl.col(_POS) + pl.col(_NEG)).alias(_N)
    )
    if strategy == "uniform":
        inner = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
        edges = (
            curves.select(keys)
            .unique()
            .join(pl.LazyFrame({_EDGE: inner.tolist()}, schema={_EDGE: pl.Float64}), how="cross")
        )
    else:
        edges = _quantile_edges(cells, keys, n_bins)
    # A score's bin is the number of edges below it: the position of the last edge below it
    # among its key's sorted edges (an as-of join: rows plus edges, where pairing every
    # score with every edge held scores x bins rows).
    numbered = edges.sort([*keys, _EDGE]).with_columns(
        (pl.int_range(pl.len()).over(keys) + 1).alias(_BIN)
    )
    binned = join_asof_by(
        sorted_rising(cells, keys, CURVE_SCORE),
        numbered,
        keys,
        left_on=CURVE_SCORE,
        right_on=_EDGE,
        strategy="backward",
        allow_exact_matches=False,  # a score on an edge goes to the lower bin
        check_sortedness=False,  # sorted by key, then value (polars cannot check with by)
    ).with_columns(pl.col(_BIN).fill_null(0))
    count = ordered_sum(pl.col(_N))
    return (
        binned.sort([*keys, _BIN, CURVE_SCORE])
        .group_by([*keys, _BIN])
        .agg(
            (ordered_sum(pl.col(CURVE_SCORE) * pl.col(_N)) / count).alias(_PROB_PRED),
            (ordered_sum(pl.col(_POS)) / count).alias(_PROB_TRUE),
            count.alias(_COUNT),
        )
        .sort([*keys, _BIN])
    )


def _quantile_edges(cells: pl.LazyFrame, keys: list[str], n_bins: int) -> pl.LazyFrame:
    """The inner edges ``np.percentile(scores, np.linspace(0, 1, n_bins + 1) * 100)[1:-1]``.

    numpy's linear method, step for step (the virtual index ``(n - 1) * q``, rounded as
    numpy rounds it, and its two-sided interpolation), so a score equal to an edge is binned
    as scikit-learn bins it.
    """
    quantiles = np.linspace(0, 1, n_bins + 1)[1:-1] * 100 / 100
    # Working columns beside the caller's keys: internal names, never a user's column.
    total, q, h, lo, hi, gamma, a, b = (
        f"{INTERNAL}quantile_{n}" for n in ("total", "q", "h", "lo", "hi", "gamma", "a", "b")
    )
    up = sorted_rising(cells, keys, CURVE_SCORE).with_columns(
        pl.col(_N).cum_sum().over(keys).alias(_K)
    )
    # The last cumulated count: weights added in the scores' order, the same bits on every
    # run (a sum in a group_by adds a group's parts in whichever order its threads finish).
    totals = up.group_by(keys).agg(pl.col(_K).last().alias(total))
    grid = totals.join(pl.LazyFrame({q: quantiles.tolist()}), how="cross").with_columns(
        ((pl.col(total) - 1) * pl.col(q)).alias(h)  # numpy's virtual index ('linear')
    )
    grid = grid.with_columns(pl.col(h).floor().alias(lo)).with_columns(
        pl.min_horizontal(pl.col(lo) + 1, pl.col(total) - 1).alias(hi),
        (pl.col(h) - pl.col(lo)).alias(gamma),
    )

    def value_at(index: str, name: str) -> pl.LazyFrame:
        # The score at 0-based position ``index`` of the sorted scores: the first distinct
        # score whose cumulative count exceeds it.
        wanted = grid.select(*keys, q, (pl.col(index) + 1).alias(_K)).sort([*keys, _K])
        # Both sides are in key order, ``_K`` ascending within each key (polars cannot
        # check that with ``by``, and warns when it tries).
        found = join_asof_by(
            wanted,
            up.select(*keys, _K, CURVE_SCORE),
            keys,
            on=_K,
            strategy="forward",
            check_sortedness=False,
        )
        return found.select(*keys, q, pl.col(CURVE_SCORE).alias(name))

    below, above, share = pl.col(a), pl.col(b), pl.col(gamma)
    diff = above - below
    lerp = pl.when(share >= 0.5).then(above - diff * (1 - share)).otherwise(below + diff * share)
    return (
        grid.join(value_at(lo, a), on=[*keys, q], nulls_equal=True)
        .join(value_at(hi, b), on=[*keys, q], nulls_equal=True)
        .select(*keys, lerp.alias(_EDGE))
    )


register("_curve_tables", _CurveTables())


@checked_options
def roc_curve(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    max_points: int | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """ROC curve of each class: rows ``(by..., class, threshold, fpr, tpr)``.

    Per class equal to ``sklearn.metrics.roc_curve(truth, score, sample_weight=w,
    drop_intermediate=False)``, its first row included (threshold ``inf``, 0, 0); thresholds
    fall down the class's distinct scores (those of ids of weight 0 left out, as
    scikit-learn drops them; with negative weights, a score whose positives' weights and
    negatives' weights each add up to 0 too, where the curve does not move, which
    scikit-learn keeps). A class without negatives has NaN ``fpr`` (without positives, NaN
    ``tpr``), as scikit-learn.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`.
    max_points
        Thin each class's curve to at most this many points for plotting, evenly spread
        along it, first and last kept. Default: every point (exact).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, threshold, fpr, tpr)``; Float64 values.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.4, 0.35, 0.8], "truth": [0, 0, 1, 1]})
    >>> df.metrics.roc_curve()
    shape: (5, 4)
    ┌───────┬───────────┬─────┬─────┐
    │ class ┆ threshold ┆ fpr ┆ tpr │
    │ ---   ┆ ---       ┆ --- ┆ --- │
    │ str   ┆ f64       ┆ f64 ┆ f64 │
    ╞═══════╪═══════════╪═════╪═════╡
    │ bird  ┆ inf       ┆ 0.0 ┆ 0.0 │
    │ bird  ┆ 0.8       ┆ 0.0 ┆ 0.5 │
    │ bird  ┆ 0.4       ┆ 0.5 ┆ 0.5 │
    │ bird  ┆ 0.35      ┆ 0.5 ┆ 1.0 │
    │ bird  ┆ 0.1       ┆ 1.0 ┆ 1.0 │
    └───────┴───────────┴─────┴─────┘
    """
    return report(
        frame,
        "roc_curve",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        max_points=max_points,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def precision_recall_curve(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    max_points: int | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Precision-recall curve of each class, one row per threshold.

    Rows ``(by..., class, threshold, precision, recall)``. Per class equal to
    ``sklearn.metrics.precision_recall_curve(truth, score, sample_weight=w)``: thresholds
    rise through the class's distinct scores (of ids of some weight), and a last row with
    precision 1, recall 0 and a null threshold ends the curve. A class without positives
    has recall 1 throughout, as scikit-learn.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`.
    max_points
        As in `roc_curve`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, threshold, precision, recall)``; Float64 values.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.4, 0.35, 0.8], "truth": [0, 0, 1, 1]})
    >>> df.metrics.precision_recall_curve()
    shape: (5, 4)
    ┌───────┬───────────┬───────────┬────────┐
    │ class ┆ threshold ┆ precision ┆ recall │
    │ ---   ┆ ---       ┆ ---       ┆ ---    │
    │ str   ┆ f64       ┆ f64       ┆ f64    │
    ╞═══════╪═══════════╪═══════════╪════════╡
    │ bird  ┆ 0.1       ┆ 0.5       ┆ 1.0    │
    │ bird  ┆ 0.35      ┆ 0.666667  ┆ 1.0    │
    │ bird  ┆ 0.4       ┆ 0.5       ┆ 0.5    │
    │ bird  ┆ 0.8       ┆ 1.0       ┆ 0.5    │
    │ bird  ┆ null      ┆ 1.0       ┆ 0.0    │
    └───────┴───────────┴───────────┴────────┘
    """
    return report(
        frame,
        "precision_recall_curve",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        max_points=max_points,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def calibration_curve(
    frame: FrameT,
    *,
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    by: str | Sequence[str] | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Reliability of each class's probabilities, one row per non-empty bin.

    Rows ``(by..., class, bin, prob_pred, prob_true, count)``. Per class equal to
    ``sklearn.calibration.calibration_curve(truth, score, n_bins=n_bins,
    strategy=strategy)``: ``prob_pred`` is the bin's mean score,
    ``prob_true`` its share of positives. ``"uniform"`` bins split [0, 1] evenly,
    ``"quantile"`` bins hold about equal counts; a score on an edge goes to the lower bin.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, ragged, validate
        As in `roc_auc`. Scores must be probabilities in [0, 1].
    n_bins
        Number of bins.
    strategy
        ``"uniform"`` or ``"quantile"``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, bin, prob_pred, prob_true, count)``; ``bin`` and
        ``count`` are Int64.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": range(6), "class": "bird",
    ...                    "score": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], "truth": [0, 0, 1, 1, 1, 1]})
    >>> df.metrics.calibration_curve(n_bins=2)
    shape: (2, 5)
    ┌───────┬─────┬───────────┬───────────┬───────┐
    │ class ┆ bin ┆ prob_pred ┆ prob_true ┆ count │
    │ ---   ┆ --- ┆ ---       ┆ ---       ┆ ---   │
    │ str   ┆ i64 ┆ f64       ┆ f64       ┆ i64   │
    ╞═══════╪═════╪═══════════╪═══════════╪═══════╡
    │ bird  ┆ 0   ┆ 0.2       ┆ 0.333333  ┆ 3     │
    │ bird  ┆ 1   ┆ 0.8       ┆ 1.0       ┆ 3     │
    └───────┴─────┴───────────┴───────────┴───────┘
    """
    return report(
        frame,
        "calibration_curve",
        n_bins=n_bins,
        strategy=strategy,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        by=by,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def brier_score(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    average: Literal["macro"] | None = "macro",
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Brier score of each class: `sklearn.metrics.brier_score_loss` on the class's column.

    The (weighted) mean of ``(score - truth)²``; ``average=None`` gives one row per class,
    ``"macro"`` their mean.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`. Scores must be probabilities in [0, 1].
    average
        ``None`` or ``"macro"``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a
        Float64 ``brier_score`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.9, 0.8, 0.3], "truth": [0, 1, 1, 0]})
    >>> round(df.metrics.brier_score().item(), 6)
    0.0375
    """
    return report(
        frame,
        "brier_score",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        average=average,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def binary_log_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    average: Literal["macro", "micro"] | None = "macro",
    eps: float = 1e-15,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Log loss of each ``(id, class)`` cell as its own binary problem.

    Per class `sklearn.metrics.log_loss` on the class's column; ``"macro"`` is the mean
    column-wise log loss of multilabel competitions, ``"micro"`` the log loss over all
    cells. Probabilities are clipped to ``[eps, 1 - eps]`` (as in `log_loss`).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`. Scores must be probabilities in [0, 1].
    average
        ``None`` (per class), ``"macro"`` or ``"micro"``.
    eps
        Clipping bound.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a
        Float64 ``binary_log_loss`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["bird", "frog"] * 2,
    ...                    "score": [0.9, 0.2, 0.3, 0.6], "truth": [1, 0, 0, 1]})
    >>> round(df.metrics.binary_log_loss(average="micro").item(), 6)
    0.299001
    """
    return report(
        frame,
        "binary_log_loss",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        average=average,
        eps=eps,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def expected_calibration_error(
    frame: FrameT,
    *,
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    by: str | Sequence[str] | None = None,
    average: Literal["macro"] | None = "macro",
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Expected calibration error of each class, from `calibration_curve`'s bins.

    No scikit-learn equivalent: the count-weighted mean of ``|prob_true - prob_pred|`` over
    the non-empty bins of ``sklearn.calibration.calibration_curve`` (same bins: a score on
    an edge goes to the lower bin). ``average=None`` gives one row per class, ``"macro"``
    their mean.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, ragged, validate
        As in `roc_auc`. Scores must be probabilities in [0, 1].
    n_bins, strategy
        As in `calibration_curve`.
    average
        ``None`` or ``"macro"``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a
        Float64 ``expected_calibration_error`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": range(6), "class": "bird",
    ...                    "score": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], "truth": [0, 0, 1, 1, 1, 1]})
    >>> round(df.metrics.expected_calibration_error(n_bins=2).item(), 6)
    0.166667
    """
    return report(
        frame,
        "expected_calibration_error",
        n_bins=n_bins,
        strategy=strategy,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        by=by,
        average=average,
        ragged=ragged,
        validate=validate,
    )
