"""The per-class ranking family: ROC AUC, average precision, padded cmAP, top-k accuracy.

ROC AUC and average precision rank the ids *within* each class. Their state is the curves
table: for each ``(by..., class, distinct score)``, the weight of positive and negative rows
at that score. Sorting it by score and summing cumulatively gives every threshold of the
ROC and precision-recall curves, tied scores forming one threshold, as in scikit-learn. It
is a sum over rows, so states of any parts of a table merge exactly; its size is the number
of distinct scores per class (at most the rows; rounding scores bounds it).

Top-k accuracy works within each id: the true class's score against the id's other scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
import polars as pl

from pl_metrics import _kernel
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    aggregate,
    checked_options,
    first_named,
    is_categorical,
    is_past_2_53,
    ordered_mean,
    ordered_sum,
    probability_rows,
    raise_on_problems,
    sorted_within,
    true_class_checks,
    unit_scale,
    unsigned_zero,
)
from pl_metrics._ranking import N_AT, P_AT, SCORE, P, R, ranked_scores
from pl_metrics._report import report
from pl_metrics._runs import TRUTH, PerRun, RunColumns, true_rows
from pl_metrics._spec import Options, class_text
from pl_metrics._state import CURVE_NEG as _NEG
from pl_metrics._state import CURVE_POS as _POS
from pl_metrics._state import (
    CURVE_SCORE,
    N_ROWS,
    Family,
    IdsHook,
    MetricState,
    Parts,
    curve_exprs,
    register,
)

__all__ = [
    "FP",
    "N_ALL",
    "P_ALL",
    "TP",
    "average_classes",
    "average_precision",
    "check_undefined",
    "cumulated",
    "curve_positives",
    "padded_cmap",
    "probability_check",
    "roc_auc",
    "top_k_accuracy",
    "with_class_counts",
]

CURVE_METRICS = ("roc_auc", "average_precision", "padded_cmap")
_W = f"{INTERNAL}w"
_TRUE_SCORE = f"{INTERNAL}true_score"
_TRUE_CLASS = f"{INTERNAL}topk_true_class"  # as scikit-learn sorts it: not log loss's
_TOPK_HIT = f"{INTERNAL}topk_hit"
_TOPK_AHEAD = f"{INTERNAL}topk_ahead"
_AREA = f"{INTERNAL}area"
_POS_SCALE, _NEG_SCALE = f"{INTERNAL}pos_scale", f"{INTERNAL}neg_scale"  # see `unit_scale`
_TOPK_SUM = f"{INTERNAL}topk_sum"
_TOPK_W = f"{INTERNAL}topk_w"
# average="samples": per id over its classes.
_S_NPOS = f"{INTERNAL}s_npos"
_S_PREC = f"{INTERNAL}s_prec"
_S_WRONG = f"{INTERNAL}s_wrong"
_S_AP_SUM = f"{INTERNAL}s_ap_sum"
_S_W = f"{INTERNAL}s_w"
_S_AUC_SUM = f"{INTERNAL}s_auc_sum"
_S_PARTIAL = f"{INTERNAL}s_partial_area"  # with max_fpr: the id's partial ROC area
_S_AUC_W = f"{INTERNAL}s_auc_w"
_S_UNDEFINED = f"{INTERNAL}s_undefined"


#: The one key of a table pooled over everything (no ``by``), for the kernel's blocks.
_ALL = f"{INTERNAL}all"


def _per_class_values(
    curves: pl.LazyFrame,
    keys: list[str],
    metric: str,
    max_fpr: float | None = None,
    *,
    pooled: bool = False,
    padding: int = 0,
    name: str | None = None,
) -> pl.LazyFrame:
    """Per ``keys`` (a class, or everything pooled): the metric and its positive weight.

    ``pooled``: rows of ``keys`` may share a score (classes pooled), and are summed first;
    otherwise each score is on one row, as in every state's curves table. ``padding``:
    that many positives scoring 1 added to each key's (`_padded`). ``name``: the value's
    column, if not ``metric``.
    """

    def plan(table: pl.LazyFrame) -> pl.LazyFrame:
        if padding:
            table = _padded(table, keys, padding)
        if pooled or padding:
            sums = [pl.col(_POS).sum(), pl.col(_NEG).sum()]
            table = table.group_by([*keys, CURVE_SCORE]).agg(sums)
        return _area_sums(table, keys, metric, max_fpr)

    out = plan(curves)
    if (metric == "average_precision" or max_fpr is None) and _kernel.available():
        # The kernel's curves table comes sorted within classes: the C kernel sums it as
        # the plan does, without the plan's sort (the plan takes over for other tables).
        def sums(df: pl.DataFrame) -> pl.DataFrame:
            roc = metric == "roc_auc"
            table: pl.DataFrame | None = df
            if pooled:
                table = _pooled_in_blocks(df, keys)
            elif padding:
                table = _padded_in_blocks(df, keys, padding)
            summed = None
            if table is not None:
                # (Every row pooled: one block, of a constant key.)
                every = [] if keys else [pl.lit(0).alias(_ALL)]
                table = table.with_columns(every)
                on = keys or [_ALL]
                summed = _kernel.curve_areas(table, on, CURVE_SCORE, _POS, _NEG, roc=roc)
            if summed is None:
                # (In the in-memory engine, which adds a group's weights in the rows' order:
                # the same bits on every run.)
                return plan(df.lazy()).collect(engine="in-memory")
            firsts, values = summed
            names = [_AREA, _POS, _NEG, _POS_SCALE, _NEG_SCALE]
            columns = (pl.Series(k, v) for k, v in zip(names, values, strict=True))
            return firsts.with_columns(columns).drop(_ALL, strict=False)

        out = curves.map_batches(sums, schema=out.collect_schema())
    p, n = pl.col(_POS), pl.col(_NEG)
    if metric == "roc_auc" and max_fpr is not None:
        value = pl.when((p > 0) & (n > 0)).then(_mcclish(pl.col(_AREA), max_fpr)).otherwise(None)
    elif metric == "roc_auc":
        scaled = (p * pl.col(_POS_SCALE)) * (n * pl.col(_NEG_SCALE))
        value = pl.when((p > 0) & (n > 0)).then(pl.col(_AREA) / scaled).otherwise(None)
    else:
        # scikit-learn: positives of no weight (none, or weights summing to 0) give 0, and
        # it clips at 0 (only negative weights take the sum below).
        value = pl.when(p != 0).then((pl.col(_AREA) / p).clip(lower_bound=0.0)).otherwise(0.0)
    value = value.cast(pl.Float64).alias(name or metric)
    return out.with_columns(value).drop(_POS_SCALE, _NEG_SCALE)


def _area_sums(
    curves: pl.LazyFrame, keys: list[str], metric: str, max_fpr: float | None
) -> pl.LazyFrame:
    """Per ``keys``: the area (ROC or precision-recall) and the weights behind the metric."""
    # Each group's scores, highest first, sorted once and then read in order: sorted within
    # the aggregation, polars 2.1 sorted again for every use of a column (6 times, 11 s for
    # 20M distinct scores), and computed the pieces of the partial area (`max_fpr`) in
    # different orders of the pooled rows, at random.
    curves = sorted_within(curves, keys, CURVE_SCORE, descending=True)
    pos, neg = pl.col(_POS), pl.col(_NEG)
    # The ROC area multiplies the positives' weights by the negatives', which under- or
    # overflows for weights far from 1 (1e-170, 1e160): each side is scaled by a power of
    # two first, which changes no bits of area / (P * N). (The partial area and average
    # precision divide first: nothing to scale.)
    pos_scale = neg_scale = pl.lit(1.0)
    weighted = curves.collect_schema()[_POS].is_float()  # (else counts: nothing to scale)
    if metric == "roc_auc" and max_fpr is None and weighted:
        pos_scale, neg_scale = unit_scale(pos.abs().max()), unit_scale(neg.abs().max())
    tp, fp = (pos * pos_scale).cum_sum(), (neg * neg_scale).cum_sum()
    if metric == "roc_auc" and max_fpr is not None:
        exprs = [ordered_sum(_partial_area(pos, neg, tp, fp, max_fpr)).alias(_AREA)]
    elif metric == "roc_auc":
        # Trapezoids between consecutive thresholds: width fp gained, mean height of tp.
        area = neg * neg_scale * (tp + (tp - pos * pos_scale)) / 2
        exprs = [ordered_sum(area).alias(_AREA)]
    else:
        # Step-wise average precision: recall gained at a threshold times its precision
        # (as scikit-learn: recall lost to a negative weight counts too, and a precision
        # over no weight is 0).
        gained = pl.when((pos != 0) & (tp + fp != 0)).then(pos * (tp / (tp + fp))).otherwise(0.0)
        exprs = [ordered_sum(gained).alias(_AREA)]
    exprs += [
        ordered_sum(pos).alias(_POS),
        ordered_sum(neg).alias(_NEG),
        pos_scale.alias(_POS_SCALE),
        neg_scale.alias(_NEG_SCALE),
    ]
    return aggregate(curves, keys, exprs)


#: Columns of `cumulated`: weights at or above a score, and in all.
TP = f"{INTERNAL}tp_above"
FP = f"{INTERNAL}fp_above"
P_ALL = f"{INTERNAL}p_all"
N_ALL = f"{INTERNAL}n_all"


def cumulated(curves: pl.LazyFrame, keys: list[str], keep: Sequence[str] = ()) -> pl.LazyFrame:
    """Per ``keys`` and distinct score (as Float64), highest first: weights at or above it.

    `TP` and `FP` are the weights of positives and negatives scoring at least ``s`` (the
    counts of ``score >= s``); `P_ALL` and `N_ALL` are all of them. ``keep``: boolean
    columns of ``curves`` that hold one value per score, kept (any of the scores'). Integer
    scores beyond 2**53 that are one Float64 are one threshold (as numpy compares them),
    not several thresholds of one value, which sorted in any order.
    """
    if keep:
        return _cumulated_plan(curves, keys, keep)
    # The kernel's curves table (counts, each key's scores together and falling) is summed
    # in its blocks: no group_by, sort and windows over every row (5M rows: 2 s).
    return _kernel.planned(
        curves, lambda lf: _cumulated_plan(lf, keys, keep), lambda df: _cumulated_blocks(df, keys)
    )


def _cumulated_plan(curves: pl.LazyFrame, keys: list[str], keep: Sequence[str]) -> pl.LazyFrame:
    """`cumulated` in polars, for any curves table."""
    # -0.0 as 0.0, as the kernel counts it: the group of both held either.
    down = (
        curves.with_columns(unsigned_zero(pl.col(CURVE_SCORE).cast(pl.Float64)))
        .group_by([*keys, CURVE_SCORE])
        .agg(pl.col(_POS).sum(), pl.col(_NEG).sum(), *(pl.col(k).max() for k in keep))
    )
    down = sorted_within(down, keys, CURVE_SCORE, descending=True).with_columns(
        pl.col(_POS).cum_sum().over(keys).alias(TP), pl.col(_NEG).cum_sum().over(keys).alias(FP)
    )
    return down.with_columns(
        pl.col(TP).last().over(keys).alias(P_ALL), pl.col(FP).last().over(keys).alias(N_ALL)
    )


def _cumulated_blocks(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame | None:
    """`cumulated` of a table whose keys' scores are distinct floats, falling, in blocks.

    Counts or weights, summed as the plan sums them (`pl_metrics._kernel.cumulated_sums`);
    None for other tables.
    """
    if not df[CURVE_SCORE].dtype.is_float():  # (integers may share a Float64)
        return None
    # Keys with nulls first, as the plan sorts them.
    blocks = _kernel.blocks_in_key_order(df, keys, nulls_last=False, falling=CURVE_SCORE)
    if blocks is None or any(df[c].null_count() for c in (_POS, _NEG)):
        return None
    table, starts = blocks
    (tp, positives), (fp, negatives) = (
        _kernel.cumulated_sums(table[c].to_numpy(), starts) for c in (_POS, _NEG)
    )
    lengths = np.diff(starts)
    score = unsigned_zero(pl.col(CURVE_SCORE).cast(pl.Float64))  # (as the plan)
    return table.select(*keys, score, _POS, _NEG).with_columns(
        pl.Series(TP, tp),
        pl.Series(FP, fp),
        pl.Series(P_ALL, np.repeat(positives, lengths)),
        pl.Series(N_ALL, np.repeat(negatives, lengths)),
    )


def _mcclish(area: pl.Expr, max_fpr: float) -> pl.Expr:
    """McClish's standardisation of a partial AUC, as scikit-learn: 0.5 chance, 1 perfect."""
    low, high = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - low) / (high - low))


def _partial_area(pos: pl.Expr, neg: pl.Expr, tp: pl.Expr, fp: pl.Expr, max_fpr: float) -> pl.Expr:
    """Each ROC segment's area left of ``fpr = max_fpr``, the crossing one interpolated.

    As ``sklearn.metrics.roc_auc_score(max_fpr=...)``: the curve stops at ``max_fpr``, where
    its height is interpolated linearly between the points on either side. ``pos`` and
    ``neg`` are the weights at each score, highest first; ``tp`` and ``fp`` their sums.
    """
    positives, negatives = pos.sum(), neg.sum()
    x1, y1 = fp / negatives, tp / positives
    x0, y0 = (fp - neg) / negatives, (tp - pos) / positives
    crossing = y0 + (max_fpr - x0) / (x1 - x0) * (y1 - y0)
    return (
        pl.when(x1 <= max_fpr)
        .then((x1 - x0) * (y1 + y0) / 2)
        .when(x0 < max_fpr)
        .then((max_fpr - x0) * (y0 + crossing) / 2)
        .otherwise(0.0)
    )


def probability_check(cols: Columns, metrics: Sequence[str]) -> tuple[Problem, pl.Expr]:
    """Scores outside [0, 1], for the ``metrics`` whose formula assumes probabilities."""
    assert cols.score is not None
    outside = Problem(
        "probability_range",
        cols.score,
        "rows",
        "have a score outside [0, 1]",
        "give probabilities (a sigmoid or softmax of the scores, say)",
        needed_by=tuple(metrics),
    )
    return outside, probability_rows(cols.score)[outside.key].sum().cast(pl.Int64)


class _Curves(Family):
    """ROC AUC and average precision from the curves table; top-k accuracy per id."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        parts = Parts()
        by_id = opts.average == "samples"
        if any(m in CURVE_METRICS and not (by_id and m != "padded_cmap") for m in metrics):
            parts.curve_exprs = curve_exprs(cols)
        if "padded_cmap" in metrics:  # its padding rows score 1: the top of a probability
            parts.id_checks.append(probability_check(cols, ["padded_cmap"]))
        if by_id and any(m in ("roc_auc", "average_precision") for m in metrics):
            samples = _samples_parts(cols, opts.max_fpr)
            parts.id_exprs += samples.id_exprs
            parts.extend_ids += samples.extend_ids
            parts.group_exprs += samples.group_exprs
        if "top_k_accuracy" in metrics:
            assert cols.score is not None
            parts.id_exprs += [cols.weight_expr.first().alias(_W), *_true_class_exprs(cols)]
            hits = _top_k_hits(cols, opts.k or 1)
            parts.extend_ids.append(hits)
            if in_memory and _kernel.available():
                parts.run_columns = _top_k_run_columns(cols, opts.k or 1, hits)
            parts.id_checks += true_class_checks(
                cols,
                ("top_k_accuracy",),
                "lrap and ndcg rank ids with several true classes",
            )
            w = pl.col(_W)
            parts.group_exprs += [
                ordered_sum(w * pl.col(_TOPK_HIT)).alias(_TOPK_SUM),
                ordered_sum(w).alias(_TOPK_W),
            ]
        return parts

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        if metric == "top_k_accuracy":
            return [pl.col(_TOPK_HIT).alias(metric)]
        ap, auc, defined = _sample_values(opts.max_fpr)
        value = ap if metric == "average_precision" else pl.when(defined).then(auc)
        return [value.cast(pl.Float64).alias(metric)]

    def result_problems(self, metric: str, cols: Columns, opts: Options) -> list[Problem]:
        if metric != "roc_auc" or opts.undefined != "error" or opts.average == "samples":
            return []
        return [_undefined_auc(cols, average=opts.average)]

    def group_checks(
        self, metric: str, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.Expr]]:
        """ROC AUC over an id's classes needs a positive and a negative class."""
        if metric != "roc_auc" or opts.average != "samples" or opts.undefined != "error":
            return []
        problem = Problem(
            "undefined_auc_ids",
            cols.truth,
            "ids",
            "have no positive or no negative class: ROC AUC over classes is undefined there",
            "pass undefined='skip' to leave them out of the average (per_id=True then gives "
            "them null values, which names them)",
        )
        return [(problem, pl.col(_S_UNDEFINED))]

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
        if metric == "top_k_accuracy":
            value = pl.col(_TOPK_SUM) / pl.col(_TOPK_W)
            return groups.select(*by, value.cast(pl.Float64).alias(metric))
        if opts.average == "samples" and metric != "padded_cmap":
            total, value = (
                (pl.col(_S_AUC_W), pl.col(_S_AUC_SUM))
                if metric == "roc_auc"
                else (pl.col(_S_W), pl.col(_S_AP_SUM))
            )
            mean = pl.when(total == 0).then(float("nan")).otherwise(value / total)
            return groups.select(*by, mean.cast(pl.Float64).alias(metric))
        assert curves is not None
        if opts.average == "micro" and metric != "padded_cmap":
            values = _values(metric, curves, by, opts, pooled=True)
            out = values.select(*by, pl.col(metric).fill_null(float("nan")))
            return _with_undefined(out, values, metric, by, cols, opts)
        values = _values(metric, curves, [*by, cols.cls], opts, pooled=False)
        if opts.average is None:
            out = values.select(*by, cols.cls, metric)
            # Counted per group (on each of its rows), its classes named as class chunks do.
            return _with_undefined(out, values, metric, by, cols, opts)
        average = "macro" if metric == "padded_cmap" else opts.average
        out = average_classes(values, metric, by, average)
        # Groups whose classes are all undefined (skipped) still get a row: NaN.
        if by:
            out = groups.select(by).join(out, on=by, how="left", nulls_equal=True)
        out = out.with_columns(pl.col(metric).fill_null(float("nan")))
        return _with_undefined(out, values, metric, by, cols, opts)


def _undefined_auc(cols: Columns, *, average: str | None) -> Problem:
    pooled = average == "micro"
    return Problem(
        "undefined_auc",
        cols.cls,
        "groups (all classes pooled)"
        if pooled
        else f"({', '.join([*cols.by, cols.cls])}) combinations"  # one class in groups
        if cols.by
        else "classes",
        "have no positives or no negatives"
        + (" (weighted: weights summing to zero or less)" if cols.weight is not None else "")
        + ": ROC AUC is undefined there",
        "pass undefined='skip' to give them NaN"
        if pooled
        else "pass undefined='skip' to give them null values"
        if average is None
        else "pass undefined='skip' to leave them out of the average (BirdCLEF 2024)",
        examples=not pooled,
    )


def check_undefined(values: pl.DataFrame, by: list[str], cols: Columns, opts: Options) -> None:
    """Raise on undefined ROC AUCs as `finalize` does.

    ``values``: per-class values (null where undefined) gathered from class-disjoint chunks,
    which each left theirs out.
    """
    keys = values.lazy().select(by).unique() if by else values.lazy().select(pl.len())
    counted = _with_undefined(keys, values.lazy(), "roc_auc", by, cols, opts)
    per_class = None if opts.average is None else "macro"  # (values of classes, not pooled)
    raise_on_problems(counted, [_undefined_auc(cols, average=per_class)], by).collect()


def with_class_counts(
    out: pl.LazyFrame,
    values: pl.LazyFrame,
    keys: list[str],
    problem: Problem,
    where: pl.Expr,
    cls: str,
) -> pl.LazyFrame:
    """``out`` with ``problem``'s count of the classes of ``values`` where ``where`` holds.

    Per ``keys``; with examples, the first such classes too (``class=0``, ``class='a'``), in
    the classes' order. Raised with the data checks, after them (`Family.result_problems`).
    """
    exprs = [where.sum().cast(pl.Int64).alias(problem.name)]
    if problem.examples:
        dtype = values.collect_schema()[cls]
        quote = "'" if dtype == pl.String or is_categorical(dtype) else ""
        named = pl.concat_str(
            pl.lit(f"{cls}={quote}"), class_text(pl.col(cls), dtype), pl.lit(quote)
        )
        first = named.filter(where).sort_by(pl.col(cls).filter(where))  # the same every run
        exprs.append(first_named(first).alias(problem.examples_name))
    counts = aggregate(values, keys, exprs)
    if keys:
        return out.join(counts, on=keys, how="left", nulls_equal=True)
    return out.join(counts, how="cross")


def _with_undefined(
    out: pl.LazyFrame,
    values: pl.LazyFrame,
    metric: str,
    keys: list[str],
    cols: Columns,
    opts: Options,
) -> pl.LazyFrame:
    """Add the count of undefined ROC AUCs (and some of their classes) to ``out``.

    They are raised with the data checks, after them: a null class or a NaN score is named
    as such rather than as an undefined AUC.
    """
    if metric != "roc_auc" or opts.undefined != "error":
        return out
    problem = _undefined_auc(cols, average=opts.average)
    return with_class_counts(out, values, keys, problem, pl.col(metric).is_null(), cols.cls)


def _values(
    metric: str, curves: pl.LazyFrame, keys: list[str], opts: Options, *, pooled: bool
) -> pl.LazyFrame:
    """Per ``keys``: the metric (null where undefined) and the positives' weight.

    ``pooled``: the classes are pooled (micro average), several rows to a score.
    """
    if metric == "padded_cmap":  # (named so at once: a key may be named average_precision)
        padding = opts.padding or 0
        return _per_class_values(
            curves, keys, "average_precision", pooled=pooled, padding=padding, name=metric
        )
    max_fpr = opts.max_fpr if metric == "roc_auc" else None
    return _per_class_values(curves, keys, metric, max_fpr, pooled=pooled)


def _samples(
    cols: Columns, max_fpr: float | None
) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    """Per id, its classes ranked by score: the id's average precision and mis-ordered pairs.

    Rows are counted per distinct score and summed down the scores (``R`` rows and ``P``
    positives at or above): a positive ranks below ``R - P`` negatives, ``n - p`` of them
    tied (counted half for ROC AUC, as a tie between classes is one threshold). With
    ``max_fpr``, the id's ROC curve is walked down the same scores for its partial area.
    """

    def extend(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        assert cols.score is not None
        keys = [*cols.by, cols.id]
        n, p, r, q = (pl.col(c) for c in (N_AT, P_AT, R, P))
        ranked = ranked_scores(rows, keys, pl.col(cols.score), cols.truth_expr)
        sums = [
            ordered_sum(p * q / r).alias(_S_PREC),
            ordered_sum(p * ((r - q) - 0.5 * (n - p))).alias(_S_WRONG),
        ]
        if max_fpr is None:  # only scores holding a positive add to the sums
            ranked = ranked.filter(p > 0)
        else:  # scores holding only negatives move the curve right: all are kept
            area = _partial_area(p, n - p, q, r - q, max_fpr)
            sums.append(ordered_sum(area).alias(_S_PARTIAL))
        names = [e.meta.output_name() for e in sums]
        table = ranked.sort([*keys, SCORE]).group_by(keys).agg(sums)
        return per_id.join(table, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col(names).fill_null(0.0)
        )

    return extend


def _sample_values(max_fpr: float | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Each id's AP and ROC AUC over its classes, and whether its AUC is defined."""
    npos, rows = pl.col(_S_NPOS), pl.col(N_ROWS)
    nneg = rows - npos
    # scikit-learn: an id without positives has AP 0; its ROC AUC is undefined (one class).
    ap = pl.when(npos > 0).then(pl.col(_S_PREC) / npos).otherwise(0.0)
    defined = (npos > 0) & (nneg > 0)
    if max_fpr is None:
        auc = 1 - pl.col(_S_WRONG) / (npos * nneg).cast(pl.Float64)
    else:
        auc = _mcclish(pl.col(_S_PARTIAL), max_fpr)
    return ap, auc, defined


def _samples_parts(cols: Columns, max_fpr: float | None) -> Parts:
    """Sums over ids of their AP and ROC AUC over classes (``average="samples"``)."""
    w = pl.col(_W)
    ap, auc, defined = _sample_values(max_fpr)
    return Parts(
        id_exprs=[
            cols.truth_expr.sum().cast(pl.Int64).alias(_S_NPOS),
            cols.weight_expr.first().alias(_W),
        ],
        extend_ids=[_samples(cols, max_fpr)],
        group_exprs=[
            ordered_sum(w * ap).alias(_S_AP_SUM),
            ordered_sum(w).alias(_S_W),
            ordered_sum((w * auc).filter(defined)).alias(_S_AUC_SUM),
            ordered_sum(w.filter(defined)).alias(_S_AUC_W),
            (~defined).sum().cast(pl.Int64).alias(_S_UNDEFINED),
        ],
    )


def curve_positives(state: MetricState) -> pl.DataFrame:
    """The positives' weight of each ``(by..., class)`` of a collected state's curves."""
    cols = state.columns
    assert state.curves is not None
    keys = [*cols.by, cols.cls]
    sums = state.curves.lazy().group_by(keys).agg(pl.col(_POS).sum())
    return sums.collect(engine="in-memory")  # (a group's weights in order: the same bits)


def average_classes(values: pl.LazyFrame, metric: str, by: list[str], average: str) -> pl.LazyFrame:
    """Average per-class values (nulls, undefined classes, left out) over each group."""
    # Sorted by value: the same order of the sums whatever order the classes came in.
    kept = values.filter(pl.col(metric).is_not_null()).sort([*by, metric, _POS])
    if average == "weighted":
        # scikit-learn: weights (positives) summing to zero give 0; no class left: NaN, as
        # the other averages give (and as a group with no class left gets when joined back).
        weight = pl.col(_POS)
        total = ordered_sum(weight)
        mean = (
            pl.when(pl.col(metric).count() == 0)
            .then(float("nan"))
            .when(total == 0)
            .then(0.0)
            .otherwise(ordered_sum(pl.col(metric) * weight) / total)
        )
    else:
        mean = ordered_mean(pl.col(metric))
    mean = mean.cast(pl.Float64).alias(metric)
    return aggregate(kept, by, [mean])


def _padded(curves: pl.LazyFrame, keys: list[str], padding: int) -> pl.LazyFrame:
    """BirdCLEF 2023: ``padding`` extra rows per class, truth 1 and score 1, added as sums."""
    schema = curves.collect_schema()
    pad = (
        curves.select(keys)
        .unique()
        .with_columns(
            pl.lit(1.0).cast(schema[CURVE_SCORE]).alias(CURVE_SCORE),
            pl.lit(float(padding)).cast(schema[_POS]).alias(_POS),
            pl.lit(0.0).cast(schema[_NEG]).alias(_NEG),
        )
    )
    return pl.concat([curves.select(pad.collect_schema().names()), pad], how="vertical_relaxed")


def _pooled_in_blocks(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame | None:
    """The weights of a curves table pooled over classes: per ``keys`` and score, in blocks.

    The table must hold each class's scores together, falling (its one column besides
    ``keys`` and the curves'). Each key's scores are merged, highest first, the keys in
    order; each score's weights summed as the plan's group_by sums them (counts in any
    order; weights by `compensated_sums`, the classes taken in their sorted order: the
    kernel's threads write their classes' blocks in whichever order they finish, and the
    bits are the same on every run). None for other tables; weights without the kernel.
    """
    classes = [c for c in df.columns if c not in {*keys, CURVE_SCORE, _POS, _NEG}]
    blocks = _kernel.falling_key_blocks(df, [*keys, *classes], CURVE_SCORE)
    if len(classes) != 1 or blocks is None:
        return None
    if any(df[c].dtype != pl.Float64 for c in (_POS, _NEG)):
        return None
    if df[CURVE_SCORE].dtype.is_integer() and df.select(is_past_2_53(CURVE_SCORE)).item():
        return None  # (merged as floats, distinct integers past 2**53 would tie: the plan's)
    # Each class's block's key, numbered in key order.
    starts, firsts = blocks
    groups, block_group = pl.DataFrame(), np.zeros(len(starts) - 1, np.int64)
    if keys:
        group_of, block = f"{INTERNAL}group", f"{INTERNAL}block"  # (beside the keys)
        groups = firsts.select(keys).unique().sort(keys, nulls_last=True)
        numbered = groups.with_row_index(group_of).join(
            firsts.select(keys).with_row_index(block), on=keys, nulls_equal=True
        )
        block_group = numbered.sort(block)[group_of].to_numpy().astype(np.int64)
    group = np.repeat(block_group, np.diff(starts))
    score = df[CURVE_SCORE].cast(pl.Float64).to_numpy() + 0.0  # (-0.0 as 0.0)
    number, firsts_of = _kernel.merged_falling(group, score)
    values, n = [df[c].to_numpy() for c in (_POS, _NEG)], len(firsts_of)
    if all(_kernel.are_counts(v) for v in values):  # (counts add up exactly in any order)
        pos, neg = (np.bincount(number, weights=v, minlength=n) for v in values)
    elif _kernel.available():
        index = f"{INTERNAL}block"
        by_class = firsts.with_row_index(index).sort(
            [*keys, *classes], nulls_last=True, maintain_order=True
        )[index]
        rows = _kernel.block_rows(starts, by_class.to_numpy().astype(np.int64))
        pos, neg = (_kernel.compensated_sums(number[rows], v[rows], n) for v in values)
    else:
        return None
    table = pl.DataFrame({CURVE_SCORE: score[firsts_of], _POS: pos, _NEG: neg})
    if not keys:
        return table
    pooled: pl.DataFrame = pl.concat([groups[group[firsts_of]], table], how="horizontal")
    return pooled


def _padded_in_blocks(df: pl.DataFrame, keys: list[str], padding: int) -> pl.DataFrame | None:
    """`_padded`, pooled, of a table with each key's rows together, scores falling.

    Each key's padding row goes where its score falls among the key's (added to a score of
    1 already there), so the table stays in blocks. None for other tables.
    """
    blocks = _kernel.falling_key_blocks(df, keys, CURVE_SCORE)
    score = df[CURVE_SCORE]
    if blocks is None or df[_POS].dtype != pl.Float64:
        return None
    starts, firsts = blocks
    values = score.to_numpy()
    one = np.ones(1, values.dtype)[0]
    at_one = values == one
    above = np.add.reduceat((values > one).astype(np.int64), starts[:-1])  # (falling: first)
    has_one = np.logical_or.reduceat(at_one, starts[:-1])
    positives = df[_POS].to_numpy().copy()
    positives[at_one] += float(padding)
    pads = firsts.filter(pl.Series(~has_one)).with_columns(
        pl.lit(1.0).cast(score.dtype).alias(CURVE_SCORE),
        pl.lit(float(padding)).alias(_POS),
        pl.lit(0.0).cast(df.schema[_NEG]).alias(_NEG),
    )
    rows = np.insert(
        np.arange(df.height), (starts[:-1] + above)[~has_one], df.height + np.arange(pads.height)
    )
    table = df.with_columns(pl.Series(_POS, positives)).select(pads.columns)
    padded: pl.DataFrame = pl.concat([table, pads])[rows]
    return padded


def _sortable(cols: Columns) -> pl.Expr:
    """The class in label order: scikit-learn's sorted labels, or an enum's own order.

    Categoricals are ordered by their strings; an enum's categories are the labels in the
    order it declares (as ``labels=`` would give them to scikit-learn).
    """
    cls = pl.col(cols.cls)
    if cols.class_is_enum:
        return cls.to_physical()
    return cls.cast(pl.String) if cols.class_is_categorical else cls


def _true_class_exprs(cols: Columns, truth: pl.Expr | None = None) -> list[pl.Expr]:
    """Per id: its true class's score, and the class in label order (`_sortable`).

    ``truth``: the truth as a boolean (default: ``cols``' truth column).
    """
    assert cols.score is not None
    truth = cols.truth_expr if truth is None else truth
    return [
        pl.col(cols.score).filter(truth).first().alias(_TRUE_SCORE),
        _sortable(cols).filter(truth).first().alias(_TRUE_CLASS),
    ]


def _top_k_run_columns(cols: Columns, k: int, replaces: IdsHook) -> RunColumns:
    """`_top_k_hits` (the hook ``replaces``) over each id's run of rows, in the counts pass.

    The plan's join took 0.41 s of 5M rows. Where some id has not exactly one true class,
    or a score is NaN, the frame takes the plan.
    """
    assert cols.score is not None
    score, keys = cols.score, [*cols.by, cols.id]

    def over_runs(
        df: pl.DataFrame, runs: _kernel.IdRuns, truth: np.ndarray, codes: _kernel.ClassCodes
    ) -> dict[str, PerRun] | None:
        scores = df[score]
        if scores.null_count() or scores.dtype in (pl.Int128, pl.UInt128):  # (numpy has none)
            return None
        if scores.dtype.is_float() and scores.is_nan().any():
            return None
        starts, found = runs.starts, true_rows(runs, truth)
        if found is None:
            return None
        n_runs = len(found)
        # The codes are in label order (integers, strings' ranks, an enum's codes), but for
        # categoricals, whose codes are ranked by their strings.
        order = codes.codes.to_numpy()
        if cols.class_is_categorical and not cols.class_is_enum:
            ranks = codes.values.cast(pl.String).rank("dense").fill_null(0).to_numpy()
            order = ranks[order - codes.low]
        values = scores.to_numpy()
        true_score, true_class = values[found], order[found]
        lengths = np.diff(starts)
        if n_runs and (lengths == lengths[0]).all():  # a class per column: no repeats
            values, order = values.reshape(n_runs, -1), order.reshape(n_runs, -1)
            s, c = true_score[:, None], true_class[:, None]
            ahead = ((values > s) | ((values == s) & (order > c))).sum(axis=1)
        else:
            s, c = np.repeat(true_score, lengths), np.repeat(true_class, lengths)
            marks = (values > s) | ((values == s) & (order > c))
            ahead = np.add.reduceat(marks.view(np.uint8), starts[:-1], dtype=np.int64)
        return {
            _TOPK_HIT: (ahead < k).astype(np.float64),
            _TRUE_SCORE: scores.gather(found),
            _TRUE_CLASS: df.select(_sortable(cols).gather(found)).to_series(),
        }

    def over_rows(df: pl.DataFrame) -> pl.DataFrame:
        rows = df.lazy()
        per_id = rows.group_by(keys).agg(_true_class_exprs(cols, pl.col(TRUTH)))
        hits = _top_k_hits(cols, k)(rows, per_id)
        return hits.select(*keys, _TOPK_HIT).collect(engine="in-memory")

    schema = pl.Schema({_TOPK_HIT: pl.Float64})
    # (The true classes are the per-id aggregation's too: its path, weights say, reads them.)
    aggregations = _true_class_exprs(cols)
    return RunColumns([pl.col(score)], schema, over_runs, over_rows, aggregations, replaces)


def _top_k_hits(cols: Columns, k: int) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    """Per id: is the true class among the ``k`` best scores, ties as scikit-learn breaks them.

    scikit-learn sorts each row's scores with a stable sort and reverses it, so among tied
    scores the class that comes later in label order ranks first.
    """

    def extend(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        keys = [*cols.by, cols.id]
        assert cols.score is not None
        score, true_score = pl.col(cols.score), pl.col(_TRUE_SCORE)
        ahead = (score > true_score) | (
            (score == true_score) & (_sortable(cols) > pl.col(_TRUE_CLASS))
        )
        counts = (
            rows.select(*keys, cols.score, _sortable(cols).alias(cols.cls))
            .join(per_id.select(*keys, _TRUE_SCORE, _TRUE_CLASS), on=keys, nulls_equal=True)
            .group_by(keys)
            .agg(ahead.sum().alias(_TOPK_AHEAD))
        )
        hits = counts.select(*keys, (pl.col(_TOPK_AHEAD) < k).cast(pl.Float64).alias(_TOPK_HIT))
        return per_id.join(hits, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col(_TOPK_HIT).fill_null(0.0)
        )

    return extend


register("_curves", _Curves())


@checked_options
def roc_auc(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    average: Literal["macro", "micro", "weighted", "samples"] | None = "macro",
    undefined: Literal["error", "skip"] = "error",
    max_fpr: float | None = None,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """ROC AUC of each class's column: `sklearn.metrics.roc_auc_score` on the indicator matrix.

    The area under the ROC curve with tied scores forming one threshold (so a tie between a
    positive and a negative counts one half). Averages as in scikit-learn: ``None`` (one row
    per class), ``"macro"``, ``"micro"`` (all classes pooled into one binary problem),
    ``"weighted"`` (by positives) and ``"samples"`` (each id's AUC over its classes,
    averaged over ids; an id with one kind of class only is refused, or left out with
    ``undefined="skip"``, where scikit-learn returns NaN).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, ragged, validate
        As in `lrap`.
    weight_col
        Optional per-id sample weight.
    average
        See above.
    max_fpr
        The standardised partial AUC up to this false positive rate (McClish), as
        ``roc_auc_score(max_fpr=...)``: 0.5 for chance, 1 for a perfect ranking.
    undefined
        A class without positives or without negatives has no ROC AUC. ``"error"``
        (default): refuse, naming such a class. ``"skip"``: leave those classes out of the
        average (the BirdCLEF 2024 rule); with ``average=None`` their rows hold null, and a
        group whose every class is left out is NaN, the mean of no class.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, roc_auc)``
        (with ``average="samples"``; an id without a positive or a negative class is
        refused, or null with ``undefined="skip"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)

    Notes
    -----
    The state holds one row per class and distinct score: memory grows with the distinct
    scores, not the rows. Scores rounded to a few decimals keep it small.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 1, 1, 2, 2, 3, 3],
    ...     "class": ["bird", "frog"] * 4,
    ...     "score": [0.9, 0.1, 0.4, 0.8, 0.4, 0.3, 0.2, 0.6],
    ...     "truth": [1, 0, 0, 1, 1, 0, 0, 1],
    ... })
    >>> df.metrics.roc_auc(average=None)
    shape: (2, 2)
    ┌───────┬─────────┐
    │ class ┆ roc_auc │
    │ ---   ┆ ---     │
    │ str   ┆ f64     │
    ╞═══════╪═════════╡
    │ bird  ┆ 0.875   │
    │ frog  ┆ 1.0     │
    └───────┴─────────┘
    """
    return report(
        frame,
        "roc_auc",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        average=average,
        undefined=undefined,
        max_fpr=max_fpr,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def average_precision(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    average: Literal["macro", "micro", "weighted", "samples"] | None = "macro",
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Average precision of each class: `sklearn.metrics.average_precision_score`.

    Step-wise, without interpolation: the precision at each threshold (tied scores together)
    times the recall it adds. A class without positives scores 0, as in scikit-learn.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`.
    average
        ``None``, ``"macro"``, ``"micro"``, ``"weighted"`` or ``"samples"`` (each id's
        average precision over its classes, 0 without positives, as scikit-learn).
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id,
        average_precision)`` (with ``average="samples"``).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column when ``average=None``), then a Float64
        ``average_precision`` column; with ``per_id=True`` and ``average="samples"``, rows
        ``(by..., id, average_precision)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 1, 2, 3], "class": "bird",
    ...                    "score": [0.1, 0.4, 0.35, 0.8], "truth": [0, 0, 1, 1]})
    >>> df.metrics.average_precision().item()
    0.8333...
    """
    return report(
        frame,
        "average_precision",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        average=average,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def padded_cmap(
    frame: FrameT,
    *,
    padding: int = 5,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    by: str | Sequence[str] | None = None,
    per_class: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Padded class-mean average precision (BirdCLEF 2023).

    ``padding`` rows whose truth and scores are 1 for every class are added, then average
    precision is averaged over classes. The padding is added to the state's sums (one
    threshold at score 1 per class), never as rows: nothing is copied.

    Scores must be probabilities in [0, 1] (the padding's 1 is their top); others are
    refused. A class without positives scores 1 (its padding, ranked first), or
    padding / (padding + its rows of score 1) where its scores reach 1, tied with the
    padding (kNN and naive Bayes give many); `average_precision` gives it 0: in a per-class
    table, neither is a sign of a good or a bad class (count its positives).

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, ragged, validate
        As in `roc_auc`.
    padding
        Padding rows per class (BirdCLEF 2023 used 5).
    per_class
        Return each class's padded average precision: rows ``(by..., class, padded_cmap)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns (and the class column with ``per_class=True``), then a Float64
        ``padded_cmap`` column.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["bird", "frog"] * 2,
    ...                    "score": [0.9, 0.2, 0.3, 0.1], "truth": [1, 0, 0, 0]})
    >>> df.metrics.padded_cmap(padding=1).item()
    1.0
    """
    return report(
        frame,
        "padded_cmap",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        by=by,
        padding=padding,
        per_class=per_class,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def top_k_accuracy(
    frame: FrameT,
    *,
    k: int = 1,
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
    """Top-k accuracy of single-label ids: `sklearn.metrics.top_k_accuracy_score`.

    The share of ids whose true class is among their ``k`` highest scores. Ties are broken
    as scikit-learn breaks them: among tied scores, the class later in label order ranks
    first. Each id must have exactly one true class.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `roc_auc`.
    k
        How many of the best scores count. Default 1 (scikit-learn's default is 2).
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, top_k_accuracy)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns, then a Float64 ``top_k_accuracy`` column; with ``per_id=True``,
        rows ``(by..., id, top_k_accuracy)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 0, 1, 1, 1], "class": [0, 1, 2] * 2,
    ...                    "score": [0.5, 0.3, 0.2, 0.1, 0.2, 0.7], "truth": [0, 1, 0, 1, 0, 0]})
    >>> df.metrics.top_k_accuracy(k=2).item()
    0.5
    """
    return report(
        frame,
        "top_k_accuracy",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        k=k,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
