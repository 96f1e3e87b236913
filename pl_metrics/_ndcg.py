"""Normalized discounted cumulative gain of each id's ranking of its classes.

`sklearn.metrics.ndcg_score` with the 0/1 truth as relevance (binary gains: graded
relevance is refused, as any truth but 0/1; ties averaged, as its default). Per id, the
rows are counted per distinct score and summed down the scores: a tie group of ``n`` rows
holding positions ``[a, a + n)`` shares out its positives' gain evenly over those
positions' discounts ``1 / log2(position + 2)`` (zero from position ``k`` on). With
``D(m)`` the sum of the first ``m`` discounts, a positive in the group adds
``(D(min(a + n, k)) - D(min(a, k))) / n``, and the ideal ranking gives ``D(min(npos, k))``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
from pl_metrics._ranking import N_AT as N_AT
from pl_metrics._ranking import P_AT as P_AT
from pl_metrics._ranking import SCORE as SCORE
from pl_metrics._ranking import R as R
from pl_metrics._ranking import kernel_reads, ranked_scores
from pl_metrics._report import report
from pl_metrics._runs import TRUTH, RunColumns
from pl_metrics._spec import Options
from pl_metrics._state import N_ROWS, Family, IdsHook, Parts, register, single_class_ids

__all__ = ["ndcg"]

_I = f"{INTERNAL}i"
_D = f"{INTERNAL}discounts"
_DCG = f"{INTERNAL}dcg"
_NPOS = f"{INTERNAL}ndcg_npos"
_W = f"{INTERNAL}w"
_NDCG_SUM = f"{INTERNAL}ndcg_sum"
_NDCG_W = f"{INTERNAL}ndcg_w"
# Working columns beside the caller's keys: internal names, never a user's column.
_END, _START, _IDEAL_AT, _IDEAL = (
    f"{INTERNAL}ndcg_{n}" for n in ("end", "start", "ideal_at", "ideal")
)


def _discount_sums() -> pl.Expr:
    """``D(m)`` of each position ``m`` (column `_I`, from 0 on): the first ``m`` discounts."""
    discount = 1.0 / (pl.col(_I) + 2).cast(pl.Float64).log(2)
    return discount.cum_sum().shift(1, fill_value=0.0).alias(_D)


def _discounts(per_id: pl.LazyFrame) -> pl.LazyFrame:
    """``D(m)`` for ``m`` from 0 to the most rows of any id."""
    most = per_id.select(pl.col(N_ROWS).max().cast(pl.Int64).fill_null(0).alias("n"))
    positions = most.select(pl.int_range(0, pl.col("n").first() + 1, dtype=pl.Int64).alias(_I))
    return positions.with_columns(_discount_sums())


def _dcg(cols: Columns, k: int | None) -> Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]:
    def extend(rows: pl.LazyFrame, per_id: pl.LazyFrame) -> pl.LazyFrame:
        assert cols.score is not None
        keys = [*cols.by, cols.id]
        return _dcg_plan(rows, per_id, keys, pl.col(cols.score), cols.truth_expr, k)

    return extend


def _dcg_plan(
    rows: pl.LazyFrame,
    per_id: pl.LazyFrame,
    keys: list[str],
    score: pl.Expr,
    truth: pl.Expr,
    k: int | None,
) -> pl.LazyFrame:
    """``per_id`` (with `N_ROWS` and `_NPOS`) with each id's `_DCG` and `_IDEAL`, in polars."""
    table = _discounts(per_id)
    groups = ranked_scores(rows, keys, score, truth)
    end, start = pl.col(R), pl.col(R) - pl.col(N_AT)
    if k is not None:
        end, start = end.clip(upper_bound=k), start.clip(upper_bound=k)

    def at(name: str) -> pl.LazyFrame:  # D(position) under the position's name
        return table.select(pl.col(_I).alias(name), pl.col(_D).alias(f"{name}_d"))

    spans = (
        groups.filter(pl.col(P_AT) > 0)
        .with_columns(end.alias(_END), start.alias(_START))
        .join(at(_END), on=_END)
        .join(at(_START), on=_START)
    )
    gain = pl.col(P_AT) * (pl.col(f"{_END}_d") - pl.col(f"{_START}_d")) / pl.col(N_AT)
    dcg = spans.sort([*keys, SCORE]).group_by(keys).agg(ordered_sum(gain).alias(_DCG))
    ideal_at = pl.col(_NPOS) if k is None else pl.col(_NPOS).clip(upper_bound=k)
    return (
        per_id.join(dcg, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col(_DCG).fill_null(0.0), ideal_at.alias(_IDEAL_AT))
        .join(table.select(pl.col(_I).alias(_IDEAL_AT), pl.col(_D).alias(_IDEAL)), on=_IDEAL_AT)
        .drop(_IDEAL_AT)
    )


def _run_columns(cols: Columns, k: int | None, replaces: IdsHook, *, checked: bool) -> RunColumns:
    """Each id's `_DCG` and `_IDEAL` by the kernel, in the pass that counts the per-id table.

    In place of the hook ``replaces``.

    ``checked``: the data checks are on (see `pl_metrics._ranking.kernel_reads`).
    """
    assert cols.score is not None
    keys = [*cols.by, cols.id]
    schema = pl.Schema({_DCG: pl.Float64, _IDEAL: pl.Float64})

    def over_runs(
        df: pl.DataFrame, runs: _kernel.IdRuns, truth: np.ndarray, classes: _kernel.ClassCodes
    ) -> dict[str, np.ndarray] | None:
        if not kernel_reads(df[SCORE], checked=checked):
            return None
        longest = int(np.diff(runs.starts).max()) if len(runs.starts) > 1 else 0
        positions = pl.DataFrame({_I: np.arange(longest + 1, dtype=np.int64)})
        discounts = positions.select(_discount_sums()).to_series().to_numpy()
        dcg, ideal = _kernel.ndcg_sums(df[SCORE], truth, runs.starts, discounts, k)
        return {_DCG: dcg, _IDEAL: ideal}

    def over_rows(df: pl.DataFrame) -> pl.DataFrame:
        rows, truth = df.lazy(), pl.col(TRUTH)
        per_id = rows.group_by(keys).agg(
            pl.len().alias(N_ROWS), truth.sum().cast(pl.Int64).alias(_NPOS)
        )
        dcg = _dcg_plan(rows, per_id, keys, pl.col(SCORE), truth, k)
        # (The in-memory engine rounds each gain as the kernel does; see `ndcg_sums`.)
        return dcg.select(*keys, _DCG, _IDEAL).collect(engine="in-memory")

    return RunColumns(
        [pl.col(cols.score).alias(SCORE)], schema, over_runs, over_rows, replaces=replaces
    )


def _id_value() -> pl.Expr:
    # No positive: an ideal gain of 0, and an nDCG of 0, as scikit-learn.
    return pl.when(pl.col(_IDEAL) > 0).then(pl.col(_DCG) / pl.col(_IDEAL)).otherwise(0.0)


class _Ndcg(Family):
    """Per id: the tie-averaged DCG over the ideal DCG; then a weighted mean over ids."""

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        return [_id_value().cast(pl.Float64).alias(metric)]

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        w, value, dcg = pl.col(_W), _id_value(), _dcg(cols, opts.k)
        return Parts(
            id_exprs=[
                cols.truth_expr.sum().cast(pl.Int64).alias(_NPOS),
                cols.weight_expr.first().alias(_W),
            ],
            extend_ids=[dcg],
            group_exprs=[ordered_sum(w * value).alias(_NDCG_SUM), ordered_sum(w).alias(_NDCG_W)],
            run_columns=_run_columns(cols, opts.k, dcg, checked=opts.validate)
            if in_memory and _kernel.available()
            else None,
        )

    def has_kernel(self) -> bool:
        return _kernel.available()

    def group_checks(
        self, metric: str, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.Expr]]:
        """What scikit-learn refuses: a single class per id (zero weights: the registry's)."""
        single = Problem(
            "ndcg_single_class",
            cols.cls,
            "ids",
            "have a single class",
            "ndcg needs at least two classes per id to rank",
        )
        return [(single, single_class_ids())]

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        value = (pl.col(_NDCG_SUM) / pl.col(_NDCG_W)).cast(pl.Float64)
        return groups.select(*cols.by, value.alias(metric))


register("_ndcg", _Ndcg())


@checked_options
def ndcg(
    frame: FrameT,
    *,
    k: int | None = None,
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
    """Normalized discounted cumulative gain: `sklearn.metrics.ndcg_score`, 0/1 truth as relevance.

    Per id, the discounted gain of its classes ranked by score over that of the ideal
    ranking, counting the first ``k`` positions (all by default); tied scores share their
    positions' discounts, as scikit-learn (``ignore_ties=False``). An id without positives
    scores 0. Averaged over ids, with optional per-id weights.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, weight_col, by, ragged, validate
        As in `lrap`.
    k
        Only the first ``k`` positions count; ``None``: all.
    per_id
        Return each id's value instead, for error analysis: rows ``(by..., id, ndcg)``.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        The ``by`` columns, then a Float64 ``ndcg`` column; with ``per_id=True``,
        rows ``(by..., id, ndcg)``.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({"id": [0, 0, 0, 1, 1, 1], "class": [0, 1, 2] * 2,
    ...                    "score": [0.9, 0.5, 0.5, 0.2, 0.8, 0.1],
    ...                    "truth": [0, 1, 0, 1, 0, 0]})
    >>> round(df.metrics.ndcg().item(), 6)
    0.598197
    """
    return report(
        frame,
        "ndcg",
        k=k,
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
