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

* a LazyFrame gets a polars plan: rows counted per (id, distinct score), sorted by score
  within the id and summed cumulatively. It streams and is linear in the rows after a sort;
* a DataFrame, whose rows are in memory anyway (and each chunk of `score`), gets the C
  kernel of ``_kernels.c`` (see `pl_metrics._kernel`): one pass over each id's contiguous
  rows, several times faster. Without a C compiler at install time the kernel is missing
  and the polars plan runs everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import polars as pl

from pl_metrics import _kernel
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    checked_options,
    ordered_sum,
)
from pl_metrics._report import report
from pl_metrics._runs import TRUTH, RunColumns
from pl_metrics._spec import Options
from pl_metrics._state import (
    LWLRAP_WEIGHT,
    N_ROWS,
    Family,
    IdsHook,
    Parts,
    register,
    single_class_ids,
    sums_to_zero,
)

__all__ = [
    "N_AT",
    "P_AT",
    "SCORE",
    "P",
    "R",
    "coverage_error",
    "kernel_reads",
    "label_ranking_loss",
    "lrap",
    "lwlrap",
    "ranked_scores",
]


# Per-id columns.
_NPOS = f"{INTERNAL}npos"
_PREC = f"{INTERNAL}prec"
_NEG_ABOVE = f"{INTERNAL}neg_above"
_MAX_RANK = f"{INTERNAL}max_rank"
_W = f"{INTERNAL}w"
_POS_CLASS = f"{INTERNAL}pos_class"
SCORE = f"{INTERNAL}score"
_TRUTH = f"{INTERNAL}truth"
_MIN_POS = f"{INTERNAL}min_pos"
_POS_SCORE = f"{INTERNAL}pos_score"
#: Columns of `ranked_scores`: rows and positives at a score, and at or above it.
N_AT = f"{INTERNAL}n_at"
P_AT = f"{INTERNAL}p_at"
R = f"{INTERNAL}r"
P = f"{INTERNAL}p"
# Per-group sums.
_W_SUM = f"{INTERNAL}w_sum"
_ABS_W_SUM = f"{INTERNAL}abs_w_sum"
_LRAP_SUM = f"{INTERNAL}lrap_sum"
_COV_SUM = f"{INTERNAL}cov_sum"
_LOSS_SUM = f"{INTERNAL}loss_sum"
_LW_SUM = f"{INTERNAL}lw_sum"
_ABS_LW_DEN = f"{INTERNAL}abs_lw_den"
_LW_DEN = f"{INTERNAL}lw_den"
# Per-(group, class) sums for lwlrap per class.
_CLASS_LW_SUM = f"{INTERNAL}class_lw_sum"
_CLASS_LW_DEN = f"{INTERNAL}class_lw_den"
_CLASS_ABS_LW_DEN = f"{INTERNAL}class_abs_lw_den"

#: Up to this many positives per id, the polars plan counts pairs (as the C kernel does).
_FEW_POSITIVES = 16
#: Per id: the sums of P_j / R_j and of R_j - P_j, and the largest R_j (the coverage).
_SUMS = (_PREC, _NEG_ABOVE, _MAX_RANK)


def _id_exprs(cols: Columns, in_memory: bool) -> list[pl.Expr]:
    """Per id: positives, the weight, and the lowest positive score for the polars plan."""
    assert cols.score is not None
    exprs = [cols.truth_expr.sum().cast(pl.Int64).alias(_NPOS), cols.weight_expr.first().alias(_W)]
    if not _use_kernel(in_memory):
        exprs.append(pl.col(cols.score).filter(cols.truth_expr).min().alias(_MIN_POS))
    return exprs


def _use_kernel(in_memory: bool) -> bool:
    """Rows already in memory are counted by the C kernel; a LazyFrame keeps its plan."""
    return in_memory and _kernel.available()


def _pair_input(rows: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """The columns both ways of counting read, under internal names."""
    assert cols.score is not None
    return rows.select(
        *cols.by,
        cols.id,
        pl.col(cols.cls).alias(_POS_CLASS),
        pl.col(cols.score).alias(SCORE),
        cols.truth_expr.alias(_TRUTH),
    )


def ranked_scores(
    rows: pl.LazyFrame, keys: list[str], score: pl.Expr, truth: pl.Expr
) -> pl.LazyFrame:
    """Per id (``keys``) and distinct score, highest first: counts there and at or above it.

    `N_AT` and `P_AT` count the rows and positives at the score (named `SCORE`); `R` and
    `P` those at or above it: a positive's two ranks there, ties taking the worst.
    """
    counts = rows.group_by([*keys, score.alias(SCORE)]).agg(
        pl.len().cast(pl.Int64).alias(N_AT), truth.sum().cast(pl.Int64).alias(P_AT)
    )
    return counts.sort([*keys, SCORE], descending=[False] * len(keys) + [True]).with_columns(
        pl.col(N_AT).cum_sum().over(keys).alias(R),
        pl.col(P_AT).cum_sum().over(keys).alias(P),
    )


def _per_positive(pairs: pl.LazyFrame, ids: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``R_j`` and ``P_j`` of every positive row: ``(by..., id, class, R, P)``.

    Rows below the id's lowest positive score can never count, so they are dropped first:
    for a good model that leaves little more than the positives. Then, per id:

    * with few positives (the usual dump), each positive is joined to the id's remaining
      rows that score at least as high, and the pairs are counted: at most
      ``_FEW_POSITIVES`` times the rows;
    * with many, the rows are counted per distinct score, sorted by score within the id and
      summed cumulatively (ties take the 'max' rank): linear after one sort, where pairs
      would grow with the positives squared.

    Both stream.
    """
    candidates = pairs.join(ids, on=keys, nulls_equal=True).filter(
        pl.col(SCORE) >= pl.col(_MIN_POS)
    )
    few = pl.col(_NPOS) <= _FEW_POSITIVES
    positives = candidates.filter(_TRUTH).select(*keys, _POS_CLASS, SCORE, _NPOS)
    joined = (
        candidates.filter(few)
        .select(*keys, SCORE, _TRUTH)
        .join(
            positives.filter(few).select(*keys, _POS_CLASS, pl.col(SCORE).alias(_POS_SCORE)),
            on=keys,
            nulls_equal=True,
        )
        .filter(pl.col(SCORE) >= pl.col(_POS_SCORE))
        .group_by([*keys, _POS_CLASS])
        .agg(pl.len().cast(pl.Int64).alias(R), pl.col(_TRUTH).sum().cast(pl.Int64).alias(P))
    )
    ranks = ranked_scores(candidates.filter(~few), keys, pl.col(SCORE), pl.col(_TRUTH))
    ranks = ranks.select(*keys, SCORE, R, P)
    cumulated = (
        positives.filter(~few)
        .select(*keys, _POS_CLASS, SCORE)
        .join(ranks, on=[*keys, SCORE], nulls_equal=True)
        .drop(SCORE)
    )
    return pl.concat([joined, cumulated])


def _sums_per_id(pairs: pl.LazyFrame, ids: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per id with positives: the sums of ``P_j / R_j`` and ``R_j - P_j``, and the largest R."""
    r, p = pl.col(R), pl.col(P)
    return (
        _per_positive(pairs, ids, keys)
        .sort([*keys, _POS_CLASS])  # a fixed order for the float sum
        .group_by(keys)
        .agg(
            ordered_sum(p / r).alias(_PREC),
            (r - p).sum().cast(pl.Float64).alias(_NEG_ABOVE),
            r.max().cast(pl.Float64).alias(_MAX_RANK),
        )
    )


def _counted(
    rows: pl.LazyFrame, per_id_table: pl.LazyFrame, cols: Columns, in_memory: bool, *, per_id: bool
) -> pl.LazyFrame:
    """Per-id sums (``per_id``) or per-positive ranks, by the kernel where it can run."""
    keys = [*cols.by, cols.id]
    pairs = _pair_input(rows, cols)
    if not _use_kernel(in_memory):
        ids = per_id_table.select(*keys, _MIN_POS, _NPOS)
        plan = _sums_per_id if per_id else _per_positive
        return plan(pairs, ids, keys)
    schema = pairs.collect_schema()
    if per_id:
        out = pl.Schema({k: schema[k] for k in keys} | dict.fromkeys(_SUMS, pl.Float64))
    else:
        out = pl.Schema({k: schema[k] for k in [*keys, _POS_CLASS]} | {R: pl.Int64, P: pl.Int64})
    count = partial(_count_in_memory, keys=keys, schema=out, per_id=per_id)
    return _kernel.deferred_on_rows(pairs, lambda df: {"pairs": count(df)}, {"pairs": out})["pairs"]


def _count_in_memory(
    df: pl.DataFrame, keys: list[str], schema: pl.Schema, *, per_id: bool
) -> pl.DataFrame:
    """Count the pairs with the C kernel, over rows made contiguous per id.

    Nulls and NaN (possible with ``validate=False``) and 64-bit integer scores (not exact
    as float64) go to the polars plan instead, so that both ways give the same numbers.
    """
    if not kernel_reads(df[SCORE]) or df[_TRUTH].null_count():
        lf = df.lazy()
        ids = lf.group_by(keys).agg(
            pl.col(SCORE).filter(_TRUTH).min().alias(_MIN_POS),
            pl.col(_TRUTH).sum().cast(pl.Int64).alias(_NPOS),
        )
        plan = _sums_per_id if per_id else _per_positive
        return plan(lf, ids, keys).collect().cast(schema)
    df, runs = _kernel.contiguous_runs(df, keys[:-1], keys[-1])
    truth = _kernel.flags(df[_TRUTH])
    rank, pos_rank, sums = _kernel.pair_counts(df[SCORE], truth, runs.starts)
    if per_id:
        return runs.keys().with_columns(
            pl.Series(name, s) for name, s in zip(_SUMS, sums, strict=True)
        )
    return (
        df.filter(_TRUTH)
        .select(*keys, _POS_CLASS)
        .with_columns(pl.Series(R, rank), pl.Series(P, pos_rank))
    )


def kernel_reads(score: pl.Series, *, checked: bool = False) -> bool:
    """Whether the kernel counts these scores exactly (no nulls, NaN or 64-bit integers).

    ``checked``: the data checks refuse NaN scores after the counts, which are then never
    shown: no need to scan 20M scores for them here too.
    """
    return (
        score.dtype in _kernel.KERNEL_SCORES
        and not score.null_count()
        and (checked or not (score.dtype.is_float() and score.is_nan().any()))
    )


def _run_columns(cols: Columns, replaces: IdsHook, *, checked: bool) -> RunColumns:
    """The per-id sums of the pair counts, in the pass that counts the per-id table.

    In place of the hook ``replaces``. ``checked``: the data checks are on (see
    `kernel_reads`).
    """
    assert cols.score is not None
    keys = [*cols.by, cols.id]
    sums = pl.Schema(dict.fromkeys(_SUMS, pl.Float64))

    def over_runs(
        df: pl.DataFrame, runs: _kernel.IdRuns, truth: np.ndarray, classes: _kernel.ClassCodes
    ) -> dict[str, np.ndarray] | None:
        if not kernel_reads(df[SCORE], checked=checked):
            return None
        _, _, values = _kernel.pair_counts(df[SCORE], truth, runs.starts)
        return dict(zip(_SUMS, values, strict=True))

    def over_rows(df: pl.DataFrame) -> pl.DataFrame:
        pairs = df.select(*keys, pl.col(cols.cls).alias(_POS_CLASS), SCORE, TRUTH)
        pairs = pairs.rename({TRUTH: _TRUTH})
        schema = pl.Schema({k: pairs.schema[k] for k in keys} | sums)
        return _count_in_memory(pairs, keys, schema, per_id=True)

    return RunColumns(
        [pl.col(cols.score).alias(SCORE)], sums, over_runs, over_rows, replaces=replaces
    )


def _with_rank_sums(
    cols: Columns, in_memory: bool
) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    def extend(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        keys = [*cols.by, cols.id]
        sums = _counted(rows, per_id, cols, in_memory, per_id=True)
        # Ids without positives have no pairs: zero sums (coverage 0, as in sklearn).
        return per_id.join(sums, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col(_SUMS).fill_null(0.0)
        )

    return extend


def _by_positive_class(
    cols: Columns, in_memory: bool
) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    def per_class(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        keys = [*cols.by, cols.id]
        w = pl.col(_W)
        return (
            _counted(rows, per_id, cols, in_memory, per_id=False)
            .join(per_id.select(*keys, _W), on=keys, nulls_equal=True)
            .sort([*cols.by, _POS_CLASS, cols.id])  # a fixed order for the float sums
            .group_by([*cols.by, _POS_CLASS])
            .agg(
                ordered_sum(w * pl.col(P) / pl.col(R)).alias(_CLASS_LW_SUM),
                ordered_sum(w).alias(_CLASS_LW_DEN),
                ordered_sum(w.abs()).alias(_CLASS_ABS_LW_DEN),
            )
            .rename({_POS_CLASS: cols.cls})
        )

    return per_class


def _id_values() -> tuple[pl.Expr, pl.Expr]:
    """Each id's LRAP and ranking loss, from its sums."""
    n, npos = pl.col(N_ROWS), pl.col(_NPOS)
    # An id whose labels are all positive or all negative carries no ranking: sklearn scores
    # it 1 for LRAP and 0 for the ranking loss.
    degenerate = (npos == 0) | (npos == n)
    lrap_id = pl.when(degenerate).then(1.0).otherwise(pl.col(_PREC) / npos)
    loss_id = (
        pl.when(degenerate)
        .then(0.0)
        .otherwise(pl.col(_NEG_ABOVE) / (npos * (n - npos)).cast(pl.Float64))
    )
    return lrap_id, loss_id


def _group_exprs() -> list[pl.Expr]:
    """Weighted sums over a group's ids."""
    npos, w = pl.col(_NPOS), pl.col(_W)
    lrap_id, loss_id = _id_values()
    return [
        ordered_sum(w).alias(_W_SUM),
        ordered_sum(w * lrap_id).alias(_LRAP_SUM),
        ordered_sum(w * pl.col(_MAX_RANK)).alias(_COV_SUM),
        ordered_sum(w * loss_id).alias(_LOSS_SUM),
        ordered_sum(w * pl.col(_PREC)).alias(_LW_SUM),
        ordered_sum(w * npos).alias(_LW_DEN),
        # The denominators' magnitudes: negative weights that cancel up to rounding.
        ordered_sum(w.abs()).alias(_ABS_W_SUM),
        ordered_sum((w * npos).abs()).alias(_ABS_LW_DEN),
    ]


class _Ranking(Family):
    """The label-ranking family: pair counts per positive, then sums per id and group."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        rank_sums = _with_rank_sums(cols, in_memory)
        parts = Parts(
            id_exprs=_id_exprs(cols, in_memory),
            extend_ids=[rank_sums],
            group_exprs=_group_exprs(),
            run_columns=_run_columns(cols, rank_sums, checked=opts.validate)
            if _use_kernel(in_memory)
            else None,
        )
        if opts.per_class and "lwlrap" in metrics:
            parts.class_from_ids.append(_by_positive_class(cols, in_memory))
        return parts

    def group_checks(
        self, metric: str, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.Expr]]:
        """What scikit-learn refuses for coverage and ranking loss (zero weights: registry)."""
        if metric not in ("coverage_error", "label_ranking_loss"):
            return []
        return [
            (
                Problem(
                    "single_class",
                    cols.cls,
                    "ids",
                    "have a single class",
                    f"{metric} needs at least two classes per id",
                ),
                single_class_ids(),
            ),
        ]

    def has_kernel(self) -> bool:
        return _kernel.available()

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        npos, w = pl.col(_NPOS), pl.col(_W)
        lrap_id, loss_id = _id_values()
        if metric == "lwlrap":  # the id's mean precision over its positives, and its weight
            value = pl.when(npos > 0).then(pl.col(_PREC) / npos).cast(pl.Float64)
            return [value.alias(metric), (w * npos).cast(pl.Float64).alias(LWLRAP_WEIGHT)]
        value = {
            "lrap": lrap_id,
            "coverage_error": pl.col(_MAX_RANK),
            "label_ranking_loss": loss_id,
        }[metric]
        return [value.cast(pl.Float64).alias(metric)]

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        if metric == "lwlrap" and opts.per_class:
            assert classes is not None
            return _lwlrap_per_class(classes, cols)
        # A zero denominator gives NaN: no positive label for lwlrap, weights summing to zero
        # for the others (seed 001; scikit-learn would give +-inf or NaN there), up to
        # rounding, so that chunks, which add in another order, agree.
        numerator, denominator, magnitude = {
            "lwlrap": (_LW_SUM, _LW_DEN, _ABS_LW_DEN),
            "lrap": (_LRAP_SUM, _W_SUM, _ABS_W_SUM),
            "coverage_error": (_COV_SUM, _W_SUM, _ABS_W_SUM),
            "label_ranking_loss": (_LOSS_SUM, _W_SUM, _ABS_W_SUM),
        }[metric]
        den = pl.col(denominator)
        value = (
            pl.when(sums_to_zero(den, pl.col(magnitude)))
            .then(float("nan"))
            .otherwise(pl.col(numerator) / den)
        )
        return groups.select(*cols.by, value.cast(pl.Float64).alias(metric))


def _lwlrap_per_class(classes: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    # Weights that cancel up to rounding count as summing to zero, as for the whole group.
    den = pl.col(_CLASS_LW_DEN)
    den = pl.when(sums_to_zero(den, pl.col(_CLASS_ABS_LW_DEN))).then(0.0).otherwise(den)
    magnitude = pl.col(_CLASS_ABS_LW_DEN)
    by = list(cols.by)
    group_den, group_magnitude = (den.sum(), magnitude.sum())
    if by:
        group_den, group_magnitude = group_den.over(by), group_magnitude.over(by)
    weight = (
        pl.when(sums_to_zero(group_den, group_magnitude))
        .then(float("nan"))
        .when(den == 0)
        .then(0.0)  # (not -0.0 in a group of negative weight)
        .otherwise(den / group_den)
    )
    return classes.select(
        *cols.by,
        cols.cls,
        # A class never positive in its group (or whose positives' weights sum to 0) has
        # no precision to average: null, weight 0. (Negative sums average as the group's.)
        pl.when(den != 0).then(pl.col(_CLASS_LW_SUM) / den).cast(pl.Float64).alias("lwlrap"),
        weight.cast(pl.Float64).alias("weight"),
    )


register("_ranking", _Ranking())


@checked_options
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
    per_id: bool = False,
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
        Column names. Truth is boolean or numbers 0/1; scores are any numbers.
    weight_col
        Optional per-id weight: each of an id's positive labels counts with the id's weight.
    by
        Column name(s) to group by: one result row per group.
    per_class
        If true, return rows ``(by..., class, lwlrap, weight)``: each class's mean precision
        and its share of the group's positive labels, so that ``sum(lwlrap * weight)`` is the
        overall value. A class that is never positive in its group (or whose positives all
        weigh 0) gets a null lwlrap and weight 0 (the DCASE code reports 0 there; it carries
        no weight either way); a group without any positive label (or whose positives all
        weigh 0), whose lwlrap is NaN, has NaN weights.
    ragged
        ``"error"`` (default): every id must have a row for every class of its group.
        ``"allow"``: rank each id over the rows it has.
    validate
        Check the data (nulls, NaN/inf, truth outside 0/1, duplicates, ragged ids). Turning
        checks off saves one aggregation per id; bad data then gives meaningless numbers.
    per_id
        Return each id's value instead: rows ``(by..., id, lwlrap, weight)``, the id's
        precision averaged over its positive labels and its share of the group's positive
        labels (null and 0 without positives; NaN weights in a group whose lwlrap is NaN:
        no positive label, or all of weight 0), so ``sum(lwlrap * weight)`` is the group's.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
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
    The worked example of the DCASE 2019 lwlrap notebook:

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
        per_id=per_id,
        ragged=ragged,
        validate=validate,
        per_class=per_class,
    )


@checked_options
def lrap(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    per_id: bool = False,
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
        Column names. Truth is boolean or numbers 0/1; scores are any numbers.
    weight_col
        Optional per-id sample weight (constant within an id). Negative weights are accepted:
        the result is the plain weighted mean.
    by
        Column name(s) to group by: one result row per group.
    ragged
        ``"error"`` (default) or ``"allow"`` (rank each id over the rows it has).
    validate
        Check the data first (see `lwlrap`).
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, lrap)``,
        equal to scikit-learn's LRAP of that one row.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns then a Float64 ``lrap`` column.

    Notes
    -----
    An id whose labels are all positive or all negative scores 1, so a table with one class
    scores 1. Weights summing to zero give NaN (scikit-learn divides anyway and gives +-inf
    or NaN).

    Examples
    --------
    The example of scikit-learn's ``label_ranking_average_precision_score``: the first id's
    positive label ranks second of three, the second id's ranks last.

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
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def coverage_error(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    per_id: bool = False,
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
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, coverage_error)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns then a Float64 ``coverage_error`` column.

    Raises
    ------
    MetricsInputError
        When the result is computed, for a group whose ids have a single class each (each
        needs two; with ``ragged="allow"``, an id of one row beside longer ones is ranked
        over that row), or a group whose weights sum to zero (scikit-learn refuses both).

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
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def label_ranking_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    per_id: bool = False,
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
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id,
        label_ranking_loss)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns then a Float64 ``label_ranking_loss`` column.

    Raises
    ------
    MetricsInputError
        When the result is computed, for a group whose ids have a single class each (each
        needs two; with ``ragged="allow"``, an id of one row beside longer ones is ranked
        over that row), or a group whose weights sum to zero (scikit-learn refuses both).

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
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
