"""The label-ranking family: lwlrap, LRAP, coverage error and label ranking loss.

All four come from the same two ranks of each positive row ``j`` of an id, counted over the
id's rows with ties taking the worst ('max') rank, as scikit-learn does:

* ``R_j``: how many of the id's labels score at least as high as ``j``;
* ``P_j``: how many of the id's *positive* labels score at least as high as ``j``.

Then, per id, LRAP is ``mean(P_j / R_j)``, the coverage error is ``max(R_j)`` and the ranking
loss is ``sum(R_j - P_j) / (n_pos * n_neg)`` (``R_j - P_j`` negatives score at least as high
as ``j``: each is a mis-ordered pair, ties included). The plan is one aggregation per id
followed by sums per group, so the sums of id-disjoint parts add up to the sums of the whole.

``R_j`` and ``P_j`` are counted in one of two ways, with the same comparisons:

* a LazyFrame gets joins (each positive to its id's rows at least as high), which run in the
  streaming engine and never hold the input;
* a DataFrame, whose rows are in memory anyway (and each chunk of `score`), gets the C
  kernel of ``_kernels.c``: one pass over each id's contiguous rows, several times faster.
  Without a C compiler at install time the kernel is missing and the joins run everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from types import ModuleType

import numpy as np
import polars as pl

from pl_metrics._frame import INTERNAL, Columns, FrameT, Problem, Ragged, contiguous_runs
from pl_metrics._report import report
from pl_metrics._state import (
    MAX_ROWS,
    N_ROWS,
    Family,
    Options,
    Parts,
    register,
)

_kernels: ModuleType | None
try:
    from pl_metrics import _kernels
except ImportError:  # installed without a C compiler: the joins count the pairs
    _kernels = None

__all__ = ["coverage_error", "label_ranking_loss", "lrap", "lwlrap"]

RANKING_METRICS = ("lwlrap", "lrap", "coverage_error", "label_ranking_loss")

# Per-id columns.
_NPOS = f"{INTERNAL}npos"
_PREC = f"{INTERNAL}prec"
_NEG_ABOVE = f"{INTERNAL}neg_above"
_MAX_RANK = f"{INTERNAL}max_rank"
_W = f"{INTERNAL}w"
_MIN_POS = f"{INTERNAL}min_pos"
_POS_CLASS = f"{INTERNAL}pos_class"
_POS_SCORE = f"{INTERNAL}pos_score"
_SCORE = f"{INTERNAL}score"
_TRUTH = f"{INTERNAL}truth"
_R = f"{INTERNAL}r"
_P = f"{INTERNAL}p"
# Per-group sums.
_W_SUM = f"{INTERNAL}w_sum"
_LRAP_SUM = f"{INTERNAL}lrap_sum"
_COV_SUM = f"{INTERNAL}cov_sum"
_LOSS_SUM = f"{INTERNAL}loss_sum"
_LW_SUM = f"{INTERNAL}lw_sum"
_LW_DEN = f"{INTERNAL}lw_den"
# Per-(group, class) sums for lwlrap per class.
_CLASS_LW_SUM = f"{INTERNAL}class_lw_sum"
_CLASS_LW_DEN = f"{INTERNAL}class_lw_den"
_CLASS_NPOS = f"{INTERNAL}class_npos"

# Score types the kernel compares exactly: float32 as is, the others as float64.
_KERNEL_SCORES = (
    pl.Float32,
    pl.Float64,
    pl.Boolean,
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
)
_THREADS = os.cpu_count() or 1
#: Per id: the sums of P_j / R_j and of R_j - P_j, and the largest R_j (the coverage).
_SUMS = (_PREC, _NEG_ABOVE, _MAX_RANK)


def _id_exprs(cols: Columns) -> list[pl.Expr]:
    """Per id: positives, the weight, and the lowest positive score for the joins."""
    assert cols.score is not None
    score, truth = pl.col(cols.score), cols.truth_expr
    exprs = [truth.sum().cast(pl.Int64).alias(_NPOS), cols.weight_expr.first().alias(_W)]
    if not _use_kernel(cols):
        exprs.append(score.filter(truth).min().alias(_MIN_POS))
    return exprs


def _use_kernel(cols: Columns) -> bool:
    """Rows already in memory are counted by the C kernel; a LazyFrame keeps its streaming plan."""
    return cols.in_memory and _kernels is not None


def _pair_input(rows: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """The columns both ways of counting read, under internal names."""
    assert cols.score is not None
    return rows.select(
        *cols.by,
        cols.id,
        pl.col(cols.cls).alias(_POS_CLASS),
        pl.col(cols.score).alias(_SCORE),
        cols.truth_expr.alias(_TRUTH),
    )


def _per_positive(rows: pl.LazyFrame, per_id: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """``R_j`` and ``P_j`` of every positive row: ``(by..., id, class, R, P)``."""
    keys = [*cols.by, cols.id]
    pairs = _pair_input(rows, cols)
    if not _use_kernel(cols):
        return _count_pairs_joined(pairs, per_id.select(*keys, _MIN_POS), keys)
    schema = pairs.collect_schema()
    out = pl.Schema({k: schema[k] for k in [*keys, _POS_CLASS]} | {_R: pl.Int64, _P: pl.Int64})
    count = partial(_count_pairs_in_memory, keys=keys, schema=out, per_id=False)
    return pairs.map_batches(count, schema=out)


def _rank_sums(rows: pl.LazyFrame, per_id: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """Per id: the sums of ``P_j / R_j`` and ``R_j - P_j``, and the largest ``R_j``.

    Ids without positives may be left out: their sums are zero.
    """
    keys = [*cols.by, cols.id]
    if not _use_kernel(cols):
        return _sums_per_id(_per_positive(rows, per_id, cols), keys)
    pairs = _pair_input(rows, cols)
    schema = pairs.collect_schema()
    out = pl.Schema({k: schema[k] for k in keys} | dict.fromkeys(_SUMS, pl.Float64))
    count = partial(_count_pairs_in_memory, keys=keys, schema=out, per_id=True)
    return pairs.map_batches(count, schema=out)


def _sums_per_id(per_positive: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    r, p = pl.col(_R), pl.col(_P)
    return per_positive.group_by(keys).agg(
        (p / r).sum().alias(_PREC),
        (r - p).sum().cast(pl.Float64).alias(_NEG_ABOVE),
        r.max().cast(pl.Float64).alias(_MAX_RANK),
    )


def _count_pairs_joined(
    pairs: pl.LazyFrame, min_pos: pl.LazyFrame, keys: list[str]
) -> pl.LazyFrame:
    """Count the pairs with joins, which stream.

    Each positive is joined to the rows of its id that score at least as high, and the
    pairs are counted. Rows below the id's lowest positive score can never count, so they are
    dropped first: for a good model that leaves little more than the positives. Joins,
    filters and sums run in the streaming engine; a per-id rank would not.
    """
    score = pl.col(_SCORE)
    positives = pairs.filter(_TRUTH).select(*keys, _POS_CLASS, score.alias(_POS_SCORE))
    candidates = (
        pairs.select(*keys, _SCORE, _TRUTH)
        .join(min_pos, on=keys, nulls_equal=True)
        .filter(score >= pl.col(_MIN_POS))
    )
    return (
        candidates.join(positives, on=keys, nulls_equal=True)
        .filter(score >= pl.col(_POS_SCORE))
        .group_by([*keys, _POS_CLASS])
        .agg(pl.len().alias(_R), pl.col(_TRUTH).sum().alias(_P))
    )


def _count_pairs_in_memory(
    df: pl.DataFrame, keys: list[str], schema: pl.Schema, *, per_id: bool
) -> pl.DataFrame:
    """Count the pairs with the C kernel, over rows made contiguous per id.

    Returns ``R`` and ``P`` per positive, or with ``per_id`` the id's sums of them. Nulls and
    NaN (possible with ``validate=False``) and 64-bit integer scores (not exact as float64)
    go to the joins instead, so that both paths give the same numbers.
    """
    assert _kernels is not None
    score, truth = df[_SCORE], df[_TRUTH]
    if (
        score.dtype not in _KERNEL_SCORES
        or score.null_count()
        or truth.null_count()
        or (score.dtype.is_float() and score.is_nan().any())
    ):
        min_pos = df.lazy().group_by(keys).agg(pl.col(_SCORE).filter(_TRUTH).min().alias(_MIN_POS))
        joined = _count_pairs_joined(df.lazy(), min_pos, keys)
        return (_sums_per_id(joined, keys) if per_id else joined).collect().cast(schema)
    df, starts = contiguous_runs(df, keys)
    is_f32 = score.dtype == pl.Float32
    values = df[_SCORE].cast(pl.Float32 if is_f32 else pl.Float64).to_numpy()
    flags = df[_TRUTH].to_numpy()
    rank = np.empty(int(np.count_nonzero(flags)), np.int64)
    pos_rank = np.empty_like(rank)
    sums = [np.empty(len(starts) - 1) for _ in _SUMS]
    # Split the runs between threads (the kernel releases the GIL); each writes its own slices.
    pieces = np.linspace(0, len(starts) - 1, min(_THREADS, len(starts) - 1) + 1).astype(int)
    positives_at = [int(np.count_nonzero(flags[: starts[g]])) for g in pieces]

    def count(piece: int) -> None:
        first, last = pieces[piece], pieces[piece + 1]
        out = slice(positives_at[piece], positives_at[piece + 1])
        _kernels.pair_counts(
            starts[first : last + 1],
            values,
            is_f32,
            flags,
            rank[out],
            pos_rank[out],
            *(s[first:last] for s in sums),
        )

    with ThreadPoolExecutor(_THREADS) as pool:
        list(pool.map(count, range(len(pieces) - 1)))
    if per_id:
        firsts = df.select(keys)[starts[:-1]]
        return firsts.with_columns(pl.Series(name, s) for name, s in zip(_SUMS, sums, strict=True))
    return (
        df.filter(_TRUTH)
        .select(*keys, _POS_CLASS)
        .with_columns(pl.Series(_R, rank), pl.Series(_P, pos_rank))
    )


def _with_rank_sums(cols: Columns) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    def extend(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        keys = [*cols.by, cols.id]
        sums = _rank_sums(rows, per_id, cols)
        # Ids without positives have no pairs: zero sums (coverage 0, as in sklearn).
        return per_id.join(sums, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col(_SUMS).fill_null(0.0)
        )

    return extend


def _by_positive_class(cols: Columns) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    def per_class(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        keys = [*cols.by, cols.id]
        w = pl.col(_W)
        return (
            _per_positive(rows, per_id, cols)
            .join(per_id.select(*keys, _W), on=keys, nulls_equal=True)
            .group_by([*cols.by, _POS_CLASS])
            .agg(
                (w * pl.col(_P) / pl.col(_R)).sum().alias(_CLASS_LW_SUM),
                w.sum().alias(_CLASS_LW_DEN),
                pl.len().cast(pl.Int64).alias(_CLASS_NPOS),
            )
            .rename({_POS_CLASS: cols.cls})
        )

    return per_class


def _group_exprs() -> list[pl.Expr]:
    """Weighted sums over a group's ids."""
    n, npos, w = pl.col(N_ROWS), pl.col(_NPOS), pl.col(_W)
    # An id whose labels are all positive or all negative carries no ranking: sklearn scores
    # it 1 for LRAP and 0 for the ranking loss.
    degenerate = (npos == 0) | (npos == n)
    lrap_id = pl.when(degenerate).then(1.0).otherwise(pl.col(_PREC) / npos)
    loss_id = (
        pl.when(degenerate)
        .then(0.0)
        .otherwise(pl.col(_NEG_ABOVE) / (npos * (n - npos)).cast(pl.Float64))
    )
    return [
        w.sum().alias(_W_SUM),
        (w * lrap_id).sum().alias(_LRAP_SUM),
        (w * pl.col(_MAX_RANK)).sum().alias(_COV_SUM),
        (w * loss_id).sum().alias(_LOSS_SUM),
        (w * pl.col(_PREC)).sum().alias(_LW_SUM),
        (w * npos).sum().alias(_LW_DEN),
    ]


class _Ranking(Family):
    """The label-ranking family: pair counts per positive, then sums per id and group."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options) -> Parts:
        parts = Parts(
            id_exprs=_id_exprs(cols),
            extend_ids=[_with_rank_sums(cols)],
            group_exprs=_group_exprs(),
        )
        if opts.per_class and "lwlrap" in metrics:
            parts.class_from_ids.append(_by_positive_class(cols))
        return parts

    def group_checks(
        self, metric: str, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.Expr]]:
        """What scikit-learn refuses for coverage and ranking loss."""
        if metric not in ("coverage_error", "label_ranking_loss"):
            return []
        return [
            (
                Problem(
                    "single_class",
                    cols.cls,
                    "groups",
                    "have a single class",
                    f"{metric} needs at least two classes per id",
                ),
                (pl.col(MAX_ROWS) < 2).cast(pl.Int64),
            ),
            (
                Problem(
                    "zero_weight",
                    cols.weight or cols.id,
                    "groups",
                    "have weights that sum to zero",
                    f"{metric} is undefined there",
                ),
                (pl.col(_W_SUM) == 0).cast(pl.Int64),
            ),
        ]

    def per_class(self, metric: str, opts: Options) -> bool:
        return metric == "lwlrap" and opts.per_class

    def has_kernel(self) -> bool:
        return _kernels is not None

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        if self.per_class(metric, opts):
            assert classes is not None
            return _lwlrap_per_class(classes, cols)
        # A zero denominator gives NaN: no positive label for lwlrap, weights summing to zero
        # for the others (seed 001; scikit-learn would give +-inf or NaN there).
        numerator, denominator = {
            "lwlrap": (_LW_SUM, _LW_DEN),
            "lrap": (_LRAP_SUM, _W_SUM),
            "coverage_error": (_COV_SUM, _W_SUM),
            "label_ranking_loss": (_LOSS_SUM, _W_SUM),
        }[metric]
        den = pl.col(denominator)
        value = pl.when(den == 0).then(float("nan")).otherwise(pl.col(numerator) / den)
        return groups.select(*cols.by, value.cast(pl.Float64).alias(metric))


def _lwlrap_per_class(classes: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    den = pl.col(_CLASS_LW_DEN)
    group_den = den.sum().over(list(cols.by)) if cols.by else den.sum()
    return classes.select(
        *cols.by,
        cols.cls,
        # A class never positive in its group has no precision to average: null, weight 0.
        pl.when(pl.col(_CLASS_NPOS) > 0)
        .then(pl.col(_CLASS_LW_SUM) / den)
        .cast(pl.Float64)
        .alias("lwlrap"),
        (den / group_den).cast(pl.Float64).alias("weight"),
    )


register(RANKING_METRICS, _Ranking())


def lwlrap(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    per_class: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Label-weighted label-ranking average precision (lwlrap), as in DCASE 2019 task 2.

    Every positive label ``j`` of an id gets the precision of the id's ranking cut at ``j``:
    the share of positive labels among those scoring at least as high. lwlrap is the mean of
    these precisions over all positive labels of the group, so each *label* counts once.
    It equals LRAP weighted by each id's number of positive labels (`lrap` weighs each *id*
    once), and it ignores ids without positives.

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``.
    id_col, class_col, score_col, truth_col
        Column names. Truth is boolean or integer 0/1; scores are any numbers.
    weight_col
        Optional per-id weight: each of an id's positive labels counts with the id's weight.
    by
        Column name(s) to group by: one result row per group.
    per_class
        If true, return rows ``(by..., class, lwlrap, weight)``: each class's mean precision
        and its share of the group's positive labels, so that ``sum(lwlrap * weight)`` is the
        overall value. A class that is never positive in its group gets a null lwlrap and
        weight 0 (the DCASE code reports 0 there; it carries no weight either way).
    ragged
        ``"error"`` (default): every id must have a row for every class of its group.
        ``"allow"``: rank each id over the rows it has.
    validate
        Check the data (nulls, NaN/inf, truth outside 0/1, duplicates, ragged ids). Turning
        checks off saves one aggregation per id; bad data then gives meaningless numbers.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``lwlrap`` column; NaN for a group without any
        positive label.

    Notes
    -----
    Tied scores take the worst rank of their tie, as in scikit-learn. The DCASE reference code
    breaks ties by sort order instead, so its result depends on the order of the classes: with
    two labels tied and only the second one positive, it gives 1.0 where this gives 0.5.

    >>> import polars as pl
    >>> import pl_metrics
    >>> tied = pl.DataFrame({"id": [0, 0], "class": ["a", "b"],
    ...                      "score": [0.5, 0.5], "truth": [False, True]})
    >>> tied.metrics.lwlrap().item()
    0.5

    Examples
    --------
    The worked example of the DCASE 2019 notebook (seed 000):

    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [1, 1, 1, 2, 2, 2],
    ...     "class": ["A", "B", "C"] * 2,
    ...     "score": [0.1, 0.7, 0.2] * 2,
    ...     "truth": [1, 0, 1, 0, 1, 1],
    ... })
    >>> df.metrics.lwlrap()
    shape: (1, 1)
    ┌──────────┐
    │ lwlrap   │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.791667 │
    └──────────┘
    >>> df.metrics.lwlrap(per_class=True)
    shape: (3, 3)
    ┌───────┬──────────┬────────┐
    │ class ┆ lwlrap   ┆ weight │
    │ ---   ┆ ---      ┆ ---    │
    │ str   ┆ f64      ┆ f64    │
    ╞═══════╪══════════╪════════╡
    │ A     ┆ 0.666667 ┆ 0.25   │
    │ B     ┆ 1.0      ┆ 0.25   │
    │ C     ┆ 0.75     ┆ 0.5    │
    └───────┴──────────┴────────┘
    """
    return report(
        frame,
        "lwlrap",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        ragged=ragged,
        validate=validate,
        per_class=per_class,
    )


def lrap(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Label-ranking average precision: `sklearn.metrics.label_ranking_average_precision_score`.

    For each positive label of an id: the share of positives among the labels scoring at least
    as high (ties take the worst rank); averaged over the id's positives, then over ids.

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``.
    id_col, class_col, score_col, truth_col
        Column names. Truth is boolean or integer 0/1; scores are any numbers.
    weight_col
        Optional per-id sample weight (constant within an id). Negative weights are accepted:
        the result is the plain weighted mean.
    by
        Column name(s) to group by: one result row per group.
    ragged
        ``"error"`` (default) or ``"allow"`` (rank each id over the rows it has).
    validate
        Check the data first (see `lwlrap`).

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``lrap`` column.

    Notes
    -----
    An id whose labels are all positive or all negative scores 1, so a table with one class
    scores 1. Weights summing to zero give NaN (scikit-learn divides anyway and gives +-inf
    or NaN).

    Examples
    --------
    Seed 001's example: the first id's positive label ranks second of three, the second id's
    ranks last.

    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 0, 1, 1, 1],
    ...     "class": [0, 1, 2] * 2,
    ...     "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1],
    ...     "truth": [True, False, False, False, False, True],
    ... })
    >>> df.metrics.lrap()
    shape: (1, 1)
    ┌──────────┐
    │ lrap     │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.416667 │
    └──────────┘
    >>> df.with_columns(w=pl.when(pl.col("id") == 0).then(-1).otherwise(2)).metrics.lrap(
    ...     weight_col="w").item()
    0.1666...
    """
    return report(
        frame,
        "lrap",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        ragged=ragged,
        validate=validate,
    )


def coverage_error(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Coverage error: `sklearn.metrics.coverage_error`.

    How far down an id's ranking one must go to cover all its positive labels: the number of
    labels scoring at least as high as its lowest-scored positive (ties count against). An id
    without positives counts 0. Averaged over ids, with optional per-id weights.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``coverage_error`` column.

    Raises
    ------
    MetricsInputError
        When the result is computed, for a group with a single class or with weights summing
        to zero (scikit-learn refuses both).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 0, 1, 1, 1],
    ...     "class": [0, 1, 2] * 2,
    ...     "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1],
    ...     "truth": [True, False, False, False, False, True],
    ... })
    >>> df.metrics.coverage_error().item()
    2.5
    """
    return report(
        frame,
        "coverage_error",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        ragged=ragged,
        validate=validate,
    )


def label_ranking_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Label ranking loss: `sklearn.metrics.label_ranking_loss`.

    Per id, the share of (positive, negative) label pairs in the wrong order; a tie counts as
    wrong. Ids with no positives or no negatives count 0. Averaged over ids, with optional
    per-id weights.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``label_ranking_loss`` column.

    Raises
    ------
    MetricsInputError
        When the result is computed, for a group with a single class or with weights summing
        to zero (scikit-learn refuses both).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "model": ["a"] * 6 + ["b"] * 6,
    ...     "id": [0, 0, 0, 1, 1, 1] * 2,
    ...     "class": [0, 1, 2] * 4,
    ...     "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1] + [0.9, 0.1, 0.1, 0.1, 0.1, 0.9],
    ...     "truth": [True, False, False, False, False, True] * 2,
    ... })
    >>> df.lazy().metrics.label_ranking_loss(by="model").collect()
    shape: (2, 2)
    ┌───────┬────────────────────┐
    │ model ┆ label_ranking_loss │
    │ ---   ┆ ---                │
    │ str   ┆ f64                │
    ╞═══════╪════════════════════╡
    │ a     ┆ 0.75               │
    │ b     ┆ 0.0                │
    └───────┴────────────────────┘
    """
    return report(
        frame,
        "label_ranking_loss",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        ragged=ragged,
        validate=validate,
    )
