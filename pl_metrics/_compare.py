"""Comparing models: per-fold tables, bootstrap intervals and paired differences.

The bootstrap resamples ids with Poisson(1) weights (each id's weight in a resample is the
number of times it is drawn), computed from a hash of the id and the resample number: the
same id gets the same weight in every model and fold, which is what a paired comparison
needs, and all resamples are one polars query, with no Python loop.
"""

from __future__ import annotations

import difflib
import inspect
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from pl_metrics._frame import (
    INTERNAL,
    FrameT,
    MetricsInputError,
    aggregate,
    as_like,
    join_on,
    to_polars,
)
from pl_metrics._registry import info
from pl_metrics._report import report
from pl_metrics._spec import resolve
from pl_metrics._state import build_state

__all__ = ["bootstrap", "compare", "paired"]

_R = f"{INTERNAL}resample"
_BOOT_W = f"{INTERNAL}boot_w"
# Poisson(1) cumulative probabilities: a uniform u draws k where F(k-1) < u <= F(k).
_POISSON_CDF = [sum(math.exp(-1) / math.factorial(j) for j in range(k + 1)) for k in range(18)]


def _metric_list(metrics: str | Sequence[str]) -> list[str]:
    """Metrics that have a direction: scores and losses, not tables of counts."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise MetricsInputError("option 'metrics': give at least one metric")
    tables = [m for m in names if info(m).higher_is_better is None]
    if tables:
        raise MetricsInputError(
            f"option 'metrics': {tables} are tables (counts or curves), not scores to compare"
        )
    return list(dict.fromkeys(names))


def _check_options(function: str, options: dict[str, Any], own: Sequence[str]) -> None:
    """``options`` go on to `report`: they must be its options, and not ones set here."""
    clash = [o for o in own if o in options]
    if clash:
        raise MetricsInputError(f"{function}: option {clash[0]!r} is set by {function} itself")
    if options.get("per_id"):
        raise MetricsInputError(
            f"{function}: option 'per_id' gives a table of ids, not values to {function}"
        )
    known = set(inspect.signature(report).parameters) - {"frame", "metrics"}
    unknown = sorted(set(options) - known)
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise MetricsInputError(f"{function}: unknown option {unknown[0]!r}{hint}")


def compare(
    frame: FrameT,
    metrics: str | Sequence[str],
    *,
    model_col: str = "model",
    fold_col: str = "fold",
    **options: Any,
) -> FrameT:
    """One row per model: each metric's mean and standard deviation over folds, and pooled.

    Columns ``model_col``, then for each metric ``{metric}`` (all folds pooled), ``{metric}_mean``
    and ``{metric}_std`` (over folds). Sorted best first by the first metric (higher is
    better for scores, lower for losses and errors). Other options are those of `report`,
    except per-class output (``per_class``, ``average=None``): `report` with
    ``by=[model_col, fold_col]`` gives per-class values.

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
    _check_options("compare", options, ["by"])
    lf = to_polars(frame).lazy()
    spec = resolve(lf, names, by=[model_col, fold_col], **options)  # checked once
    if spec.keys != [model_col, fold_col]:
        raise MetricsInputError(
            "compare ranks models by one value per metric; for per-class values use "
            f"report(..., by=[{model_col!r}, {fold_col!r}], average=None)"
        )
    per_fold = build_state(lf, spec).finalize()
    by_model = replace(spec, columns=replace(spec.columns, by=(model_col,)))
    pooled = build_state(lf, by_model).finalize()
    spread = per_fold.group_by(model_col).agg(
        *(pl.col(m).mean().alias(f"{m}_mean") for m in names),
        *(pl.col(m).std().alias(f"{m}_std") for m in names),
    )
    columns = [c for m in names for c in (m, f"{m}_mean", f"{m}_std")]
    out = pooled.join(spread, on=model_col, nulls_equal=True).select(model_col, *columns)
    first = names[0]
    best_first = out.sort(
        first, descending=bool(info(first).higher_is_better), nulls_last=True, maintain_order=True
    )
    return as_like(frame, best_first)


def _poisson_weight(id_col: str, seed: int) -> pl.Expr:
    """Poisson(1) weight of (id, resample), from hashes: the same in every model and fold."""
    mixed = (pl.col(id_col).hash(seed) ^ pl.col(_R).hash(seed + 1)).hash(seed + 2)
    uniform = mixed.cast(pl.Float64) / 2.0**64
    return pl.sum_horizontal(*((uniform > p).cast(pl.Int32) for p in _POISSON_CDF)).alias(_BOOT_W)


def _check_resampling(names: Sequence[str], n_resamples: int, confidence: float, seed: int) -> None:
    unweighted = [m for m in names if not info(m).weights]
    if unweighted:
        raise MetricsInputError(
            f"the bootstrap weighs ids; {unweighted} take no per-id weights (weight_col)"
        )
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 2:
        raise MetricsInputError(
            f"option 'n_resamples': expected an integer >= 2, got {n_resamples!r}"
        )
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not (0 < confidence < 1)
    ):
        raise MetricsInputError(
            f"option 'confidence': expected a number in (0, 1), got {confidence!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise MetricsInputError(f"option 'seed': expected an integer in [0, 2**63), got {seed!r}")


def _resampled(
    frame: pl.LazyFrame,
    names: list[str],
    by: list[str],
    n_resamples: int,
    seed: int,
    options: dict[str, Any],
) -> pl.LazyFrame:
    """The metrics of every resample: one row per (by..., resample), one query."""
    id_col = options.get("id_col", "id")
    user_weight = options.pop("weight_col", None)
    if "roc_auc" in names:
        # A resample may draw no positive (or no negative) of a class: that class is left
        # out of the resample's average (null per class) rather than failing the bootstrap.
        options["undefined"] = "skip"
    resamples = pl.LazyFrame({_R: pl.int_range(n_resamples, eager=True, dtype=pl.Int32)})
    weight = pl.col(_BOOT_W).cast(pl.Float64)
    if user_weight is not None:
        weight = weight * pl.col(user_weight).cast(pl.Float64)
    rows = (
        frame.join(resamples, how="cross")
        .with_columns(_poisson_weight(id_col, seed))
        .filter(pl.col(_BOOT_W) > 0)  # ids not drawn in a resample add nothing
        .with_columns(weight.alias(_BOOT_W))
    )
    return report(rows, names, by=[*by, _R], weight_col=_BOOT_W, **options)


def _group(by: str | Sequence[str] | None) -> list[str]:
    return [by] if isinstance(by, str) else list(by or [])


def _class_key(table: pl.LazyFrame, options: dict[str, Any]) -> list[str]:
    """The class column of a per-class result (``[]`` when the result is per group)."""
    class_col = options.get("class_col", "class")
    return [class_col] if class_col in table.collect_schema() else []


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
    With per-class output (``per_class=True`` or ``average=None``) the rows are
    ``(by..., class, metric, ...)``: one interval per class. ``seed`` is an integer in
    ``[0, 2**63)``. A resample that draws no positive (or no negative) of a class leaves
    that class out of its ROC AUC, as ``undefined="skip"`` does.

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
    names: list[str] = _metric_list(metrics)
    _check_options("bootstrap", options, [])
    _check_resampling(names, n_resamples, confidence, seed)
    group: list[str] = _group(by)
    lf: pl.LazyFrame = to_polars(frame).lazy()
    estimate: pl.LazyFrame = report(lf, names, by=group or None, **options)
    keys: list[str] = [*group, *_class_key(estimate, options)]
    per_resample = _resampled(lf, names, group, n_resamples, seed, dict(options))
    tail = (1 - confidence) / 2
    stats = (
        per_resample.unpivot(on=names, index=[*keys, _R], variable_name="metric")
        .group_by([*keys, "metric"])
        .agg(
            pl.col("value").quantile(tail, "linear").alias("lower"),
            pl.col("value").quantile(1 - tail, "linear").alias("upper"),
            pl.col("value").std().alias("std"),
        )
    )
    point = estimate.unpivot(on=names, index=keys, variable_name="metric", value_name="estimate")
    out = point.join(stats, on=[*keys, "metric"], nulls_equal=True).select(
        *keys, "metric", "estimate", "lower", "upper", "std"
    )
    return as_like(frame, out.sort([*keys, "metric"], nulls_last=True))


def paired(
    frame: FrameT,
    metric: str,
    model_a: str,
    model_b: str,
    *,
    model_col: str = "model",
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
    of resampled differences on either side of 0). With per-class output (``per_class=True``
    or ``average=None``), one row per group and class.

    Raises
    ------
    MetricsInputError
        When the two models do not score exactly the same ids (of each group).
    """
    names: list[str] = _metric_list(metric)
    if len(names) != 1:
        raise MetricsInputError(f"option 'metric': paired compares one metric, got {names}")
    metric = names[0]
    _check_options("paired", options, ["by"])
    _check_resampling(names, n_resamples, confidence, seed)
    group: list[str] = _group(by)
    id_col = options.get("id_col", "id")
    lf: pl.LazyFrame = to_polars(frame).lazy().filter(pl.col(model_col).is_in([model_a, model_b]))
    ids = lf.select(*group, model_col, id_col).unique()
    a_ids = ids.filter(pl.col(model_col) == model_a).drop(model_col)
    b_ids = ids.filter(pl.col(model_col) == model_b).drop(model_col)
    unmatched = pl.concat(
        [
            a_ids.join(b_ids, on=[*group, id_col], how="anti", nulls_equal=True),
            b_ids.join(a_ids, on=[*group, id_col], how="anti", nulls_equal=True),
        ]
    ).select(pl.len().alias("unmatched"))
    everything = to_polars(frame).lazy().select(model_col)
    models = everything.select(pl.col(model_col).unique().implode().alias("models"))
    unmatched = unmatched.join(models, how="cross")

    def check(df: pl.DataFrame) -> pl.DataFrame:
        present = df["models"][0].to_list()
        missing = [m for m in (model_a, model_b) if m not in present]
        if missing:
            raise MetricsInputError(
                f"column {model_col!r}: no rows of model {missing[0]!r}; its models: "
                + ", ".join(repr(m) for m in sorted(present, key=str))
            )
        if df["unmatched"][0]:
            raise MetricsInputError(
                f"column {id_col!r}: {df['unmatched'][0]:,} ids are scored by only one of "
                f"{model_a!r} and {model_b!r}; a paired comparison needs the same ids"
            )
        return df

    unmatched = unmatched.map_batches(check)
    point: pl.LazyFrame = report(lf, [metric], by=[*group, model_col], **options)
    keys: list[str] = [*group, *_class_key(point, options)]
    per = _resampled(lf, [metric], [*group, model_col], n_resamples, seed, dict(options))

    def difference(table: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        wide = table.group_by(keys).agg(
            pl.col(metric).filter(pl.col(model_col) == model_a).first().alias("a"),
            pl.col(metric).filter(pl.col(model_col) == model_b).first().alias("b"),
        )
        return wide.select(*keys, (pl.col("b") - pl.col("a")).alias("difference"))

    tail = (1 - confidence) / 2
    resampled = difference(per, [*keys, _R])
    diff = pl.col("difference")
    stats = aggregate(
        resampled,
        keys,
        [
            diff.quantile(tail, "linear").alias("lower"),
            diff.quantile(1 - tail, "linear").alias("upper"),
            (2 * pl.min_horizontal((diff <= 0).mean(), (diff >= 0).mean()))
            .clip(upper_bound=1.0)
            .alias("p_value"),
        ],
    )
    estimate = difference(point.with_columns(pl.lit(0).alias(_R)), [*keys, _R]).drop(_R)
    out = join_on(estimate, stats, keys)
    out = out.join(unmatched, how="cross").drop("unmatched", "models")
    return as_like(frame, out.sort(keys, nulls_last=True) if keys else out)
