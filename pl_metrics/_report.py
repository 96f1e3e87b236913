"""Several metrics from one shared plan, and the public state API for scoring parts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict, cast

import polars as pl

from pl_metrics._examples import naming_examples
from pl_metrics._frame import FrameT, Ragged, as_like, checked_options, to_polars
from pl_metrics._spec import (
    Average,
    Strategy,
    Undefined,
    as_given,
    at_call,
    resolve,
)
from pl_metrics._state import MetricState, build_state, chunk_key, merge_states

__all__ = ["MetricOptions", "chunk_key", "merge_states", "report", "state"]


class MetricOptions(TypedDict, total=False):
    """The options of `report` that `compare`, `bootstrap` and `paired` pass on.

    All but ``by``, ``per_id`` and the options of tables alone (which the three refuse),
    spelled out so that a type checker sees a misspelt option in ``**options``.
    """

    id_col: str
    class_col: str
    score_col: str
    truth_col: str
    weight_col: str | None
    threshold: float | pl.DataFrame | pl.LazyFrame
    pred_col: str | None
    average: Average
    zero_division: float
    beta: float
    eps: float
    class_weights: Mapping[Any, float] | None
    per_class: bool
    k: int | None
    padding: int
    undefined: Undefined
    n_bins: int
    strategy: Strategy
    max_fpr: float | None
    ragged: Ragged
    validate: bool


@checked_options
def state(
    frame: pl.DataFrame | pl.LazyFrame,
    metrics: str | Iterable[str],
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
    beta: float = 1.0,
    eps: float = 1e-15,
    class_weights: Mapping[Any, float] | None = None,
    per_class: bool = False,
    k: int | None = None,
    padding: int = 5,
    undefined: Undefined = "error",
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    max_points: int | None = None,
    metric: str = "f1",
    thresholds: float | Iterable[float] | None = None,
    fold_col: str | None = None,
    max_fpr: float | None = None,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> MetricState:
    """The mergeable state of ``metrics`` over ``frame`` (lazy until collected).

    Score id-disjoint parts of a dump separately (shards, folds written by different jobs,
    predictions that arrive over time), keep their collected states, and merge them later:
    ``merge_states([...]).finalize()`` equals the metrics of the whole table to rounding
    (1e-12). A threshold table, even a LazyFrame, is read at the call: the state holds its
    thresholds, so that states of the same table merge.

    Parameters
    ----------
    frame
        A table of predictions, as `report` takes it.
    metrics
        A metric's name, or several.
    id_col, class_col, score_col, truth_col, weight_col, by
        As in `report`, the same for every part to be merged (as the options).
    threshold, pred_col, average, zero_division, beta, eps, class_weights, per_class, ragged
        As in `report`.
    k, padding, undefined, n_bins, strategy, max_points
        As in `report`.
    metric, thresholds, fold_col, max_fpr, per_id
        As in `report`.
    validate
        As in `report`.

    Returns
    -------
    MetricState
        Lazy: its ``collect()`` computes its small tables of sums (to keep, or pickle);
        ``finalize()`` gives the metrics' values as a LazyFrame, as `report` would.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> parts = [df.filter(pl.col("id") % 3 == k) for k in range(3)]  # id-disjoint
    >>> states = [pl_metrics.state(p, ["lrap", "f1"], by="model").collect() for p in parts]
    >>> merged = pl_metrics.merge_states(states).finalize().collect()
    >>> whole = pl_metrics.report(df, ["lrap", "f1"], by="model")
    >>> bool((merged["lrap"] - whole["lrap"]).abs().max() < 1e-12)
    True
    """
    frame = to_polars(frame)
    spec = resolve(
        frame,
        metrics,
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
        beta=beta,
        eps=eps,
        class_weights=class_weights,
        per_class=per_class,
        k=k,
        padding=padding,
        undefined=undefined,
        n_bins=n_bins,
        strategy=strategy,
        max_points=max_points,
        metric=metric,
        thresholds=thresholds,
        fold_col=fold_col,
        max_fpr=max_fpr,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
    return build_state(frame, spec)


@checked_options
def report(
    frame: FrameT,
    metrics: str | Iterable[str],
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
    beta: float = 1.0,
    eps: float = 1e-15,
    class_weights: Mapping[Any, float] | None = None,
    per_class: bool = False,
    k: int | None = None,
    padding: int = 5,
    undefined: Undefined = "error",
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    max_points: int | None = None,
    metric: str = "f1",
    thresholds: float | Iterable[float] | None = None,
    fold_col: str | None = None,
    max_fpr: float | None = None,
    per_id: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Several metrics in one query: one row per group, one column per metric.

    All metrics share one state: one aggregation of the rows per id, one per class (and, when
    asked for, the ranking family's pair counts and the per-class curves), whatever the
    number of metrics, so four ranking metrics cost what one does. Each column equals the
    metric's own function with the same options.

    A LazyFrame gives a LazyFrame that reads nothing until collected; collecting it scores
    the input as `score` does, in id-disjoint chunks within the default memory budget, each
    read into memory once for all the metrics.

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``.
    metrics
        Metric names, any of the README's API table (``pl-metrics score --help`` lists them).
    id_col, class_col, score_col, truth_col, weight_col, by
        As in `lrap`.
    threshold, pred_col, average, zero_division, beta
        For the thresholded metrics, as in `f1` and `fbeta`.
    eps, class_weights
        For the log losses, as in `log_loss` and `weighted_log_loss`.
    per_class
        Report per class instead: one row per ``(by..., class)``, for the metrics that have
        per-class values (lwlrap, confusion, the thresholded family but accuracy and
        hamming_loss, ROC AUC, average precision, padded cmAP, the Brier score, binary log
        loss and the expected calibration error).
    k, padding, undefined
        For `top_k_accuracy`, `padded_cmap` and `roc_auc`.
    n_bins, strategy, max_points
        For `expected_calibration_error` and the curve tables (`calibration_curve`,
        `roc_curve`, `precision_recall_curve`).
    metric, thresholds, fold_col
        For `threshold_sweep` and `best_threshold`.
    max_fpr
        For `roc_auc`: the standardised partial area up to this false positive rate.
    per_id
        Each id's value of metrics that are means over ids: rows ``(by..., id, metric...)``.
    ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> lf = pl.scan_parquet("data/digits_oof.parquet")
    >>> lf.metrics.report(["lwlrap", "lrap", "f1", "log_loss"], by="model").collect()
    shape: (4, 5)
    ┌─────────────┬──────────┬──────────┬──────────┬──────────┐
    │ model       ┆ lwlrap   ┆ lrap     ┆ f1       ┆ log_loss │
    │ ---         ┆ ---      ┆ ---      ┆ ---      ┆ ---      │
    │ str         ┆ f64      ┆ f64      ┆ f64      ┆ f64      │
    ╞═════════════╪══════════╪══════════╪══════════╪══════════╡
    │ forest      ┆ 0.984994 ┆ 0.984994 ┆ 0.942494 ┆ 0.307146 │
    │ knn         ┆ 0.98811  ┆ 0.98811  ┆ 0.98274  ┆ 0.113588 │
    │ logreg      ┆ 0.981145 ┆ 0.981145 ┆ 0.961948 ┆ 0.162747 │
    │ naive_bayes ┆ 0.912151 ┆ 0.912151 ┆ 0.850561 ┆ 2.728109 │
    └─────────────┴──────────┴──────────┴──────────┴──────────┘
    """
    options: dict[str, Any] = dict(
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
        beta=beta,
        eps=eps,
        class_weights=class_weights,
        per_class=per_class,
        k=k,
        padding=padding,
        undefined=undefined,
        n_bins=n_bins,
        strategy=strategy,
        max_points=max_points,
        metric=metric,
        thresholds=thresholds,
        fold_col=fold_col,
        max_fpr=max_fpr,
        per_id=per_id,
        ragged=ragged,
        validate=validate,
    )
    lazy_table = isinstance(frame, pl.LazyFrame) and isinstance(threshold, pl.LazyFrame)
    if lazy_table:  # resolved again at collect, where the table is read: as given now
        metrics = list(metrics) if isinstance(metrics, list) else metrics
        options = as_given(options)
    table = to_polars(frame)  # (pandas' or Arrow's once: for the state, and an error's rows)
    metric_state = state(table, metrics, **(at_call(options) if lazy_table else options))
    if isinstance(frame, pl.LazyFrame):
        # Imported here: the driver imports the metric families, which import this module.
        from pl_metrics._driver import deferred

        schema = metric_state.finalize().collect_schema()
        spec = (lambda: state(frame, metrics, **options).spec) if lazy_table else metric_state.spec
        return cast(FrameT, deferred(frame, spec, schema))
    with naming_examples(table.lazy(), metric_state.spec):
        return as_like(frame, metric_state.finalize(), small=metric_state.counted)
