"""Multi-class log losses: plain (scikit-learn's) and class-weighted (Mayo Clinic STRIP AI).

Each id has exactly one true class. One aggregation per id picks the probability of the
true class (and the row sum, for rescaling); then sums per group, or per (group, true
class) for the class-weighted loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from pl_metrics import _kernel
from pl_metrics._curves import probability_check
from pl_metrics._frame import (
    INTERNAL,
    Columns,
    FrameT,
    Problem,
    Ragged,
    aggregate,
    checked_options,
    first_named,
    ordered_sum,
    probability_rows,
    probability_sums,
    true_class_checks,
)
from pl_metrics._report import report
from pl_metrics._runs import RunColumns, true_rows
from pl_metrics._spec import Options, class_text
from pl_metrics._state import CLASS_ROWS, Family, Parts, register

__all__ = ["log_loss", "weighted_log_loss"]

_P_TRUE = f"{INTERNAL}p_true"
_ROW_SUM = f"{INTERNAL}row_sum"
_TRUE_CLASS = f"{INTERNAL}true_class"
_W = f"{INTERNAL}w"
_W_SUM = f"{INTERNAL}w_sum"
_LL_SUM = f"{INTERNAL}ll_sum"
_CLASS_LOG_SUM = f"{INTERNAL}class_log_sum"
_CLASS_IDS = f"{INTERNAL}class_true_ids"
_KEY = f"{INTERNAL}key"
_CLASS_WEIGHT = f"{INTERNAL}class_weight"
_ZERO_ROW = f"{INTERNAL}zero_row"
_SCORE = f"{INTERNAL}ll_score"  # the kernel's input
#: What to give instead of scores that are not probabilities.
_PROBABILITIES = "a softmax of each id's scores, say"


class _LogLoss(Family):
    """One aggregation per id picks the true class's probability and the row sum."""

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        assert cols.score is not None
        score, truth = pl.col(cols.score).cast(pl.Float64), cols.truth_expr
        weighted = "weighted_log_loss" in metrics
        p_true = score.filter(truth).first().alias(_P_TRUE)
        sums = probability_sums(cols.score)
        zero_row = sums["zero_row"].cast(pl.Int64)
        # As scikit-learn, log_loss uses probabilities as given, so above 1 is an error too:
        # counted with the negative ones (and with the Brier score's, the same check), where
        # the negative ones alone were told first. weighted_log_loss rescales each id's.
        plain = "log_loss" in metrics
        negative = (
            Problem(
                "negative",
                cols.score,
                "rows",
                "have a negative probability",
                f"log losses take probabilities: {_PROBABILITIES}",
            ),
            probability_rows(cols.score)["negative"].sum().cast(pl.Int64),
        )
        parts = Parts(
            id_exprs=[p_true, cols.weight_expr.first().alias(_W)],
            id_checks=[
                *true_class_checks(
                    cols,
                    metrics,
                    "for several true classes per id (multi-label), binary_log_loss scores "
                    "each class on its own",
                    "for binary scores (a row per id of one class, true or false), binary_log_loss",
                ),
                probability_check(cols, ["log_loss"]) if plain else negative,
                (
                    Problem(
                        "zero_row",
                        cols.score,
                        "ids",
                        "have probabilities summing to zero",
                        f"each id needs a probability above 0: {_PROBABILITIES}",
                    ),
                    zero_row,
                ),
            ],
        )
        if weighted:  # (the row sums rescale, and the true classes group, its ids)
            # Finite scores whose sum overflows would divide by inf: every probability 0.
            overflow = Problem(
                "row_sum_overflow",
                cols.score,
                "ids",
                "have scores summing past the largest float (each id's are rescaled to sum 1)",
                "divide the scores by a common factor, which changes no weighted_log_loss",
            )
            parts.id_checks.append((overflow, sums[overflow.key].cast(pl.Int64)))
            parts.id_exprs += [
                _exact_sum(score).alias(_ROW_SUM),
                pl.col(cols.cls).filter(truth).first().alias(_TRUE_CLASS),
            ]
        elif in_memory and _kernel.available():
            parts.run_columns = _run_columns(score, p_true, zero_row.alias(_ZERO_ROW))
        eps = opts.eps
        if plain:
            loss = -pl.col(_P_TRUE).clip(eps, 1 - eps).log()
            w = pl.col(_W)
            # An id of weight 0 adds nothing, also where its loss is infinite (eps=0), as in
            # binary_log_loss: 0 * inf would be NaN.
            parts.group_exprs += [
                ordered_sum(pl.when(w == 0).then(0.0).otherwise(w * loss)).alias(_LL_SUM),
                ordered_sum(w).alias(_W_SUM),
            ]
        if "weighted_log_loss" in metrics:
            log_p = (pl.col(_P_TRUE) / pl.col(_ROW_SUM)).clip(eps, 1 - eps).log()

            def by_true_class(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
                return (
                    per_id.drop_nulls(_TRUE_CLASS)
                    .with_columns(log_p.alias(_CLASS_LOG_SUM))
                    .sort([*cols.by, _TRUE_CLASS, cols.id])  # a fixed order for the sums
                    .group_by([*cols.by, _TRUE_CLASS])
                    .agg(
                        ordered_sum(pl.col(_CLASS_LOG_SUM)),
                        pl.len().cast(pl.Int64).alias(_CLASS_IDS),
                    )
                    .rename({_TRUE_CLASS: cols.cls})
                )

            parts.class_from_ids.append(by_true_class)
        return parts

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        p = pl.col(_P_TRUE) if metric == "log_loss" else pl.col(_P_TRUE) / pl.col(_ROW_SUM)
        return [(-p.clip(opts.eps, 1 - opts.eps).log()).cast(pl.Float64).alias(metric)]

    def table_checks(
        self, metric: str, classes: pl.LazyFrame, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.LazyFrame]]:
        """``class_weights`` must name exactly the classes of the table."""
        if metric != "weighted_log_loss" or opts.class_weights is None:
            return []
        weights = _weights_frame(opts.class_weights)
        present = (
            classes.filter(pl.col(CLASS_ROWS) > 0)
            .select(class_text(pl.col(cols.cls), classes.collect_schema()[cols.cls]).alias(_KEY))
            .unique()
        )

        def counted(unmatched: pl.LazyFrame) -> pl.LazyFrame:  # how many, and the first three
            first = first_named(pl.col(_KEY).sort())
            return unmatched.select(pl.len().cast(pl.Int64), first)

        sides = {  # weights of no class (a misspelt class, say), then classes without one
            "unknown_weight": (
                "of option 'class_weights' are not in the table",
                weights.join(present, on=_KEY, how="anti"),
            ),
            "unweighted": (
                "have no weight in option 'class_weights'",
                present.join(weights, on=_KEY, how="anti"),
            ),
        }
        return [
            (Problem(key, cols.cls, "classes", text, examples=True), counted(missing))
            for key, (text, missing) in sides.items()
        ]

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
        if metric == "log_loss":
            value = (pl.col(_LL_SUM) / pl.col(_W_SUM)).cast(pl.Float64)
            return groups.select(*by, value.alias(metric))
        assert classes is not None
        # Classes that are the true class of no id have no mean: left out, with their weight.
        per_class = classes.filter(pl.col(_CLASS_IDS) > 0).with_columns(
            class_text(pl.col(cols.cls), classes.collect_schema()[cols.cls]).alias(_KEY)
        )
        if opts.class_weights is None:
            per_class = per_class.with_columns(pl.lit(1.0).alias(_CLASS_WEIGHT))
        else:
            per_class = per_class.join(_weights_frame(opts.class_weights), on=_KEY, how="left")
        cw, mean_log = pl.col(_CLASS_WEIGHT), pl.col(_CLASS_LOG_SUM) / pl.col(_CLASS_IDS)
        # A class of weight 0 adds nothing, also where its mean is infinite (eps=0), as an
        # id of weight 0 adds nothing to log_loss (0 * inf is NaN).
        weighted = pl.when(cw == 0).then(0.0).otherwise(cw * mean_log)
        loss = (-ordered_sum(weighted) / ordered_sum(cw)).cast(pl.Float64).alias(metric)
        # Sorted again after the join, which keeps no order: the sums' order is fixed.
        out = aggregate(per_class.sort([*by, _KEY], nulls_last=True), by, [loss])
        # Every group gets a row (NaN if none of its ids has a usable true class).
        return groups.select(by).join(out, on=by, how="left", nulls_equal=True) if by else out


def _run_columns(score: pl.Expr, p_true: pl.Expr, zero_row: pl.Expr) -> RunColumns:
    """Each id's true probability (and whether its row sums to zero) over its run of rows.

    In the counts pass, for the kernel's fraction of the per-id aggregation. Where an id
    has not exactly one true class, or a probability is negative (a sum of zero need not be
    all zeros then), the aggregation computes them, and the checks say so.
    """

    def over_runs(
        df: pl.DataFrame, runs: _kernel.IdRuns, truth: np.ndarray, classes: _kernel.ClassCodes
    ) -> dict[str, np.ndarray] | None:
        scores = df[_SCORE]
        if scores.null_count():
            return None
        starts, found = runs.starts, true_rows(runs, truth)
        if found is None:
            return None
        n_runs = len(found)
        low = scores.min()
        assert isinstance(low, float)
        if low > 0:  # (False for NaN) no row sums to zero
            zero_rows = np.broadcast_to(np.int64(0), n_runs)
        else:
            values = scores.to_numpy()
            at_most_zero = np.flatnonzero(values <= 0)
            if (values[at_most_zero] < 0).any():
                return None
            # Without negatives, a row sums to zero (NaN does not) iff it is all zeros.
            of_run = np.searchsorted(starts, at_most_zero, side="right") - 1
            zeros = np.bincount(of_run, minlength=n_runs)
            zero_rows = (zeros == np.diff(starts)).astype(np.int64)
        return {
            p_true.meta.output_name(): scores.gather(found).to_numpy(),
            zero_row.meta.output_name(): zero_rows,
        }

    return RunColumns(
        [score.alias(_SCORE)], pl.Schema(), over_runs, aggregations=[p_true, zero_row]
    )


def _exact_sum(values: pl.Expr) -> pl.Expr:
    """A sum that is the same whatever order the rows come in (to 1e-24).

    weighted_log_loss divides by each id's row sum, and an unsorted input's ids span the
    streaming engine's partitions, whose float partial sums are added in whichever order
    they finish: the last bits changed between calls. Fixed-point sums (in units of 2**-80,
    8e-25, as Int128) are integer sums, exact in any order, at the cost of a cast (sorting
    each id's rows cost 3-4x the metric's time). Sums below 1e-6, or of rows whose absolute
    sum reaches 1e13, stay float sums: polars computes both branches, and the Int128 sum of
    those wraps (thrown away; a branch per row, or a Decimal sum that raises on overflow,
    cost 2x the metric's time).
    """
    plain = values.sum()
    fits = values.abs().sum() < 1e13  # (every partial sum then below 2**124)
    units = (values * 2.0**80).cast(pl.Int128, strict=False)  # (2**80: exact scaling)
    exact = units.sum().cast(pl.Float64) * 2.0**-80
    return pl.when((plain >= 1e-6) & fits).then(exact).otherwise(plain)


def _weights_frame(class_weights: tuple[tuple[str, float], ...]) -> pl.LazyFrame:
    keys, values = zip(*class_weights, strict=True)
    return pl.LazyFrame({_KEY: list(keys), _CLASS_WEIGHT: list(values)})


register("_logloss", _LogLoss())


@checked_options
def log_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    eps: float = 1e-15,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Multi-class log loss: the mean over ids of ``-ln p(true class)``.

    Equals `sklearn.metrics.log_loss` on rows that sum to one. Probabilities are clipped to
    ``[eps, 1 - eps]`` (scikit-learn clips at float64's machine epsilon, 2.2e-16: the two
    differ only for probabilities below 1e-15). Rows are used as given, not rescaled, as in
    scikit-learn; `weighted_log_loss` rescales them.

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``; ``score`` is the probability.
    id_col, class_col, score_col, truth_col
        Column names. Each id has exactly one true row.
    weight_col
        Optional per-id sample weight.
    by
        Column name(s) to group by.
    eps
        Clipping bound.
    ragged, validate
        As in `lrap`.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, log_loss)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns then a Float64 ``log_loss`` column.

    Raises
    ------
    MetricsInputError
        For ids without a true class or with several, negative probabilities or above 1,
        rows summing to zero, weights summing to zero, and the checks of `lrap`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 1, 1, 2, 2, 3, 3],
    ...     "class": ["ham", "spam"] * 4,
    ...     "score": [0.1, 0.9, 0.9, 0.1, 0.8, 0.2, 0.35, 0.65],
    ...     "truth": [0, 1, 1, 0, 1, 0, 0, 1],
    ... })
    >>> round(df.metrics.log_loss().item(), 5)
    0.21616
    """
    return report(
        frame,
        "log_loss",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        eps=eps,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )


@checked_options
def weighted_log_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    by: str | Sequence[str] | None = None,
    class_weights: Mapping[Any, float] | None = None,
    eps: float = 1e-15,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Class-weighted multi-class log loss (the Mayo Clinic STRIP AI competition's metric).

    Each id's probabilities are rescaled to sum to 1, then clipped to ``[eps, 1 - eps]``.
    For each class, the mean of ``ln p(true class)`` over the ids of that class; the loss is
    minus the class-weighted average of those means, so every class counts as much as its
    weight, however many ids it has.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, eps, ragged, validate
        As in `log_loss`.
    class_weights
        Mapping ``class -> weight`` (keys compared as strings with the class column); it must
        cover exactly the classes of the table. Default: equal weights.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id,
        weighted_log_loss)``: ``-ln p`` of the true class, rows rescaled (the class weights
        apply to the means).

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns then a Float64 ``weighted_log_loss`` column. A class that is the
        true class of no id in a group has no mean: it is left out of that group's average,
        with its weight; a group whose true classes all weigh 0 is NaN (weights that all
        are 0 are refused).

    Examples
    --------
    The five images of the Mayo Clinic STRIP AI metric's notebook (Kaggle), two of class A
    and three of class B, scored by its formula, each row rescaled to sum to 1 (the
    notebook's own code takes the log of class B's unrescaled scores: 1.3517 here).

    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
    ...     "class": ["A", "B"] * 5,
    ...     "score": [0.90, 0.20, 0.11, 0.80, 0.21, 0.23, 0.48, 0.42, 0.18, 0.10],
    ...     "truth": [1, 0, 1, 0, 0, 1, 0, 1, 0, 1],
    ... })
    >>> df.metrics.weighted_log_loss()
    shape: (1, 1)
    ┌───────────────────┐
    │ weighted_log_loss │
    │ ---               │
    │ f64               │
    ╞═══════════════════╡
    │ 0.985151          │
    └───────────────────┘
    >>> round(df.metrics.weighted_log_loss(class_weights={"A": 0.8, "B": 0.2}).item(), 5)
    1.08815
    """
    return report(
        frame,
        "weighted_log_loss",
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        by=by,
        eps=eps,
        class_weights=class_weights,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
