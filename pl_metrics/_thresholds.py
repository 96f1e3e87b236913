"""Thresholds per class: a metric at many thresholds, and the best threshold of each class.

Both come from the curves table of the state (the weight of positives and negatives at each
distinct score of each class, see `pl_metrics._curves`): summed down the scores, it gives
the confusion counts of ``pred = score >= t`` at every threshold at once, so a sweep costs
one pass over the rows, and states of parts merge.

Out-of-fold tuning (``best_threshold(..., fold_col=...)``) needs no second pass either:
the counts of "every fold but f" are the pooled counts minus fold f's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np
import polars as pl

from pl_metrics import _kernel
from pl_metrics._counts import from_counts
from pl_metrics._curves import FP, N_ALL, P_ALL, TP, cumulated
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    aggregate,
    checked_options,
    join_asof_by,
    join_on,
    raise_on_problems,
)
from pl_metrics._kernel import sorted_rising
from pl_metrics._report import report
from pl_metrics._spec import Options
from pl_metrics._state import CURVE_NEG as _NEG
from pl_metrics._state import CURVE_POS as _POS
from pl_metrics._state import (
    CURVE_SCORE,
    Family,
    IdsHook,
    Parts,
    curve_exprs,
    register,
    weighs_something,
)

__all__ = [
    "best_threshold",
    "check_folds",
    "threshold_sweep",
]

_T = "threshold"
_T_COMPARED = f"{INTERNAL}threshold_compared"  # the threshold in the scores' type
_FOLD_POS, _FOLD_NEG = f"{INTERNAL}fold_pos", f"{INTERNAL}fold_neg"
_OTHER_FOLD, _HOLDERS = f"{INTERNAL}other_fold", f"{INTERNAL}holders"
#: Whether the other folds of a fold weigh something at a score: a candidate threshold.
_IN_OTHERS = f"{INTERNAL}in_others"
#: Whether a fold got a threshold from its other folds.
_TUNED = f"{INTERNAL}tuned"
#: Whether a row of `_fold_tables_plan` is a class's best over all folds (or a fold's).
_POOLED = f"{INTERNAL}pooled"
#: The folds of a class (and group).
_N_FOLDS = f"{INTERNAL}n_folds"
_REPEATS, _FIRST_FOLD = f"{INTERNAL}fold_repeats", f"{INTERNAL}first_fold"


def _value(opts: Options) -> pl.Expr:
    """The metric of the counts at a threshold: tp and fp, and the class's totals."""
    tp, fp = pl.col(TP), pl.col(FP)
    fn, tn = pl.col(P_ALL) - tp, pl.col(N_ALL) - fp
    return from_counts(opts.metric, tp, fp, fn, tn, opts.zero_division, opts.beta)


def _candidate(opts: Options) -> pl.Expr:
    """The metric at a distinct score, null (no candidate) at a score of ids of weight 0.

    `roc_curve` leaves such scores out too.
    """
    return pl.when(weighs_something()).then(_value(opts))


def _at_thresholds(
    counts: pl.LazyFrame, grid: Sequence[float], keys: list[str], cols: Columns
) -> pl.LazyFrame:
    """The counts of ``score >= t`` for each class and threshold ``t`` of ``grid``.

    Compared in the scores' type: a threshold is rounded to Float32 for Float32 scores.
    Counts cumulated in blocks (each class's scores together, falling) are looked up in
    place, a binary search per class; the plan's as-of join takes other tables (its turn of
    every block took most of a sweep's time: 5M rows, 0.8 s).
    """
    thresholds = pl.LazyFrame({_T: list(grid)}, schema={_T: pl.Float64}).unique()
    return _kernel.planned(
        counts,
        lambda lf: _at_thresholds_plan(lf, thresholds, keys, cols),
        lambda df: _at_thresholds_in_blocks(df, grid, keys, cols),
    )


def _at_thresholds_in_blocks(
    df: pl.DataFrame, grid: Sequence[float], keys: list[str], cols: Columns
) -> pl.DataFrame | None:
    """`_at_thresholds` of counts cumulated in blocks; None for other tables."""
    thresholds = np.unique(np.asarray(grid, np.float64))
    if np.isnan(thresholds).any() or any(df[k].null_count() for k in keys):
        return None  # (as the plan's join matches them, or not)
    blocks = _kernel.falling_key_blocks(df, keys, CURVE_SCORE)
    if blocks is None or df[CURVE_SCORE].is_nan().any():
        return None
    starts, firsts = blocks
    compared = pl.Series(thresholds)
    if cols.narrow_score is not None:  # (the plan's casts)
        compared = compared.cast(cols.narrow_score).cast(pl.Float64)
    below = -compared.to_numpy()  # (negated: the falling scores rise)
    score = df[CURVE_SCORE].cast(pl.Float64).to_numpy()
    at = np.empty((len(starts) - 1, len(thresholds)), np.int64)
    for block, (a, b) in enumerate(itertools.pairwise(starts)):
        # The lowest score at or above t: the last of those (scores fall), or none (-1).
        above = np.searchsorted(-score[a:b], below, side="right")
        at[block] = np.where(above > 0, a + above - 1, -1)
    row = at.ravel()
    found = row >= 0
    row = np.where(found, row, 0)
    of_block = np.repeat(np.arange(len(starts) - 1), len(thresholds))
    totals = df.select(P_ALL, N_ALL)[starts[:-1]][of_block]
    counts = {c: np.where(found, df[c].to_numpy()[row], 0.0) for c in (TP, FP)}
    return firsts[of_block].with_columns(
        pl.Series(_T, np.tile(thresholds, len(starts) - 1)),
        *totals.get_columns(),
        *(pl.Series(c, v) for c, v in counts.items()),
    )


def _at_thresholds_plan(
    counts: pl.LazyFrame, thresholds: pl.LazyFrame, keys: list[str], cols: Columns
) -> pl.LazyFrame:
    """`_at_thresholds` in polars, for any table."""
    classes = counts.select(*keys, P_ALL, N_ALL).unique()
    t = pl.col(_T)
    narrow = cols.narrow_score
    compared = t if narrow is None else t.cast(narrow).cast(pl.Float64)
    grid = classes.join(thresholds, how="cross").with_columns(compared.alias(_T_COMPARED))
    grid = grid.sort([*keys, _T_COMPARED])
    above = counts.select(*keys, pl.col(CURVE_SCORE).alias(_T_COMPARED), TP, FP)
    # The smallest score >= t holds the counts of every score >= t; none: nothing predicted.
    # (The cumulated curves table falls in a block per key: its blocks turned, not sorted.)
    found = join_asof_by(
        grid,
        sorted_rising(above, keys, _T_COMPARED),
        keys,
        on=_T_COMPARED,
        strategy="forward",
        check_sortedness=False,
    )
    return found.drop(_T_COMPARED).with_columns(
        pl.col(TP).fill_null(0.0), pl.col(FP).fill_null(0.0)
    )


#: Values this close (relatively) to the best are ties: weighted counts' ratios that are
#: equal can differ in their last bits (0.3 / 1.2 is 0.25000000000000006).
_TIE = 1e-12


def _best(candidates: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per ``keys``: the threshold of the highest value; ties go to the highest threshold.

    A null value is no candidate; a NaN one (``zero_division=nan``) is a candidate of no
    value, chosen only when every candidate's value is NaN. Without a candidate, the
    highest threshold, of a null value.
    """
    # A table of each key's thresholds together, highest first (the kernel's curves table
    # summed in its blocks), is read in its blocks: no windows over every row (5M: 0.3 s).
    return _kernel.planned(
        candidates, lambda lf: _best_plan(lf, keys), lambda df: _best_in_blocks(df, keys)
    )


def _best_plan(candidates: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """`_best` in polars, for any table."""
    value = pl.col("value").fill_nan(None)
    candidate = pl.col("value").is_not_null()

    def over(expr: pl.Expr) -> pl.Expr:
        return expr.over(keys) if keys else expr

    best = over(value.max())
    undefined = best.is_null() & (candidate | ~over(candidate.any()))
    tied = (value >= best - _TIE * best.abs()).fill_null(False) | undefined
    return (
        candidates.filter(tied)
        .sort([*keys, _T], descending=[False] * len(keys) + [True], nulls_last=True)
        .group_by(keys, maintain_order=True)
        .first()
        .select(*keys, _T, "value")
    )


def _best_in_blocks(candidates: pl.DataFrame, keys: list[str]) -> pl.DataFrame | None:
    """`_best` of a table whose keys' thresholds are together and fall; None for others."""
    if not candidates.height:
        return None
    blocks = _kernel.blocks_in_key_order(candidates, keys, nulls_last=True, falling=_T)
    if blocks is None:
        return None
    table, starts = blocks
    return table[_best_rows(table["value"], starts)].select(*keys, _T, "value")


def _best_rows(value: pl.Series, starts: np.ndarray) -> np.ndarray:
    """`_best`'s row of each block of rows (thresholds falling) that has one.

    ``starts``: where each block starts, then the row count. The plan's operations on each
    block, in numpy: the same comparisons of the same floats.
    """
    firsts, lengths = starts[:-1], np.diff(starts)
    values = value.to_numpy().astype(np.float64, copy=False)  # null: NaN
    best = np.fmax.reduceat(values, firsts)  # NaN where a block has no number
    with np.errstate(invalid="ignore"):  # (inf - inf: NaN, as the plan compares it: false)
        lowest = best - _TIE * np.abs(best)
        tied = values >= np.repeat(lowest, lengths)
    if np.isnan(best).any():  # some block without a number: its candidates are NaN or none
        candidate = value.is_not_null().to_numpy()
        some = np.logical_or.reduceat(candidate, firsts)
        undefined = np.repeat(np.isnan(best), lengths) & (candidate | np.repeat(~some, lengths))
        tied |= undefined
    rows = np.flatnonzero(tied)
    # Each block's first such row: its highest threshold (a block without one gives none).
    at = np.searchsorted(rows, firsts)
    found = at < len(rows)
    found[found] = rows[at[found]] < starts[1:][found]
    chosen: np.ndarray = rows[at[found]]
    return chosen


class _Thresholds(Family):
    """A thresholded metric at many thresholds, and the best one, from the curves table."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        parts = Parts(curve_exprs=curve_exprs(cols))
        if "best_threshold" in metrics and opts.fold_col is not None and opts.validate:
            # Counted by the hook, which sees the id's other folds (0 until it has run).
            problem = _fold_repeats(opts.fold_col)
            parts.id_checks.append((problem, pl.lit(0, pl.Int64)))
            parts.extend_ids.append(_fold_repeats_of(cols, opts.fold_col, problem.name))
        return parts

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
        keys = [*cols.by, cols.cls]
        if metric == "threshold_sweep":
            # k / 100, not linspace's k * 0.01: 0.57 is the float a user types, not the one
            # just above it (which leaves a score of 0.57 out).
            grid = opts.thresholds or tuple((np.arange(101) / 100).tolist())
            counts = _at_thresholds(cumulated(curves, keys), grid, keys, cols)
            return counts.select(*keys, _T, _value(opts).alias("value")).sort([*keys, _T])
        if opts.fold_col is None:
            candidates = cumulated(curves, keys).select(
                *keys, pl.col(CURVE_SCORE).alias(_T), _candidate(opts).alias("value")
            )
            return _as_typed(_best(candidates, keys), cols)
        return _as_typed(_out_of_fold(curves, cols, opts), cols)

    def result_problems(self, metric: str, cols: Columns, opts: Options) -> list[Problem]:
        # (Class chunks, undefined='skip', see a group's classes apart: `check_folds`.)
        if metric != "best_threshold" or opts.fold_col is None or opts.undefined == "skip":
            return []
        return [_single_fold(cols, opts.fold_col)]


def _as_typed(best: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """Thresholds of Float32 scores that hold for those scores stored as Float64 too.

    The lower of the Float32 widened (0.44999998807907104, whose decimal 0.45 is above it)
    and its shortest decimal (0.86, where the widened 0.8600000143051147 is above it): both
    are that Float32 (the same predictions of those scores), and each scores the same
    values as Float64, widened from Float32 or the decimals they were rounded from (a test
    dump, a copy of the printed table). Float16 scores alike, with the decimals polars
    writes them as (a Float32's: 0.09307861 for 0.09307861328125) and numpy and pandas do
    (its own shortest: 0.0931).
    """
    if cols.narrow_score not in (pl.Float32, pl.Float16):
        return best
    decimals = [pl.col(_T).cast(pl.Float32).cast(pl.String).cast(pl.Float64)]
    if cols.narrow_score == pl.Float16:  # (a few rows: a threshold per class and group)
        decimals.append(
            pl.col(_T).map_batches(
                lambda t: pl.Series(
                    [None if v is None else float(str(np.float16(v))) for v in t], dtype=pl.Float64
                ),
                return_dtype=pl.Float64,
            )
        )
    return best.with_columns(pl.min_horizontal(pl.col(_T), *decimals).alias(_T))


def _fold_repeats(fold: str) -> Problem:
    """Rows of an (id, class) that another fold holds too: no out-of-fold predictions.

    Every fold's model scoring the same ids, say: a fold's thresholds are then tuned on
    other folds that hold its ids. Counted in rows, which add up over id and class chunks.
    """
    return Problem(
        "fold_repeats",
        fold,
        "rows",
        "repeat an (id, class) of another fold",
        "a fold's thresholds are tuned on the other folds, which then hold its ids too: "
        "held_out_value would be in-sample; option 'fold_col' takes the folds of "
        "out-of-fold predictions (one per id)",
    )


def _fold_repeats_of(cols: Columns, fold: str, name: str) -> IdsHook:
    """Per id, in its first fold: its rows past one per class over all its folds.

    A fold that follows the class (each (id, class) in one fold) repeats nothing; rows
    repeated within a fold are refused as duplicates already.
    """
    keys = [*(b for b in cols.by if b != fold), cols.id]

    def count(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        repeats = rows.group_by(keys).agg(
            (pl.len() - pl.col(cols.cls).n_unique()).cast(pl.Int64).alias(_REPEATS),
            pl.col(fold).min().alias(_FIRST_FOLD),
        )
        first = pl.col(fold).eq_missing(pl.col(_FIRST_FOLD))
        return (
            per_id.join(repeats, on=keys, how="left", nulls_equal=True, maintain_order="left")
            .with_columns(pl.when(first).then(pl.col(_REPEATS)).otherwise(0).alias(name))
            .drop(_REPEATS, _FIRST_FOLD)
        )

    return count


def _single_fold(cols: Columns, fold: str) -> Problem:
    """A group none of whose classes has two folds: nothing to tune out of fold.

    A fold column that is not one (a single value, or one that follows the class) gives it.
    A class of one fold among classes of several (a rare class, in a ragged table) is not
    refused: its ``held_out_value`` is null.
    """
    grouped = any(b != fold for b in cols.by)
    return Problem(
        "single_fold",
        fold,
        "groups" if grouped else "fold",
        "have a single fold in every class" if grouped else "in every class",
        "tuning a fold's thresholds on the other folds needs two or more folds per class: "
        "check that option 'fold_col' names the column of folds (one per id), or leave it "
        "out",
    )


def _out_of_fold(curves: pl.LazyFrame, cols: Columns, opts: Options) -> pl.LazyFrame:
    """Thresholds fitted on all folds, and the metric of thresholds tuned without each fold.

    For each fold, the class's threshold is tuned on the other folds (their counts: the
    pooled counts less the fold's, exact for counts of rows; their weights summed apart)
    and applied to the fold; the held-out counts of all
    folds, added up, give ``held_out_value``: the value to expect on new data.
    """
    fold = opts.fold_col
    assert fold is not None
    by = [b for b in cols.by if b != fold]
    keys, fold_keys = [*by, cols.cls], [*by, fold, cols.cls]
    # Counts in blocks (the kernel's curves table) are pooled and tuned in numpy, a fold at
    # a time: the plan's table of every fold's other folds has a row per fold and score
    # (5M scores in 5 folds: 25M rows, 12 s).
    tables = _kernel.planned(
        curves,
        lambda lf: _fold_tables_plan(lf, keys, fold, opts),
        lambda df: _fold_tables_in_blocks(df, keys, fold, opts),
    ).cache()
    fitted = tables.filter(pl.col(_POOLED)).select(*keys, _T, "value")
    # Each fold's counts at its tuned threshold; a fold whose other folds offer none has no
    # threshold and predicts nothing (its positives are missed); with no fold tuned at all
    # (a single fold), there is no value. Added up over the folds.
    applied = (
        tables.filter(~pl.col(_POOLED))
        .select(*fold_keys, _T, TP, FP, P_ALL, N_ALL)
        .with_columns(pl.col(_T).is_not_null().alias(_TUNED))
    )
    summed = (
        applied.sort([*keys, fold])
        .group_by(keys)
        .agg(pl.col(TP, FP, P_ALL, N_ALL).sum(), pl.col(_TUNED).any())
    )
    held = summed.select(*keys, pl.when(pl.col(_TUNED)).then(_value(opts)).alias("held_out_value"))
    out = fitted.join(held, on=keys, how="left", nulls_equal=True, maintain_order="left")
    out = out.select(*keys, _T, "value", "held_out_value")
    n_folds = aggregate(applied.select(fold_keys), keys, [pl.len().alias(_N_FOLDS)])
    if opts.undefined == "skip":  # a class chunk's: counted over all classes by the caller
        return out.join(n_folds, on=keys, how="left", nulls_equal=True, maintain_order="left")
    return join_on(out, _single_folds(n_folds, by, cols, fold), by)


def _fold_tables_plan(
    curves: pl.LazyFrame, keys: list[str], fold: str, opts: Options
) -> pl.LazyFrame:
    """`_out_of_fold`'s two tables, in polars, one below the other.

    Each class's best threshold over all folds (pooled), a row per class: ``_POOLED``, its
    threshold and value. And each fold's: the class's best threshold over its other folds
    (null where they have no candidate) and the fold's counts there (``TP``, ``FP``, of
    its totals ``P_ALL``, ``N_ALL``), a row per fold and class.
    """
    fold_keys = [*keys[:-1], fold, keys[-1]]
    pooled = curves.group_by([*keys, CURVE_SCORE]).agg(
        pl.col(_POS).sum(), pl.col(_NEG).sum(), pl.len().alias(_HOLDERS)
    )
    fitted = _best(
        cumulated(pooled, keys).select(
            *keys, pl.col(CURVE_SCORE).alias(_T), _candidate(opts).alias("value")
        ),
        keys,
    )
    # The other folds of each fold, at each pooled score. Held by one fold, the pooled
    # weight less the fold's is exact (0, or the pooled weight). Held by several, their
    # weights are summed apart: the pooled weight less the fold's lost the others' beside
    # a fold of weights 2**53 times as large (1 + 1e16 - 1e16 is 0). A candidate is a
    # score of some weight in the other folds, as `_candidate` has it of all folds.
    folds = curves.select(fold_keys).unique()
    own = curves.select(
        *fold_keys, CURVE_SCORE, pl.col(_POS).alias(_FOLD_POS), pl.col(_NEG).alias(_FOLD_NEG)
    )
    held_by_one = (
        folds.join(pooled.filter(pl.col(_HOLDERS) == 1), on=keys, nulls_equal=True)
        .join(own, on=[*fold_keys, CURVE_SCORE], how="left", nulls_equal=True)
        .select(
            *fold_keys,
            CURVE_SCORE,
            (pl.col(_POS) - pl.col(_FOLD_POS).fill_null(0)).alias(_POS),
            (pl.col(_NEG) - pl.col(_FOLD_NEG).fill_null(0)).alias(_NEG),
        )
    )
    several = pooled.filter(pl.col(_HOLDERS) > 1).select(*keys, CURVE_SCORE)
    held_by_several = (
        folds.join(
            curves.join(several, on=[*keys, CURVE_SCORE], how="semi", nulls_equal=True).select(
                *keys, pl.col(fold).alias(_OTHER_FOLD), CURVE_SCORE, _POS, _NEG
            ),
            on=keys,
            nulls_equal=True,
        )
        .filter(pl.col(fold).ne_missing(pl.col(_OTHER_FOLD)))
        .group_by([*fold_keys, CURVE_SCORE])
        .agg(pl.col(_POS).sum(), pl.col(_NEG).sum())
    )
    others = pl.concat([held_by_one, held_by_several], how="vertical_relaxed").with_columns(
        weighs_something().alias(_IN_OTHERS)
    )
    tuned = _best(
        cumulated(others, fold_keys, keep=[_IN_OTHERS])
        .filter(_IN_OTHERS)  # (after the sums)
        .select(*fold_keys, pl.col(CURVE_SCORE).alias(_T), _value(opts).alias("value")),
        fold_keys,
    )
    held_out = (
        cumulated(curves, fold_keys)
        .select(*fold_keys, pl.col(CURVE_SCORE).alias(_T), TP, FP, P_ALL, N_ALL)
        .sort([*fold_keys, _T])
    )
    tuned_thresholds = tuned.select(*fold_keys, _T).sort([*fold_keys, _T])
    applied = join_asof_by(
        tuned_thresholds, held_out, fold_keys, on=_T, strategy="forward", check_sortedness=False
    )
    totals = cumulated(curves, fold_keys).select(*fold_keys, P_ALL, N_ALL).unique()
    applied = totals.join(
        applied.drop(P_ALL, N_ALL), on=fold_keys, how="left", nulls_equal=True
    ).with_columns(pl.col(TP).fill_null(0.0), pl.col(FP).fill_null(0.0))
    return _stacked(fitted, applied, keys, fold, curves.collect_schema()[fold])


def _stacked(
    fitted: FrameT, applied: FrameT, keys: list[str], fold: str, fold_type: pl.DataType
) -> FrameT:
    """`_fold_tables_plan`'s table: the classes' rows (``fitted``) above the folds'."""
    counts = [pl.lit(None, pl.Float64).alias(c) for c in (TP, FP, P_ALL, N_ALL)]
    pooled_rows = fitted.with_columns(pl.lit(None, fold_type).alias(fold), *counts)
    fold_rows = applied.with_columns(pl.lit(None, pl.Float64).alias("value"))
    parts = [
        pooled_rows.with_columns(pl.lit(True).alias(_POOLED)),
        fold_rows.with_columns(pl.lit(False).alias(_POOLED)),
    ]
    # (polars' concat is typed by a TypeVar of each frame type, which refuses FrameT's union)
    stacked = pl.concat(parts, how="diagonal")  # type: ignore[type-var]
    columns = [*keys[:-1], fold, keys[-1], _POOLED, _T, "value", TP, FP, P_ALL, N_ALL]
    return cast(FrameT, stacked.select(columns))


def _fold_tables_in_blocks(
    curves: pl.DataFrame, keys: list[str], fold: str, opts: Options
) -> pl.DataFrame | None:
    """`_fold_tables_plan`'s table, from counts in blocks; None for other tables.

    The curves table must hold each (keys, fold)'s scores together, falling, with counts
    (whole numbers, whose sums are exact in any order) as weights. Each class's folds are
    merged into its pooled scores; a fold's other folds weigh the pooled counts less the
    fold's. The metric is the plan's expression, of the same counts.
    """
    if not curves.height or not curves[CURVE_SCORE].dtype.is_float():
        return None
    if any(curves.schema[c] != pl.Float64 or curves[c].null_count() for c in (_POS, _NEG)):
        return None
    blocks = _kernel.blocks_in_key_order(
        curves, [*keys, fold], nulls_last=True, falling=CURVE_SCORE
    )
    if blocks is None:
        return None
    table, starts = blocks
    pos, neg = table[_POS].to_numpy(), table[_NEG].to_numpy()
    if not (_kernel.are_counts(pos) and _kernel.are_counts(neg)):
        return None
    # The blocks' classes (keys) and folds; a class's blocks are next to each other.
    firsts = table.select(*keys, fold)[starts[:-1]]
    new_class = np.zeros(len(firsts), np.int64)
    new_class[_kernel.key_change_rows(firsts, keys)] = 1
    block_class = np.cumsum(new_class)
    classes = firsts.select(keys).filter(pl.Series(np.append(True, new_class[1:] == 1)))
    # Each class's scores, falling (-0.0 as 0.0, as the plan's sums group them), merged.
    row_class = np.repeat(block_class, np.diff(starts))
    score = table[CURVE_SCORE].cast(pl.Float64).to_numpy() + 0.0
    pooled_of, pooled_rows = _kernel.merged_falling(row_class, score)  # (each row's)
    scores, score_class = score[pooled_rows], row_class[pooled_rows]
    n_pooled, n_classes = len(scores), classes.height
    pooled_pos = np.bincount(pooled_of, weights=pos, minlength=n_pooled)
    pooled_neg = np.bincount(pooled_of, weights=neg, minlength=n_pooled)
    class_starts = np.searchsorted(score_class, np.arange(n_classes + 1))
    sizes = np.diff(class_starts)
    (pooled_tp, pooled_p), (pooled_fp, pooled_n) = (
        _kernel.block_sums(v, class_starts) for v in (pooled_pos, pooled_neg)
    )
    # Each class's best threshold over all folds.
    pooled_counts = pl.DataFrame(
        {
            _POS: pooled_pos,
            _NEG: pooled_neg,
            TP: pooled_tp,
            FP: pooled_fp,
            P_ALL: np.repeat(pooled_p, sizes),
            N_ALL: np.repeat(pooled_n, sizes),
        }
    )
    pooled_value = pooled_counts.select(_candidate(opts).alias("value"))["value"]
    best = _best_rows(pooled_value, class_starts)
    fitted = classes[score_class[best]].with_columns(
        pl.Series(_T, scores[best]), pooled_value.gather(best)
    )
    # Each fold's: over its classes' pooled scores, the other folds' counts.
    fold_values = firsts[fold]
    applied = []
    row = f"{INTERNAL}row"  # (beside the keys: one may be named "index")
    for blocks_of in firsts.with_row_index(row).group_by(fold).agg(row)[row]:
        fold_blocks = blocks_of.to_numpy().astype(np.int64)
        lengths = np.diff(starts)[fold_blocks]
        rows = _kernel.block_rows(starts, fold_blocks)
        # The other folds' counts at each pooled score, cumulated over all classes: a class's
        # are those less the sums before it. (Counts: every sum is exact.)
        other_pos, other_neg = pooled_pos.copy(), pooled_neg.copy()
        other_pos[pooled_of[rows]] -= pos[rows]
        other_neg[pooled_of[rows]] -= neg[rows]
        other_tp, other_fp = np.cumsum(other_pos), np.cumsum(other_neg)
        fold_classes = block_class[fold_blocks]
        if len(fold_classes) == n_classes:  # every class (usual): no gathers
            at: np.ndarray | slice = slice(None)
        else:
            at = _kernel.block_rows(class_starts, fold_classes)
        # A candidate is a score of some weight in the other folds (after the sums).
        kept = (other_pos[at] != 0) | (other_neg[at] != 0)
        where = np.flatnonzero(kept) if isinstance(at, slice) else at[kept]
        where_class = score_class[where]
        tp_before, fp_before = (
            np.append(0.0, c[class_starts[1:] - 1]) for c in (other_tp, other_fp)
        )
        other_p, other_n = np.diff(tp_before), np.diff(fp_before)
        others = pl.DataFrame(
            {
                TP: other_tp[where] - tp_before[where_class],
                FP: other_fp[where] - fp_before[where_class],
                P_ALL: other_p[where_class],
                N_ALL: other_n[where_class],
            }
        )
        value = others.select(_value(opts).alias("value"))["value"]
        # The best row of each class that has a candidate, and the fold's counts there.
        tuned_at = np.full(n_classes, -1, np.int64)  # each class's tuned pooled score
        if len(where):
            firsts_of = np.flatnonzero(np.append(True, where_class[1:] != where_class[:-1]))
            chosen = where[_best_rows(value, np.append(firsts_of, len(where)))]
            tuned_at[score_class[chosen]] = chosen
        # The fold's own counts: its rows (each class's falling, as their pooled scores)
        # at or above the tuned score, and all of them.
        tuned = tuned_at[fold_classes]
        has = tuned >= 0
        ends = np.cumsum(lengths)
        # Up to each class's tuned score: its pooled number rises down the fold's rows.
        upto = np.searchsorted(pooled_of[rows], tuned, side="right")
        held = []
        for weights in (pos, neg):
            cumulated = np.append(0.0, np.cumsum(weights[rows]))
            before = cumulated[ends - lengths]
            held.append((np.where(has, cumulated[upto] - before, 0.0), cumulated[ends] - before))
        (held_tp, fold_p), (held_fp, fold_n) = held
        applied.append(
            classes[fold_classes].with_columns(
                fold_values.gather(fold_blocks),
                pl.Series(_T, np.where(has, scores[tuned], 0.0)).set(pl.Series(~has), None),
                pl.Series(TP, held_tp),
                pl.Series(FP, held_fp),
                pl.Series(P_ALL, fold_p),
                pl.Series(N_ALL, fold_n),
            )
        )
    both: pl.DataFrame = _stacked(fitted, pl.concat(applied), keys, fold, firsts.schema[fold])
    return both


def _single_folds(n_folds: pl.LazyFrame, by: list[str], cols: Columns, fold: str) -> pl.LazyFrame:
    """Per group: 1 if none of its classes has two folds (`_single_fold`), else 0."""
    single = (pl.col(_N_FOLDS).max() < 2).cast(pl.Int64)
    return aggregate(n_folds, by, [single.alias(_single_fold(cols, fold).name)])


def check_folds(values: pl.DataFrame, cols: Columns, opts: Options) -> pl.DataFrame:
    """Refuse a group of a single fold in every class, as `finalize` does; drop the counts.

    ``values``: the per-class values of class-disjoint chunks, each with its classes' folds.
    """
    if _N_FOLDS not in values.columns:
        return values
    assert opts.fold_col is not None
    by = [b for b in cols.by if b != opts.fold_col]
    single = _single_folds(values.lazy(), by, cols, opts.fold_col)
    raise_on_problems(single, [_single_fold(cols, opts.fold_col)], by).collect()
    return values.drop(_N_FOLDS)


register("_thresholds", _Thresholds())


@checked_options
def threshold_sweep(
    frame: FrameT,
    metric: str = "f1",
    thresholds: float | Iterable[float] | None = None,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    zero_division: float = 0.0,
    beta: float = 1.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """A thresholded metric of each class at many thresholds, in one pass.

    Rows ``(by..., class, threshold, value)``: ``value`` is the metric of
    ``pred = score >= threshold`` (as `f1` with ``threshold=`` and ``average=None`` would
    give), for every threshold in one pass over the rows.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `f1`.
    metric
        A metric of each class's confusion counts: ``f1``, ``precision``, ``recall``,
        ``balanced_accuracy``, ``balanced_f1``, ``mfif``, ``fbeta``, ``jaccard``,
        ``specificity`` or ``matthews_corrcoef``.
    thresholds
        The thresholds (a number or a sequence); default 0, 0.01, ..., 1 (``np.arange(101) /
        100``: each the float that its decimal names, as ``threshold=0.57`` in `f1`).
    zero_division, beta
        As in `f1` and `fbeta`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, threshold, value)``; Float64 values.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.4, 0.35, 0.8], "truth": [0, 0, 1, 1]})
    >>> df.metrics.threshold_sweep("f1", [0.2, 0.5])
    shape: (2, 3)
    ┌───────┬───────────┬──────────┐
    │ class ┆ threshold ┆ value    │
    │ ---   ┆ ---       ┆ ---      │
    │ str   ┆ f64       ┆ f64      │
    ╞═══════╪═══════════╪══════════╡
    │ bird  ┆ 0.2       ┆ 0.8      │
    │ bird  ┆ 0.5       ┆ 0.666667 │
    └───────┴───────────┴──────────┘
    """
    return report(
        frame,
        "threshold_sweep",
        metric=metric,
        thresholds=thresholds,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        zero_division=zero_division,
        beta=beta,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def best_threshold(
    frame: FrameT,
    metric: str = "f1",
    *,
    fold_col: str | None = None,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    zero_division: float = 0.0,
    beta: float = 1.0,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """The threshold of each class that maximises a thresholded metric.

    Rows ``(by..., class, threshold, value)``: over the class's distinct scores ``t``, the
    one whose ``pred = score >= t`` gives the highest ``metric``; ties (values within 1e-12
    of each other, relatively: equal ratios of weighted counts can differ in their last
    bits) go to the highest threshold (the fewest ids predicted positive), NaN values never
    win. Scores of ids of weight 0 are no candidates (as in `roc_curve`): a class left
    without one (its ids all weigh 0, or their weights cancel) has nothing to tune, and gets
    its highest score with a null ``value``; one whose every value is NaN (no positives,
    ``zero_division=nan``) its highest score of an id of nonzero weight with a NaN
    ``value``. Pass the table to any
    thresholded metric as ``threshold=`` to apply it: ``f1(test, threshold=best)``; on the
    same rows that gives ``value`` (with weights, to about 1e-16: here they are summed in
    score order, there in row order, as scikit-learn sums them). Kept as Float64: a table
    cast to Float32 moves its thresholds (0.66 widens to 0.6600000262260437, above
    scores of 0.66 in Float64). Of Float32 scores, a
    threshold is the lower of its Float32 value and that value's shortest decimal (0.86,
    not 0.8600000143051147; 0.44999998807907104, not 0.45): it applies alike to those
    scores, to them widened to Float64, and to the decimals they were rounded from.

    With ``fold_col``, the thresholds are also tuned without leakage: for each fold, on the
    other folds, then applied to it; ``held_out_value`` is the metric of those held-out
    predictions pooled over the folds, the number to believe for new data, while
    ``threshold`` and ``value`` are fitted on all folds (the thresholds to ship, and their
    in-sample value, which is optimistic). ``held_out_value`` is null for a class with a
    single fold (a rare class of a ragged table): there are no other folds to tune its
    threshold on. A group none of whose classes has two folds is refused: its fold column
    holds one value, or follows the class, so it is no column of folds.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `f1`.
    metric, zero_division, beta
        As in `threshold_sweep`.
    fold_col
        A column of folds (out-of-fold predictions) to tune on the other folds. An id with
        a class in several folds (every fold's model scoring the same ids) is refused: its
        other folds would hold it too.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., class, threshold, value)``, and ``held_out_value`` with
        ``fold_col``; Float64 values.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.4, 0.35, 0.8], "truth": [0, 0, 1, 1]})
    >>> best = df.metrics.best_threshold("f1")
    >>> best
    shape: (1, 3)
    ┌───────┬───────────┬───────┐
    │ class ┆ threshold ┆ value │
    │ ---   ┆ ---       ┆ ---   │
    │ str   ┆ f64       ┆ f64   │
    ╞═══════╪═══════════╪═══════╡
    │ bird  ┆ 0.35      ┆ 0.8   │
    └───────┴───────────┴───────┘
    >>> df.metrics.f1(threshold=best).item()
    0.8
    """
    return report(
        frame,
        "best_threshold",
        metric=metric,
        fold_col=fold_col,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        zero_division=zero_division,
        beta=beta,
        ragged=ragged,
        validate=validate,
    )
