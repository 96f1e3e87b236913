"""Comparing models: per-fold tables, bootstrap intervals and paired differences.

Resample weights. The bootstrap resamples ids with Poisson(1) weights: an id's weight in a
resample is the number of times it is drawn. It depends only on the id, the resample number
``r`` and ``seed``: polars' hash of the id (seeded with ``seed``; categorical and enum
ids as their text) is the state of a SplitMix64
generator whose ``r + 1``-th output, a uniform 64-bit number, goes through the Poisson(1)
inverse CDF. So the same id gets the same weight in every model and fold (a paired
comparison needs it), whatever else the table holds, and a seed gives the same resamples
every time (with one version of polars, whose hash is stable within a version only).

A resample is the metric of the rows weighted by the resample's weights (times
``weight_col``), the ids drawn zero times left out. Resamples are computed in blocks, so
that the largest array of a block holds at most ``_BLOCK`` numbers whatever the number of
resamples; each metric takes one of five paths:

* ``"ids"``: the ranking family (lwlrap, lrap, coverage_error, label_ranking_loss),
  log_loss, ndcg, top_k_accuracy, accuracy and the ``average="samples"`` metrics. Their
  state is made of sums over ids, so the state of each id alone is computed once and a
  block's states are matrix products of the weights and these per-id sums;
* ``"cells"``: the other thresholded metrics (f1, precision, recall, fbeta, jaccard, ...):
  likewise, from each (id, class) row's confusion cell;
* ``"curves"``: roc_auc (without ``max_fpr``) and average_precision: each class's rows are
  sorted by score once, and a resample's ROC area and average precision come from cumulative
  sums of its weights down the scores;
* ``"losses"``: brier_score and binary_log_loss: each (id, class) row's weighted loss and
  weight, summed per class as the ``"cells"`` path sums confusion cells;
* ``"rows"``: any other metric (roc_auc with ``max_fpr``): `report` of the rows joined to a
  block of resamples' weights, one query per block.

The ``"ids"`` and ``"cells"`` paths give their resampled sums to the metric's own finalize
step, so averages, ``zero_division``, per-class values and the rest are those of `report`
on weighted rows; the ``"curves"`` and ``"losses"`` paths compute each class's value and
average the classes as the metric's family does.
"""

from __future__ import annotations

import inspect
import math
import re
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
import polars as pl

from pl_metrics._chunks import budget_bytes
from pl_metrics._curve_tables import cell_loss, weighted_mean, weightless_class
from pl_metrics._curves import average_classes
from pl_metrics._examples import naming_examples, with_hint
from pl_metrics._frame import (
    EMPTY_TABLE,
    INTERNAL,
    N_IDS,
    Columns,
    FrameT,
    MetricsInputError,
    aggregate,
    as_like,
    by_hint,
    caller_stacklevel,
    check_confidence,
    check_integer,
    did_you_mean,
    distinct_columns,
    join_on,
    listed,
    normalize_by,
    null_rows,
    ordered_mean,
    ordered_sum,
    require_column,
    row_check_keys,
    shown,
    to_polars,
    unknown_option,
)
from pl_metrics._io import counted_text
from pl_metrics._kernel import in_threads
from pl_metrics._registry import info
from pl_metrics._report import MetricOptions, report
from pl_metrics._spec import (
    Options,
    Spec,
    as_given,
    at_call,
    check_key_name,
    check_key_names,
    made_columns,
    metric_list,
    resolve,
)
from pl_metrics._state import (
    CLASS_ROWS,
    CURVE_POS,
    MAX_PREFIX,
    MIN_PREFIX,
    build_state,
    family_of,
    sums_to_zero,
)
from pl_metrics._thresholded import COUNTS, pred_expr, samples_names

if sys.version_info >= (3, 11):  # at run time too, for typing.get_type_hints
    from typing import Unpack
elif TYPE_CHECKING:  # (typing.Unpack is of Python 3.11)
    from typing_extensions import Unpack

__all__ = [
    "MAX_RESAMPLES",
    "bootstrap",
    "compare",
    "model_value",
    "no_rows_of_model",
    "paired",
]

_R = f"{INTERNAL}resample"
#: A resample's value of a metric, and the two models' in `paired` (working columns).
_VALUE, _A, _B = f"{INTERNAL}value", f"{INTERNAL}a", f"{INTERNAL}b"
_BOOT_W = f"{INTERNAL}boot_w"
_UNDEFINED = f"{INTERNAL}boot_undefined"
_ID_KEY = f"{INTERNAL}boot_id"  # the id as a group column: the state of each id alone
_USER_W = f"{INTERNAL}boot_user_w"
_GROUP = f"{INTERNAL}boot_group"
_INDEX = f"{INTERNAL}boot_index"
_CLASS = f"{INTERNAL}boot_class"
_WEIGHT = f"{INTERNAL}boot_weight"
_ABS_WEIGHT = f"{INTERNAL}boot_abs_weight"
#: The most numbers in one array of a block of resamples (float64: 16 MiB).
_BLOCK = 1 << 21
#: Chunks of fewer ids than this (ids of many groups) add their entries sparsely: tiny dense
#: chunks, a numpy call each, cost more than the products save (bootstrap by 10,000 groups).
_FEW_IDS = 16


def _metric_list(metrics: str | Iterable[str], function: str, option: str = "metrics") -> list[str]:
    """Metrics that have a direction: scores and losses, not tables of counts."""
    names = list(metric_list(metrics))
    tables = [m for m in names if info(m).higher_is_better is None]
    if tables:
        raise MetricsInputError(
            f"option {option!r}: {listed([repr(t) for t in tables], 5)} "
            + (
                "is a table (of counts, curves or thresholds), not a score"
                if len(tables) == 1
                else "are tables (of counts, curves or thresholds), not scores"
            )
            + f" for {function}"
        )
    return names


def _column_roles(options: Mapping[str, object]) -> list[tuple[str, str | None]]:
    """The metrics' columns by option, for `distinct_columns` beside the model's and fold's.

    (Given to resolve as `by`, a model column among them would be told as option 'by'.)
    """
    defaults = {"id_col": "id", "class_col": "class", "score_col": "score", "truth_col": "truth"}
    roles: list[tuple[str, str | None]] = []
    for option in ("id_col", "class_col", "score_col", "truth_col", "weight_col", "pred_col"):
        column = options.get(option, defaults.get(option))
        if isinstance(column, str):
            roles.append((option, column))
    return roles


def _check_options(
    function: Callable[..., Any], options: Mapping[str, object], own: Sequence[str]
) -> None:
    """``options`` go on to `report`: they must be its options, and not ones set here."""
    name = function.__name__
    clash = [o for o in own if o in options]
    if clash:
        raise MetricsInputError(f"{name}: option {clash[0]!r} is set by {name} itself")
    if options.get("per_id"):
        raise MetricsInputError(
            f"{name}: option 'per_id' gives a table of ids, where {name} needs a value per group"
        )
    known = set(inspect.signature(report).parameters) - {"frame", "metrics"}
    unknown = sorted(set(options) - known)
    if unknown:
        parameters = inspect.signature(function).parameters.values()
        takes = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}
        arguments = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
        raise unknown_option(name, unknown[0], (known | takes) - {*own, "per_id"}, arguments)


def _mean_and_std(values: pl.Expr, mean: str, std: str) -> tuple[pl.Expr, pl.Expr]:
    """The mean and standard deviation (ddof=1) of a group's values, the same on every call.

    The folds' and the resamples' rows come in no fixed order, and a float sum depends on
    its order: the values are summed sorted. (polars drops a sort before its own ``mean``
    and ``std``, which it takes for order-free.)
    """
    ordered, n = values.sort(), values.count()
    mu = pl.when(n > 0).then(ordered_mean(ordered))
    spread = pl.when(n > 1).then((ordered_sum((ordered - mu) ** 2) / (n - 1)).sqrt())
    return mu.alias(mean), spread.alias(std)  # null where polars' own gives null


def compare(
    frame: FrameT,
    metrics: str | Iterable[str],
    *,
    model_col: str = "model",
    fold_col: str = "fold",
    memory_budget: int | str | None = None,
    **options: Unpack[MetricOptions],
) -> FrameT:
    """One row per model: each metric's mean and standard deviation over folds, and pooled.

    Columns ``model_col``, then for each metric ``{metric}`` (all folds pooled), ``{metric}_mean``
    and ``{metric}_std`` (over folds; the sample standard deviation, ``ddof=1``; NaN where a
    fold's value is NaN, an undefined fold not skipped). Sorted best
    first by the first metric (higher is better for scores, lower for losses and errors;
    ties by model; an undefined value, NaN, last). Other options are those of `report`,
    except per-class output (``per_class``, ``average=None``): `report` with
    ``by=[model_col, fold_col]`` gives per-class values. A LazyFrame gives a LazyFrame,
    scored when collected as `score` scores it, by fold and then pooled (read twice as
    often as by `report`).

    Parameters
    ----------
    frame
        The long prediction dump (DataFrame, LazyFrame, or anything with an Arrow stream).
    metrics
        A metric name or a list of them (`metric_names`); tables (curves, counts) are refused.
    model_col, fold_col
        The columns of the model and of the fold.
    memory_budget
        For a LazyFrame, the memory of its chunks' rows, as `score`'s (default: the
        ``PL_METRICS_MEMORY_BUDGET`` environment variable's, else 2 GB).
    **options
        Those of `report` (``id_col``, ``weight_col``, ``threshold``, ...; typed as
        `MetricOptions`), except ``by``, ``per_id`` and those of tables alone.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        One row per model, best first: ``model_col``, then ``{metric}``, ``{metric}_mean``
        and ``{metric}_std`` for each metric.

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
    _check_options(compare, options, ["by"])
    options = cast(MetricOptions, as_given(options))  # (read when collected)
    names = _metric_list(metrics, "compare")
    source = to_polars(frame)
    # (checked at the call, as the other options; a DataFrame is not chunked)
    lazy_source = isinstance(source, pl.LazyFrame)
    budget = budget_bytes(memory_budget) if lazy_source or memory_budget is not None else None
    lf = source.lazy()
    if fold_col is None:
        raise MetricsInputError(
            "option 'fold_col': compare averages each model over its folds and needs a fold "
            "column; for values pooled per model, use report(..., by=model_col)"
        )
    schema = lf.collect_schema()
    for option, name in (("model_col", model_col), ("fold_col", fold_col)):
        try:
            require_column(schema, option, name)  # named by its own option
        except MetricsInputError as error:
            if option == "fold_col" and isinstance(model_col, str) and model_col in schema:
                raise MetricsInputError(
                    f"{error}; compare averages each model over its folds: for values pooled "
                    f"per model, use report(..., by={model_col!r})"
                ) from None
            raise
    distinct_columns([("model_col", model_col), ("fold_col", fold_col), *_column_roles(options)])
    spread_columns = [f"{m}_{s}" for m in names for s in ("mean", "std")]
    made = [c for m in names for c in made_columns(info(m))] + spread_columns
    for option, key in (("model_col", model_col), ("fold_col", fold_col)):
        check_key_name(key, option, made, "compare")  # (by their own options, not as `by`)

    # (The DataFrame itself: its text truth or scores are told by their values.)
    def specs(**given: Any) -> tuple[Spec, Spec]:
        """The folds' spec and the pooled one."""
        spec = resolve(source, names, by=[model_col, fold_col], **given)
        spec = replace(spec, columns=replace(spec.columns, compared=True))  # (for its errors)
        pooled = replace(spec.columns, by=(model_col,), pooled_folds=fold_col)
        return spec, replace(spec, columns=pooled)

    # A lazy threshold table is read when the result is collected, as the rows are.
    lazy_table = lazy_source and isinstance(options.get("threshold"), pl.LazyFrame)
    spec, by_model = specs(**(at_call(options) if lazy_table else options))  # checked once
    check_key_names(spec.columns, spread_columns, "compare")
    if spec.keys != [model_col, fold_col]:
        raise MetricsInputError(
            "compare ranks models by one value per metric; for per-class values use "
            f"report(..., by=[{model_col!r}, {fold_col!r}], average=None)"
        )

    def ranked(per_fold: pl.LazyFrame, pooled: pl.LazyFrame) -> pl.LazyFrame:
        spread = per_fold.group_by(model_col).agg(
            *(e for m in names for e in _mean_and_std(pl.col(m), f"{m}_mean", f"{m}_std"))
        )
        columns = [c for m in names for c in (m, f"{m}_mean", f"{m}_std")]
        out = pooled.join(spread, on=model_col, nulls_equal=True).select(model_col, *columns)
        first = names[0]
        # Ties in the models' order, the same on every run and path; an undefined (NaN) value
        # last (polars sorts NaN above every number).
        return out.sort(
            [pl.col(first).fill_nan(None), model_col],
            descending=[bool(info(first).higher_is_better), False],
            nulls_last=True,
        )

    def compute() -> pl.DataFrame:
        # The folds' values first, then the pooled ones: a bad table is named by its folds,
        # on every path. A LazyFrame is scored by the driver, as `report` scores it, twice,
        # in bounded memory (as one plan of both states, it was read dozens of times).
        from pl_metrics._driver import scored  # (the driver imports the metric families)

        def values(spec: Spec) -> pl.DataFrame:
            if isinstance(source, pl.LazyFrame):
                return scored(source, spec, budget)
            with naming_examples(lf, spec):
                return _values(source, spec)

        per_fold, pooled = (
            values(s) for s in (specs(**options) if lazy_table else (spec, by_model))
        )
        rows = _rows_of_models(source, spec.columns, model_col)
        lacking = _warn_of_missing_folds(
            per_fold, model_col, fold_col, same_rows=rows.select(_KIND).n_unique() == 1
        )
        _warn_of_other_rows(rows, model_col, told=lacking)
        return ranked(per_fold.lazy(), pooled.lazy()).collect()

    if isinstance(source, pl.LazyFrame):  # the schema of the plan of the states: nothing read
        plans = (build_state(lf, s).finalize() for s in (spec, by_model))
        return _deferred(frame, compute, ranked(*plans).collect_schema())
    return as_like(frame, compute().lazy(), small=True)


def _warn_of_missing_folds(
    per_fold: pl.DataFrame, model_col: str, fold_col: str, *, same_rows: bool
) -> pl.Series:
    """Warn of models that lack folds others have: their values are of other rows.

    Gives those models. ``same_rows``: every model scores the same rows (`_rows_of_models`),
    folded otherwise (folds numbered from 1 by one of them): only the means are of others.

    (Ranking models scored on different rows may be meant, a subset say: not refused.)
    """
    folds = per_fold.select(fold_col).unique()
    missing = (
        per_fold.select(model_col)
        .unique()
        .join(folds, how="cross")
        .join(per_fold, on=[model_col, fold_col], how="anti", nulls_equal=True)
        .sort(model_col, fold_col, nulls_last=True)
    )
    models = missing[model_col].unique(maintain_order=True)
    if models.len() and same_rows:
        # The same rows, folded otherwise: the models that number them otherwise than most.
        folds = per_fold.group_by(model_col).agg(pl.col(fold_col).unique().sort())
        folds_of = dict(folds.sort(model_col, nulls_last=True).iter_rows())
        sets = Counter(map(tuple, folds_of.values()))
        (usual, times), *rest = sets.most_common()
        if times > 1 and times > rest[0][1]:  # (most models number them alike)
            odd = [m for m, f in folds_of.items() if tuple(f) != usual]
            one = len(odd) == 1
            spread = (
                "its mean and standard deviation are"
                if one
                else "their means and standard deviations are"
            )
            warnings.warn(
                f"compare: {len(odd):,} "
                f"{'model numbers its' if one else 'models number their'} folds otherwise than "
                f"the {times:,} others ({model_col} {shown(odd[0])}: {fold_col} "
                f"{listed([shown(f) for f in folds_of[odd[0]]], 5)}; theirs "
                f"{listed([shown(f) for f in usual], 5)}): {spread} over other folds (the "
                "pooled values are of the same rows)",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
            return pl.Series(model_col, odd, dtype=per_fold.schema[model_col])
    if models.len():
        first = missing.filter(pl.col(model_col).eq_missing(models[0]))[fold_col].to_list()
        one = models.len() == 1
        if same_rows:  # (folds numbered otherwise by some model)
            spread = (
                "mean and standard deviation are" if one else "means and standard deviations are"
            )
            values = f"{spread} over other folds (the pooled values are of the same rows)"
        else:
            values = f"{'pooled value and mean are' if one else 'pooled values and means are'} "
            values += "of other rows than theirs"
        warnings.warn(
            f"compare: {models.len():,} {'model lacks' if one else 'models lack'} "
            f"folds that others have ({model_col} {shown(models[0])}: {fold_col} "
            f"{listed([shown(f) for f in first], 5)}): {'its' if one else 'their'} {values}",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    return models


#: A model's rows as `_rows_of_models` sums them: two models of equal sums score the same.
_KIND: Final = ("rows", "pairs", "truths", "weights")


def _rows_of_models(
    source: pl.DataFrame | pl.LazyFrame, cols: Columns, model_col: str
) -> pl.DataFrame:
    """Each model's (id, class) rows, truth and weights, summed in one streaming pass.

    The count of rows and 64-bit sums of hashes: of the (id, class) pairs, of the positive
    ones, and of the pairs with their weights (0 without weights).
    """
    pair = pl.col(cols.id).hash(_ID_SEED).xor(cols.class_hash)  # (as the data checks hash)
    # Weights to Float32's digits: one model's file of Float32 weights, widened beside the
    # others' Float64 ones, holds the same weights (0.1 read as 0.10000000149).
    weight = pl.col(cols.weight).cast(pl.Float32) if cols.weight else None
    weighted = pair.xor(weight.hash(_ID_SEED)) if weight is not None else pl.lit(0, pl.UInt64)
    return (
        source.lazy()
        .group_by(model_col)
        .agg(
            pl.len().alias("rows"),
            pair.sum().alias("pairs"),
            pair.filter(cols.truth_expr).sum().alias("truths"),
            weighted.sum().alias("weights"),
        )
        .sort(model_col, nulls_last=True)
        .collect(engine="streaming")
    )


def _warn_of_other_rows(rows_of_models: pl.DataFrame, model_col: str, *, told: pl.Series) -> None:
    """Warn of models that score other (id, class) rows, truth or weights than most models.

    A model scored on some of the classes, or some of the ids, passes the data checks (its
    ids are whole) but is ranked on easier or harder rows; one whose dump holds other labels
    or weights is ranked against another truth. (Folds split differently for each model are
    no matter: the pooled rows are the same.) ``rows_of_models``: `_rows_of_models`.
    ``told``: models already warned of (lacking folds), left out of the comparison.
    """
    summary = rows_of_models.filter(~pl.col(model_col).is_in(told.implode(), nulls_equal=True))
    kinds = summary.group_by(*_KIND, maintain_order=True).agg(pl.len().alias("models"))
    if kinds.height < 2:
        return
    counts = sorted(kinds["models"], reverse=True)
    if counts[0] == counts[1]:  # no rows that most models score: each told of
        if summary.select("rows", "pairs").n_unique() == 1:
            first, second = kinds.head(2).iter_rows(named=True)
            whose = f"different {_differing(first, second)}"
            what = f"the same (id, class) rows with {whose}"
        else:
            each = [f"{shown(m)}: {n:,}" for m, n in summary.select(model_col, "rows").rows()]
            what = f"different (id, class) rows (rows of each {model_col}: {listed(each, 6)})"
            whose = "different rows"
        warnings.warn(
            f"compare: the models score {what}: their values are of {whose}",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
        return
    usual = kinds.filter(pl.col("models") == counts[0]).row(0, named=True)
    other = summary.filter(pl.any_horizontal(pl.col(k) != usual[k] for k in _KIND))
    first = other.row(0, named=True)
    one = other.height == 1
    if first["rows"] == usual["rows"] and first["pairs"] == usual["pairs"]:
        differing = _differing(first, usual)
        what, whose = f"the others' (id, class) rows with other {differing}", f"other {differing}"
        counted = ""
    else:
        what, whose = "other (id, class) rows than the others", "other rows"
        counted = ": " + (
            f"{first['rows']:,} rows, as many as theirs but not the same"
            if first["rows"] == usual["rows"]
            else f"{first['rows']:,} rows against {usual['rows']:,}"
        )
    warnings.warn(
        f"compare: {other.height:,} {'model scores' if one else 'models score'} {what} "
        f"({model_col} {shown(first[model_col])}{counted}): "
        f"{'its values are' if one else 'their values are'} of {whose} than theirs",
        UserWarning,
        stacklevel=caller_stacklevel(),
    )


def _differing(kind: Mapping[str, Any], other: Mapping[str, Any]) -> str:
    """Which of truth and weights two kinds of rows of the same (id, class) pairs differ in."""
    told = [
        name
        for name, key in (("truth", "truths"), ("weights", "weights"))
        if kind[key] != other[key]
    ]
    return " and ".join(told)


#: Seeds the ids' hashes of `_rows_of_models` (the classes' are `Columns.class_hash`).
_ID_SEED = 0x5EED


def _values(df: pl.DataFrame, spec: Spec) -> pl.DataFrame:
    """The metrics of an in-memory table, as `report` computes them."""
    state = build_state(df, spec)
    return state.finalize().collect(engine="in-memory" if state.counted else "streaming")


# --- resample weights ---------------------------------------------------------------------------


def _poisson_thresholds() -> np.ndarray:
    """``floor(F(k) * 2**64)`` for the Poisson(1) CDF ``F``, ``k = 0..16``, computed exactly.

    A uniform 64-bit number ``z`` draws the count of thresholds at or below it.
    """
    with localcontext() as context:
        context.prec = 50
        term = Decimal(-1).exp()
        total, thresholds = term, []
        for k in range(17):
            if k:
                term /= k
                total += term
            thresholds.append(int(total * 2**64))
    return np.array(thresholds, dtype=np.uint64)


_THRESHOLDS = _poisson_thresholds()
_TOP_BITS = 16
_SPLIT = 255  # the bucket holds a threshold: look the number up


def _bucket_table() -> np.ndarray:
    """The draw of each bucket of numbers sharing their top 16 bits, where they all agree."""
    shift = 64 - _TOP_BITS
    first = np.arange(1 << _TOP_BITS, dtype=np.uint64) << np.uint64(shift)
    last = first + np.uint64((1 << shift) - 1)
    low = np.searchsorted(_THRESHOLDS, first, side="right")
    high = np.searchsorted(_THRESHOLDS, last, side="right")
    return np.where(low == high, low, _SPLIT).astype(np.uint8)


_BUCKETS = _bucket_table()
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment and mixing constants
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_CACHE = 1 << 16  # numbers mixed at a time: the temporaries stay in the CPU's cache


def poisson_weights(hashes: np.ndarray, first: int, count: int) -> np.ndarray:
    """Poisson(1) weights of ids in resamples ``first`` to ``first + count - 1``.

    ``hashes`` are the ids' 64-bit hashes; the result is a float64 ``(ids, count)`` array.
    The uint64 arithmetic wraps around, as SplitMix64's does.
    """
    steps = np.arange(first + 1, first + count + 1, dtype=np.uint64) * _GOLDEN
    out = np.empty((len(hashes), count))
    rows = max(1, _CACHE // count)

    def draw(start: int) -> None:
        z = hashes[start : start + rows, None] + steps
        shifted = z >> np.uint64(30)
        z ^= shifted
        z *= _MIX_1
        np.right_shift(z, np.uint64(27), out=shifted)
        z ^= shifted
        z *= _MIX_2
        np.right_shift(z, np.uint64(31), out=shifted)
        z ^= shifted
        np.right_shift(z, np.uint64(64 - _TOP_BITS), out=shifted)
        drawn = _BUCKETS[shifted]
        split = np.flatnonzero(drawn == _SPLIT)  # a few in 10,000
        drawn.flat[split] = np.searchsorted(_THRESHOLDS, z.flat[split], side="right")
        out[start : start + rows] = drawn

    in_threads(draw, range(0, len(hashes), rows))
    return out


class _Layout:
    """The groups, ids and classes of a table, numbered, and the ids' resample weights.

    The distinct ids are ordered by the first group they appear in, so that the ids of
    groups sharing none (folds) are contiguous.
    """

    def __init__(self, df: pl.DataFrame, cols: Columns, seed: int) -> None:
        self.by, self.id, self.cls = list(cols.by), cols.id, cols.cls
        pairs = df.select(*self.by, self.id).unique().sort([*self.by, self.id], nulls_last=True)
        ids = pairs.select(self.id).unique(maintain_order=True).with_row_index(_INDEX)
        self.ids = ids[self.id]
        # Categorical and enum ids hash as their text: the same ids read from a CSV
        # (strings) and from a pandas-written parquet (categorical) resample alike.
        text = isinstance(self.ids.dtype, (pl.Categorical, pl.Enum))
        self.hashes = (self.ids.cast(pl.String) if text else self.ids).hash(seed).to_numpy()
        self.groups = pairs.select(self.by).unique(maintain_order=True)
        self.n_groups = self.groups.height if self.by else 1
        group = pl.struct(self.by).rle_id() if self.by else pl.lit(0, pl.UInt32)
        #: Each (group, id) and its numbers, to join onto tables.
        self.pairs = pairs.with_columns(group.alias(_GROUP)).join(ids, on=self.id, nulls_equal=True)
        self.classes = df.select(self.cls).unique().sort(self.cls, nulls_last=True)[self.cls]

    @property
    def n_ids(self) -> int:
        return len(self.hashes)

    def weights(self, lo: int, hi: int, first: int, count: int) -> np.ndarray:
        """Weights of the ids numbered ``lo`` to ``hi - 1`` in ``count`` resamples."""
        return poisson_weights(self.hashes[lo:hi], first, count)

    def locate(self, table: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The numbers of each row's group, id and class (0s where ``table`` has no class)."""
        keys = table.select(*self.by, self.id).join(
            self.pairs, on=[*self.by, self.id], how="left", nulls_equal=True, maintain_order="left"
        )
        classes = np.zeros(table.height, np.int64)
        if self.cls in table.columns:
            numbered = self.classes.to_frame().with_row_index(_CLASS)
            classes = (
                table.select(self.cls)
                .join(numbered, on=self.cls, how="left", nulls_equal=True, maintain_order="left")[
                    _CLASS
                ]
                .to_numpy()
                .astype(np.int64)
            )
        return (
            keys[_GROUP].to_numpy().astype(np.int64),
            keys[_INDEX].to_numpy().astype(np.int64),
            classes,
        )

    def keys(self, groups: np.ndarray, classes: np.ndarray | None = None) -> list[pl.Series]:
        """The ``by`` columns (and the class column) of rows of these group (class) numbers."""
        series = [self.groups[b].gather(groups) for b in self.by]
        if classes is not None:
            series.append(self.classes.gather(classes))
        return series


def _resample_numbers(first: int, count: int, times: int) -> pl.Series:
    """The resample numbers of ``times`` runs of rows, each run resamples ``first...``."""
    return pl.Series(_R, np.tile(np.arange(first, first + count), times))


# --- resampled states: matrix products of the weights and per-id sums -------------------------


@dataclass(frozen=True)
class _Entries:
    """Contributions to the sums of a resample's state, ordered by id number.

    Entry ``i`` adds ``value[i]`` times the weight of id ``index[i]`` to sum ``column[i]``.
    Each group has ``width`` sums, group ``g``'s from ``g * width``.
    """

    index: np.ndarray
    column: np.ndarray
    value: np.ndarray
    width: int


@dataclass(frozen=True)
class _Table:
    """A state table's sums, by kind.

    Weighted sums add each id's value times its weight (the resample's times the user's);
    counted ones add it once per id drawn (counts of ids, sums that weigh each id once).
    """

    names: list[str]
    dtypes: dict[str, pl.DataType]
    weighted: list[str]
    counted: list[str]


def _table(frame: pl.DataFrame, keys: Sequence[str], unweighted: set[str]) -> _Table:
    """Sort a state table's columns by kind; maxima and minima (only checks use them) go."""
    names = [
        c for c in frame.columns if c not in keys and not c.startswith((MAX_PREFIX, MIN_PREFIX))
    ]
    # With a weight column, every weighted sum of a state is a float; integers count ids.
    weighted = [c for c in names if frame.schema[c].is_float() and c not in unweighted]
    counted = [c for c in names if c not in weighted]
    return _Table(names, {c: frame.schema[c] for c in names}, weighted, counted)


class _Resampler:
    """The states of resamples from the state of each id alone.

    ``ids`` holds each id's group sums, rows ``(by..., id, sums...)``; ``cells``, if given,
    its per-class sums, rows ``(by..., id, class, sums...)``, as the state's per-class
    table. A resample's sum is the sum over ids of the id's sum times its weight (weighted
    sums) or times whether it is drawn (counted ones): a matrix product, computed over
    chunks of ids and blocks of resamples so that no array exceeds ``_BLOCK`` numbers.
    """

    def __init__(
        self,
        layout: _Layout,
        ids: pl.DataFrame,
        cells: pl.DataFrame | None,
        unweighted: set[str],
    ) -> None:
        self.layout = layout
        keys = [*layout.by, layout.id, layout.cls]
        self.ids = _table(ids, keys, unweighted)
        self.cells = None if cells is None else _table(cells, keys, unweighted)
        n_classes = len(layout.classes)
        ids_at = layout.locate(ids)
        cells_at = None if cells is None else layout.locate(cells)
        self.entries: dict[str, _Entries] = {}
        for kind in ("weighted", "counted"):
            own = getattr(self.ids, kind)
            per_class = [] if self.cells is None else getattr(self.cells, kind)
            width = len(own) + n_classes * len(per_class)
            found = [_entries(ids, ids_at, own, width, 0, 0)]
            if cells is not None and cells_at is not None:
                found.append(_entries(cells, cells_at, per_class, width, len(own), len(per_class)))
            index, column, value = (np.concatenate(arrays) for arrays in zip(*found, strict=True))
            self.entries[kind] = _Entries(index, column, value, width)
        # Chunks of ids whose dense (ids, sums) blocks fit, and blocks of resamples whose
        # sums fit. Where that leaves few ids a chunk (many groups), a chunk is as many ids
        # as one group's block would fit: it adds only to its own groups' sums (ids are
        # numbered group by group), sparsely where its dense block would not fit.
        width = max(e.width for e in self.entries.values())
        sums = width * layout.n_groups
        self.chunk = max(1, min(layout.n_ids, _BLOCK // max(1, sums)))
        if self.chunk < _FEW_IDS:
            self.chunk = max(1, min(layout.n_ids, _BLOCK // max(1, width)))
        self.block = max(1, _BLOCK // max(self.chunk, sums))
        if self.chunk < layout.n_ids:  # chunks of ids: each chunk's entries contiguous
            for kind, e in self.entries.items():
                order = np.argsort(e.index, kind="stable")
                self.entries[kind] = replace(
                    e, index=e.index[order], column=e.column[order], value=e.value[order]
                )
        #: Per chunk and kind, how its entries add to the sums (the same in every block).
        self._plans: dict[tuple[int, str], _DensePlan | _SparsePlan | None] = {}

    def states(self, n_resamples: int) -> Iterator[tuple[pl.DataFrame, pl.DataFrame | None]]:
        """Per block of resamples: the groups' and the classes' tables of their states."""
        for first in range(0, n_resamples, self.block):
            count = min(self.block, n_resamples - first)
            sums = self._sums(first, count)
            yield self._groups(sums, first, count), self._classes(sums, first, count)

    def _sums(self, first: int, count: int) -> dict[str, np.ndarray]:
        layout = self.layout
        sums = {
            kind: np.zeros((layout.n_groups * e.width, count)) for kind, e in self.entries.items()
        }
        for lo in range(0, layout.n_ids, self.chunk):
            hi = min(layout.n_ids, lo + self.chunk)
            weights = layout.weights(lo, hi, first, count)
            for kind, e in self.entries.items():
                plan = self._plan(lo, hi, kind)
                if plan is None:
                    continue
                by = weights if kind == "weighted" else (weights > 0).astype(np.float64)
                if isinstance(plan, _DensePlan):
                    dense = np.bincount(
                        plan.cells, weights=e.value[plan.rows], minlength=(hi - lo) * len(plan.used)
                    ).reshape(hi - lo, len(plan.used))
                    sums[kind][plan.used] += dense.T @ by
                    continue
                # Ids of many groups: each entry's value times its id's weights, summed per
                # sum in slices of entries (a dense block would be mostly zeros).
                step = max(1, _BLOCK // count)
                for a in range(0, len(plan.into), step):
                    rows, into = plan.rows[a : a + step], plan.into[a : a + step]
                    starts = np.flatnonzero(np.r_[True, into[1:] != into[:-1]])
                    added = e.value[rows, None] * by[e.index[rows] - lo]
                    sums[kind][into[starts]] += np.add.reduceat(added, starts, axis=0)
        return sums

    def _plan(self, lo: int, hi: int, kind: str) -> _DensePlan | _SparsePlan | None:
        """How the entries of ids ``lo`` to ``hi - 1`` add to the sums (None: they have none)."""
        if (lo, kind) in self._plans:
            return self._plans[lo, kind]
        e = self.entries[kind]
        start, stop = (
            (0, len(e.index))
            if hi - lo == self.layout.n_ids
            else np.searchsorted(e.index, (lo, hi))
        )
        plan: _DensePlan | _SparsePlan | None = None
        if start < stop:
            # Only the sums this chunk's ids add to (those of its groups): ids of groups that
            # share none are not multiplied by each other's zeros.
            column = e.column[start:stop]
            used = np.unique(column)
            if (hi - lo) * len(used) <= _BLOCK:
                cells = (e.index[start:stop] - lo) * len(used) + np.searchsorted(used, column)
                plan = _DensePlan(used, slice(start, stop), cells)
            else:  # (entries in the order of their sums, each sum's in the ids' order)
                order = start + np.argsort(column, kind="stable")
                plan = _SparsePlan(order, e.column[order])
        self._plans[lo, kind] = plan
        return plan

    def _columns(
        self, table: _Table, sums: dict[str, np.ndarray], n_classes: int
    ) -> list[pl.Series]:
        """A table's sums, as columns of rows ordered (group, class, resample)."""
        columns = []
        for kind in ("weighted", "counted"):
            names = getattr(table, kind)
            # Each group's sums: those of the ids table, then those of each class.
            offset = 0 if table is self.ids else len(getattr(self.ids, kind))
            width, count = self.entries[kind].width, sums[kind].shape[1]
            per_group = sums[kind].reshape(self.layout.n_groups, width, count)
            values = per_group[:, offset : offset + n_classes * len(names)]
            values = values.reshape(self.layout.n_groups, n_classes, len(names), count)
            columns += [
                pl.Series(name, values[:, :, j].ravel()).cast(table.dtypes[name])
                for j, name in enumerate(names)
            ]
        return sorted(columns, key=lambda s: table.names.index(s.name))

    def _groups(self, sums: dict[str, np.ndarray], first: int, count: int) -> pl.DataFrame:
        groups = np.repeat(np.arange(self.layout.n_groups), count)
        frame = _frame_of(
            [
                *self.layout.keys(groups),
                _resample_numbers(first, count, self.layout.n_groups),
                *self._columns(self.ids, sums, 1),
            ]
        )
        return frame.filter(pl.col(N_IDS) > 0)  # groups with no id drawn are not in it

    def _classes(self, sums: dict[str, np.ndarray], first: int, count: int) -> pl.DataFrame | None:
        if self.cells is None:
            return None
        layout = self.layout
        n_classes = len(layout.classes)
        groups = np.repeat(np.arange(layout.n_groups), n_classes * count)
        classes = np.tile(np.repeat(np.arange(n_classes), count), layout.n_groups)
        frame = _frame_of(
            [
                *layout.keys(groups, classes),
                _resample_numbers(first, count, layout.n_groups * n_classes),
                *self._columns(self.cells, sums, n_classes),
            ]
        )
        return frame.filter(pl.col(CLASS_ROWS) > 0)


@dataclass(frozen=True)
class _DensePlan:
    """How a chunk's entries (``rows``) add to the sums it ``used``.

    Through a dense (ids, used sums) block, each entry at its ``cells`` place.
    """

    used: np.ndarray
    rows: slice
    cells: np.ndarray


@dataclass(frozen=True)
class _SparsePlan:
    """How a chunk's entries (``rows``) add to the sums, in the order of those (``into``).

    Where a dense block would be mostly zeros: ids of many groups.
    """

    rows: np.ndarray
    into: np.ndarray


def _entries(
    frame: pl.DataFrame,
    where: tuple[np.ndarray, np.ndarray, np.ndarray],
    names: list[str],
    width: int,
    offset: int,
    stride: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entries of the columns ``names`` of a table whose rows' numbers are ``where``.

    A row's column ``j`` adds to the sum ``group * width + offset + class * stride + j``;
    zeros add nothing and are left out (most of a row's confusion cells).
    """
    groups, index, classes = where
    base = groups * width + offset + classes * stride
    value = np.concatenate(
        [frame[n].cast(pl.Float64).fill_null(0.0).to_numpy() for n in names] or [np.zeros(0)]
    )
    column = np.concatenate([base + j for j in range(len(names))] or [base[:0]])
    kept = value != 0
    return np.tile(index, len(names))[kept], column[kept], value[kept]


def _frame_of(columns: Sequence[pl.Series]) -> pl.DataFrame:
    """A frame of these columns, named as they are (from a list, polars names ``""`` column_0)."""
    return pl.DataFrame({column.name: column for column in columns})


# --- the paths ----------------------------------------------------------------------------------

_Path = Callable[[pl.DataFrame, Spec, _Layout, int], Iterator[pl.DataFrame]]


def _long(table: pl.DataFrame, metric: str, spec: Spec) -> pl.DataFrame:
    """A metric's resampled values as rows ``(keys..., resample, metric, value)``."""
    return table.select(
        *spec.keys,
        _R,
        pl.lit(metric).alias("metric"),
        pl.col(metric).cast(pl.Float64).alias(_VALUE),
    )


def _finalized(
    spec: Spec, layout: _Layout, groups: pl.DataFrame, classes: pl.DataFrame | None
) -> pl.DataFrame:
    """The metrics of resampled states, each by its family's own finalize step.

    The classes' rows come in class order within each group and resample, as `report` sums
    them.
    """
    cols = replace(spec.columns, by=(*layout.by, _R))
    per_class = None if classes is None else classes.lazy()
    return pl.concat(
        [
            _long(
                family_of(m)
                .finalize(m, groups.lazy(), per_class, None, cols, spec.options)
                .collect(),
                m,
                spec,
            )
            for m in spec.metrics
        ]
    )


def _by_id(
    df: pl.DataFrame, spec: Spec, layout: _Layout, n_resamples: int
) -> Iterator[pl.DataFrame]:
    """Metrics whose state sums over ids: from the state of each id alone."""
    cols = spec.columns
    alone = Spec(
        spec.metrics,
        replace(cols, by=(*cols.by, _ID_KEY), weight=_USER_W),
        replace(spec.options, validate=False),  # the estimate has checked the data
    )
    keyed = df.with_columns(pl.col(cols.id).alias(_ID_KEY), cols.weight_expr.alias(_USER_W))
    state = build_state(keyed, alone).collect()
    ids = state.groups.lazy().collect().rename({_ID_KEY: cols.id})
    if _infinite(ids, [c for c, dtype in ids.schema.items() if dtype.is_float()]):
        yield from _by_query(df, spec, layout, n_resamples)  # (log_loss with eps=0)
        return
    cells = None
    if state.classes is not None:  # lwlrap per class: each id's sums per positive class
        cells = state.classes.lazy().collect().rename({_ID_KEY: cols.id})
    # The samples averages' unweighted sums of values, used when the weights sum to zero.
    unweighted = {samples_names(m)[1] for m in spec.metrics}
    resampler = _Resampler(layout, ids, cells, unweighted)
    for groups, classes in resampler.states(n_resamples):
        yield _finalized(spec, layout, groups, classes)


def _by_cell(
    df: pl.DataFrame, spec: Spec, layout: _Layout, n_resamples: int
) -> Iterator[pl.DataFrame]:
    """Thresholded metrics of confusion counts: from each (id, class) row's cell."""
    cols, opts = spec.columns, spec.options
    rows = df.lazy()
    for prepare in family_of(spec.metrics[0]).parts(spec.metrics, cols, opts, True).prepare:
        rows = prepare(rows)  # a threshold table, joined
    pred, truth, weight = pred_expr(cols, opts.threshold), cols.truth_expr, cols.weight_expr
    cells = (pred & truth, pred & ~truth, ~pred & truth, ~pred & ~truth)
    # True negatives: only metrics of the negatives read them (the rest get zeros).
    counts = COUNTS if set(spec.metrics) - _OF_POSITIVES else COUNTS[:3]
    table = rows.select(
        *cols.by,
        cols.id,
        cols.cls,
        pl.lit(1, pl.UInt32).alias(CLASS_ROWS),
        *(
            (weight * cell.cast(pl.Float64)).fill_null(0.0).alias(name)
            for cell, name in zip(cells, counts, strict=False)
        ),
    ).collect()
    ids = layout.pairs.select(*cols.by, cols.id, pl.lit(1, pl.UInt32).alias(N_IDS))
    resampler = _Resampler(layout, ids, table, set())
    unread = [pl.lit(0.0).alias(name) for name in COUNTS if name not in counts]
    for groups, classes in resampler.states(n_resamples):
        assert classes is not None
        yield _finalized(spec, layout, groups, classes.with_columns(unread))


def _by_loss(
    df: pl.DataFrame, spec: Spec, layout: _Layout, n_resamples: int
) -> Iterator[pl.DataFrame]:
    """brier_score, binary_log_loss: each (id, class) row's weighted loss, summed per class.

    A class's value is its rows' loss over their weight, as the curves family's (a row of
    weight 0 adds nothing, also where its loss is infinite).
    """
    cols, opts = spec.columns, spec.options
    assert cols.score is not None  # (these metrics read scores)
    assert opts.average in (None, "macro", "micro")  # (no positives' weights for "weighted")
    score, truth, weight = pl.col(cols.score), cols.truth_expr, cols.weight_expr.cast(pl.Float64)
    pos = pl.when(truth).then(weight).otherwise(0.0)  # a row's weight on its side
    neg = pl.when(truth).then(0.0).otherwise(weight)

    def loss(metric: str) -> pl.Expr:
        cell = cell_loss(metric, score, pos, neg, opts.eps)
        return cell.alias(_loss_sum(metric))

    table = (
        df.lazy()
        .select(
            *cols.by,
            cols.id,
            cols.cls,
            pl.lit(1, pl.UInt32).alias(CLASS_ROWS),
            weight.alias(_WEIGHT),
            weight.abs().alias(_ABS_WEIGHT),
            *(loss(m) for m in spec.metrics),
        )
        .collect()
    )
    if _infinite(table, [_loss_sum(m) for m in spec.metrics]):
        yield from _by_query(df, spec, layout, n_resamples)  # (eps=0 beside a score of 0 or 1)
        return
    # (A resample whose drawn weights are all 0, or cancel, is left out by `_resampled`.)
    ids = layout.pairs.select(*cols.by, cols.id, pl.lit(1, pl.UInt32).alias(N_IDS))
    by = [*layout.by, _R]
    for _, classes in _Resampler(layout, ids, table, set()).states(n_resamples):
        assert classes is not None
        frames = []
        for metric in spec.metrics:
            total, summed = pl.col(_WEIGHT), pl.col(_loss_sum(metric))
            if opts.average == "micro":
                ordered = classes.sort([*by, cols.cls])
                pooled = aggregate(
                    ordered.lazy(), by, [ordered_sum(summed), ordered_sum(total)]
                ).collect()
                values = pooled.select(*by, weighted_mean(summed, total).alias(metric))
            else:  # a class whose drawn weights cancel (ragged ids) is undefined, as in report
                values = classes.select(
                    *by,
                    cols.cls,
                    weighted_mean(summed, total, pl.col(_ABS_WEIGHT)).alias(metric),
                    pl.lit(0.0).alias(CURVE_POS),
                )
            frames.append(_long(_averaged(values, metric, by, opts), metric, spec))
        yield pl.concat(frames)


def _infinite(sums: pl.DataFrame, names: list[str]) -> bool:
    """Whether any of the per-id (or per-cell) sums ``names`` is infinite.

    Such a sum times a weight of 0 (an id not drawn) in the matrix products would be NaN:
    those resamples are then the rows' (`_by_query`).
    """
    return bool(sums.select(pl.any_horizontal(pl.col(names).is_infinite().any())).item())


def _loss_sum(metric: str) -> str:
    return f"{INTERNAL}boot_loss_{metric}"


#: Thresholded metrics of tp, fp and fn only.
_OF_POSITIVES = {"precision", "recall", "f1", "fbeta", "jaccard"}


@dataclass(frozen=True)
class _Ranking:
    """One binary ranking problem: a class of a group (or a group's rows pooled).

    Its positive and negative rows, each by score ascending: their id numbers, scores and
    user weights (None without a weight column).
    """

    group: int
    cls: int
    positives: np.ndarray
    negatives: np.ndarray
    positive_scores: np.ndarray
    negative_scores: np.ndarray
    positive_weights: np.ndarray | None
    negative_weights: np.ndarray | None


def _rankings(df: pl.DataFrame, spec: Spec, layout: _Layout) -> list[_Ranking]:
    """The problems of ROC AUC or average precision, per class or pooled (``"micro"``)."""
    cols = spec.columns
    assert cols.score is not None
    table = df.select(
        *cols.by,
        cols.id,
        cols.cls,
        cols.score,
        cols.truth_expr.alias(cols.truth),
        cols.weight_expr.alias(_USER_W),
    ).drop_nulls([cols.score, cols.truth])  # rows only checks see (with validate=False)
    groups, index, classes = layout.locate(table)
    pooled = spec.options.average == "micro"
    problem = groups if pooled else groups * len(layout.classes) + classes
    scores = table[cols.score]
    if scores.dtype in (pl.Int128, pl.UInt128):  # numpy has none: their order is what counts
        scores = scores.rank("dense")
    score = scores.to_numpy()
    truth = table[cols.truth].to_numpy()
    weight = table[_USER_W].to_numpy() if cols.weight is not None else None
    order = np.lexsort((score, problem))
    out = []
    for rows in np.split(order, np.flatnonzero(np.diff(problem[order])) + 1):
        if not len(rows):
            continue
        pos, neg = rows[truth[rows]], rows[~truth[rows]]
        out.append(
            _Ranking(
                int(groups[rows[0]]),
                -1 if pooled else int(classes[rows[0]]),
                index[pos],
                index[neg],
                score[pos],
                score[neg],
                None if weight is None else weight[pos],
                None if weight is None else weight[neg],
            )
        )
    return out


def _gathered(weights: np.ndarray, ids: np.ndarray, user: np.ndarray | None) -> np.ndarray:
    """The rows' weights in each resample: (rows, resamples)."""
    out: np.ndarray = weights[ids]
    if user is not None:
        out *= user[:, None]
    return out


def _cumulated(weights: np.ndarray, ids: np.ndarray, user: np.ndarray | None) -> np.ndarray:
    """Row ``k``: the weight of the first ``k`` rows, in each resample (a row of 0s first)."""
    out = np.zeros((len(ids) + 1, weights.shape[1]))
    np.take(weights, ids, axis=0, out=out[1:])
    if user is not None:
        out[1:] *= user[:, None]
    _cumulate(out[1:])
    return out


def _cumulate(rows: np.ndarray, block: int = 32) -> None:
    """In place, ``np.cumsum(rows, axis=0)``, a few times faster.

    numpy's cumulative sum down the rows goes element by element; adding whole rows is
    vectorised: row ``i`` of every block of ``block`` rows at once, then each block gets
    the total of the blocks above.
    """
    whole = len(rows) - len(rows) % block
    blocks = rows[:whole].reshape(whole // block, block, rows.shape[1])
    for i in range(1, block if whole else 0):
        blocks[:, i] += blocks[:, i - 1]
    above = np.cumsum(blocks[:, -1], axis=0)  # the totals of the blocks so far
    blocks[1:] += above[:-1, None]
    tail = rows[whole:]
    for i in range(1, len(tail)):
        tail[i] += tail[i - 1]
    if whole:
        tail += above[-1]


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per resample (column), the sum over rows of ``a * b``."""
    out: np.ndarray = np.einsum("ib,ib->b", a, b)
    return out


def _roc_area(weights: np.ndarray, p: _Ranking) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per resample: the ROC AUC (NaN if undefined), the positives' and negatives' weight.

    The area is the weight of (positive, negative) pairs in order, ties counting half: the
    cumulative sums run over the larger side and are read at the rows of the smaller one.
    It multiplies the two sides' weights, so each side's user weights are scaled by a
    power of two first (weights far from 1 under- or overflow; see `unit_scale`).
    """
    pos_scale, neg_scale = _power_of_two(p.positive_weights), _power_of_two(p.negative_weights)
    pos_user = None if p.positive_weights is None else p.positive_weights * pos_scale
    neg_user = None if p.negative_weights is None else p.negative_weights * neg_scale
    if len(p.negatives) >= len(p.positives):
        gathered = _gathered(weights, p.positives, pos_user)
        below = _cumulated(weights, p.negatives, neg_user)
        lower = np.searchsorted(p.negative_scores, p.positive_scores, "left")
        upper = np.searchsorted(p.negative_scores, p.positive_scores, "right")
        tied = np.flatnonzero(lower != upper)
        area = _dot(gathered, below[lower]) + 0.5 * _dot(
            gathered[tied], below[upper[tied]] - below[lower[tied]]
        )
        positives, negatives = gathered.sum(axis=0), below[-1]
    else:
        gathered = _gathered(weights, p.negatives, neg_user)
        highest = p.positives[::-1]  # row k: the weight of the k highest-scored positives
        above = _cumulated(weights, highest, None if pos_user is None else pos_user[::-1])
        n = len(p.positives)
        strictly = n - np.searchsorted(p.positive_scores, p.negative_scores, "right")
        at_least = n - np.searchsorted(p.positive_scores, p.negative_scores, "left")
        tied = np.flatnonzero(strictly != at_least)
        area = _dot(gathered, above[strictly]) + 0.5 * _dot(
            gathered[tied], above[at_least[tied]] - above[strictly[tied]]
        )
        positives, negatives = above[-1], gathered.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        defined = (positives > 0) & (negatives > 0)
        auc = np.where(defined, area / (positives * negatives), np.nan)
    return auc, positives / pos_scale, negatives / neg_scale


def _power_of_two(user: np.ndarray | None) -> float:
    """The power of two that brings the largest of ``user``'s magnitudes into [1, 2)."""
    largest = 0.0 if user is None or not len(user) else float(np.abs(user).max())
    if not (largest > 0 and math.isfinite(largest)):
        return 1.0
    return math.ldexp(1.0, -max(-1022, min(1023, math.frexp(largest)[1] - 1)))


def _ap_area(weights: np.ndarray, p: _Ranking) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per resample: the unnormalised average precision, the positives' and negatives' weight.

    The first is the sum over positives of their weight times the precision at their score:
    the weight of the positives over that of all rows scoring at least as high.
    """
    down = slice(None, None, -1)  # highest score first
    user_pos = None if p.positive_weights is None else p.positive_weights[down]
    user_neg = None if p.negative_weights is None else p.negative_weights[down]
    hits = _cumulated(weights, p.positives[down], user_pos)
    misses = _cumulated(weights, p.negatives[down], user_neg)
    scores = p.positive_scores[down]
    at_least_pos = len(p.positives) - np.searchsorted(p.positive_scores, scores, "left")
    at_least_neg = len(p.negatives) - np.searchsorted(p.negative_scores, scores, "left")
    tp, fp = hits[at_least_pos], misses[at_least_neg]
    total = tp + fp
    precision = np.divide(tp, total, out=np.zeros_like(tp), where=total != 0)  # as sklearn
    gained = _gathered(weights, p.positives[down], user_pos)
    return _dot(gained, precision), hits[-1], misses[-1]


def _by_curve(
    df: pl.DataFrame, spec: Spec, layout: _Layout, n_resamples: int
) -> Iterator[pl.DataFrame]:
    """ROC AUC and average precision: each problem's rows sorted by score once."""
    problems = _rankings(df, spec, layout)
    largest = max((len(p.positives) + len(p.negatives) for p in problems), default=1)
    # A problem's arrays hold about twice its rows per resample; one problem per thread.
    block = max(1, _BLOCK // max(layout.n_ids, 2 * largest * pl.thread_pool_size()))
    pooled = spec.options.average == "micro"
    groups = np.array([p.group for p in problems], dtype=np.int64)
    classes = None if pooled else np.array([p.cls for p in problems], dtype=np.int64)
    by = [*layout.by, _R]
    for first in range(0, n_resamples, block):
        count = min(block, n_resamples - first)
        weights = layout.weights(0, layout.n_ids, first, count)
        keys = layout.keys(
            np.repeat(groups, count), None if classes is None else np.repeat(classes, count)
        )
        resample = _resample_numbers(first, count, len(problems))
        frames = []
        for metric in spec.metrics:
            value, positives, drawn = _curve_values(metric, weights, problems)
            values = _frame_of(
                [
                    *keys,
                    resample,
                    pl.Series(metric, value.ravel()).fill_nan(None),  # undefined: null
                    pl.Series(CURVE_POS, positives.ravel()),
                ]
            ).filter(pl.Series(drawn.ravel()))  # problems with no row drawn are not in it
            frames.append(_long(_averaged(values, metric, by, spec.options), metric, spec))
        yield pl.concat(frames)


def _curve_values(
    metric: str, weights: np.ndarray, problems: list[_Ranking]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per problem and resample: the metric, the positives' weight, and whether drawn.

    The metric is NaN where undefined (a ROC AUC without positives or negatives); a problem
    is drawn in a resample when any of its rows is.
    """
    count = weights.shape[1]
    area, positives, negatives = (np.empty((len(problems), count)) for _ in range(3))
    drawn = np.empty((len(problems), count), dtype=bool)
    kernel = _roc_area if metric == "roc_auc" else _ap_area

    def solve(i: int) -> None:
        area[i], positives[i], negatives[i] = kernel(weights, problems[i])
        drawn[i] = _drawn(weights, problems[i], positives[i] + negatives[i])

    in_threads(solve, range(len(problems)))
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "roc_auc":  # (the kernel's ratio already: NaN where undefined)
            return area, positives, drawn
        # scikit-learn: positives of no weight (none, or weights summing to 0) give 0, and
        # it clips at 0 (only negative weights take the sum below).
        value = np.where(positives != 0, np.maximum(area / positives, 0.0), 0.0)
        return value, positives, drawn


def _drawn(weights: np.ndarray, p: _Ranking, total: np.ndarray) -> np.ndarray:
    """Per resample, whether any of the problem's ids is drawn."""
    users = [u for u in (p.positive_weights, p.negative_weights) if u is not None]
    if all((u > 0).all() for u in users):  # positive weights: drawn iff they sum above 0
        return total > 0
    ids = np.concatenate([p.positives, p.negatives])
    drawn: np.ndarray = (weights[ids] > 0).any(axis=0)
    return drawn


def _averaged(values: pl.DataFrame, metric: str, by: list[str], opts: Options) -> pl.DataFrame:
    """Per-class values averaged over each group's classes, as the curves family does."""
    if opts.average is None:
        return values
    if opts.average == "micro":
        return values.with_columns(pl.col(metric).fill_null(float("nan")))
    out = average_classes(values.lazy(), metric, by, opts.average)
    # Groups whose classes are all undefined (skipped) still get a row: NaN.
    drawn = values.lazy().select(by).unique()
    out = drawn.join(out, on=by, how="left", nulls_equal=True)
    return out.with_columns(pl.col(metric).fill_null(float("nan"))).collect()


def _by_query(
    df: pl.DataFrame, spec: Spec, layout: _Layout, n_resamples: int
) -> Iterator[pl.DataFrame]:
    """Any metric: `report` of the rows joined to a block of resamples' weights."""
    cols = spec.columns
    resampled = Spec(spec.metrics, replace(cols, by=(*cols.by, _R), weight=_BOOT_W), spec.options)
    weight = pl.col(_BOOT_W) * cols.weight_expr if cols.weight is not None else pl.col(_BOOT_W)
    # A query's memory is tens of times its rows: each joins about _BLOCK / 16 rows.
    block = max(1, _BLOCK // 16 // max(1, df.height))
    ids = layout.ids
    for first in range(0, n_resamples, block):
        count = min(block, n_resamples - first)
        drawn = _frame_of(
            [
                ids.gather(np.repeat(np.arange(layout.n_ids), count)),
                _resample_numbers(first, count, layout.n_ids),
                pl.Series(_BOOT_W, layout.weights(0, layout.n_ids, first, count).ravel()),
            ]
        ).filter(pl.col(_BOOT_W) > 0)  # ids not drawn in a resample add nothing
        if drawn.is_empty():  # (a block of one resample that draws no id: no value)
            continue
        rows = df.join(drawn, on=cols.id, nulls_equal=True).with_columns(weight.alias(_BOOT_W))
        # A resample whose drawn ids all weigh 0 leaves the metric undefined, not the input
        # bad: no row of it (see `_undefined_draws`), rather than report's refusal; so does one
        # whose (negative) weights sum to 0, for a mean weighted by them.
        resample = [*cols.by, _R]
        defined = (pl.col(_BOOT_W) != 0).any().over(resample)
        if any(info(m).zero_weights == "sum" for m in spec.metrics):
            once = pl.col(cols.id).is_first_distinct().over(resample)  # an id's weight once
            w = pl.when(once).then(pl.col(_BOOT_W)).otherwise(0.0)
            defined &= ~sums_to_zero(w.sum().over(resample), w.abs().sum().over(resample))
        if any(weightless_class(m, cols, spec.options) is not None for m in spec.metrics):
            # Of ragged ids, a class's drawn weights may cancel where the group's do not:
            # that class undefined, and the average over the classes.
            cell, drawn_w = [*resample, cols.cls], pl.col(_BOOT_W)
            cancels = sums_to_zero(drawn_w.sum().over(cell), drawn_w.abs().sum().over(cell))
            defined &= ~(cancels if spec.options.average is None else cancels.any().over(resample))
        rows = rows.filter(defined)
        if rows.is_empty():  # (no resample of the block is defined: no value)
            continue
        out = build_state(rows, resampled).finalize().collect()
        yield pl.concat([_long(out, m, spec) for m in spec.metrics])
    # Every path yields at least once (the callers concatenate): no rows, typed.
    yield (
        df.head(0)
        .select(spec.keys)
        .with_columns(
            pl.lit(0, pl.Int64).alias(_R), pl.lit("").alias("metric"), pl.lit(0.0).alias(_VALUE)
        )
    )


_PATHS: dict[str, _Path] = {
    "ids": _by_id,
    "cells": _by_cell,
    "curves": _by_curve,
    "losses": _by_loss,
    "rows": _by_query,
}


def _path(metric: str, opts: Options) -> str:
    """How ``metric`` is resampled under ``opts`` (see the module notes)."""
    entry = info(metric)
    if (
        (opts.average == "samples" and "samples" in entry.averages)
        or metric in ("accuracy", "top_k_accuracy")
        or entry.module in ("_ranking", "_logloss", "_ndcg")
    ):
        return "ids"
    if entry.module == "_thresholded":
        return "cells"
    if metric == "average_precision" or (metric == "roc_auc" and opts.max_fpr is None):
        return "curves"
    if metric in ("brier_score", "binary_log_loss"):
        return "losses"
    return "rows"


def _resampled(df: pl.DataFrame, spec: Spec, n_resamples: int, seed: int) -> pl.DataFrame:
    """Every metric of ``spec`` on every resample: rows ``(keys..., resample, metric, value)``.

    A group (or class) that a resample draws no id of has no row in it.
    """
    if "roc_auc" in spec.metrics:
        # A resample may draw no positive (or no negative) of a class: that class is left
        # out of the resample's average (null per class) rather than failing the bootstrap.
        spec = spec.with_options(undefined="skip")
    layout = _Layout(df, spec.columns, seed)
    paths: dict[str, list[str]] = {}
    for metric in spec.metrics:
        paths.setdefault(_path(metric, spec.options), []).append(metric)
    out = pl.concat(
        [
            part
            for path, metrics in paths.items()
            for part in _PATHS[path](df, replace(spec, metrics=tuple(metrics)), layout, n_resamples)
        ]
    )
    if spec.columns.weight is None:
        return out
    # A resample whose drawn ids all weigh 0 is undefined for every metric; one whose
    # drawn (negative) weights cancel, for the means weighted by them, as `_by_query`
    # leaves it out (the matrix products gave +-inf there).
    weightless, cancelled = _undefined_draws(df, spec.columns, layout, n_resamples)
    summing = [m for m in spec.metrics if info(m).zero_weights == "sum"]
    keys = [*spec.columns.by, _R]
    for pairs, metrics in ((weightless, spec.metrics), (cancelled, summing)):
        flagged = pairs.with_columns(pl.lit(True).alias(_UNDEFINED))
        out = out.join(flagged, on=keys, how="left", nulls_equal=True, maintain_order="left")
        undefined = pl.col(_UNDEFINED) & pl.col("metric").is_in(list(metrics))
        value = pl.when(undefined).then(float("nan")).otherwise(pl.col(_VALUE))
        out = out.with_columns(value.alias(_VALUE)).drop(_UNDEFINED)
    return out


def _undefined_draws(
    df: pl.DataFrame, cols: Columns, layout: _Layout, n_resamples: int
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``(by..., resample)`` pairs whose draws all weigh 0, and those whose weights cancel.

    The second: drawn ids whose weights sum to 0 (up to rounding) where some weigh
    something. As `report` refuses a group whose weights are all zero (or, for the means
    weighted by them, sum to zero). Computed over the resample's weighted counts, a
    thresholded metric would take its zero-division value there. Only groups holding an id
    of weight 0 (or a negative one) can be such; their ids' draws are taken in blocks of
    resamples, so memory does not grow with them.
    """
    assert cols.weight is not None
    per_id = df.group_by([*cols.by, cols.id]).agg(pl.col(cols.weight).first().cast(pl.Float64))
    # The pairs are sorted by group: each group's ids are one stretch.
    numbered = layout.pairs.join(
        per_id, on=[*cols.by, cols.id], nulls_equal=True, maintain_order="left"
    )
    group = numbered[_GROUP].to_numpy().astype(np.int64)
    weight = numbered[cols.weight].to_numpy()
    suspect = np.zeros(layout.n_groups, dtype=bool)
    suspect[group[weight <= 0]] = True
    keep = suspect[group]
    group, weight = group[keep], weight[keep]
    # Each id drawn once, however many groups hold it (the models scored on one fold's ids).
    ids, pair_id = np.unique(numbered[_INDEX].to_numpy()[keep], return_inverse=True)
    hashes = layout.hashes[ids.astype(np.int64)]
    starts = np.flatnonzero(np.r_[True, np.diff(group) != 0]) if len(group) else group
    found: list[list[np.ndarray]] = [[np.zeros((2, 0), np.int64)] for _ in range(2)]
    block = max(1, _BLOCK // max(1, len(group)))
    for first in range(0, n_resamples if len(group) else 0, block):
        count = min(block, n_resamples - first)
        drawn = poisson_weights(hashes, first, count)[pair_id]  # (pairs, resamples)
        any_drawn = np.logical_or.reduceat(drawn > 0, starts, axis=0)
        any_weighed = np.logical_or.reduceat((drawn > 0) & (weight != 0)[:, None], starts, axis=0)
        total = np.add.reduceat(drawn * weight[:, None], starts, axis=0)
        magnitude = np.add.reduceat(drawn * np.abs(weight)[:, None], starts, axis=0)
        cancels = (np.abs(total) <= 1e-12 * magnitude) & (magnitude > 0)
        for k, flagged in enumerate((any_drawn & ~any_weighed, cancels)):
            g, r = np.nonzero(flagged)
            found[k].append(np.stack([group[starts][g], r + first]))
    tables = []
    for pieces in found:
        g, r = np.concatenate(pieces, axis=1)
        tables.append(_frame_of([*layout.keys(g), pl.Series(_R, r, dtype=pl.Int64)]))
    return tables[0], tables[1]


def _spread(names: list[str], estimate: str) -> list[pl.Expr]:
    """The resamples' statistics: NaN where no resample has a value, null where the estimate is.

    A null estimate is a class left out (``undefined="skip"``), as in the metric's table. A
    NaN estimate (weights that cancel; two infinite losses' difference) gives NaN: the
    resamples defined there are those that break the cancellation, or leave the id out,
    and their interval would be of another quantity.
    """
    value = pl.col(estimate)
    return [
        pl.when(value.is_nan())
        .then(math.nan)
        .when(value.is_not_null())
        .then(pl.col(n).fill_null(math.nan))
        .alias(n)
        for n in names
    ]


def _deferred(frame: FrameT, compute: Callable[[], pl.DataFrame], schema: pl.Schema) -> FrameT:
    """``compute()`` as the type of ``frame``: a LazyFrame computes it when collected."""
    return as_like(frame, pl.defer(compute, schema=schema))


#: More resamples only refine the last digit of an interval, and each holds a row per group
#: and metric: a count far above this is a typo that would fill the memory.
MAX_RESAMPLES: Final = 1_000_000


def _check_resampling(names: Sequence[str], n_resamples: int, confidence: float, seed: int) -> None:
    unweighted = [m for m in names if not info(m).weights]
    if unweighted:
        they, them = ("these metrics take", "them") if len(unweighted) > 1 else ("it takes", "it")
        raise MetricsInputError(
            f"{', '.join(unweighted)} cannot be bootstrapped: the bootstrap resamples ids by "
            f"weighing them, and {they} no per-id weights; leave {them} out (and score "
            f"{them} with report)"
        )
    check_integer("n_resamples", n_resamples, 2, MAX_RESAMPLES)
    check_confidence(confidence)
    check_integer("seed", seed, 0, 2**63 - 1)
    needed = math.ceil(2 / (1 - confidence) - 1e-9)  # (2 / 0.1 is 20.000000000000004)
    if n_resamples < needed:  # (5 resamples gave a "95% interval" without a word)
        warnings.warn(
            f"a {confidence * 100:g}% interval of {n_resamples:,} resamples is rough: each "
            f"of its tails holds less than one resample; {needed:,} or more are needed "
            "(1,000 is usual)",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def _group(by: str | Sequence[str] | None) -> list[str]:
    return list(normalize_by(by))


def bootstrap(
    frame: FrameT,
    metrics: str | Iterable[str],
    *,
    by: str | Sequence[str] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **options: Unpack[MetricOptions],
) -> FrameT:
    """Bootstrap percentile intervals of metrics, per group.

    Ids are resampled with Poisson(1) weights, an id weighing the same in every group (see
    the module notes), so each resample is the metric of the weighted rows.

    Returns rows ``(by..., metric, estimate, lower, upper, std)``: the metric on the data,
    the ``confidence`` percentile interval of the resamples and their standard deviation,
    sorted by the ``by`` columns, then the metrics in the order given. With per-class
    output (``per_class=True`` or ``average=None``) the rows are
    ``(by..., class, metric, ...)``: one interval per class. ``seed`` is an integer in
    ``[0, 2**63)``. A resample that draws no positive (or no negative) of a class leaves
    that class out of its ROC AUC, as ``undefined="skip"`` does; a resample where the
    metric is undefined (NaN: every class left out, only ids of weight 0 drawn, or weights
    that cancel where the metric divides by them, a class's of ragged ids for brier_score
    and binary_log_loss) is left out of the interval and the standard deviation (the
    bounds and the deviation are NaN when no resample is defined, and when the estimate
    is NaN; where some are infinite, an infinite loss with ``eps=0``, the deviation is NaN
    and a bound may be infinite). A LazyFrame gives a LazyFrame: nothing is read until it
    is collected.

    The interval is of the resamples' percentiles, not centred on the estimate: where the
    resamples' values lean one way (average precision of classes of a few positives, which
    a resample draws twice or not at all), it may lie wholly above or below the estimate,
    as a naive bootstrap's does; ``std`` is then the steadier measure of spread.

    Parameters
    ----------
    frame
        The long prediction dump (DataFrame, LazyFrame, or anything with an Arrow stream).
    metrics
        A metric name or a list of them; tables (curves, counts) are refused.
    by
        Column name(s): one interval per group (a model, say).
    n_resamples
        Resamples drawn, at least 2; fewer than ``2 / (1 - confidence)`` (40 for 95%),
        whose interval's tails hold less than one resample each, are warned of.
    confidence
        The interval's coverage, in (0, 1): 0.95 takes the 2.5th and 97.5th percentiles.
    seed
        The resamples' seed: the same seed draws the same weights for an id on every path.
    **options
        Those of `report` (``id_col``, ``weight_col``, ``threshold``, ``average``, ...;
        typed as `MetricOptions`), except ``per_id`` and those of tables alone.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., metric, estimate, lower, upper, std)``; ``(by..., class, metric,
        ...)`` with per-class output.

    Notes
    -----
    Resamples are computed in blocks, so memory does not grow with ``n_resamples``; the
    columns that the metrics read are held in memory. How each metric is resampled:

    * from the sums of each id, computed once, times the weights (matrix products):
      lwlrap, lrap, coverage_error, label_ranking_loss, log_loss, ndcg, top_k_accuracy,
      accuracy and every ``average="samples"`` metric;
    * from the confusion cell of each (id, class) row, likewise: the other thresholded
      metrics (f1, precision, recall, fbeta, jaccard, specificity, balanced_accuracy,
      balanced_f1, mfif, matthews_corrcoef, hamming_loss);
    * from each class's rows sorted by score once: roc_auc and average_precision;
    * from the weighted loss of each (id, class) row, as the confusion cells: brier_score
      and binary_log_loss (unless a loss is infinite: ``eps=0`` beside a score of 0 or 1).

    1,000 resamples of these cost a few evaluations of the metric (about ten for roc_auc
    and average_precision). The rest (roc_auc with ``max_fpr``) run `report` on the rows joined
    to each block of resamples' weights: the cost of an evaluation per resample.

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
    _check_options(bootstrap, options, [])
    options = cast(MetricOptions, as_given(options))  # (read when collected)
    names: list[str] = _metric_list(metrics, "bootstrap")
    _check_resampling(names, n_resamples, confidence, seed)
    group: list[str] = _group(by)
    source = to_polars(frame)
    lf: pl.LazyFrame = source.lazy()
    checked = resolve(source, names, by=group or None, **at_call(options))  # options, now
    check_key_names(checked.columns, ["metric", "estimate", "lower", "upper", "std"], "bootstrap")
    keys: list[str] = checked.keys
    tail = (1 - confidence) / 2

    def compute() -> pl.DataFrame:
        read = _table_read(options)
        spec = resolve(lf, names, by=group or None, **read)
        df = lf.select(spec.read).collect()
        estimate = _checked_report(df, spec, names, group or None, read)
        per_resample = _resampled(df, spec, n_resamples, seed)
        value = pl.col(_VALUE).fill_nan(None)  # undefined resamples: left out of all three
        stats = per_resample.group_by([*keys, "metric"]).agg(
            value.quantile(tail, "linear").fill_null(math.nan).alias("lower"),
            value.quantile(1 - tail, "linear").fill_null(math.nan).alias("upper"),
            _mean_and_std(value, "mean", "std")[1].fill_null(math.nan),
        )
        point = estimate.unpivot(
            on=names, index=keys, variable_name="metric", value_name="estimate"
        )
        # A group that no resample draws an id of (one id, few resamples) has no stats.
        out = point.join(stats, on=[*keys, "metric"], how="left", nulls_equal=True)
        out = out.select(
            *keys, "metric", "estimate", *_spread(["lower", "upper", "std"], "estimate")
        )
        # The metrics in the order asked for, within each group.
        asked = pl.col("metric").replace_strict(names, range(len(names)))
        return out.sort([*keys, asked], nulls_last=True)

    schema = lf.select(keys).collect_schema()
    schema["metric"] = pl.String
    for name in ("estimate", "lower", "upper", "std"):
        schema[name] = pl.Float64
    return _deferred(frame, compute, schema)


def _checked_report(
    df: pl.DataFrame,
    spec: Spec,
    names: list[str],
    by: list[str] | None,
    options: MetricOptions,
) -> pl.DataFrame:
    """`report` of the columns read, which checks the data first, as of the whole table.

    Repeated rows are told the hint to group by the table's other key columns (a model, a
    fold), which were not read.
    """
    try:
        return report(df, names, by=by, **options)
    except MetricsInputError as error:
        if error.problem != "duplicate":
            raise
        hint = by_hint(spec.columns)
        if not hint:
            raise
        # The hint of the columns read (a threshold table's model key) gives way to the
        # table's: told twice, they named other keys.
        text = str(error)
        start, end = text.find("; the table has "), text.find("; rows repeated whole")
        if 0 <= start < end:
            text = text[:start] + text[end:]
        raise with_hint(error, hint.removeprefix("; "), text) from None


def _table_read(options: MetricOptions) -> MetricOptions:
    """``options`` with a lazy threshold table read, once for the checks and the values.

    (A table polars cannot read is left lazy: `resolve` tells why, as of an eager one.)
    """
    table = options.get("threshold")
    if isinstance(table, pl.LazyFrame):
        try:
            read: MetricOptions = {**options, "threshold": table.collect()}
        except (pl.exceptions.PolarsError, OSError):
            return options
        return read
    return options


def model_value(dtype: pl.DataType, model_col: str, option: str, value: Any) -> Any:
    """``value`` as a value of the model column: "1" for an integer column's 1, say."""
    if dtype == pl.Boolean and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"  # (polars casts no text to booleans)
    cast = _as_model(value, dtype)
    if cast is None and isinstance(value, str) and dtype.is_numeric():
        # Typed as a number whose text is not the column's: "3" of a model 3.0, "3.0" of 3.
        text = value.strip()
        if _NUMBER.fullmatch(text):
            whole = text.lstrip("+-").isdigit()  # (exactly, past 2**53 too)
            cast = _as_model(int(text) if whole else float(text), dtype)
    if cast is None:
        raise MetricsInputError(
            f"option {option!r}: {shown(value)} is not a value of column {model_col!r} ({dtype})"
        )
    return cast.item()


#: A number as typed (ASCII digits; not "1_0", "nan" or "inf", which name no model).
_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _as_model(value: Any, dtype: pl.DataType) -> pl.Series | None:
    """``value`` cast to the model column's type, if it is that value exactly."""
    try:
        given = pl.Series([value])
        cast: pl.Series = given.cast(dtype, strict=True)
        if dtype.is_float() and given.dtype.is_float():  # 0.3 is Float32's 0.3, as in a filter
            return cast
        return cast if cast.cast(given.dtype).equals(given) else None  # 1.5 is no model 1
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        return None


def no_rows_of_model(
    model_col: str, model: Any, present: Sequence[Any], flag: str = ""
) -> MetricsInputError:
    """The error for a model the table has no rows of, with the closest of its models.

    ``flag``: the command line's option that named it (`` (--against)``).
    """
    close = did_you_mean(str(model), [str(m) for m in present], n=1)
    return MetricsInputError(
        f"column {model_col!r}: no rows of model {model!r}{flag}; "
        + (f"{close} " if close else "")
        + "its models: "
        + ", ".join(repr(m) for m in sorted(present, key=str))
    )


def _row_keys(cols: Columns) -> frozenset[str]:
    """The data checks of rows and ids, whose failures unpair two models' rows.

    (Not the class sets': a cell one model lacks is told as unpaired, not as ragged.)
    """
    return row_check_keys(cols) | {"duplicate", "weight_varies"}


def paired(
    frame: FrameT,
    metric: str,
    model_a: Any,
    model_b: Any,
    *,
    model_col: str = "model",
    by: str | Sequence[str] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **options: Unpack[MetricOptions],
) -> FrameT:
    """Paired bootstrap of ``metric(model_b) - metric(model_a)`` on the same ids.

    Both models are scored on the same resamples (an id weighs the same in both), so the
    spread of the difference leaves out what the two share. Per group (``by``, for instance
    the fold; without ``by``, one row overall): rows ``(by..., metric, model_a, model_b,
    difference, lower, upper, p_value)``, where the p-value is the two-sided bootstrap
    p-value of "no difference" (twice the smaller share of resampled differences on either
    side of 0; 0 when none is on one side, which reads "below 2 / n_resamples"). The
    interval's bounds are interpolated between resamples and the p-value counts them, so
    the two may disagree at the margin: of 100 resamples, 3 at or below 0 give a p-value
    of 0.06 beside a 95% interval above 0 (more resamples narrow the margin). Resamples
    where the difference is undefined (NaN) are left out of the interval and the p-value;
    where the difference itself is NaN (both models' losses infinite with ``eps=0``), so
    are they.
    With per-class output (``per_class=True`` or ``average=None``), one row per group and
    class. Resampled as by `bootstrap`; a LazyFrame gives a LazyFrame, computed when it is
    collected.

    Parameters
    ----------
    frame
        The long prediction dump of both models (others are left out), as in `bootstrap`.
    metric
        One metric name.
    model_a, model_b
        Values of ``model_col``: the difference is ``model_b``'s value minus ``model_a``'s.
    model_col
        The column of the model.
    by
        Column name(s): one difference per group (a fold, say).
    n_resamples, confidence, seed
        As in `bootstrap`.
    **options
        Those of `report` (``id_col``, ``weight_col``, ``threshold``, ``average``, ...;
        typed as `MetricOptions`), except ``per_id`` and those of tables alone.

    Raises
    ------
    MetricsInputError
        When the two models do not score exactly the same ids (of each group), the same
        classes of each id, or with the same truth (and weight) of each.

    Returns
    -------
    DataFrame or LazyFrame (a LazyFrame of a LazyFrame, else a polars DataFrame)
        Rows ``(by..., metric, model_a, model_b, difference, lower, upper, p_value)``;
        ``(by..., class, metric, ...)`` with per-class output.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> pl_metrics.paired(df, "lrap", "logreg", "knn", n_resamples=200, seed=1)
    shape: (1, 7)
    ┌────────┬─────────┬─────────┬────────────┬──────────┬──────────┬─────────┐
    │ metric ┆ model_a ┆ model_b ┆ difference ┆ lower    ┆ upper    ┆ p_value │
    │ ---    ┆ ---     ┆ ---     ┆ ---        ┆ ---      ┆ ---      ┆ ---     │
    │ str    ┆ str     ┆ str     ┆ f64        ┆ f64      ┆ f64      ┆ f64     │
    ╞════════╪═════════╪═════════╪════════════╪══════════╪══════════╪═════════╡
    │ lrap   ┆ logreg  ┆ knn     ┆ 0.006965   ┆ 0.003087 ┆ 0.011406 ┆ 0.0     │
    └────────┴─────────┴─────────┴────────────┴──────────┴──────────┴─────────┘

    knn's LRAP is above logreg's on every one of the 200 resamples (a p-value of 0: below
    2 / 200).
    """
    _check_options(paired, options, ["by"])
    options = cast(MetricOptions, as_given(options))  # (read when collected)
    names: list[str] = _metric_list(metric, "paired", "metric")
    if len(names) != 1:
        raise MetricsInputError(f"option 'metric': paired compares one metric, got {names}")
    metric = names[0]
    _check_resampling(names, n_resamples, confidence, seed)
    group: list[str] = _group(by)
    id_col = options.get("id_col", "id")
    given = to_polars(frame)
    source: pl.LazyFrame = given.lazy()
    source_schema = source.collect_schema()
    require_column(source_schema, "model_col", model_col)
    if isinstance(source_schema[model_col], (pl.List, pl.Array)):  # (polars compares none)
        raise MetricsInputError(
            f"column {model_col!r} (option 'model_col'): its values are lists "
            f"({source_schema[model_col]}); name the models by single values"
        )
    distinct_columns([("model_col", model_col), *_column_roles(options)])
    # (`by` naming a metric's column is told by resolve, as for the other functions.)
    distinct_columns([("model_col", model_col), ("id_col", id_col), *(("by", b) for b in group)])
    model_a, model_b = (
        model_value(source_schema[model_col], model_col, option, value)
        for option, value in (("model_a", model_a), ("model_b", model_b))
    )
    if model_a == model_b:  # (as the column's values: a Series given was ambiguous to ==)
        raise MetricsInputError(
            f"paired compares two models; model_a and model_b are both {model_a!r}"
        )
    pair = pl.Series([model_a, model_b], dtype=source_schema[model_col])
    lf = source.filter(pl.col(model_col).is_in(pair.implode()))
    check_key_name(model_col, "model_col", made_columns(info(metric)), metric)  # (not `by`)
    # (A DataFrame's text truth or scores are told by their values, as resolve tells them.)
    named = [*group, model_col, id_col, options.get("class_col", "class")]  # (a text cell's row)
    with counted_text(lf, keys=named) if isinstance(given, pl.DataFrame) else nullcontext():
        spec = resolve(lf, [metric], by=[*group, model_col], **at_call(options))  # options, now
    paired_keys = replace(spec.columns, by=tuple(group))  # the models are compared, not kept
    made = ["model_a", "model_b", "difference", "lower", "upper", "p_value", "metric"]
    check_key_names(paired_keys, made, "paired")
    if model_col in made:  # (working tables hold it beside columns of these names)
        raise MetricsInputError(
            f"column {model_col!r} (option 'model_col'): paired makes a column of this name; "
            "rename the input's column"
        )
    keys: list[str] = [k for k in spec.keys if k != model_col]
    cls, truth, weight = spec.columns.cls, spec.columns.truth, spec.columns.weight

    def mismatches(rows: pl.LazyFrame) -> pl.LazyFrame:
        """Ids of one model only; and (id, class) cells of one model, two truths or weights."""
        weights = pl.lit(1)
        if weight is not None:  # (NaN or infinite weights are the metric's to tell, by name)
            weights = pl.col(weight).drop_nulls()
            if rows.collect_schema()[weight].is_float():
                weights = weights.filter(weights.is_finite())
        ids = rows.select(*group, model_col, id_col).unique()
        a_ids = ids.filter(pl.col(model_col) == model_a).drop(model_col)
        b_ids = ids.filter(pl.col(model_col) == model_b).drop(model_col)
        unmatched = pl.concat(
            [
                a_ids.join(b_ids, on=[*group, id_col], how="anti", nulls_equal=True),
                b_ids.join(a_ids, on=[*group, id_col], how="anti", nulls_equal=True),
            ]
        ).select(pl.len().alias("unmatched"))
        # The same ids are not enough: a paired difference also needs the same classes of
        # each id, and the same truth (a dump that lacks a class, or was relabelled, gave a
        # confident wrong difference).
        # (Counts under working names: beside the keys, which may be named "models".)
        models, n, truths, w = (f"{INTERNAL}{c}" for c in ("models", "rows", "truths", "w"))
        cells = (
            rows.group_by(*group, id_col, cls)
            .agg(
                pl.col(model_col).n_unique().alias(models),
                pl.len().alias(n),
                pl.col(truth).drop_nulls().n_unique().alias(truths),
                weights.n_unique().alias(w),
            )
            .select(
                (pl.col(models) < 2).sum().alias("one_model"),
                # (A cell a model repeats, two tasks' say, is the metric's duplicate to tell:
                # its two truths are no difference between the models.)
                ((pl.col(truths) > 1) & (pl.col(n) == pl.col(models))).sum().alias("two_truths"),
                ((pl.col(w) > 1) & (pl.col(n) == pl.col(models))).sum().alias("two_weights"),
            )
        )
        return pl.concat([unmatched, cells], how="horizontal")

    models = source.select(
        pl.col(model_col).drop_nulls().unique().implode().alias("models"),
        pl.col(model_col).null_count().alias("nulls"),
    )

    def check(df: pl.DataFrame) -> None:
        if df["nulls"][0]:  # rows of no model: of model_a, model_b or neither?
            raise MetricsInputError(null_rows(model_col).message(df["nulls"][0], ""))
        present = df["models"][0].to_list()
        if not present:
            raise MetricsInputError(EMPTY_TABLE)
        missing = [m for m in (model_a, model_b) if m not in present]
        if missing:
            raise no_rows_of_model(model_col, missing[0], present)
        unmatched = df["unmatched"][0]
        if unmatched:
            ids = "id is" if unmatched == 1 else "ids are"
            where = ""
            if group:  # counted per group: an id in another fold of each model counts twice
                key = ", ".join([*group, id_col])
                ids = f"({key}) key is" if unmatched == 1 else f"({key}) keys are"
                where = f" in each group of {', '.join(map(repr, group))}"
            raise MetricsInputError(
                f"column {id_col!r}: {unmatched:,} {ids} scored by only one of "
                f"{model_a!r} and {model_b!r}; a paired comparison needs the same ids{where}",
                problem="unpaired",
            )
        both = f"{model_a!r} and {model_b!r}"
        cell = ", ".join([*group, id_col, cls])  # (counted per group, as the ids above)
        one_model, two_truths = df["one_model"][0], df["two_truths"][0]
        if one_model:
            rows = "row is" if one_model == 1 else "rows are"
            raise MetricsInputError(
                f"column {cls!r}: {one_model:,} ({cell}) {rows} scored by only one of "
                f"{both}; a paired comparison needs the same classes of each id",
                problem="unpaired",
            )
        for column, count, what in (
            (truth, two_truths, "truth"),
            (weight, df["two_weights"][0], "weight"),
        ):
            if count:
                rows = "row has" if count == 1 else "rows have"
                raise MetricsInputError(
                    f"column {column!r}: {count:,} ({cell}) {rows} a different {what} in "
                    f"{both}; a paired comparison needs the same {what} of each id in both",
                    problem="unpaired",
                )

    def difference(table: pl.DataFrame, value: str, keys: list[str]) -> pl.DataFrame:
        wide = table.group_by(keys).agg(
            pl.col(value).filter(pl.col(model_col) == model_a).first().alias(_A),
            pl.col(value).filter(pl.col(model_col) == model_b).first().alias(_B),
        )
        a, b = pl.col(_A), pl.col(_B)
        # Values equal but for rounding (sums in another order, say for ids of another type)
        # differ by 0: the p-value counts the signs of the differences. (An infinite or
        # undefined difference is no tie: polars has inf <= inf and NaN <= NaN.)
        tied = (b - a).is_finite() & ((b - a).abs() <= 1e-12 * pl.max_horizontal(a.abs(), b.abs()))
        return wide.select(*keys, pl.when(tied).then(0.0).otherwise(b - a).alias("difference"))

    tail = (1 - confidence) / 2

    def compute() -> pl.DataFrame:
        read = _table_read(options)
        at_collect = resolve(lf, [metric], by=[*group, model_col], **read)
        # The two models' rows, read once for the checks and the resamples (the source's
        # model column alone for the models it has).
        df = lf.select(at_collect.read).collect()
        # (The model column is no `by` of the caller's: the hint leaves it out.)
        given = replace(at_collect, columns=replace(at_collect.columns, given_by=tuple(group)))
        try:
            check(pl.concat([mismatches(df.lazy()), models], how="horizontal").collect())
        except MetricsInputError as unpaired:
            if unpaired.problem != "unpaired":
                raise
            # Bad rows in one model (a null id, a truth of 2) unpair it: the rows' own check
            # tells what they are, where it fails.
            try:
                _checked_report(df, given, [metric], [*group, model_col], read)
            except MetricsInputError as bad:
                if bad.problem in _row_keys(at_collect.columns):
                    raise bad from None
            raise
        point = _checked_report(df, given, [metric], [*group, model_col], read)
        resampled = difference(_resampled(df, at_collect, n_resamples, seed), _VALUE, [*keys, _R])
        diff = pl.col("difference").fill_nan(None)  # undefined resamples: left out
        stats = aggregate(
            resampled.lazy(),
            keys,
            [
                diff.quantile(tail, "linear").fill_null(math.nan).alias("lower"),
                diff.quantile(1 - tail, "linear").fill_null(math.nan).alias("upper"),
                (2 * pl.min_horizontal((diff <= 0).mean(), (diff >= 0).mean()))
                .clip(upper_bound=1.0)
                .fill_null(math.nan)
                .alias("p_value"),
            ],
        )
        estimate = difference(point.with_columns(pl.lit(0).alias(_R)), metric, [*keys, _R])
        joined = join_on(estimate.drop(_R).lazy(), stats, keys)  # (left: every group stays)
        out = joined.with_columns(_spread(["lower", "upper", "p_value"], "difference"))
        # Each row says what it compares, so that the tables of several calls concatenate.
        out = out.select(*keys, *compared, "difference", "lower", "upper", "p_value")
        return out.sort(keys, nulls_last=True).collect() if keys else out.collect()

    compared: list[pl.Expr] = [
        pl.lit(metric, pl.String).alias("metric"),
        pl.lit(pair[:1]).first().alias("model_a"),
        pl.lit(pair[1:]).first().alias("model_b"),
    ]
    schema = lf.select(keys).collect_schema()
    schema.update({"metric": pl.String(), "model_a": pair.dtype, "model_b": pair.dtype})
    schema.update(dict.fromkeys(["difference", "lower", "upper", "p_value"], pl.Float64()))
    return _deferred(frame, compute, schema)
