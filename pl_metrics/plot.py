"""Plots of metric tables (``pip install "pl_metrics[plot]"``: matplotlib).

Each function takes a table that pl_metrics returned and gives a matplotlib ``Figure``
(no global pyplot state, so it works headless); save it with ``fig.savefig("x.png")`` or
``.svg``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pl_metrics._frame import MetricsInputError

__all__ = ["distributions", "heatmap", "intervals", "per_class_bars"]


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


def per_class_bars(
    table: pl.DataFrame, metric: str, *, class_col: str = "class", model: str | None = None
) -> Any:
    """Bars of a per-class metric (e.g. ``lwlrap(per_class=True, by="model")``), per model."""
    _need(table, [class_col, metric, *([model] if model else [])])
    fig = _figure()
    ax = fig.add_subplot()
    classes = table[class_col].unique(maintain_order=True).sort().to_list()
    models = table[model].unique().sort().to_list() if model else [None]
    width = 0.8 / len(models)
    for k, name in enumerate(models):
        rows = table.filter(pl.col(model) == name) if model else table
        values = dict(zip(rows[class_col].to_list(), rows[metric].to_list(), strict=True))
        xs = [i + k * width for i in range(len(classes))]
        ax.bar(xs, [values.get(c) or 0.0 for c in classes], width, label=str(name))
    ax.set_xticks([i + width * (len(models) - 1) / 2 for i in range(len(classes))])
    ax.set_xticklabels([str(c) for c in classes], rotation=90 if len(classes) > 12 else 0)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} per class")
    if model:
        ax.legend()
    return fig


def distributions(table: pl.DataFrame, metrics: Sequence[str], *, bins: int = 30) -> Any:
    """Overlaid histograms of metric values over groups (e.g. per trial, as seed 004 draws)."""
    _need(table, metrics)
    fig = _figure()
    ax = fig.add_subplot()
    for metric in metrics:
        ax.hist(
            table[metric].drop_nans().drop_nulls().to_numpy(), bins=bins, alpha=0.5, label=metric
        )
    ax.set_xlabel("score")
    ax.set_ylabel("groups")
    ax.set_title(f"Distribution over {table.height:,} groups")
    ax.legend()
    return fig


def heatmap(table: pl.DataFrame, metric: str, *, model: str = "model", fold: str = "fold") -> Any:
    """A model x fold grid of a metric (from ``report(..., by=[model, fold])``), annotated."""
    _need(table, [model, fold, metric])
    grid = table.pivot(on=fold, index=model, values=metric, sort_columns=True).sort(model)
    folds = grid.columns[1:]
    values = grid.select(folds).to_numpy()
    fig = _figure(1.5 + 1.1 * len(folds), 1.2 + 0.5 * grid.height)
    ax = fig.add_subplot()
    image = ax.imshow(values, aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(folds)), [str(f) for f in folds])
    ax.set_yticks(range(grid.height), [str(m) for m in grid[model]])
    ax.set_xlabel(fold)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            ax.text(
                j, i, f"{values[i, j]:.4f}", ha="center", va="center", color="white", fontsize=8
            )
    fig.colorbar(image, ax=ax, label=metric)
    ax.set_title(f"{metric} by {model} and {fold}")
    return fig


def intervals(table: pl.DataFrame, *, label: str | None = None) -> Any:
    """Bootstrap intervals (from `pl_metrics.bootstrap`): a point and a bar per row."""
    _need(table, ["metric", "estimate", "lower", "upper"])
    keys = [c for c in table.columns if c not in ("metric", "estimate", "lower", "upper", "std")]
    names = [
        " / ".join([*(str(row[k]) for k in ((label and [label]) or keys)), str(row["metric"])])
        for row in table.iter_rows(named=True)
    ]
    fig = _figure(8.0, 1.0 + 0.35 * table.height)
    ax = fig.add_subplot()
    ys = list(range(table.height))
    estimate = table["estimate"].to_numpy()
    ax.errorbar(
        estimate,
        ys,
        xerr=[estimate - table["lower"].to_numpy(), table["upper"].to_numpy() - estimate],
        fmt="o",
        capsize=3,
    )
    ax.set_yticks(ys, names)
    ax.invert_yaxis()
    ax.set_xlabel("value (bootstrap interval)")
    return fig
