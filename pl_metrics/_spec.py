"""One resolved, immutable description of a metric computation: metrics, columns, options.

Public functions resolve their keyword options once, here, into a `Spec`; the state
builder, the file driver, Dask and `compare` all take that spec instead of option dicts.
Every option is checked once, against the registry's facts, with errors that name it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import polars as pl

from pl_metrics._counts import check_zero_division
from pl_metrics._frame import Columns, MetricsInputError, Ragged, check_option, resolve_columns
from pl_metrics._registry import METRIC_OPTIONS, METRICS, MetricInfo, info

__all__ = [
    "Average",
    "Options",
    "Spec",
    "Strategy",
    "Undefined",
    "make_options",
    "resolve",
]

Average = Literal["macro", "micro", "weighted", "samples"] | None
#: ROC AUC of a class without positives or negatives: refuse, or leave it out.
Undefined = Literal["error", "skip"]
#: Calibration bins: equal widths on [0, 1], or equal counts (quantiles of the scores).
Strategy = Literal["uniform", "quantile"]


@dataclass(frozen=True)
class Options:
    """Metric options that shape a state (a state is only merged with an equal one)."""

    threshold: float = 0.5
    average: Average = "macro"
    zero_division: float = 0.0
    beta: float = 1.0
    eps: float = 1e-15
    class_weights: tuple[tuple[str, float], ...] | None = None
    per_class: bool = False
    ragged: Ragged = "error"
    validate: bool = True
    k: int = 1
    padding: int = 5
    undefined: Undefined = "error"
    n_bins: int = 10
    strategy: Strategy = "uniform"
    max_points: int | None = None


@dataclass(frozen=True)
class Spec:
    """What to compute: metrics (unique, in order), their columns and their options."""

    metrics: tuple[str, ...]
    columns: Columns
    options: Options

    def per_class(self, metric: str) -> bool:
        """Whether ``metric`` gives one row per class under these options."""
        return per_class(info(metric), self.options)

    @property
    def keys(self) -> list[str]:
        """The key columns of the result: the groups, and the class when per class."""
        by = list(self.columns.by)
        return [*by, self.columns.cls] if self.metrics and self.per_class(self.metrics[0]) else by

    def with_options(self, **changes: Any) -> Spec:
        """The same spec with some options replaced (for per-class chunks, resamples)."""
        return replace(self, options=replace(self.options, **changes))


def per_class(entry: MetricInfo, opts: Options) -> bool:
    """Whether the metric of ``entry`` gives one row per class under ``opts``."""
    if entry.per_class == "always":
        return True
    if entry.per_class == "never":
        return False
    return opts.per_class or ("average" in entry.options and opts.average is None)


def class_weights_option(
    class_weights: Mapping[object, float] | None,
) -> tuple[tuple[str, float], ...] | None:
    """Normalise a ``class -> weight`` mapping (keys compared as strings) for `Options`."""
    if class_weights is None:
        return None
    if not isinstance(class_weights, Mapping) or not class_weights:
        raise MetricsInputError("option 'class_weights': expected a non-empty mapping")
    bad = [
        v
        for v in class_weights.values()
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0
    ]
    if bad:
        raise MetricsInputError(
            f"option 'class_weights': weights must be finite and non-negative, got {bad}"
        )
    if sum(class_weights.values()) == 0:
        raise MetricsInputError("option 'class_weights': the weights sum to zero")
    return tuple((str(k), float(v)) for k, v in class_weights.items())


def make_options(
    *,
    threshold: float = 0.5,
    average: Average = "macro",
    zero_division: float = 0.0,
    beta: float = 1.0,
    eps: float = 1e-15,
    class_weights: Mapping[object, float] | None = None,
    per_class: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
    k: int = 1,
    padding: int = 5,
    undefined: Undefined = "error",
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    max_points: int | None = None,
) -> Options:
    """Check every option's value once, with errors that name the option."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise MetricsInputError(f"option 'threshold': expected a number, got {threshold!r}")
    if not math.isfinite(threshold):
        raise MetricsInputError(f"option 'threshold': expected a finite number, got {threshold}")
    check_option("average", average, (None, "macro", "micro", "weighted", "samples"))
    if (
        isinstance(beta, bool)
        or not isinstance(beta, (int, float))
        or not math.isfinite(beta)
        or beta <= 0
    ):
        raise MetricsInputError(f"option 'beta': expected a positive number, got {beta!r}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 0.5:
        raise MetricsInputError(f"option 'eps': expected a number in [0, 0.5), got {eps!r}")
    check_option("per_class", per_class, (True, False))
    check_option("ragged", ragged, ("error", "allow"))
    check_option("validate", validate, (True, False))
    check_option("undefined", undefined, ("error", "skip"))
    check_option("strategy", strategy, ("uniform", "quantile"))
    integers = [("k", k, 1), ("padding", padding, 0), ("n_bins", n_bins, 1)]
    if max_points is not None:
        integers.append(("max_points", max_points, 2))
    for name, value, low in integers:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise MetricsInputError(f"option {name!r}: expected an integer >= {low}, got {value!r}")
    return Options(
        threshold=float(threshold),
        average=average,
        zero_division=check_zero_division(zero_division),
        beta=float(beta),
        eps=float(eps),
        class_weights=class_weights_option(class_weights),
        per_class=bool(per_class),
        ragged=ragged,
        validate=bool(validate),
        k=k,
        padding=padding,
        undefined=undefined,
        n_bins=n_bins,
        strategy=strategy,
        max_points=max_points,
    )


_DEFAULTS = Options()


def _metric_list(metrics: str | Sequence[str]) -> tuple[str, ...]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise MetricsInputError("option 'metrics': give at least one metric")
    for name in names:
        info(name)  # unknown names fail here, suggesting close ones
    return tuple(dict.fromkeys(names))


def _check_metric_options(
    entries: Sequence[MetricInfo], opts: Options, given: Mapping[str, object]
) -> None:
    """Options must mean something to the metrics asked for, with values they accept."""
    names = [e.name for e in entries]
    for option in METRIC_OPTIONS:
        if given.get(option) is not None and not any(option in e.options for e in entries):
            raise MetricsInputError(
                f"option {option!r} is not used by {', '.join(names)}; the metrics that take "
                f"it: {', '.join(_takers(option))}"
            )
    if opts.average != _DEFAULTS.average:
        for entry in entries:
            if "average" in entry.options and opts.average not in entry.averages:
                accepted = ", ".join(repr(a) for a in entry.averages)
                takers = [n for n, e in METRICS.items() if opts.average in e.averages]
                raise MetricsInputError(
                    f"option 'average': {opts.average!r} is not defined for {entry.name} "
                    f"(it takes {accepted}); {opts.average!r} is defined for {', '.join(takers)}"
                )
    if opts.per_class:
        flat = [e.name for e in entries if e.per_class == "never"]
        if flat:
            raise MetricsInputError(
                f"option 'per_class': a per-class report cannot include {flat}: they have no "
                "per-class values"
            )
    curves = [e.name for e in entries if e.kind == "curve"]
    if curves and len(entries) > 1:
        raise MetricsInputError(
            f"{curves[0]} is a table of points per class: compute it on its own, not with "
            f"{', '.join(n for n in names if n != curves[0])}"
        )
    shapes = {per_class(e, opts) for e in entries}
    if len(shapes) > 1:
        flat = [e.name for e in entries if not per_class(e, opts)]
        raise MetricsInputError(
            f"a per-class report cannot include {flat}: they have no per-class values"
        )


def _takers(option: str) -> list[str]:
    return [name for name, entry in METRICS.items() if option in entry.options]


def resolve(
    frame: pl.DataFrame | pl.LazyFrame,
    metrics: str | Sequence[str],
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred_col: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    beta: float = 1.0,
    eps: float = 1e-15,
    class_weights: Mapping[object, float] | None = None,
    per_class: bool = False,
    k: int = 1,
    padding: int = 5,
    undefined: Undefined = "error",
    n_bins: int = 10,
    strategy: Strategy = "uniform",
    max_points: int | None = None,
    ragged: Ragged = "error",
    validate: bool = True,
) -> Spec:
    """Check the metrics, options and schema of ``frame`` (reads no rows) into a `Spec`."""
    names = _metric_list(metrics)
    entries = [info(m) for m in names]
    if per_class:
        average = None
    opts = make_options(
        threshold=threshold,
        average=average,
        zero_division=zero_division,
        beta=beta,
        eps=eps,
        class_weights=class_weights,
        per_class=per_class,
        ragged=ragged,
        validate=validate,
        k=k,
        padding=padding,
        undefined=undefined,
        n_bins=n_bins,
        strategy=strategy,
        max_points=max_points,
    )
    # Options left at their default are not "given"; a changed one must be used by a metric.
    given: dict[str, object] = {
        "weight_col": weight_col,
        "pred_col": pred_col,
        "class_weights": class_weights,
        "max_points": max_points,
        "average": None if per_class or average == _DEFAULTS.average else average,
    }
    defaults = ("threshold", "zero_division", "beta", "eps", "k", "padding", "undefined")
    for option in (*defaults, "n_bins", "strategy"):
        value = getattr(opts, option)
        default = getattr(_DEFAULTS, option)
        same = value == default or (
            isinstance(value, float) and math.isnan(value) and math.isnan(default)
        )
        given[option] = None if same else value
    _check_metric_options(entries, opts, given)
    needs_score = pred_col is None or any("pred_col" not in e.options for e in entries)
    cols = resolve_columns(
        frame,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col if needs_score else None,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
        pred_col=pred_col,
    )
    return Spec(names, cols, opts)
