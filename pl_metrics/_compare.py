"""Comparing models: per-fold tables, bootstrap intervals and paired differences.

The bootstrap resamples ids with Poisson(1) weights (each id's weight in a resample is the
number of times it is drawn), computed from a hash of the id and the resample number: the
same id gets the same weight in every model and fold, which is what a paired comparison
needs, and all resamples are one polars query, with no Python loop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from pl_metrics._frame import INTERNAL, FrameT, MetricsInputError, aggregate, as_like, join_on
from pl_metrics._report import report

__all__ = ["HIGHER_IS_BETTER", "bootstrap", "compare", "paired"]

#: Scores (higher is better); the others are losses and errors (lower is better).
HIGHER_IS_BETTER = {
    "lwlrap": True,
    "lrap": True,
    "coverage_error": False,
    "label_ranking_loss": False,
    "f1": True,
    "precision": True,
    "recall": True,
    "balanced_accuracy": True,
    "balanced_f1": True,
    "mfif": True,
    "log_loss": False,
    "weighted_log_loss": False,
    "roc_auc": True,
    "average_precision": True,
    "padded_cmap": True,
    "top_k_accuracy": True,
}
_UNWEIGHTABLE = ("weighted_log_loss", "padded_cmap", "confusion")
_R = f"{INTERNAL}resample"
_BOOT_W = f"{INTERNAL}boot_w"
# Poisson(1) cumulative probabilities: a uniform u draws k where F(k-1) < u <= F(k).
_POISSON_CDF = [sum(math.exp(-1) / math.factorial(j) for j in range(k + 1)) for k in range(18)]


def _metric_list(metrics: str | Sequence[str]) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [m for m in names if m not in HIGHER_IS_BETTER]
    if unknown or not names:
        raise MetricsInputError(
            f"option 'metrics': {unknown or 'none given'}; expected some of "
            + ", ".join(HIGHER_IS_BETTER)
        )
    return names


def compare(
    frame: FrameT,
    metrics: str | Sequence[str],
    *,
    model: str = "model",
    fold: str = "fold",
    **options: Any,
) -> FrameT:
    """One row per model: each metric's mean and standard deviation over folds, and pooled.

    Columns ``model``, then for each metric ``{metric}`` (all folds pooled), ``{metric}_mean``
    and ``{metric}_std`` (over folds). Sorted best first by the first metric (higher is
    better for scores, lower for losses and errors). Other options are those of `report`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> lf = pl.scan_parquet("data/digits_oof.parquet")
    >>> pl_metrics.compare(lf, ["lrap", "log_loss"]).collect().select("model", "lrap", "lrap_std")
    shape: (4, 3)
    ┌─────────────┬──────────┬──────────┐
    │ model       ┆ lrap     ┆ lrap_std │
    │ ---         ┆ ---      ┆ ---      │
    │ str         ┆ f64      ┆ f64      │
    ╞═════════════╪══════════╪══════════╡
    │ knn         ┆ 0.98811  ┆ 0.003861 │
    │ forest      ┆ 0.984994 ┆ 0.003951 │
    │ logreg      ┆ 0.981145 ┆ 0.004614 │
    │ naive_bayes ┆ 0.912151 ┆ 0.015976 │
    └─────────────┴──────────┴──────────┘
    """
    names = _metric_list(metrics)
    lf = frame.lazy()
    per_fold = report(lf, names, by=[model, fold], **options)
    pooled = report(lf, names, by=model, **options)
    spread = per_fold.group_by(model).agg(
        *(pl.col(m).mean().alias(f"{m}_mean") for m in names),
        *(pl.col(m).std().alias(f"{m}_std") for m in names),
    )
    columns = [c for m in names for c in (m, f"{m}_mean", f"{m}_std")]
    out = pooled.join(spread, on=model, nulls_equal=True).select(model, *columns)
    first = names[0]
    return as_like(frame, out.sort(first, descending=HIGHER_IS_BETTER[first]))


def _poisson_weight(id_col: str, seed: int) -> pl.Expr:
    """Poisson(1) weight of (id, resample), from hashes: the same in every model and fold."""
    mixed = (pl.col(id_col).hash(seed) ^ pl.col(_R).hash(seed + 1)).hash(seed + 2)
    uniform = mixed.cast(pl.Float64) / 2.0**64
    return pl.sum_horizontal(*((uniform > p).cast(pl.Int32) for p in _POISSON_CDF)).alias(_BOOT_W)


def _resampled(
    frame: pl.DataFrame | pl.LazyFrame,
    names: list[str],
    by: list[str],
    n_resamples: int,
    seed: int,
    options: dict[str, Any],
) -> pl.LazyFrame:
    """The metrics of every resample: one row per (by..., resample), one query."""
    bad = [m for m in names if m in _UNWEIGHTABLE]
    if bad:
        raise MetricsInputError(f"the bootstrap weighs ids; {bad} take no id weights")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 2:
        raise MetricsInputError(
            f"option 'n_resamples': expected an integer >= 2, got {n_resamples!r}"
        )
    id_col = options.get("id_col", "id")
    user_weight = options.pop("weight_col", None)
    resamples = pl.LazyFrame({_R: pl.int_range(n_resamples, eager=True, dtype=pl.Int32)})
    weight = pl.col(_BOOT_W).cast(pl.Float64)
    if user_weight is not None:
        weight = weight * pl.col(user_weight).cast(pl.Float64)
    rows = (
        frame.lazy()
        .join(resamples, how="cross")
        .with_columns(_poisson_weight(id_col, seed))
        .filter(pl.col(_BOOT_W) > 0)  # ids not drawn in a resample add nothing
        .with_columns(weight.alias(_BOOT_W))
    )
    return report(rows, names, by=[*by, _R], weight_col=_BOOT_W, **options)


def bootstrap(
    frame: FrameT,
    metrics: str | Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **options: Any,
) -> FrameT:
    """Bootstrap percentile intervals of metrics, per group, in one query.

    Ids are resampled with Poisson(1) weights (see the module notes), so each resample is a
    weighted metric: the input's rows are read once per resample inside one polars plan
    (memory grows with rows x resamples: use fewer resamples on large dumps, or a sample).

    Returns rows ``(by..., metric, estimate, lower, upper, std)``: the metric on the data,
    the ``confidence`` percentile interval of the resamples and their standard deviation.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    >>> ci = pl_metrics.bootstrap(df, "lrap", n_resamples=200, seed=1)
    >>> ci.select("metric", "estimate").row(0)
    ('lrap', 0.9881...)
    >>> bool(ci["lower"][0] < ci["estimate"][0] < ci["upper"][0])
    True
    """
    names = _metric_list(metrics)
    if not 0 < confidence < 1:
        raise MetricsInputError(
            f"option 'confidence': expected a number in (0, 1), got {confidence}"
        )
    group: list[str] = [by] if isinstance(by, str) else list(by or [])
    estimate = report(frame.lazy(), names, by=group or None, **options)
    per_resample = _resampled(frame, names, group, n_resamples, seed, dict(options))
    tail = (1 - confidence) / 2
    stats = (
        per_resample.unpivot(on=names, index=group, variable_name="metric")
        .group_by([*group, "metric"])
        .agg(
            pl.col("value").quantile(tail, "linear").alias("lower"),
            pl.col("value").quantile(1 - tail, "linear").alias("upper"),
            pl.col("value").std().alias("std"),
        )
    )
    point = estimate.unpivot(on=names, index=group, variable_name="metric", value_name="estimate")
    keys = [*group, "metric"]
    out = point.join(stats, on=keys, nulls_equal=True).select(
        *keys, "estimate", "lower", "upper", "std"
    )
    return as_like(frame, out.sort(keys))


def paired(
    frame: FrameT,
    metric: str,
    model_a: str,
    model_b: str,
    *,
    model: str = "model",
    by: str | Sequence[str] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **options: Any,
) -> FrameT:
    """Paired bootstrap of ``metric(model_b) - metric(model_a)`` on the same ids.

    Both models are scored on the same resamples (an id weighs the same in both), so the
    spread of the difference leaves out what the two share. Per group (``by``, for instance
    the fold) and overall: rows ``(by..., difference, lower, upper, p_value)``, where the
    p-value is the two-sided bootstrap p-value of "no difference" (twice the smaller share
    of resampled differences on either side of 0).

    Raises
    ------
    MetricsInputError
        When the two models do not score exactly the same ids (of each group).
    """
    _metric_list(metric)
    group: list[str] = [by] if isinstance(by, str) else list(by or [])
    id_col = options.get("id_col", "id")
    lf = frame.lazy().filter(pl.col(model).is_in([model_a, model_b]))
    ids = lf.select(*group, model, id_col).unique()
    a_ids = ids.filter(pl.col(model) == model_a).drop(model)
    b_ids = ids.filter(pl.col(model) == model_b).drop(model)
    unmatched = pl.concat(
        [
            a_ids.join(b_ids, on=[*group, id_col], how="anti", nulls_equal=True),
            b_ids.join(a_ids, on=[*group, id_col], how="anti", nulls_equal=True),
        ]
    ).select(pl.len().alias("unmatched"))

    def check(df: pl.DataFrame) -> pl.DataFrame:
        if df["unmatched"][0]:
            raise MetricsInputError(
                f"column {id_col!r}: {df['unmatched'][0]:,} ids are scored by only one of "
                f"{model_a!r} and {model_b!r}; a paired comparison needs the same ids"
            )
        return df

    unmatched = unmatched.map_batches(check)
    per = _resampled(lf, [metric], [*group, model], n_resamples, seed, dict(options))
    point = report(lf, [metric], by=[*group, model], **options)

    def difference(table: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        wide = table.group_by(keys).agg(
            pl.col(metric).filter(pl.col(model) == model_a).first().alias("a"),
            pl.col(metric).filter(pl.col(model) == model_b).first().alias("b"),
        )
        return wide.select(*keys, (pl.col("b") - pl.col("a")).alias("difference"))

    tail = (1 - confidence) / 2
    resampled = difference(per, [*group, _R])
    diff = pl.col("difference")
    stats = aggregate(
        resampled,
        group,
        [
            diff.quantile(tail, "linear").alias("lower"),
            diff.quantile(1 - tail, "linear").alias("upper"),
            (2 * pl.min_horizontal((diff <= 0).mean(), (diff >= 0).mean()))
            .clip(upper_bound=1.0)
            .alias("p_value"),
        ],
    )
    estimate = difference(point.with_columns(pl.lit(0).alias(_R)), [*group, _R]).drop(_R)
    out = join_on(estimate, stats, group)
    out = out.join(unmatched, how="cross").drop("unmatched")
    return as_like(frame, out.sort(group) if group else out)
