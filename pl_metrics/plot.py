"""Plots of metric tables (``pip install "pl_metrics[plot]"``: matplotlib).

Each function takes a table that pl_metrics returned and gives a matplotlib ``Figure``
(no global pyplot state, so it works headless); save it with ``fig.savefig("x.png")`` or
``.svg``. Column options end in ``_col``, as elsewhere in pl_metrics.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from pl_metrics._frame import MetricsInputError

# The only place this module learns a metric's direction: the metric registry.
from pl_metrics._registry import METRICS as _METRICS

__all__ = ["distributions", "heatmap", "intervals", "per_class_bars"]

#: Up to this many series, `per_class_bars` draws grouped bars in one panel with a legend.
MAX_GROUPED_SERIES = 8
#: Up to this many series, `per_class_bars` draws one small panel per series; beyond, it
#: refuses and asks for a filter.
MAX_PANELS = 40
_INTERVAL_COLUMNS = ("metric", "estimate", "lower", "upper", "std")


def _figure(width: float = 8.0, height: float = 4.5) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ImportError('plots need matplotlib: pip install "pl_metrics[plot]"') from error
    return Figure(figsize=(width, height), layout="constrained")


def _need(df: pl.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise MetricsInputError(f"the table has no column {missing}; its columns: {df.columns}")
    if df.height == 0:
        raise MetricsInputError("the table is empty: nothing to plot")


def _higher_is_better(metric: str) -> bool | None:
    """True or False for a score or a loss; None for a name without a direction."""
    entry = _METRICS.get(metric)
    return None if entry is None else entry.higher_is_better


def _direction(metric: str) -> str:
    better = _higher_is_better(metric)
    if better is None:
        return "direction unknown"
    return "higher is better" if better else "lower is better"


def _unique_rows(table: pl.DataFrame, columns: list[str], hint: str) -> None:
    counts = table.group_by(columns).len()
    repeated = counts.filter(pl.col("len") > 1)
    if repeated.height:
        example = ", ".join(f"{k}={v!r}" for k, v in repeated.row(0, named=True).items())
        raise MetricsInputError(
            f"the table has {repeated.height} ({', '.join(columns)}) combinations with several "
            f"rows (e.g. {example}); {hint}"
        )


def _sort_key(value: Any) -> tuple[tuple[int, Any], ...]:
    """Natural order: numbers as numbers, and digit runs in names too (``b_2`` before ``b_10``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ((0, value),)
    parts = re.split(r"(\d+)", str(value))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def _series_label(keys: Sequence[str], values: Sequence[Any]) -> str:
    """``knn`` for one key column, ``knn / fold 0`` for more (the first key's value alone)."""
    if not keys:
        return "all"
    parts = [str(values[0]), *(f"{k} {v}" for k, v in zip(keys[1:], values[1:], strict=True))]
    return " / ".join(parts)


def _colours(n: int) -> list[Any]:
    from matplotlib import colormaps

    name = "tab10" if n <= 10 else "tab20"
    cmap = colormaps[name]
    return [cmap(i % cmap.N) for i in range(n)]


def _tick_size(count: int) -> float:
    return 10.0 if count <= 12 else 8.0 if count <= 30 else 7.0


def per_class_bars(
    table: pl.DataFrame, metric: str, *, class_col: str = "class", model_col: str | None = None
) -> Any:
    """Bars of a per-class metric, one colour per series, side by side, with a legend.

    ``table`` is a per-class table such as ``lwlrap(df, per_class=True, by="model")`` or
    ``f1(df, average=None, by=["model", "fold"])``. With ``model_col=None`` the series are
    the combinations of the table's key columns: every column except ``class_col``,
    ``metric``, ``weight`` and other float columns (e.g. ``model``, or ``model`` and
    ``fold``, labelled ``knn / fold 0``). ``model_col="model"`` names the one key column
    instead; the table must then have one row per (model, class).

    Up to `MAX_GROUPED_SERIES` series share one panel; up to `MAX_PANELS`, each series gets
    a small panel (shared y axis, a colour per value of the first key column); more are
    refused with a `MetricsInputError` asking to filter the table.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> fig = plot.per_class_bars(pl_metrics.f1(df, average=None, by="model"), "f1")
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['forest', 'knn', 'logreg', 'naive_bayes']
    >>> fig = plot.per_class_bars(pl_metrics.f1(df, average=None, by=["model", "fold"]), "f1")
    >>> len(fig.axes), fig.axes[1].get_title()
    (20, 'forest / fold 1')
    """
    _need(table, [class_col, metric, *([model_col] if model_col else [])])
    if model_col is not None:
        keys = [model_col]
        others = _key_columns(table, [class_col, metric, model_col])
        hint = (
            f"with model_col={model_col!r} each ({model_col}, {class_col}) needs one row; "
            f"filter the table on {others} or leave model_col unset to draw every combination"
        )
    else:
        keys = _key_columns(table, [class_col, metric])
        hint = "each series needs one row per class"
    _unique_rows(table, [*keys, class_col], hint)

    classes = sorted(table[class_col].unique().to_list(), key=_sort_key)
    if keys:
        series = sorted(table.select(keys).unique().rows(), key=lambda r: [_sort_key(v) for v in r])
    else:
        series = [()]
    if len(series) > MAX_PANELS:
        raise MetricsInputError(
            f"{len(series)} series (combinations of {keys}) are too many to draw readably "
            f"(at most {MAX_PANELS}); filter the table first, e.g. "
            f"table.filter(pl.col({keys[0]!r}).is_in([...]))"
        )
    heights: list[list[float]] = []
    for values in series:
        rows = table
        for key, value in zip(keys, values, strict=True):
            rows = rows.filter(pl.col(key).is_null() if value is None else pl.col(key) == value)
        found = dict(zip(rows[class_col].to_list(), rows[metric].to_list(), strict=True))
        heights.append([math.nan if found.get(c) is None else float(found[c]) for c in classes])
    labels = [_series_label(keys, values) for values in series]
    by = f" by {' and '.join(keys)}" if keys else ""
    title = f"{metric} per {class_col}{by} ({_direction(metric)})"
    if len(series) <= MAX_GROUPED_SERIES:
        return _grouped_bars(classes, heights, labels, keys, metric, class_col, title)
    first_values = [values[0] for values in series]
    return _bar_panels(classes, heights, labels, first_values, metric, class_col, title)


def _key_columns(table: pl.DataFrame, exclude: Sequence[str]) -> list[str]:
    return [
        c
        for c, dtype in table.schema.items()
        if c not in exclude and c != "weight" and not dtype.is_float()
    ]


def _grouped_bars(
    classes: list[Any],
    heights: list[list[float]],
    labels: list[str],
    keys: list[str],
    metric: str,
    class_col: str,
    title: str,
) -> Any:
    n, m = len(heights), len(classes)
    tick_size = _tick_size(m)
    longest = max(len(str(c)) for c in classes)
    fig = _figure(min(16.0, max(8.0, 2.5 + m * (0.12 * n + 0.25))), 4.5 + 0.07 * min(longest, 30))
    ax = fig.add_subplot()
    width = 0.8 / n
    for k, (label, values, colour) in enumerate(zip(labels, heights, _colours(n), strict=True)):
        xs = [i - 0.4 + (k + 0.5) * width for i in range(m)]
        ax.bar(xs, values, width, label=label, color=colour)
    per_class_inches = (fig.get_figwidth() - 2.5) / m
    rotate = longest * tick_size * 0.6 / 72 > 0.9 * per_class_inches
    ax.set_xticks(range(m), [str(c) for c in classes], fontsize=tick_size)
    if rotate:
        ax.tick_params(axis="x", labelrotation=90)
    ax.set_xlim(-0.6, m - 0.4)
    ax.set_xlabel(class_col)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.yaxis.grid(True, alpha=0.3)
    ax.set_axisbelow(True)
    if keys:
        ax.legend(
            title=" / ".join(keys), loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
        )
    return fig


def _bar_panels(
    classes: list[Any],
    heights: list[list[float]],
    labels: list[str],
    first_values: list[Any],
    metric: str,
    class_col: str,
    title: str,
) -> Any:
    n, m = len(heights), len(classes)
    firsts = list(dict.fromkeys(first_values))
    colour_of = dict(zip(firsts, _colours(len(firsts)), strict=True))
    run = next((j for j in range(1, n + 1) if j == n or first_values[j] != first_values[0]), n)
    ncols = run if 1 < run <= 6 and n % run == 0 else min(6, math.ceil(math.sqrt(n)))
    nrows = math.ceil(n / ncols)
    longest = max(len(str(c)) for c in classes)
    panel_width = max(2.2, 0.15 * m + 0.6)
    fig = _figure(1.0 + ncols * panel_width, 1.0 + nrows * (1.7 + 0.06 * min(longest, 30)))
    tick_size = min(_tick_size(m), 8.0)
    first = None
    for i, (label, values, value) in enumerate(zip(labels, heights, first_values, strict=True)):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=first, sharey=first)
        first = first or ax
        ax.bar(range(m), values, 0.8, color=colour_of[value])
        ax.set_title(label, fontsize=9)
        ax.yaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=tick_size)
        if i + ncols < n:  # a panel below shows the class names
            ax.tick_params(axis="x", labelbottom=False)
        if i % ncols:
            ax.tick_params(axis="y", labelleft=False)
    assert first is not None
    first.set_xticks(range(m), [str(c) for c in classes])
    first.set_xlim(-0.6, m - 0.4)
    if longest * tick_size * 0.6 / 72 > 0.9 * (panel_width - 0.4) / m:
        for ax in fig.axes:
            ax.tick_params(axis="x", labelrotation=90)
    fig.suptitle(title)
    fig.supxlabel(class_col)
    fig.supylabel(metric)
    return fig


def distributions(table: pl.DataFrame, metrics: Sequence[str], *, bins: int = 30) -> Any:
    """Histograms of metric values over groups (e.g. per trial, as seed 004 draws them).

    One panel per metric, titled with its direction; the panels share their x axis when
    every value lies in [0, 1], and each keeps its own scale otherwise (scores and losses).
    """
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise MetricsInputError("option 'metrics': none given")
    _need(table, metrics)
    values = [table[m].cast(pl.Float64).drop_nans().drop_nulls().to_numpy() for m in metrics]
    unit = all(v.size == 0 or (v.min() >= 0.0 and v.max() <= 1.0) for v in values)
    ncols = min(3, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig = _figure(1.0 + 3.8 * ncols, 1.0 + 3.0 * nrows)
    first = None
    for i, (metric, data, colour) in enumerate(
        zip(metrics, values, _colours(len(metrics)), strict=True)
    ):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=first if unit else None)
        first = first or ax
        ax.hist(data, bins=bins, color=colour, edgecolor="white", linewidth=0.8)
        ax.set_title(f"{metric} ({_direction(metric)})")
        ax.set_xlabel(metric)
        if i % ncols == 0:
            ax.set_ylabel("number of groups")
        ax.yaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
    keys = _key_columns(table, metrics)
    over = f" {' x '.join(keys)}" if keys else ""
    fig.suptitle(f"Distribution over {table.height:,}{over} groups")
    return fig


def heatmap(
    table: pl.DataFrame, metric: str, *, model_col: str = "model", fold_col: str = "fold"
) -> Any:
    """A model x fold grid of a metric (from ``report(..., by=[model, fold])``), annotated.

    Models are sorted best first by their mean over folds (higher or lower is better as the
    metric says); the colour scale runs from worst (dark) to best (bright).
    """
    _need(table, [model_col, fold_col, metric])
    _unique_rows(
        table, [model_col, fold_col], f"filter the table to one {metric} per model and fold"
    )
    better = _higher_is_better(metric)
    folds = sorted(table[fold_col].unique().to_list(), key=_sort_key)
    grid = table.pivot(on=fold_col, index=model_col, values=metric)
    fold_names = [str(f) for f in folds]
    mean = pl.mean_horizontal(pl.col(fold_names).fill_nan(None))
    grid = grid.sort(mean, model_col, descending=[better is not False, False], nulls_last=True)
    values = grid.select(fold_names).cast(pl.Float64).to_numpy()
    models = [str(m) for m in grid[model_col]]
    longest = max(len(m) for m in models)
    fig = _figure(max(5.0, 2.6 + 0.08 * longest + 0.9 * len(folds)), 1.6 + 0.45 * len(models))
    ax = fig.add_subplot()
    image = ax.imshow(values, aspect="auto", cmap="viridis" if better is not False else "viridis_r")
    ax.set_xticks(range(len(folds)), fold_names)
    ax.set_yticks(range(len(models)), models)
    ax.set_xlabel(fold_col)
    ax.set_ylabel(f"{model_col} (best first)" if better is not None else model_col)
    size = 9 if len(folds) <= 8 else 7
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            value = values[i, j]
            if math.isnan(value):
                ax.text(j, i, "n/a", ha="center", va="center", color="grey", fontsize=size)
                continue
            red, green, blue, _ = image.cmap(image.norm(value))
            light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
            colour = "black" if light else "white"
            ax.text(j, i, f"{value:.4f}", ha="center", va="center", color=colour, fontsize=size)
    fig.colorbar(image, ax=ax, label=f"{metric} ({_direction(metric)})")
    ax.set_title(f"{metric} by {model_col} and {fold_col}")
    return fig


def intervals(table: pl.DataFrame, *, label: str | Sequence[str] | None = None) -> Any:
    """Bootstrap intervals (from `pl_metrics.bootstrap`): a panel per metric, best first.

    Each metric gets its own panel and x scale, titled with its direction; its rows (a point
    and an interval each) are sorted best first from the top (a metric pl_metrics does not
    know: highest estimate first), with the values written on the right. ``label`` names
    the key column(s) that label the rows (default: all of them, e.g. ``model``).
    """
    _need(table, ["metric", "estimate", "lower", "upper"])
    keys = [c for c in table.columns if c not in _INTERVAL_COLUMNS]
    names = keys if label is None else [label] if isinstance(label, str) else list(label)
    _need(table, names)
    metrics = table["metric"].unique(maintain_order=True).to_list()
    panels = [table.filter(pl.col("metric") == m) for m in metrics]
    longest = max((len(_row_name(names, row)) for row in table.iter_rows(named=True)), default=0)
    heights = [1.0 + 0.32 * p.height for p in panels]
    fig = _figure(min(14.0, 6.5 + 0.08 * longest), 0.4 + sum(heights))
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    for ax, metric, rows in zip(axes[:, 0], metrics, panels, strict=True):
        best_high = _higher_is_better(metric) is not False
        rows = rows.with_columns(pl.col("estimate", "lower", "upper").cast(pl.Float64))
        rows = rows.sort(pl.col("estimate").fill_nan(None), descending=best_high, nulls_last=True)
        estimate = rows["estimate"].to_numpy()
        lower, upper = rows["lower"].to_numpy(), rows["upper"].to_numpy()
        ys = list(range(rows.height))
        ax.errorbar(estimate, ys, xerr=[estimate - lower, upper - estimate], fmt="o", capsize=3)
        ax.set_yticks(ys, [_row_name(names, row) or metric for row in rows.iter_rows(named=True)])
        ax.set_ylim(rows.height - 0.5, -0.5)  # first row (the best) on top
        ax.xaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_title(f"{metric} ({_direction(metric)})")
        ax.set_xlabel(f"{metric}: estimate and bootstrap interval")
        transform = ax.get_yaxis_transform()
        for y, (e, lo, hi) in enumerate(zip(estimate, lower, upper, strict=True)):
            text = f"{e:.4g} [{lo:.4g}, {hi:.4g}]"
            ax.text(1.02, y, text, transform=transform, va="center", fontsize=8)
    return fig


def _row_name(names: Sequence[str], row: dict[str, Any]) -> str:
    return " / ".join(str(row[k]) for k in names)
