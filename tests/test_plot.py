"""The plots render to PNG and SVG, and show what they should where a reader can see it."""

from __future__ import annotations

import itertools
import math
import random
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import pl_metrics
from pl_metrics import plot

pytest.importorskip("matplotlib")
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex, to_rgb

DATA = Path(__file__).parent.parent / "data"
MODELS = ["forest", "knn", "logreg", "naive_bayes"]


@pytest.fixture(scope="module")
def dump() -> pl.DataFrame:
    return pl.read_parquet(DATA / "digits_properties_oof.parquet")


@pytest.fixture(scope="module")
def digits() -> pl.DataFrame:
    return pl.read_parquet(DATA / "digits_oof.parquet")


@pytest.fixture(scope="module")
def ci(digits: pl.DataFrame) -> pl.DataFrame:
    return pl_metrics.bootstrap(digits, ["lrap", "log_loss"], by="model", n_resamples=30)


def save(fig: Any, path: Path) -> None:
    for suffix in (".png", ".svg"):
        target = path.with_suffix(suffix)
        fig.savefig(target)
        assert target.stat().st_size > 1000


def render(fig: Any) -> Any:
    """Draws the figure (so texts have their final places) and gives the renderer."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def shown(texts: list[Any]) -> list[Any]:
    return [t for t in texts if t.get_visible() and t.get_text()]


def assert_readable(fig: Any, texts: list[Any]) -> None:
    """The texts are drawn inside the figure and no two of them overlap."""
    renderer = render(fig)
    page = fig.bbox
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown(texts)]
    assert boxes
    for text, box in boxes:
        assert box.x0 >= page.x0 - 1, f"{text!r} cut at the left"
        assert box.x1 <= page.x1 + 1, f"{text!r} cut at the right"
        assert box.y0 >= page.y0 - 1, f"{text!r} cut at the bottom"
        assert box.y1 <= page.y1 + 1, f"{text!r} cut at the top"
    for i, (text_a, a) in enumerate(boxes):
        for text_b, b in boxes[i + 1 :]:
            width = min(a.x1, b.x1) - max(a.x0, b.x0)
            height = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert width <= 0.5 or height <= 0.5, f"{text_a!r} overlaps {text_b!r}"


def drawn_ticks(ax: Any) -> list[Any]:
    """The tick labels of both axes that are inside the view (matplotlib draws only those)."""
    render(ax.figure)
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    xs = [t for t in ax.get_xticklabels() if x0 - 1e-9 <= t.get_position()[0] <= x1 + 1e-9]
    ys = [t for t in ax.get_yticklabels() if y0 - 1e-9 <= t.get_position()[1] <= y1 + 1e-9]
    return xs + ys


def bars(ax: Any) -> list[Any]:
    return list(ax.patches)


def bar_colours(fig: Any) -> set[str]:
    return {to_hex(p.get_facecolor()) for ax in fig.axes for p in bars(ax)}


def legend_labels(ax: Any) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "no legend"
    return [t.get_text() for t in legend.get_texts()]


def top_to_bottom(fig: Any, ax: Any) -> list[str]:
    """The y tick labels of an axes in the order a reader sees them, from the top."""
    renderer = render(fig)
    labels = shown(ax.get_yticklabels())
    return [t.get_text() for t in sorted(labels, key=lambda t: -t.get_window_extent(renderer).y0)]


def test_plots(dump: pl.DataFrame, tmp_path: Path) -> None:
    per_class = pl_metrics.lwlrap(dump, by="model", per_class=True)
    save(plot.per_class_bars(per_class, "lwlrap", model_col="model"), tmp_path / "bars")
    per_fold = pl_metrics.report(dump, ["lrap", "f1"], by=["model", "fold"])
    save(plot.heatmap(per_fold, "lrap"), tmp_path / "heatmap")
    save(plot.distributions(per_fold, ["lrap", "f1"], bins=5), tmp_path / "hist")
    ci = pl_metrics.bootstrap(dump, ["lrap", "f1"], by="model", n_resamples=30)
    save(plot.intervals(ci), tmp_path / "intervals")
    with pytest.raises(pl_metrics.MetricsInputError, match="has no column"):
        plot.heatmap(per_fold, "auc")


def test_lazy_tables_plot_as_their_collected_frames(digits: pl.DataFrame) -> None:
    """The lazy idiom returns LazyFrames: each plot collects one and draws the same figure."""
    lf = digits.lazy().filter(pl.col("class").is_in(["3", "8"]))
    per_fold = pl_metrics.report(lf, ["lrap", "f1"], by=["model", "fold"])
    tables = {
        plot.per_class_bars: (pl_metrics.f1(lf, average=None, by="model"), "f1"),
        plot.heatmap: (per_fold, "lrap"),
        plot.distributions: (per_fold, ["lrap", "f1"]),
        plot.intervals: (pl_metrics.bootstrap(lf, "lrap", by="model", n_resamples=20),),
        plot.roc_curves: (pl_metrics.roc_curve(lf, by="model"),),
        plot.pr_curves: (pl_metrics.precision_recall_curve(lf, by="model"),),
        plot.reliability: (pl_metrics.calibration_curve(lf, by="model"),),
    }
    for draw, (table, *args) in tables.items():
        assert isinstance(table, pl.LazyFrame)
        lazy, eager = draw(table, *args), draw(table.collect(), *args)
        assert len(lazy.axes) == len(eager.axes) > 0, draw.__name__
        for a, b in zip(lazy.axes, eager.axes, strict=True):
            assert a.get_title() == b.get_title(), draw.__name__
            assert [t.get_text() for t in a.get_yticklabels()] == [
                t.get_text() for t in b.get_yticklabels()
            ], draw.__name__
            for line_a, line_b in zip(a.get_lines(), b.get_lines(), strict=True):
                np.testing.assert_array_equal(line_a.get_xydata(), line_b.get_xydata())


# per_class_bars


def test_per_class_bars_draws_every_model_side_by_side(digits: pl.DataFrame) -> None:
    table = pl_metrics.f1(digits, average=None, by="model")
    fig = plot.per_class_bars(table, "f1")
    (ax,) = fig.axes
    assert len(bar_colours(fig)) == 4
    assert legend_labels(ax) == MODELS
    assert len(bars(ax)) == 4 * 10
    # Each model's bars carry its own values, and no bar hides another one.
    for container, model in zip(ax.containers, MODELS, strict=True):
        expected = table.filter(pl.col("model") == model).sort("class")["f1"].to_list()
        assert [p.get_height() for p in container] == pytest.approx(expected)
    spans = sorted((p.get_x(), p.get_x() + p.get_width()) for p in bars(ax))
    assert all(end <= start + 1e-9 for (_, end), (start, _) in itertools.pairwise(spans))
    assert ax.get_title()
    assert ax.get_xlabel() == "class"
    assert ax.get_ylabel() == "f1"
    assert_readable(fig, [*ax.get_xticklabels(), *ax.get_legend().get_texts()])


@pytest.mark.parametrize(
    ("metric", "told"),
    [
        ("lwlrap", "e.g. lwlrap(df, per_class=True, by='model')"),
        ("roc_auc", "e.g. roc_auc(df, average=None, by='model')"),
        ("lrap", "of a metric that has them (lrap has none), e.g. f1(df, average=None, by="),
        ("confusion", "per-class values: name one of its value columns as the metric, or"),
    ],
)
def test_per_class_bars_of_overall_values_says_how_to_make_them(
    digits: pl.DataFrame, metric: str, told: str
) -> None:
    # The option that makes them is the metric's own: lwlrap takes no average.
    overall = getattr(pl_metrics, metric)(digits, by="model")
    with pytest.raises(pl_metrics.MetricsInputError, match="plot a table of per-class values") as e:
        plot.per_class_bars(overall, metric)
    assert told in str(e.value)


def test_per_class_bars_weight_column_is_not_a_series(digits: pl.DataFrame) -> None:
    table = pl_metrics.lwlrap(digits, per_class=True, by="model")
    assert "weight" in table.columns
    fig = plot.per_class_bars(table, "lwlrap")
    assert legend_labels(fig.axes[0]) == MODELS
    assert len(bar_colours(fig)) == 4


def test_per_class_bars_model_and_fold_in_one_panel(digits: pl.DataFrame) -> None:
    few = digits.filter(pl.col("model").is_in(["knn", "logreg"]), pl.col("fold") < 2)
    fig = plot.per_class_bars(pl_metrics.f1(few, average=None, by=["model", "fold"]), "f1")
    (ax,) = fig.axes
    labels = ["knn / fold 0", "knn / fold 1", "logreg / fold 0", "logreg / fold 1"]
    assert legend_labels(ax) == labels
    assert len(bar_colours(fig)) == 4


def test_per_class_bars_many_series_get_a_panel_each(digits: pl.DataFrame) -> None:
    table = pl_metrics.f1(digits, average=None, by=["model", "fold"])
    fig = plot.per_class_bars(table, "f1")
    assert len(fig.axes) == 4 * 5
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [f"{m} / fold {f}" for m in MODELS for f in range(5)]
    first = fig.axes[0]
    assert all(first.get_shared_y_axes().joined(first, ax) for ax in fig.axes)
    assert all(len(bars(ax)) == 10 for ax in fig.axes)
    assert len(bar_colours(fig)) == 4  # a colour per model, the same in each of its folds
    assert fig.get_suptitle()
    assert fig.get_supylabel() == "f1"
    ticks = [t for ax in fig.axes for t in ax.get_xticklabels()]
    assert_readable(fig, [*ticks, *(ax.title for ax in fig.axes)])


def test_per_class_bars_model_col(digits: pl.DataFrame) -> None:
    per_model = pl_metrics.f1(digits, average=None, by="model")
    fig = plot.per_class_bars(per_model, "f1", model_col="model")
    assert legend_labels(fig.axes[0]) == MODELS
    per_fold = pl_metrics.f1(digits, average=None, by=["model", "fold"])
    with pytest.raises(pl_metrics.MetricsInputError, match="fold"):
        plot.per_class_bars(per_fold, "f1", model_col="model")
    with pytest.raises(TypeError):
        plot.per_class_bars(per_model, "f1", model="model")  # type: ignore[call-arg]


def test_per_class_bars_by_names_the_series_as_the_curves_do(digits: pl.DataFrame) -> None:
    per_fold = pl_metrics.f1(digits, average=None, by=["model", "fold"])
    named = plot.per_class_bars(per_fold, by=["model", "fold"])
    inferred = plot.per_class_bars(per_fold)
    assert [ax.get_title() for ax in named.axes] == [ax.get_title() for ax in inferred.axes]
    per_model = pl_metrics.f1(digits, average=None, by="model")
    assert legend_labels(plot.per_class_bars(per_model, by="model").axes[0]) == MODELS
    with pytest.raises(pl_metrics.MetricsInputError, match=r"filter the table on \['fold'\]"):
        plot.per_class_bars(per_fold, by="model")
    with pytest.raises(pl_metrics.MetricsInputError, match="'by' and 'model_col' both"):
        plot.per_class_bars(per_model, by="model", model_col="model")


def test_per_class_bars_too_many_series_are_refused() -> None:
    table = pl.DataFrame(
        {"model": [f"m{i}" for i in range(50) for _ in range(3)], "class": ["a", "b", "c"] * 50}
    ).with_columns(lwlrap=pl.lit(0.5))
    with pytest.raises(pl_metrics.MetricsInputError, match="filter"):
        plot.per_class_bars(table, "lwlrap")


@pytest.mark.parametrize(("n_classes", "n_models"), [(10, 4), (20, 12), (30, 1), (30, 4), (30, 12)])
def test_per_class_bars_class_names_do_not_overlap(n_models: int, n_classes: int) -> None:
    rng = random.Random(n_classes)
    names = [f"Accelerating_and_revving_{i}" for i in range(n_classes)]
    table = pl.DataFrame(
        [
            {"model": f"model_{m}", "class": c, "lwlrap": rng.random()}
            for m in range(n_models)
            for c in names
        ]
    )
    fig = plot.per_class_bars(table, "lwlrap")
    ticks = [t for ax in fig.axes for t in ax.get_xticklabels()]
    assert {t.get_text() for t in shown(ticks)} == set(names)
    assert_readable(fig, ticks)
    # In natural order: ..._9 before ..._10.
    assert [t.get_text() for t in shown(fig.axes[-1].get_xticklabels())] == names


# heatmap


def contrast(a: Any, b: Any) -> float:
    def luminance(colour: Any) -> float:
        channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in colour]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    high, low = sorted([luminance(to_rgb(a)), luminance(to_rgb(b))], reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("metric", ["lrap", "log_loss"])
def test_heatmap_models_best_first_and_legible(digits: pl.DataFrame, metric: str) -> None:
    per_fold = pl_metrics.report(digits, [metric], by=["model", "fold"])
    table = per_fold.rename({"model": "clf", "fold": "split"})
    fig = plot.heatmap(table, metric, model_col="clf", fold_col="split")
    ax = fig.axes[0]
    means = table.group_by("clf").agg(pl.col(metric).mean())
    best = means.sort(metric, descending=metric == "lrap")["clf"].to_list()
    assert top_to_bottom(fig, ax) == best
    assert ax.get_xlabel() == "split"
    # By the mean over folds, as the axis says: compare ranks by the pooled value.
    assert ax.get_ylabel() == "clf\n(best mean first)"
    two = plot.heatmap(
        table.filter(pl.col("clf").is_in(best[:2])), metric, model_col="clf", fold_col="split"
    )
    assert_readable(two, [two.axes[0].yaxis.label, two.axes[0].title])
    assert ax.get_title()
    (image,) = ax.get_images()
    grid = image.get_array()
    assert len(ax.texts) == 4 * 5
    for text in ax.texts:
        x, y = text.get_position()
        cell = image.cmap(image.norm(grid[round(y), round(x)]))
        assert contrast(text.get_color(), cell) >= 3.0, text.get_text()
    # naive_bayes' log loss is 15-80 times the others': on a linear scale they were one colour.
    from matplotlib.colors import LogNorm

    assert isinstance(image.norm, LogNorm) == (metric == "log_loss")
    if metric == "log_loss":  # knn's folds, 0.05 to 0.17, in colours apart
        knn = image.norm(grid[best.index("knn")])
        assert max(knn) - min(knn) > 0.2
    with pytest.raises(TypeError):
        plot.heatmap(table, metric, model="clf", fold="split")  # type: ignore[call-arg]


# intervals


def test_intervals_one_panel_per_metric(ci: pl.DataFrame) -> None:
    fig = plot.intervals(ci)
    assert len(fig.axes) == 2
    panels = {ax.get_title(): ax for ax in fig.axes}
    assert set(panels) == {"log_loss (lower is better)", "lrap (higher is better)"}
    loss, lrap = panels["log_loss (lower is better)"], panels["lrap (higher is better)"]
    # Each panel has its own scale: lrap's models are not squeezed next to the log losses.
    assert lrap.get_xlim()[1] < 1.05
    assert loss.get_xlim()[1] > 2.0
    assert lrap.get_xlim()[0] > 0.8
    texts = [t for ax in fig.axes for t in (*drawn_ticks(ax), *ax.texts, ax.title, ax.xaxis.label)]
    assert_readable(fig, texts)


def test_intervals_rows_best_first(ci: pl.DataFrame) -> None:
    fig = plot.intervals(ci)
    panels = {ax.get_title().split()[0]: ax for ax in fig.axes}
    for metric, higher_is_better in [("lrap", True), ("log_loss", False)]:
        rows = ci.filter(pl.col("metric") == metric)
        best = rows.sort("estimate", descending=higher_is_better)["model"].to_list()
        assert top_to_bottom(fig, panels[metric]) == best
    assert top_to_bottom(fig, panels["lrap"])[-1] == "naive_bayes"
    assert top_to_bottom(fig, panels["log_loss"])[-1] == "naive_bayes"


def test_intervals_name_the_level_and_the_resamples(ci: pl.DataFrame) -> None:
    # The bootstrap table holds neither: a reader of the picture needs both.
    fig = plot.intervals(ci, confidence=0.9, n_resamples=1000)
    labels = {ax.get_xlabel() for ax in fig.axes}
    assert labels == {
        f"{m}: estimate and 90% bootstrap interval, 1,000 resamples" for m in ("lrap", "log_loss")
    }
    assert plot.intervals(ci).axes[0].get_xlabel().endswith("estimate and bootstrap interval")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"option 'confidence'.*got 95"):
        plot.intervals(ci, confidence=95)
    for resamples in (0, 1):  # (bootstrap and paired draw at least 2)
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"^option 'n_resamples': expected an integer in \[2, 1,000,000\], got "
            rf"{resamples}$",
        ):
            plot.intervals(ci, n_resamples=resamples)
    # A metric's name in another case: the table's column is named (a report of 'F1' is none).
    per_fold = pl_metrics.report(
        pl.read_parquet(DATA / "digits_oof.parquet"), ["f1"], by=["model", "fold"]
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^the table has no column 'F1'; its columns: \['model', 'fold', 'f1'\]; did you "
        r"mean 'f1'\?$",
    ):
        plot.heatmap(per_fold, "F1")


def test_intervals_draw_an_estimate_outside_its_interval() -> None:
    """A percentile interval need not hold the estimate; an upside-down one is refused."""
    table = pl.DataFrame(
        {
            "model": ["a", "b"],
            "metric": "f1",
            "estimate": [0.9, 0.5],
            "lower": [0.6, 0.4],
            "upper": [0.8, 0.7],  # a's estimate above its interval
            "std": 0.05,
        }
    )
    (ax,) = plot.intervals(table).axes
    (points,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    np.testing.assert_allclose(points.get_xdata(), [0.9, 0.5])  # best first
    (segments,) = ax.containers[0].lines[2]
    spans = [list(path.vertices[:, 0]) for path in segments.get_paths()]
    assert spans == [pytest.approx([0.6, 0.8]), pytest.approx([0.4, 0.7])]
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^columns 'lower' and 'upper': 1 row has lower"
    ):
        plot.intervals(table.with_columns(upper=pl.Series([0.5, 0.7])))
    # A NaN or infinite bound draws no interval (polars sorts NaN above every number).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        open_ended = table.with_columns(lower=pl.Series([float("nan"), -math.inf]))
        (ax,) = plot.intervals(open_ended).axes
    (points,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    np.testing.assert_allclose(points.get_xdata(), [0.9, 0.5])


def test_intervals_unknown_metric_and_label() -> None:
    table = pl.DataFrame(
        {
            "model": ["a", "b", "c", "a", "b", "c"],
            "fold": [0, 0, 0, 1, 1, 1],
            "metric": ["mystery"] * 6,
            "estimate": [0.2, 0.9, 0.5, 0.1, 0.3, float("nan")],
        }
    ).with_columns(
        lower=pl.col("estimate") - 0.05, upper=pl.col("estimate") + 0.05, std=pl.lit(0.02)
    )
    fig = plot.intervals(table)
    (ax,) = fig.axes
    assert "direction unknown" in ax.get_title()
    order = ["b / fold 0", "c / fold 0", "b / fold 1", "a / fold 0", "a / fold 1", "c / fold 1"]
    assert top_to_bottom(fig, ax) == order  # highest estimate first, NaN last, keys named
    fig = plot.intervals(table, by="model")  # (by=, as the other plots name their series)
    assert top_to_bottom(fig, fig.axes[0]) == ["b", "c", "b", "a", "a", "c"]
    for name in ("label", "labels"):
        with pytest.raises(pl_metrics.UnknownOptionError, match=f"'{name}'; did you mean 'by'\\? "):
            plot.intervals(table, **{name: "model"})


# distributions


def test_distributions_one_panel_per_metric(digits: pl.DataFrame) -> None:
    per_fold = pl_metrics.report(digits, ["lrap", "f1", "log_loss"], by=["model", "fold"])
    fig = plot.distributions(per_fold, ["lrap", "f1", "log_loss"], bins=8)
    assert [ax.get_title() for ax in fig.axes] == [
        "lrap (higher is better)",
        "f1 (higher is better)",
        "log_loss (lower is better)",
    ]
    assert [ax.get_xlabel() for ax in fig.axes] == ["lrap", "f1", "log_loss"]
    assert all(sum(p.get_height() for p in bars(ax)) == 20 for ax in fig.axes)
    assert "20" in fig.get_suptitle()
    assert_readable(fig, [t for ax in fig.axes for t in (*drawn_ticks(ax), ax.title)])
    # Left out, the report's metric columns (as heatmap takes its one): a TypeError before.
    default = plot.distributions(per_fold, bins=8)
    assert [ax.get_title() for ax in default.axes] == [ax.get_title() for ax in fig.axes]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"no column named as a metric"):
        plot.distributions(per_fold.select("model", "fold"))


# roc_curves, pr_curves, reliability


@pytest.fixture(scope="module")
def roc(digits: pl.DataFrame) -> pl.DataFrame:
    return pl_metrics.roc_curve(digits, by="model")


@pytest.fixture(scope="module")
def pr(digits: pl.DataFrame) -> pl.DataFrame:
    return pl_metrics.precision_recall_curve(digits, by="model")


def curves(ax: Any) -> list[Any]:
    """The lines of the series (the diagonal has no legend label)."""
    return [line for line in ax.get_lines() if not line.get_label().startswith("_")]


def legend_values(ax: Any, stat: str) -> dict[str, float]:
    """``{"knn": 0.999}`` from legend entries such as ``knn (AUC 0.999)``."""
    values = {}
    for text in legend_labels(ax):
        name, _, rest = text.rpartition(f" ({stat} ")
        values[name] = float(rest.rstrip(")"))
    return values


def per_class(table: pl.DataFrame, metric: str, cls: str) -> dict[str, float]:
    rows = table.filter(pl.col("class") == cls)
    return dict(zip(rows["model"].to_list(), rows[metric].to_list(), strict=True))


def has_diagonal(ax: Any) -> bool:
    return any(
        list(line.get_xdata()) == [0, 1] and list(line.get_ydata()) == [0, 1]
        for line in ax.get_lines()
    )


def test_roc_curves_one_line_per_model(digits: pl.DataFrame, roc: pl.DataFrame) -> None:
    fig = plot.roc_curves(roc.filter(pl.col("class") == "3"))
    (ax,) = fig.axes
    assert len(curves(ax)) == 4
    assert legend_labels(ax)[1].startswith("knn (AUC ")
    auc = per_class(pl_metrics.roc_auc(digits, by="model", average=None), "roc_auc", "3")
    got = legend_values(ax, "AUC")
    assert list(got) == MODELS
    for model in MODELS:
        assert got[model] == pytest.approx(auc[model], abs=5e-4)  # to 3 decimals
    # The drawn points give the AUC exactly (trapezoids), as roc_auc computes it.
    for line, model in zip(curves(ax), MODELS, strict=True):
        xs, ys = line.get_xdata(), line.get_ydata()
        area = sum(
            (b - a) * (c + d) / 2 for a, b, c, d in zip(xs, xs[1:], ys, ys[1:], strict=False)
        )
        assert area == pytest.approx(auc[model], rel=1e-9)
    assert has_diagonal(ax)
    assert ax.get_xlim() == (0.0, 1.0)
    assert ax.get_ylim() == (0.0, 1.0)
    assert ax.get_xlabel() == "false positive rate"
    assert ax.get_ylabel() == "true positive rate"
    assert "class 3" in ax.get_title()
    assert_readable(fig, [*drawn_ticks(ax), *ax.get_legend().get_texts(), ax.title])


def test_roc_curves_one_model_gets_a_line_per_class(roc: pl.DataFrame) -> None:
    fig = plot.roc_curves(roc.filter(pl.col("model") == "knn"))
    (ax,) = fig.axes
    assert len(curves(ax)) == 10
    assert list(legend_values(ax, "AUC")) == [str(c) for c in range(10)]
    assert ax.get_legend().get_title().get_text() == "class"
    assert len({to_hex(line.get_color()) for line in curves(ax)}) == 10
    assert "knn" in ax.get_title()


def test_roc_curves_small_multiples(digits: pl.DataFrame, roc: pl.DataFrame) -> None:
    fig = plot.roc_curves(roc)
    assert len(fig.axes) == 10
    assert [ax.get_title() for ax in fig.axes] == [f"class {c}" for c in range(10)]
    first = fig.axes[0]
    assert all(first.get_shared_x_axes().joined(first, ax) for ax in fig.axes)
    assert all(first.get_shared_y_axes().joined(first, ax) for ax in fig.axes)
    auc = pl_metrics.roc_auc(digits, by="model", average=None)
    colours = [to_hex(line.get_color()) for line in curves(first)]
    assert len(set(colours)) == 4
    for cls, ax in enumerate(fig.axes):
        assert len(curves(ax)) == 4
        assert [to_hex(line.get_color()) for line in curves(ax)] == colours  # a model's colour
        got, want = legend_values(ax, "AUC"), per_class(auc, "roc_auc", str(cls))
        assert list(got) == MODELS
        assert [got[m] for m in MODELS] == pytest.approx([want[m] for m in MODELS], abs=5e-4)
        assert has_diagonal(ax)
    assert fig.axes[-1].get_xlabel() == "false positive rate"
    assert fig.axes[0].get_ylabel() == "true positive rate"
    assert "by model" in fig.get_suptitle()
    texts = [t for ax in fig.axes for t in (*ax.get_legend().get_texts(), ax.title)]
    ticks = [*drawn_ticks(fig.axes[0]), *drawn_ticks(fig.axes[-1])]  # the others are hidden
    assert_readable(fig, [*texts, *ticks])


def test_curves_show_the_first_classes_of_many() -> None:
    rng = random.Random(3)
    rows = [
        {
            "model": m,
            "id": i,
            "class": f"bird_{c}",
            "score": rng.random(),
            "truth": rng.random() < 0.3,
        }
        for m in ("a", "b")
        for i in range(40)
        for c in range(15)
    ]
    table = pl_metrics.roc_curve(pl.DataFrame(rows), by="model")
    fig = plot.roc_curves(table)
    assert len(fig.axes) == plot.MAX_CLASS_PANELS == 12
    assert fig.axes[-1].get_title() == "class bird_11"  # natural order: bird_2 before bird_10
    assert "the first 12 of 15" in fig.get_suptitle()
    assert len(plot.roc_curves(table, max_classes=20).axes) == 15
    fig = plot.roc_curves(table.filter(pl.col("model") == "a"))  # one series, many classes
    assert len(fig.axes) == 12
    assert all(len(curves(ax)) == 1 for ax in fig.axes)


def test_long_titles_fit_inside_their_figure(digits: pl.DataFrame) -> None:
    """Long key names made titles wider than narrow figures: both ends were cut."""
    long = digits.rename({"model": "MODEL_WITH_UPPERCASE_NAME_WWWWWWW"}).with_columns(
        experiment_configuration=pl.lit("v2")
    )
    keys = ["MODEL_WITH_UPPERCASE_NAME_WWWWWWW", "experiment_configuration"]
    roc = pl_metrics.roc_curve(long, by=keys[0])
    figures = [plot.roc_curves(roc, max_classes=n) for n in (1, 2, 3)]
    one_class = long.filter(pl.col("class") == "3")
    figures.append(plot.roc_curves(pl_metrics.roc_curve(one_class, by=keys)))  # one panel
    figures.append(plot.reliability(pl_metrics.calibration_curve(one_class, by=keys)))
    per_class = pl_metrics.f1(long.filter(pl.col(keys[0]) == "knn"), by=keys, average=None)
    figures.append(plot.per_class_bars(per_class, "f1"))
    for fig in figures:
        titles = [t for t in (fig._suptitle, *(ax.title for ax in fig.axes)) if t]
        assert_readable(fig, titles)
        assert "MODEL_WITH_UPPERCASE_NAME_WWWWWWW" in " ".join(t.get_text() for t in titles)


def test_long_key_values_keep_legends_inside_their_panels(digits: pl.DataFrame) -> None:
    """Long model names made legends wider than their panels: they covered the next panel,
    and a single panel's collapsed its axes to a sliver."""
    names = {
        "knn": "efficientnet_b0_noisy_student_ensemble_v2",
        "logreg": "logistic_regression_baseline_tfidf_c1",
        "forest": "random_forest_500_trees_depth12_balanced",
        "naive_bayes": "gaussian_naive_bayes_default_settings",
    }
    long = digits.with_columns(pl.col("model").replace(names), run=pl.col("fold") % 3)
    three = long.filter(pl.col("class").is_in(["1", "3", "5"]))
    one = long.filter(pl.col("class") == "3").with_columns(
        experiment_name=pl.lit("2026-11-30_sweep_learning_rate")
    )
    figures = [
        plot.roc_curves(pl_metrics.roc_curve(three, by="model")),  # a panel per class
        plot.reliability(pl_metrics.calibration_curve(three, by="model")),
        plot.roc_curves(pl_metrics.roc_curve(one, by=["model", "experiment_name", "fold"])),
        plot.pr_curves(pl_metrics.precision_recall_curve(one, by=["model", "run"])),  # 12
    ]
    for fig in figures:
        renderer = render(fig)
        legends = [(ax, ax.get_legend()) for ax in fig.axes if ax.get_legend()]
        assert legends
        texts = [t for _, legend in legends for t in (legend.get_title(), *legend.get_texts())]
        assert_readable(fig, [*texts, *(ax.title for ax in fig.axes)])
        for ax, legend in legends:
            panel, box = ax.get_window_extent(renderer), legend.get_window_extent(renderer)
            assert panel.width > 200  # (a collapsed panel: about 0)
            assert fig.bbox.x0 <= box.x0
            assert box.x1 <= fig.bbox.x1
            assert fig.bbox.y0 <= box.y0
            if len(fig.axes) > 2:  # small multiples: each legend in its own panel
                assert panel.x0 - 1 <= box.x0
                assert box.x1 <= panel.x1 + 1
    first = figures[0].axes[0].get_legend().get_texts()[0].get_text()
    name, rest, stat = first.split("\n")  # wrapped at underscores, the AUC kept whole
    assert (name, rest) == ("efficientnet_b0_noisy_", "student_ensemble_v2")
    assert re.fullmatch(r"\(AUC \d\.\d{3}\)", stat)


def test_curves_refuse_tables_they_cannot_draw(
    digits: pl.DataFrame, roc: pl.DataFrame, pr: pl.DataFrame
) -> None:
    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=r"has no columns \['fpr', 'tpr'\]"):
        plot.roc_curves(pr)
    with pytest.raises(error, match=r"has no columns \['recall', 'precision'\]"):
        plot.pr_curves(roc)
    with pytest.raises(error, match=r"has no columns \['prob_pred', 'prob_true', 'count'\]"):
        plot.reliability(roc)
    with pytest.raises(error, match="empty"):
        plot.roc_curves(roc.head(0))
    per_fold = pl_metrics.roc_curve(digits.filter(pl.col("class") == "1"), by=["model", "fold"])
    assert len(curves(plot.roc_curves(per_fold).axes[0])) == 20
    with pytest.raises(error, match=r"add \['fold'\] to by"):
        plot.roc_curves(per_fold, by=["model"])
    # `by`, as the tables' functions name it: one column name or several.
    one_fold = per_fold.filter(pl.col("fold") == 0).drop("fold")
    assert len(curves(plot.roc_curves(one_fold, by="model").axes[0])) == 4
    extra = per_fold.filter(pl.col("model") == "knn", pl.col("fold") == 0)
    more = pl.concat([per_fold, extra.with_columns(pl.lit(9, pl.Int8).alias("fold"))])
    with pytest.raises(error, match=r"21 lines .* too many .* one panel .* filter the table"):
        plot.roc_curves(more)
    two = pl_metrics.roc_curve(digits.filter(pl.col("class") < "2"), by=["model", "fold"])
    with pytest.raises(error, match=r"20 lines .* each class's panel \(at most 8\)"):
        plot.roc_curves(two)
    assert len(plot.roc_curves(two.filter(pl.col("fold") == 0)).axes) == 2


def test_curves_of_a_class_without_positives() -> None:
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2],
            "class": ["a", "b"] * 3,
            "score": [0.9, 0.1, 0.3, 0.7, 0.6, 0.2],
            "truth": [True, False, False, False, True, False],
        }
    )
    fig = plot.roc_curves(pl_metrics.roc_curve(df))
    assert legend_labels(fig.axes[0]) == ["a (AUC 1.000)", "b (AUC n/a)"]


def test_pr_curves_average_precision(digits: pl.DataFrame, pr: pl.DataFrame) -> None:
    ap = pl_metrics.average_precision(digits, by="model", average=None)
    fig = plot.pr_curves(pr)
    assert len(fig.axes) == 10
    for cls, ax in enumerate(fig.axes):
        want = per_class(ap, "average_precision", str(cls))
        got = legend_values(ax, "AP")
        assert [got[m] for m in MODELS] == pytest.approx([want[m] for m in MODELS], abs=5e-4)
        for line, model in zip(curves(ax), MODELS, strict=True):
            assert line.get_drawstyle() == "steps-post"
            recall, precision = line.get_xdata(), line.get_ydata()
            steps = sum(
                (r0 - r1) * p for r0, r1, p in zip(recall, recall[1:], precision, strict=False)
            )
            assert steps == pytest.approx(want[model], rel=1e-9)  # the area drawn is the AP
        assert ax.get_xlim() == (0.0, 1.0)
        assert ax.get_ylim() == (0.0, 1.0)
    assert fig.axes[-1].get_xlabel() == "recall"
    assert fig.axes[0].get_ylabel() == "precision"
    one = plot.pr_curves(pr.filter(pl.col("class") == "8"))
    assert list(legend_values(one.axes[0], "AP")) == MODELS


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_expected_calibration_error(digits: pl.DataFrame, strategy: str) -> None:
    table = pl_metrics.calibration_curve(digits, by="model", strategy=strategy)
    ece = pl_metrics.expected_calibration_error(digits, by="model", strategy=strategy, average=None)
    fig = plot.reliability(table.filter(pl.col("class") == "8"))
    main, below = fig.axes
    assert len(curves(main)) == 4
    got, want = legend_values(main, "ECE"), per_class(ece, "expected_calibration_error", "8")
    assert [got[m] for m in MODELS] == pytest.approx([want[m] for m in MODELS], abs=5e-4)
    assert has_diagonal(main)
    assert all(line.get_marker() == "o" for line in curves(main))
    # Beside the square: its points lie anywhere in it (in a corner, the legend hid some).
    renderer = render(fig)
    panel, legend = main.get_window_extent(renderer), main.get_legend().get_window_extent(renderer)
    assert legend.x0 >= panel.x1
    assert legend.x1 <= fig.bbox.x1
    assert main.get_xlim() == (0.0, 1.0)
    assert main.get_ylim() == (0.0, 1.0)
    assert "prob_true" in main.get_ylabel()
    assert "prob_pred" in below.get_xlabel()
    assert below.get_ylabel() == "count"
    assert below.get_yscale() == "log"
    assert len(below.get_lines()) == 4
    assert_readable(fig, [*drawn_ticks(main), *drawn_ticks(below), *main.get_legend().get_texts()])
    fig = plot.reliability(table, counts=False)
    assert len(fig.axes) == 10
    for cls, ax in enumerate(fig.axes):
        got, want = legend_values(ax, "ECE"), per_class(ece, "expected_calibration_error", str(cls))
        assert [got[m] for m in MODELS] == pytest.approx([want[m] for m in MODELS], abs=5e-4)


def test_reliability_one_model_many_classes_gets_panels(digits: pl.DataFrame) -> None:
    table = pl_metrics.calibration_curve(digits.filter(pl.col("model") == "naive_bayes"))
    fig = plot.reliability(table)
    assert len(fig.axes) == 2 * 10  # a panel per class, each with its counts underneath
    assert sum(len(curves(ax)) for ax in fig.axes) == 10
    few = plot.reliability(table.filter(pl.col("class").is_in(["1", "2", "3"])))
    assert len(few.axes) == 2
    assert len(curves(few.axes[0])) == 3


def test_a_long_curve_is_drawn_through_fewer_points_its_auc_from_all() -> None:
    rng = np.random.default_rng(0)
    n = 3 * plot.MAX_DRAWN_POINTS
    truth = rng.random(n) < 0.3
    df = pl.DataFrame(
        {"id": range(n), "class": "a", "score": rng.random(n) + 0.3 * truth, "truth": truth}
    )
    fig = plot.roc_curves(pl_metrics.roc_curve(df))
    drawn = max(len(line.get_xdata()) for line in fig.axes[0].get_lines())
    assert plot.MAX_DRAWN_POINTS // 2 < drawn <= plot.MAX_DRAWN_POINTS
    auc = pl_metrics.roc_auc(df).item()
    assert 0.6 < auc < 0.99
    assert fig.axes[0].get_legend().get_texts()[0].get_text().endswith(f"(AUC {auc:.3f})")


def test_curve_plots_render(digits: pl.DataFrame, tmp_path: Path) -> None:
    roc = pl_metrics.roc_curve(digits, by="model", max_points=200)
    save(plot.roc_curves(roc), tmp_path / "roc")
    pr = pl_metrics.precision_recall_curve(digits.filter(pl.col("model") == "knn"), max_points=200)
    save(plot.pr_curves(pr), tmp_path / "pr")
    one = digits.filter(pl.col("class") == "8")
    table = pl_metrics.calibration_curve(one, by="model", strategy="quantile")
    save(plot.reliability(table), tmp_path / "reliability")


# bad input: a MetricsInputError naming the option or column, never an error from inside


@pytest.fixture(scope="module")
def small() -> dict[str, pl.DataFrame]:
    df = pl.DataFrame(
        {
            "model": ["a"] * 6 + ["b"] * 6,
            "fold": [0, 0, 0, 0, 1, 1] * 2,
            "id": [0, 0, 1, 1, 2, 2] * 2,
            "class": ["x", "y"] * 6,
            "score": [0.9, 0.1, 0.3, 0.7, 0.6, 0.4, 0.2, 0.8, 0.5, 0.5, 0.7, 0.3],
            "truth": [True, False, False, True, True, False] * 2,
        }
    )
    return {
        "roc": pl_metrics.roc_curve(df, by="model"),
        "pr": pl_metrics.precision_recall_curve(df, by="model"),
        "calibration": pl_metrics.calibration_curve(df, by="model", n_bins=2),
        "report": pl_metrics.report(df, ["lrap"], by=["model", "fold"]),
        "per_class": pl_metrics.f1(df, average=None, by="model"),
        "intervals": pl_metrics.bootstrap(df, "lrap", by="model", n_resamples=5),
    }


BAD_OPTIONS = [
    (plot.roc_curves, "roc", {"max_classes": "3"}, "option 'max_classes': expected a positive"),
    (plot.roc_curves, "roc", {"max_classes": 2.0}, "option 'max_classes'"),
    (plot.pr_curves, "pr", {"max_classes": True}, "option 'max_classes'"),
    (plot.roc_curves, "roc", {"class_col": None}, "option 'class_col': expected a column name"),
    (plot.roc_curves, "roc", {"by": 1}, "option 'by': expected column names"),
    (plot.roc_curves, "roc", {"by": ["model", "model"]}, "'model' named more"),
    (plot.roc_curves, "roc", {"by": ["threshold"]}, "hold the points of each curve"),
    (plot.reliability, "calibration", {"counts": "yes"}, "option 'counts': expected True or"),
    (plot.distributions, "report", {"metrics": "lrap", "bins": 0}, "option 'bins': expected a"),
    (plot.distributions, "report", {"metrics": "lrap", "bins": "auto"}, "option 'bins'"),
    (plot.distributions, "report", {"metrics": "lrap", "bins": 10**6}, "at most 1,000"),
    (plot.distributions, "report", {"metrics": 1}, "option 'metrics': expected column names"),
    (plot.distributions, "report", {"metrics": ["lrap", "lrap"]}, "named more than once"),
    (plot.heatmap, "report", {"metric": 3}, "option 'metric': expected a column name"),
    (plot.heatmap, "report", {"metric": "lrap", "model_col": "fold"}, "'model_col' and 'fold_"),
    (plot.heatmap, "report", {"metric": "lrap", "fold_col": "lrap"}, "'metric' and 'fold_col'"),
    (plot.per_class_bars, "per_class", {"metric": "f1", "model_col": "class"}, "both name"),
    (plot.per_class_bars, "per_class", {"metric": "class"}, "both name column 'class'"),
    (plot.intervals, "intervals", {"by": 1}, "option 'by': expected column names"),
]


@pytest.mark.parametrize(("draw", "table", "options", "message"), BAD_OPTIONS)
def test_plots_refuse_bad_options(
    small: dict[str, pl.DataFrame], draw: Any, table: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        draw(small[table], **options)


TABLES = [
    (plot.roc_curves, "roc", {}, "fpr"),
    (plot.pr_curves, "pr", {}, "recall"),
    (plot.reliability, "calibration", {}, "prob_true"),
    (plot.distributions, "report", {"metrics": ["lrap"]}, "lrap"),
    (plot.heatmap, "report", {"metric": "lrap"}, "lrap"),
    (plot.per_class_bars, "per_class", {"metric": "f1"}, "f1"),
    (plot.intervals, "intervals", {}, "estimate"),
]


@pytest.mark.parametrize(("draw", "table", "options", "numbers"), TABLES)
def test_plots_refuse_what_is_not_a_table_of_numbers(
    small: dict[str, pl.DataFrame],
    draw: Any,
    table: str,
    options: dict[str, Any],
    numbers: str,
) -> None:
    error = pl_metrics.MetricsInputError
    for not_a_table in (None, {"fpr": [0.0]}):
        with pytest.raises(error, match="option 'table': expected a polars DataFrame"):
            draw(not_a_table, **options)
    text = small[table].with_columns(pl.col(numbers).cast(pl.String))
    with pytest.raises(error, match=f"column '{numbers}': expected numbers to plot, got String"):
        draw(text, **options)
    with pytest.raises(error, match=f"column '{numbers}': expected numbers"):
        draw(small[table].with_columns(pl.lit(True).alias(numbers)), **options)
    draw(small[table].to_arrow(), **options)  # an Arrow table plots, as the metrics read it


def test_plots_refuse_list_labels(small: dict[str, pl.DataFrame]) -> None:
    error = pl_metrics.MetricsInputError
    listed = pl.concat_list("fold").alias("fold")
    with pytest.raises(error, match=r"column 'fold': expected values to label .* List\(Int64\)"):
        plot.heatmap(small["report"].with_columns(listed), "lrap")
    listed = pl.concat_list("class").alias("class")
    with pytest.raises(error, match="column 'class': expected values to label"):
        plot.per_class_bars(small["per_class"].with_columns(listed), "f1")
    with pytest.raises(error, match="column 'class': expected values to label"):
        plot.roc_curves(small["roc"].with_columns(listed))


def test_heatmap_null_folds_and_folds_named_like_a_column(small: dict[str, pl.DataFrame]) -> None:
    """The grid is not a pivot, whose columns are named by the folds."""
    report = small["report"]
    fold = pl.when(pl.col("fold") == 0).then(pl.lit(None)).otherwise(pl.lit("model"))
    fig = plot.heatmap(report.with_columns(fold=fold), "lrap")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["model", "None"]
    decimal = report.with_columns(pl.col("lrap").cast(pl.Decimal(10, 4)))
    grid = plot.heatmap(decimal, "lrap").axes[0].get_images()[0].get_array()
    expected = plot.heatmap(report, "lrap").axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(grid, expected, atol=1e-4)


def test_distributions_leave_out_infinite_values(small: dict[str, pl.DataFrame]) -> None:
    report = small["report"]
    lrap = pl.when(pl.col("fold") == 0).then(float("inf")).otherwise("lrap")
    fig = plot.distributions(report.with_columns(lrap=lrap), "lrap", bins=3)
    assert sum(p.get_height() for p in bars(fig.axes[0])) == 2
    assert "no finite value, left out: lrap 2" in " ".join(fig.get_suptitle().split())


def test_intervals_of_a_null_metric(small: dict[str, pl.DataFrame]) -> None:
    table = small["intervals"].with_columns(metric=pl.lit(None, pl.String))
    (ax,) = plot.intervals(table).axes
    assert len(ax.get_yticklabels()) == 2


def test_a_table_of_one_metric_plots_without_naming_it(digits: pl.DataFrame) -> None:
    """Its one column named as a metric is the one plotted; several, or none, are asked for."""
    per_class = pl_metrics.f1(digits, average=None, by="model")

    def heights(fig: Any) -> list[float]:
        return [p.get_height() for p in bars(fig.axes[0])]

    assert heights(plot.per_class_bars(per_class)) == heights(plot.per_class_bars(per_class, "f1"))
    assert plot.per_class_bars(per_class).axes[0].get_ylabel() == "f1"
    grid = pl_metrics.lrap(digits, by=["model", "fold"])
    named = plot.heatmap(grid, "lrap")
    assert plot.heatmap(grid).axes[0].get_title() == named.axes[0].get_title()
    both = pl_metrics.report(digits, ["lrap", "f1"], by=["model", "fold"])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"columns \['lrap', 'f1'\] named"):
        plot.heatmap(both)
    with pytest.raises(pl_metrics.MetricsInputError, match="no column named as a metric"):
        plot.per_class_bars(per_class.rename({"f1": "score"}))


def test_the_count_line_breaks_at_empty_bins() -> None:
    """Bins 0 and 3 hold rows, 1 and 2 none: no count is drawn between them."""
    table = pl.DataFrame(
        {
            "class": ["a"] * 3,
            "bin": [0, 3, 4],
            "prob_pred": [0.05, 0.7, 0.9],
            "prob_true": [0.0, 0.5, 1.0],
            "count": [100, 3, 10],
        }
    )
    fig = plot.reliability(table)
    counts = fig.axes[1].get_lines()[0]
    np.testing.assert_array_equal(counts.get_xdata(), [0.05, np.nan, 0.7, 0.9])
    np.testing.assert_array_equal(counts.get_ydata(), [100, np.nan, 3, 10])
    # (The reliability line joins its points: the empty bins have no fraction to show.)
    assert not np.isnan(fig.axes[0].get_lines()[1].get_xdata()).any()


def test_every_count_panel_shows_its_largest_bin() -> None:
    """The count panels share one linear axis: it reaches the largest count of any panel."""
    table = pl.DataFrame(
        {
            "model": ["m", "n"] * 6,
            "class": ["a"] * 6 + ["b"] * 6,  # a panel per class, a line per model
            "bin": [0, 0, 1, 1, 2, 2] * 2,
            "prob_pred": [0.1, 0.1, 0.5, 0.5, 0.9, 0.9] * 2,
            "prob_true": [0.0, 0.0, 0.5, 0.5, 1.0, 1.0] * 2,
            "count": [4, 4, 5, 5, 6, 6, 5, 5, 8, 8, 9, 9],  # within a decade: linear
        }
    )
    fig = plot.reliability(table, by="model")
    below = fig.axes[1::2]
    assert len(below) == 2
    for ax in below:
        assert ax.get_yscale() == "linear"
        bottom, top = ax.get_ylim()
        assert bottom == 0
        # Room above the largest count (9): its marker clear of the frame, not cut by it.
        assert top >= 9 * 1.05


def test_a_float_series_column_is_named_in_the_error_and_shown_short(
    digits: pl.DataFrame,
) -> None:
    """A float column (a hyperparameter) is a series only when named; the error says so."""
    grid = digits.filter(pl.col("model") == "logreg", pl.col("class") == "8")
    grid = grid.with_columns(C=pl.col("fold").cast(pl.Float64) / 10)  # 0.30000000000000004
    table = pl_metrics.roc_curve(grid, by="C")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"pass by=\['C'\] \(float columns"):
        plot.roc_curves(table)
    fig = plot.roc_curves(table, by="C")
    labels = [t.get_text().split(" (")[0] for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["0", "0.1", "0.2", "0.3", "0.4"]
    close = table.with_columns(C=pl.col("C") + pl.when(pl.col("C") > 0.35).then(1e-7).otherwise(0))
    fig = plot.roc_curves(close.filter(pl.col("C") > 0.25), by="C")
    labels = [t.get_text().split(" (")[0] for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["0.3", "0.4000001"]  # values apart stay apart


def test_intervals_draw_a_paired_table_around_zero(digits: pl.DataFrame) -> None:
    """paired()'s differences: a row per fold (or the pair), a line at 0, which side wins."""
    per_fold = pl_metrics.paired(digits, "lrap", "logreg", "knn", by="fold", n_resamples=20)
    fig = plot.intervals(per_fold)
    (ax,) = fig.axes
    assert ax.get_title() == "lrap: knn - logreg (above 0: knn better)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "1", "2", "3", "4"]
    (bars_,) = ax.containers  # the errorbar's: the intervals
    (segments,) = bars_.lines[2]
    spans = np.array([path.vertices[:, 0] for path in segments.get_paths()])
    np.testing.assert_allclose(spans, per_fold.select("lower", "upper").to_numpy())
    points = [line for line in ax.get_lines() if line.get_marker() == "o"]
    np.testing.assert_allclose(points[0].get_xdata(), per_fold["difference"].to_numpy())
    assert [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"] == [0]
    overall = pl_metrics.paired(digits, "log_loss", "logreg", "knn", n_resamples=20)
    (ax,) = plot.intervals(overall.lazy()).axes
    assert ax.get_title() == "log_loss: knn - logreg (below 0: knn better)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["knn - logreg"]
    several = pl.concat(  # compare --against's table: each model against one
        pl_metrics.paired(digits, "lrap", "logreg", other, by="fold", n_resamples=20)
        for other in ("knn", "forest")
    )
    (ax,) = plot.intervals(several).axes
    assert ax.get_title() == "lrap: each model - logreg (higher is better)"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:2] == ["knn - logreg / fold 0", "knn - logreg / fold 1"]
    assert labels[-1] == "forest - logreg / fold 4"


def test_curves_of_negative_weights_are_drawn_in_their_thresholds_order(
    digits: pl.DataFrame,
) -> None:
    # The rates fall back with negative weights: sorted by them, the line zigzagged and its
    # area, the legend's AUC and AP, was another than the metric's.
    rows = digits.filter(model="knn", fold=0).filter(pl.col("class").is_in(["3", "8"]))
    ids = rows["id"].unique().sort()
    weights = np.random.default_rng(5).choice([-1.0, 2.0, 0.5], ids.len())
    rows = rows.join(pl.DataFrame({"id": ids, "w": weights}), on="id")
    auc = pl_metrics.roc_auc(rows, weight_col="w", average=None)
    ap = pl_metrics.average_precision(rows, weight_col="w", average=None)
    for figure, want, stat in (
        (plot.roc_curves(pl_metrics.roc_curve(rows, weight_col="w")), auc, "AUC"),
        (plot.pr_curves(pl_metrics.precision_recall_curve(rows, weight_col="w")), ap, "AP"),
    ):
        got = legend_values(figure.axes[0], stat)
        value = want.columns[-1]
        assert got == pytest.approx(dict(want.select("class", value).iter_rows()), abs=5e-4)


def test_per_class_bars_of_a_count_of_a_confusion_table(digits: pl.DataFrame) -> None:
    # The other counts are values too, not keys of series: a panel per count, one bar each.
    fig = plot.per_class_bars(pl_metrics.confusion(digits, by="model"), "tp")
    assert len(fig.axes) == 1
    assert legend_labels(fig.axes[0]) == MODELS


def test_heatmap_shows_infinite_values(digits: pl.DataFrame) -> None:
    fig = plot.heatmap(pl_metrics.log_loss(digits, by=["model", "fold"], eps=0.0))
    infinite = [t for t in fig.axes[0].texts if t.get_text() == "inf"]
    assert infinite
    assert {to_hex(t.get_color()) for t in infinite} == {to_hex("grey")}  # not white on white


def test_intervals_of_values_equal_but_for_rounding_show_few_digits(digits: pl.DataFrame) -> None:
    tied = digits.with_columns(score=pl.lit(0.5))
    table = pl_metrics.bootstrap(tied, "lwlrap", by="model", n_resamples=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot.intervals(table)
        plot.intervals(
            pl_metrics.bootstrap(digits, "log_loss", by="model", eps=0.0, n_resamples=40)
        )
    label = fig.axes[0].texts[0].get_text()
    assert re.fullmatch(r"0\.10* \[0\.10*, 0\.10*\]", label)
    assert len(label) < 25, label


def test_distributions_share_their_bins_where_they_share_the_axis(
    digits: pl.DataFrame,
) -> None:
    # A metric of a narrow range drew bars too thin to see on the shared axis.
    per_fold = pl_metrics.report(digits, ["f1", "recall", "roc_auc"], by=["model", "fold"])
    fig = plot.distributions(per_fold, ["f1", "recall"], bins=10)
    widths = {round(p.get_width(), 12) for ax in fig.axes for p in bars(ax)}
    assert len(widths) == 1
    low, high = fig.axes[0].get_xlim()
    assert widths.pop() * 10 > (high - low) / 2
    # Far narrower than the other (0.967 to 0.9999 beside 0.80 to 0.99), all of roc_auc's
    # values fell in one shared bin: each metric keeps its own axis then.
    fig = plot.distributions(per_fold, ["f1", "roc_auc"], bins=10)
    assert fig.axes[0].get_xlim() != fig.axes[1].get_xlim()
    assert [sum(p.get_height() > 0 for p in bars(ax)) > 3 for ax in fig.axes] == [True, True]


def test_a_heatmaps_title_that_fits_its_figure_is_not_wrapped(digits: pl.DataFrame) -> None:
    # The colour bar was counted as a panel: the title was held to the map's width.
    name = "a_model_column_with_a_rather_long_name_of_its_own"
    table = pl_metrics.report(digits, ["lrap"], by=["model", "fold"]).rename({"model": name})
    fig = plot.heatmap(table, "lrap", model_col=name)
    render(fig)
    (title,) = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert "\n" not in title
    assert_readable(fig, [fig.axes[0].title])


def test_enum_classes_are_drawn_in_their_declared_order(digits: pl.DataFrame) -> None:
    # As the tables list them: they were sorted by their text.
    order = [str(c) for c in range(9, -1, -1)]
    df = digits.with_columns(pl.col("class").cast(pl.String).cast(pl.Enum(order)))
    fig = plot.per_class_bars(pl_metrics.f1(df, by="model", average=None))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == order
    fig = plot.roc_curves(pl_metrics.roc_curve(df, by="model"))
    assert [ax.get_title().split()[-1] for ax in fig.axes] == order
    # Series too (models of an enum, in the legend).
    models = ["naive_bayes", "logreg", "knn", "forest"]
    df = digits.with_columns(pl.col("model").cast(pl.Enum(models)))
    fig = plot.per_class_bars(pl_metrics.f1(df, by="model", average=None))
    assert legend_labels(fig.axes[0]) == models


def test_curves_of_negative_weights_stay_inside_their_axes(digits: pl.DataFrame) -> None:
    # Rates outside [0, 1] were drawn unclipped over the panel's title and tick labels.
    rows = digits.filter(model="knn", fold=0).filter(pl.col("class").is_in(["3", "8"]))
    ids = rows["id"].unique().sort()
    weights = np.random.default_rng(5).choice([-1.0, 2.0, 0.5], ids.len())
    rows = rows.join(pl.DataFrame({"id": ids, "w": weights}), on="id")
    for fig in (
        plot.roc_curves(pl_metrics.roc_curve(rows, weight_col="w")),
        plot.pr_curves(pl_metrics.precision_recall_curve(rows, weight_col="w")),
    ):
        for ax in fig.axes:
            (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
            for line in curves(ax):
                xs, ys = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
                assert x0 <= np.nanmin(xs) <= np.nanmax(xs) <= x1
                assert y0 <= np.nanmin(ys) <= np.nanmax(ys) <= y1
    # Curves within [0, 1] keep the unit square.
    fig = plot.roc_curves(pl_metrics.roc_curve(rows))
    assert (fig.axes[0].get_xlim(), fig.axes[0].get_ylim()) == ((0.0, 1.0), (0.0, 1.0))
    # Panels share their axes: one panel out of [0, 1] widens all (a later panel within it
    # set them back).
    negative = (pl.col("id") == ids[0]) & (pl.col("class") == "3")
    one = rows.with_columns(
        w=pl.when(pl.col("id") == ids[0]).then(-1.0).otherwise(1.0),
        score=pl.when(negative).then(0.99).otherwise("score"),
        truth=pl.when(negative).then(False).otherwise("truth"),
    )
    table = pl_metrics.roc_curve(one.with_columns(model=pl.lit("m")), weight_col="w", by="model")
    fpr = table.filter(pl.col("class") == "3")["fpr"]
    assert fpr.min() < 0
    fig = plot.roc_curves(pl.concat([table, table.with_columns(model=pl.lit("n"))]))
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert ax.get_xlim()[0] <= fpr.min()


def test_a_low_outlier_keeps_a_heatmap_linear_and_float_keys_read_as_typed(
    digits: pl.DataFrame,
) -> None:
    """A weak model's F1 (ten times below the others) set a log colour scale, which spreads
    the low end: the others looked alike. Float32 keys were labelled 0.100000001490116,
    and a fold of 0.1 * 3 0.30000000000000004."""
    rng = np.random.default_rng(0)
    weak = digits.filter(pl.col("model") == "knn").with_columns(
        model=pl.lit("weak"), score=pl.Series(rng.random(digits.height // 4) * 0.56)
    )
    table = pl_metrics.f1(pl.concat([digits, weak]), by=["model", "fold"])
    fig = plot.heatmap(table)
    assert fig.axes[1].get_ylabel() == "f1 (higher is better)"
    folds = table.with_columns(pl.col("fold").cast(pl.Float64) * 0.1 * 3)
    fig = plot.heatmap(folds)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        "0",
        "0.3",
        "0.6",
        "0.9",
        "1.2",
    ]
    rates = {"forest": 0.1, "knn": 0.2, "logreg": 0.3, "naive_bayes": 0.7}
    tuned = digits.with_columns(
        lr=pl.col("model").replace_strict(rates, return_dtype=pl.Float32)
    ).drop("model")
    fig = plot.per_class_bars(pl_metrics.f1(tuned, average=None, by="lr"), by="lr")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["0.1", "0.2", "0.3", "0.7"]
    # (A Float64 key that is a Float32's value is not taken for it.)
    wide = tuned.with_columns(pl.col("lr").cast(pl.Float64))
    fig = plot.per_class_bars(pl_metrics.f1(wide, average=None, by="lr"), by="lr")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == [
        "0.100000001490116",
        "0.200000002980232",
        "0.300000011920929",
        "0.699999988079071",
    ]


def test_wide_small_multiples_long_fold_names_and_paired_labels() -> None:
    """150 classes in 9 panels made a figure 70 inches wide; fold names longer than their
    cells ran into each other; a paired table's model_b was "no column" as a label."""
    rng = np.random.default_rng(0)
    classes = [f"bird_{k:03d}" for k in range(150)]
    table = pl.DataFrame(
        {
            "model": np.repeat([f"m{k}" for k in range(9)], 150),
            "class": classes * 9,
            "f1": rng.random(1350),
        }
    )
    fig = plot.per_class_bars(table)
    assert fig.get_size_inches()[0] <= 24
    named = [t.get_text() for t in fig.axes[-1].get_xticklabels()]
    assert named[0] == "bird_000"
    assert 10 < len(named) < 150  # every k-th: readable
    folds = pl.DataFrame(
        {
            "model": np.repeat(["a", "b"], 6),
            "fold": [f"2024-0{m}-01_holdout" for m in range(1, 7)] * 2,
            "f1": rng.uniform(0.7, 0.9, 12),
        }
    )
    fig = plot.heatmap(folds)
    assert {t.get_rotation() for t in fig.axes[0].get_xticklabels()} == {30.0}
    digits = pl.read_parquet(DATA / "digits_oof.parquet")
    pairs = pl.concat(
        pl_metrics.paired(digits, "lrap", "logreg", m, n_resamples=20) for m in ("knn", "forest")
    )
    fig = plot.intervals(pairs, by="model_b")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["knn", "forest"]
    fig = plot.intervals(pairs)  # (by default, still by the pair)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        "knn - logreg",
        "forest - logreg",
    ]


def test_a_curves_table_of_another_class_column_is_told_to_name_it() -> None:
    df = pl.read_parquet(DATA / "digits_oof.parquet").rename({"class": "digit"})
    told = r"no column 'class'; .*; pass class_col= naming its class column, or plot a table of"
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        plot.roc_curves(pl_metrics.roc_curve(df, class_col="digit", by="model"))
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        plot.per_class_bars(pl_metrics.roc_auc(df, class_col="digit", by="model", average=None))
    figure = plot.roc_curves(
        pl_metrics.roc_curve(df, class_col="digit", by="model"), class_col="digit"
    )
    assert figure.axes


def test_names_with_dollars_are_drawn_as_written(digits: pl.DataFrame) -> None:
    # matplotlib reads $...$ as math: '$5k-$10k' lost its signs, and a name such as
    # 'rf_$\x$' raised its ParseFatalException (the CLI's "internal error").
    two = digits.filter(pl.col("class").is_in(["0", "1"]))
    odd = two.with_columns(
        pl.col("class").replace({"0": "$5k-$10k"}), pl.col("model").replace({"knn": r"rf_$\x$"})
    )
    curves = plot.roc_curves(pl_metrics.roc_curve(odd, by="model"))
    render(curves)
    titles = {ax.get_title() for ax in curves.axes}
    assert r"class \$5k-\$10k" in titles
    assert any(label.startswith(r"rf_\$\x\$") for label in legend_labels(curves.axes[0]))
    bars = plot.per_class_bars(pl_metrics.f1(odd, average=None, by="model"))
    render(bars)
    assert r"\$5k-\$10k" in [t.get_text() for t in bars.axes[0].get_xticklabels()]


def test_a_key_column_named_len_is_drawn(digits: pl.DataFrame) -> None:
    # The check of repeated rows counted into polars' "len": a DuplicateError.
    renamed = digits.rename({"model": "len"})
    fig = plot.per_class_bars(pl_metrics.f1(renamed, average=None, by="len"))
    assert legend_labels(fig.axes[0]) == sorted(MODELS)
    plot.roc_curves(pl_metrics.roc_curve(renamed.filter(pl.col("len") == "knn"), by="len"))


def test_float_classes_are_labelled_by_their_digits(digits: pl.DataFrame) -> None:
    tenths = digits.filter(pl.col("model") == "knn").with_columns(
        pl.col("class").cast(pl.Int64) / 10
    )
    fig = plot.roc_curves(pl_metrics.roc_curve(tenths))
    render(fig)
    labels = legend_labels(fig.axes[0]) if len(fig.axes) == 1 else []
    texts = labels + [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("0.3") for t in texts)
    assert not any("0.30000000000000004" in t for t in texts)


def test_without_matplotlib_every_plot_says_how_to_install_it(
    digits: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    curves = pl_metrics.roc_curve(digits.filter(pl.col("model") == "knn"))
    # The curve plots picked their colours first: matplotlib's ModuleNotFoundError, bare.
    for name in [m for m in list(sys.modules) if m.startswith("matplotlib")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for draw in (plot.roc_curves, plot.pr_curves):
        with pytest.raises(
            ImportError, match=r'plots need matplotlib: pip install "pl_metrics\[plot\]"'
        ):
            draw(curves)


def test_long_series_names_leave_the_bars_their_room(digits: pl.DataFrame) -> None:
    long = "a_very_long_model_name_with_hyperparams_lr0.001_depth12"
    renamed = digits.with_columns(pl.col("model").replace({"knn": long}))
    fig = plot.per_class_bars(pl_metrics.f1(renamed, average=None, by="model"))
    render(fig)
    # A one-line legend of the long name took two thirds of the figure's width.
    assert fig.axes[0].get_position().width > 0.55
    assert any("\n" in label for label in legend_labels(fig.axes[0]))


def test_interval_rows_are_named_by_their_columns(digits: pl.DataFrame) -> None:
    # Rows "0" to "4" alone could be folds or classes.
    table = pl_metrics.paired(digits, "lrap", "logreg", "knn", by="fold", n_resamples=20)
    assert plot.intervals(table).axes[0].get_ylabel() == "fold"


def test_a_float_column_is_offered_as_a_key_of_bars(digits: pl.DataFrame) -> None:
    sweep = pl_metrics.threshold_sweep(digits.filter(pl.col("model") == "knn"), "f1", [0.3, 0.7])
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        plot.per_class_bars(sweep, "value")
    assert "class='0': 2 rows" in str(error.value)
    assert "pass by=['threshold']" in str(error.value)
    plot.per_class_bars(sweep, "value", by="threshold")
    # Another metric's column of a report is no key to offer.
    knn = digits.filter(pl.col("model") == "knn")
    folds = [
        pl_metrics.report(knn.filter(fold=f), ["f1", "precision"], average=None) for f in (0, 1)
    ]
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        plot.per_class_bars(pl.concat(folds), "f1")
    assert "by=" not in str(error.value)


def test_a_confusion_count_is_titled_with_its_direction(digits: pl.DataFrame) -> None:
    counts = pl_metrics.confusion(digits, by="model")
    titles = {m: plot.per_class_bars(counts, m).axes[0].get_title() for m in ("tp", "fp")}
    assert titles == {
        "tp": "tp per class by model (higher is better)",
        "fp": "fp per class by model (lower is better)",
    }


def test_nan_keys_are_drawn_as_their_own_series(digits: pl.DataFrame) -> None:
    """A float key of NaN (a fold read from pandas, a hyperparameter joined to the results
    that a model lacks) is not equal to itself: the heatmap raised KeyError, and the curve
    plots left its series out."""
    two = digits.filter(pl.col("class").is_in(["3", "8"]), pl.col("model").is_in(MODELS[:3]))
    lr = (
        pl.col("model")
        .replace_strict(dict(zip(MODELS, [0.01, 0.1, math.nan, 1.0], strict=True)))
        .alias("lr")
    )
    roc = pl_metrics.roc_curve(two, by="model").select(lr, pl.exclude("model"))
    auc = pl_metrics.roc_auc(two, by="model", average=None).select(lr, pl.exclude("model"))
    fig = plot.roc_curves(roc.filter(pl.col("class") == "3"), by="lr")
    got = legend_values(fig.axes[0], "AUC")
    assert list(got) == ["0.01", "0.1", "nan"]  # (NaN after the numbers)
    nan_auc = auc.filter(pl.col("lr").is_nan(), pl.col("class") == "3")["roc_auc"].item()
    assert got["nan"] == pytest.approx(nan_auc, abs=5e-4)
    calibration = pl_metrics.calibration_curve(two, by="model").select(lr, pl.exclude("model"))
    fig = plot.reliability(calibration.filter(pl.col("class") == "3"), by="lr")
    assert len(legend_labels(fig.axes[0])) == 3
    per_fold = pl_metrics.lrap(two, by=["model", "fold"]).select(
        lr, pl.col("fold").cast(pl.Float64).replace(1.0, math.nan), "lrap"
    )
    fig = plot.heatmap(per_fold, model_col="lr")
    ax = fig.axes[0]
    assert "nan" in [t.get_text() for t in ax.get_xticklabels()]
    assert "nan" in [t.get_text() for t in ax.get_yticklabels()]
    assert "n/a" not in [t.get_text() for t in ax.texts]  # each cell has its value
    # Bars by (lr, fold): the NaN series one colour in all its panels, as the others.
    per_fold_class = pl_metrics.f1(two, by=["model", "fold"], average=None)
    fig = plot.per_class_bars(
        per_fold_class.select(lr, pl.exclude("model")), "f1", by=["lr", "fold"]
    )
    colours: dict[str, set[str]] = {}
    for ax in fig.axes:
        colours.setdefault(ax.get_title().split(" / ")[0], set()).update(
            to_hex(p.get_facecolor()) for p in bars(ax)
        )
    assert len(colours) == 3
    assert all(len(c) == 1 for c in colours.values()), colours


def test_missing_bars_say_so(digits: pl.DataFrame) -> None:
    """A null value (a class of no positives) drew no bar: read as 0. It says "n/a" now."""
    per_class = pl_metrics.lwlrap(digits, by="model", per_class=True).with_columns(
        lwlrap=pl.when(pl.col("class") == "4").then(None).otherwise(pl.col("lwlrap"))
    )
    for table in (per_class, per_class.filter(pl.col("model") == "knn")):
        fig = plot.per_class_bars(table, "lwlrap")
        marks = [t for ax in fig.axes for t in ax.texts if t.get_text() == "n/a"]
        assert len(marks) == table.filter(pl.col("lwlrap").is_null()).height
    many = pl.concat([per_class.with_columns(model=pl.col("model") + str(k)) for k in range(3)])
    fig = plot.per_class_bars(many, "lwlrap")  # 12 series: a panel each
    assert len([t for ax in fig.axes for t in ax.texts if t.get_text() == "n/a"]) == 12


def test_infinite_bars_say_so() -> None:
    """An infinite loss (eps=0) drew no bar, read as the best class; heatmap says "inf"."""
    df = pl.DataFrame({
        "model": ["a"] * 4 + ["b"] * 4, "id": [0, 0, 1, 1] * 2, "class": ["x", "y"] * 4,
        "score": [0.0, 0.9, 0.8, 0.1, 0.6, 0.3, 0.7, 0.2], "truth": [1, 0, 0, 1] * 2,
    })  # fmt: skip
    table = pl_metrics.binary_log_loss(df, eps=0.0, average=None, by="model")
    assert table["binary_log_loss"].is_infinite().sum() == 1
    many = pl.concat([table.with_columns(model=pl.col("model") + str(k)) for k in range(5)])
    for drawn in (table, many):  # one panel, and a panel per series
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (matplotlib's "invalid value encountered")
            fig = plot.per_class_bars(drawn)
        marks = [t for ax in fig.axes for t in ax.texts if t.get_text() == "inf"]
        assert len(marks) == drawn["binary_log_loss"].is_infinite().sum()
        assert all(math.isfinite(ax.get_ylim()[1]) for ax in fig.axes)


def test_pr_legend_ap_is_average_precisions_with_negative_weights() -> None:
    """Negative weights: the legend said AP -0.333 where average_precision (as scikit-learn's)
    is at least 0."""
    df = pl.DataFrame({
        "id": range(6), "class": "a", "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        "truth": [1, 1, 0, 0, 1, 0], "w": [-2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
    })  # fmt: skip
    assert pl_metrics.average_precision(df, weight_col="w").item() == 0.0
    fig = plot.pr_curves(pl_metrics.precision_recall_curve(df, weight_col="w"))
    assert legend_labels(fig.axes[0]) == ["all (AP 0.000)"]


def test_long_names_are_cut_to_fit() -> None:
    """A name of 60 letters without a space, in a legend, squeezed the panels to 5 pixels;
    of 80, as a tick, ran off the figure."""
    rows = [
        (m, i, c, s, t)
        for m in ["x" * 60, "y"]
        for c in ["c" * 80, "c1", "c2"]
        for i, (s, t) in enumerate(zip([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], strict=True))
    ]
    df = pl.DataFrame(rows, schema=["model", "id", "class", "score", "truth"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ("constrained_layout not applied")
        fig = plot.roc_curves(pl_metrics.roc_curve(df, by="model"))
        labels = [t for ax in fig.axes if ax.get_legend() for t in legend_labels(ax)]
        assert all(len(line) <= 30 for label in labels for line in label.split("\n"))
        assert any(label.startswith("x" * 20) for label in labels)
        fig = plot.per_class_bars(pl_metrics.roc_auc(df, by="model", average=None))
        ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert f"{'c' * 24}…{'c' * 15}" in ticks
        plot.heatmap(
            pl_metrics.roc_auc(df.with_columns(fold=pl.col("id") % 2), by=["model", "fold"])
        )
    # Names that differ in their middle only (a sweep's) are not cut alike.
    names = [f"deberta_v3_large_maxlen_512_lr_{lr}_epochs_5_ema_swa" for lr in ("2e-5", "3e-5")]
    table = pl.DataFrame({"model": names * 2, "fold": [0, 0, 1, 1], "lrap": [0.8, 0.7, 0.81, 0.72]})
    ticks = [t.get_text() for t in plot.heatmap(table).axes[0].get_yticklabels()]
    assert sorted(ticks) == names


def test_hundreds_of_classes_name_some_and_say_so() -> None:
    """500 classes' names side by side were a black smear, and 3 series of them 1,500 thin
    stripes: one in k names (said under the axis), a panel per series beyond 600 bars."""
    rng = np.random.default_rng(0)
    classes = [f"species_{k}" for k in range(500)]
    table = pl.DataFrame(
        {"class": classes * 3, "model": np.repeat(["a", "b", "c"], 500), "f1": rng.random(1500)}
    )
    fig = plot.per_class_bars(table.filter(pl.col("model") == "a").drop("model"), "f1")
    (ax,) = fig.axes
    assert len(bars(ax)) == 500
    said = re.fullmatch(r"class \(500; one in (\d+) named\)", ax.get_xlabel())
    assert said is not None
    named = [t.get_text() for t in ax.get_xticklabels()]
    assert named == classes[:: int(said[1])]
    assert 10 < len(named) < 500
    assert_readable(fig, shown(ax.get_xticklabels()))
    fig = plot.per_class_bars(table, "f1", by="model")
    assert len(fig.axes) == 3
    assert [ax.get_title() for ax in fig.axes] == ["a", "b", "c"]
    assert len({round(ax.get_position().x0, 3) for ax in fig.axes}) == 1  # one column
    small = table.filter(pl.col("class").is_in(classes[:60]))  # 180 bars: side by side
    assert len(plot.per_class_bars(small, "f1", by="model").axes) == 1


def test_legends_inside_a_panel_leave_its_curves_uncovered() -> None:
    """PR legends sat lower left, over a rare class's curve along the bottom, and ROC ones
    lower right, where a model worse than chance runs."""
    rng = np.random.default_rng(1)
    n = 3000
    truth = rng.random(n) < 0.03
    rare = pl.DataFrame(
        {"id": range(n), "class": "rare", "score": rng.random(n) + 0.05 * truth, "truth": truth}
    )
    truth = rng.random(n) < 0.3
    common = pl.DataFrame(
        {"id": range(n), "class": "c", "score": rng.random(n) + 0.5 * truth, "truth": truth}
    )
    worse = common.with_columns(
        model=pl.lit("worse"), score=pl.Series(0.3 * rng.random(n)) - pl.col("score")
    )
    both = pl.concat([common.with_columns(model=pl.lit("good")), worse])
    for fig in (
        plot.pr_curves(pl_metrics.precision_recall_curve(rare)),
        plot.roc_curves(pl_metrics.roc_curve(both, by="model")),
    ):
        ax = fig.axes[0]
        box = ax.get_legend().get_window_extent(render(fig))
        for line in ax.get_lines():
            path = ax.transData.transform_path(line.get_path())
            assert not path.intersects_bbox(box), (ax.get_title(), line.get_label())


def test_distributions_of_one_value_or_none_keep_a_sensible_axis() -> None:
    """A metric of one value beside a spread one drew it from 0.5 to 1.5 (lrap 1.5), and a
    metric of no finite value an empty panel counting -0.045 to 0.045 groups."""
    table = pl.DataFrame(
        {
            "lrap": [1.0] * 6,
            "log_loss": [0.1, 0.5, 0.9, 2.0, 0.3, 0.2],
            "brier_score": [0.3] * 6,
            "f1": [math.nan] * 6,
        }
    )
    fig = plot.distributions(table, ["lrap", "log_loss", "brier_score", "f1"])
    lrap, _, brier, f1 = fig.axes
    low, high = lrap.get_xlim()
    assert 0.9 <= low < 1.0 < high <= 1.01  # around 1, within [0, 1] but for the margins
    low, high = brier.get_xlim()
    assert 0.2 < low < 0.3 < high < 0.4
    assert [t.get_text() for t in f1.texts] == ["no finite values"]
    assert list(f1.get_yticks()) == []


def test_a_parenthesised_part_of_a_legend_is_never_cut() -> None:
    """A line's "(AUC 0.912)" stays whole, however narrow the legend."""
    assert plot._wrapped("knn (AUC 0.912)", 8) == "knn\n(AUC 0.912)"


def test_a_tick_of_40_characters_is_kept_whole() -> None:
    """Names are cut past 40 characters, not at 40."""
    rows = [
        (i, c, s, t)
        for c in ["c" * 40, "d" * 41, "e"]
        for i, (s, t) in enumerate(zip([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], strict=True))
    ]
    df = pl.DataFrame(rows, schema=["id", "class", "score", "truth"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = plot.per_class_bars(pl_metrics.roc_auc(df, average=None))
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "c" * 40 in ticks
    assert f"{'d' * 24}…{'d' * 15}" in ticks


def test_long_names_are_cut_in_panels_and_heatmaps() -> None:
    """Ticks of the small panels (more than 8 series) and the heatmap's model and fold
    names are cut as the grouped bars' are: in full, an 80-letter name ran off the figure."""
    long_class, long_model, long_fold = "c" * 80, "m" * 60, "f" * 50
    rows = [
        (m, i, c, s, t)
        for m in [long_model, *(f"model{k}" for k in range(9))]
        for c in [long_class, "c1"]
        for i, (s, t) in enumerate(zip([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], strict=True))
    ]
    df = pl.DataFrame(rows, schema=["model", "id", "class", "score", "truth"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (this test is of the labels only)
        fig = plot.per_class_bars(pl_metrics.roc_auc(df, by="model", average=None))
        assert len(fig.axes) > 1  # (a panel per series)
        ticks = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
        assert f"{'c' * 24}…{'c' * 15}" in ticks
        assert long_class not in ticks
        folds = pl.when(pl.col("id") % 2 == 0).then(pl.lit(long_fold)).otherwise(pl.lit("b"))
        table = pl_metrics.roc_auc(df.with_columns(fold=folds), by=["model", "fold"])
        ax = plot.heatmap(table).axes[0]
    models = [t.get_text() for t in ax.get_yticklabels()]
    folds_shown = [t.get_text() for t in ax.get_xticklabels()]
    assert f"{'m' * 24}…{'m' * 15}" in models
    assert long_model not in models
    assert f"{'f' * 24}…{'f' * 15}" in folds_shown
    assert long_fold not in folds_shown


def test_a_title_word_longer_than_its_line_is_broken_not_shrunk() -> None:
    """A class of 80 letters in a title: kept whole, its font shrank to unreadable; a word
    broken in the first pass was wrapped again as two words (a space inside it)."""
    fig = plot._figure(6, 3)
    titles = ["roc_auc of " + "c" * 80, "w" * 70, "q-" * 30]
    for i, title in enumerate(titles):
        fig.add_subplot(1, 3, i + 1).set_title(title)
    size = fig.axes[0].title.get_fontsize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (constrained layout of three narrow panels)
        plot._fit_titles(fig)
    first, second = (ax.title.get_text() for ax in fig.axes[:2])
    assert fig.axes[0].title.get_fontsize() == size
    assert first.replace("\n", "", 1).startswith("roc_auc of c")
    assert " " not in second
    assert second.replace("\n", "") == "w" * 70


def test_per_class_bars_groups_up_to_its_limits_in_one_panel() -> None:
    """`MAX_GROUPED_SERIES` series of `MAX_GROUPED_BARS` bars in all share one panel; one more
    series gets a panel each."""
    n = plot.MAX_GROUPED_SERIES
    m = plot.MAX_GROUPED_BARS // n
    assert n * m == plot.MAX_GROUPED_BARS
    rng = random.Random(0)
    table = pl.DataFrame(
        [
            {"model": f"m{s}", "class": f"c{c}", "lrap": rng.random()}
            for s in range(n)
            for c in range(m)
        ]
    )
    fig = plot.per_class_bars(table, "lrap")
    (ax,) = fig.axes
    assert legend_labels(ax) == [f"m{s}" for s in range(n)]
    for container, s in zip(ax.containers, range(n), strict=True):
        expected = table.filter(pl.col("model") == f"m{s}")["lrap"].to_list()
        assert [p.get_height() for p in container] == pytest.approx(expected)
    more = pl.concat([table, table.filter(pl.col("model") == "m0").with_columns(model=pl.lit("z"))])
    assert len(plot.per_class_bars(more, "lrap").axes) == n + 1


def test_per_class_bars_draws_up_to_max_panels_series() -> None:
    n = plot.MAX_PANELS
    table = pl.DataFrame(
        {"model": [f"m{i}" for i in range(n) for _ in range(3)], "class": ["a", "b", "c"] * n}
    ).with_columns(lwlrap=pl.int_range(pl.len()) / (3 * n))
    fig = plot.per_class_bars(table, "lwlrap")
    assert [ax.get_title() for ax in fig.axes] == [f"m{i}" for i in range(n)]
    for ax, i in zip(fig.axes, range(n), strict=True):
        expected = table.filter(pl.col("model") == f"m{i}")["lwlrap"].to_list()
        assert [p.get_height() for p in bars(ax)] == pytest.approx(expected)
    extra = table.head(3).with_columns(model=pl.lit("z"))
    with pytest.raises(pl_metrics.MetricsInputError, match=f"{n + 1} series"):
        plot.per_class_bars(pl.concat([table, extra]), "lwlrap")


def test_a_nan_class_gets_its_bars() -> None:
    """A float class of NaN is not equal to itself: its values were not found, drawn n/a."""
    table = pl.DataFrame(
        {
            "model": ["a"] * 3 + ["b"] * 3,
            "class": [0.5, 1.5, math.nan] * 2,
            "f1": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        }
    )
    for drawn in (table, table.filter(pl.col("model") == "a")):
        fig = plot.per_class_bars(drawn, "f1")
        (ax,) = fig.axes
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0.5", "1.5", "nan"]
        heights = [p.get_height() for p in bars(ax)]
        assert heights == pytest.approx(drawn["f1"].to_list())
        assert "n/a" not in [t.get_text() for t in ax.texts]


def test_heatmap_cells_show_their_values_and_empty_models_go_last(digits: pl.DataFrame) -> None:
    per_fold = pl_metrics.report(digits, ["lrap"], by=["model", "fold"])
    empty = per_fold.filter(pl.col("model") == "forest").with_columns(
        model=pl.lit("aaa"), lrap=pl.lit(None, pl.Float64)
    )
    table = pl.concat([empty, per_fold])
    fig = plot.heatmap(table)
    ax = fig.axes[0]
    means = per_fold.group_by("model").agg(pl.col("lrap").mean())
    assert top_to_bottom(fig, ax) == [*means.sort("lrap", descending=True)["model"], "aaa"]
    models = [t.get_text() for t in ax.get_yticklabels()]
    folds = [int(t.get_text()) for t in ax.get_xticklabels()]
    for text in ax.texts:
        x, y = text.get_position()
        cell = table.filter(pl.col("model") == models[round(y)], pl.col("fold") == folds[round(x)])
        value = cell["lrap"].item()
        if value is None:
            assert text.get_text() == "n/a"
        else:
            assert float(text.get_text()) == pytest.approx(value, abs=5.1e-5)


def test_interval_values_are_written_to_two_digits_of_the_narrowest(ci: pl.DataFrame) -> None:
    fig = plot.intervals(ci)
    for ax, metric in zip(fig.axes, ["lrap", "log_loss"], strict=True):
        rows = ci.filter(pl.col("metric") == metric)
        narrowest = (rows["upper"] - rows["lower"]).min()
        texts = [t.get_text() for t in ax.texts]
        assert len(texts) == rows.height
        decimals = {len(n.split(".")[1]) for t in texts for n in re.findall(r"[\d.]+", t)}
        (digits,) = decimals
        assert 10 <= narrowest * 10**digits < 100, (narrowest, texts)
        written = sorted(float(re.findall(r"[\d.]+", t)[0]) for t in texts)
        assert written == pytest.approx(sorted(rows["estimate"]), abs=0.51 * 10**-digits)


def test_distributions_take_up_to_max_histogram_bins(digits: pl.DataFrame) -> None:
    table = pl_metrics.report(digits, ["lrap"], by=["model", "fold"])
    fig = plot.distributions(table, bins=plot.MAX_HISTOGRAM_BINS)
    assert len(bars(fig.axes[0])) == plot.MAX_HISTOGRAM_BINS
    assert sum(p.get_height() for p in bars(fig.axes[0])) == table.height
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'bins'"):
        plot.distributions(table, bins=plot.MAX_HISTOGRAM_BINS + 1)


@pytest.mark.parametrize(("spread", "shared"), [(0.25, True), (0.24, False)])
def test_distributions_share_the_unit_axis_down_to_a_quarter_of_the_range(
    spread: float, shared: bool
) -> None:
    """Four metrics in two rows: each row's first panel says what its y axis counts."""
    steps = np.linspace(0.0, 1.0, 11)
    table = pl.DataFrame(
        {"lrap": steps, "f1": 0.5 + spread * steps, "precision": steps, "recall": steps}
    )
    fig = plot.distributions(table)
    first, *others = fig.axes
    assert [first.get_shared_x_axes().joined(first, ax) for ax in others] == [shared] * 3
    assert [ax.get_ylabel() for ax in fig.axes] == ["number of groups", "", "", "number of groups"]
    for ax, metric in zip(fig.axes, table.columns, strict=True):
        assert sum(p.get_height() for p in bars(ax)) == table.height
        assert ax.get_title() == f"{metric} (higher is better)"


@pytest.mark.parametrize("extra", [0, 1])
def test_a_curve_longer_than_max_drawn_points_is_thinned(extra: int) -> None:
    n = plot.MAX_DRAWN_POINTS + extra
    steps = np.linspace(0.0, 1.0, n)
    table = pl.DataFrame(
        {"class": "a", "threshold": steps[::-1], "fpr": steps, "tpr": np.sqrt(steps)}
    )
    fig = plot.roc_curves(table)
    (line,) = curves(fig.axes[0])
    drawn = len(line.get_xdata())
    assert drawn == n if extra == 0 else drawn <= plot.MAX_DRAWN_POINTS
    auc = float(np.trapezoid(table["tpr"], table["fpr"]))
    assert legend_labels(fig.axes[0]) == [f"all (AUC {auc:.3f})"]


def test_a_curve_outside_the_unit_square_is_not_drawn_on_the_frame() -> None:
    table = pl.DataFrame(
        {
            "class": "a",
            "threshold": [math.inf, 0.9, 0.5, 0.1],
            "fpr": [0.0, -0.2, 0.5, 1.0],
            "tpr": [0.0, 0.5, 1.2, 1.0],
        }
    )
    ax = plot.roc_curves(table).axes[0]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    # Room about the curve's lowest and highest points.
    assert (x0 < -0.2, x1 > 1.0, y0 < 0.0, y1 > 1.2) == (True, True, True, True)


def test_grouped_bars_are_centred_on_their_class_tick(digits: pl.DataFrame) -> None:
    table = pl_metrics.f1(digits, average=None, by="model")
    fig = plot.per_class_bars(table, "f1")
    (ax,) = fig.axes
    ticks = {t.get_text(): x for t, x in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)}
    classes = table["class"].unique().sort().to_list()
    for i, cls in enumerate(classes):
        group = [container[i] for container in ax.containers]
        left = min(p.get_x() for p in group)
        right = max(p.get_x() + p.get_width() for p in group)
        assert (left + right) / 2 == pytest.approx(ticks[cls])


def test_bar_panels_of_six_folds_give_each_model_a_row(digits: pl.DataFrame) -> None:
    two = digits.filter(pl.col("model").is_in(["knn", "logreg"]))
    table = pl_metrics.f1(two, average=None, by="model").join(
        pl.DataFrame({"fold": range(6)}), how="cross"
    )
    fig = plot.per_class_bars(table, "f1", by=["model", "fold"])
    assert len(fig.axes) == 12
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        model, fold = ax.get_title().split(" / fold ")
        assert (spec.rowspan.start, spec.colspan.start) == (
            ["knn", "logreg"].index(model),
            int(fold),
        )


def test_a_row_given_twice_is_refused(digits: pl.DataFrame) -> None:
    per_class = pl_metrics.f1(digits, average=None, by="model")
    twice = pl.concat([per_class, per_class.head(1)])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"has 1 \(model, class\) .*: 2 rows"):
        plot.per_class_bars(twice, "f1")
    per_fold = pl_metrics.lrap(digits, by=["model", "fold"])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"has 1 \(model, fold\) .*: 2 rows"):
        plot.heatmap(pl.concat([per_fold, per_fold.tail(1)]))


def test_bar_panels_name_the_classes_under_the_bottom_row_only(digits: pl.DataFrame) -> None:
    table = pl_metrics.f1(digits, average=None, by=["model", "fold"])
    fig = plot.per_class_bars(table, "f1")
    render(fig)
    last_row = max(ax.get_subplotspec().rowspan.start for ax in fig.axes)
    for ax in fig.axes:
        named = [t.label1.get_text() for t in ax.xaxis.get_major_ticks() if t.label1.get_visible()]
        bottom = ax.get_subplotspec().rowspan.start == last_row
        assert named == (table["class"].unique().sort().to_list() if bottom else []), ax.get_title()


def test_curves_refuse_the_class_column_as_a_series_key(
    roc: pl.DataFrame, pr: pl.DataFrame
) -> None:
    for draw, table in ((plot.roc_curves, roc), (plot.pr_curves, pr)):
        with pytest.raises(pl_metrics.MetricsInputError, match="names the class column 'class'"):
            draw(table, by=["model", "class"])


def test_an_integer_weight_column_is_not_a_series(digits: pl.DataFrame) -> None:
    table = pl_metrics.lwlrap(digits, per_class=True, by="model")
    counted = table.with_columns(pl.col("weight").rank("dense").cast(pl.Int64))
    fig = plot.per_class_bars(counted, "lwlrap")
    assert legend_labels(fig.axes[0]) == MODELS
    for container, model in zip(fig.axes[0].containers, MODELS, strict=True):
        expected = table.filter(pl.col("model") == model).sort("class")["lwlrap"].to_list()
        assert [p.get_height() for p in container] == pytest.approx(expected)


def test_a_pr_table_without_thresholds_gives_the_average_precision(digits: pl.DataFrame) -> None:
    """Without thresholds the points are put in scikit-learn's order: recall falling and, at
    equal recall, precision rising (the last before recall falls is the one summed)."""
    one = digits.filter(pl.col("model") == "naive_bayes", pl.col("class") == "8")
    table = pl_metrics.precision_recall_curve(one)
    assert table["recall"].is_duplicated().any()
    shuffled = table.drop("threshold").sample(fraction=1.0, shuffle=True, seed=1)
    fig = plot.pr_curves(shuffled)
    ap = pl_metrics.average_precision(one).item()
    assert legend_values(fig.axes[0], "AP")["all"] == pytest.approx(ap, abs=5e-4)


def test_repeated_rows_of_the_named_keys_alone_offer_no_empty_filter() -> None:
    """-0.0 and 0.0 are one key: their rows repeat with no other column to filter on."""
    table = pl.DataFrame(
        {"fold": [0.0, -0.0, 0.0, -0.0], "class": ["a", "a", "b", "b"], "f1": [0.1, 0.2, 0.3, 0.4]}
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"several rows") as told:
        plot.per_class_bars(table, "f1", by="fold")
    assert "[]" not in str(told.value)


def test_interval_text_shows_a_bound_near_zero_and_nan_as_na() -> None:
    """A lower bound of -0.0014 at two decimals was "-0.00": an interval that crosses 0 read
    as one that touches it; more decimals show its sign. NaN was "nan [nan, nan]", where
    the heatmap and the bars write "n/a"."""
    nan = float("nan")
    table = pl.DataFrame(
        {
            "metric": ["lrap"] * 3,
            "model_a": ["base"] * 3,
            "model_b": ["m1", "m2", "m3"],
            "difference": [0.3, 0.085275, nan],
            "lower": [0.23, -0.001376, nan],
            "upper": [0.36, 0.135868, nan],
            "p_value": [0.0, 0.08, nan],
        }
    )
    texts = [t.get_text() for t in plot.intervals(table).axes[0].texts]
    assert texts == ["0.30 [0.23, 0.36]", "0.09 [-0.001, 0.14]", "n/a [n/a, n/a]"]
    # Rounding's bounds (two models alike but for the order of a sum): their size and sign,
    # not a dozen zeros (the review).
    tiny = table.head(1).with_columns(difference=0.0, lower=-3e-16, upper=2e-16)
    assert [t.get_text() for t in plot.intervals(tiny).axes[0].texts] == [
        "0.00000000 [-3e-16, 2e-16]"
    ]


def test_a_long_class_name_in_a_title_breaks_after_an_underscore() -> None:
    """Wrapped titles broke a name longer than a line inside a word ("..._ca" / "ll_type");
    after its last "_" that fits now, as the legends' labels break."""
    fig = plot._figure(4, 3)
    fig.add_subplot(1, 1, 1).set_title("class " + "_".join(["Eurasian_collared_dove"] * 3))
    plot._fit_titles(fig)
    lines = fig.axes[0].get_title().split("\n")
    assert len(lines) > 1
    assert all(line.endswith("_") for line in lines[:-1]), lines
    assert "".join(lines) == "class " + "_".join(["Eurasian_collared_dove"] * 3)
    # A _ near a long word's start is no place to break: a short piece, a line more.
    wrapped = plot._TitleWrapper(30, break_on_hyphens=False).fill("AUC by a_" + "x" * 40)
    assert wrapped.count("\n") == 1


def test_a_count_axis_on_a_log_scale_labels_two_ticks() -> None:
    """Counts of 2 to 31 span a decade but hold one power of 10: on a log scale the count
    axis read "10^1" alone. Linear there; log where two powers of 10 are labelled."""
    for counts, log in (([22, 19, 25, 13, 8, 29, 31, 17, 3, 2], False), ([900, 5, 40], True)):
        table = pl.DataFrame(
            {
                "class": ["c0"] * len(counts),
                "bin": list(range(len(counts))),
                "prob_pred": np.linspace(0.05, 0.95, len(counts)),
                "prob_true": np.linspace(0.0, 1.0, len(counts)),
                "count": counts,
            }
        )
        fig = plot.reliability(table)
        fig.draw_without_rendering()
        below = fig.axes[1]
        assert (below.get_yscale() == "log") is log
        low, high = below.get_ylim()
        shown = [
            t.get_text()
            for t in below.get_yticklabels()
            if t.get_text() and low <= t.get_position()[1] <= high
        ]
        assert len(shown) >= 2, shown


def test_a_reliability_legend_below_goes_under_the_counts() -> None:
    """Ten long-named models' legend, too tall beside the diagram, went below it: between
    the diagram and the count panel whose x it shares. Under the counts now."""
    rng = np.random.default_rng(0)
    truth = rng.random(150) < 0.5
    long = "gradient_boosting_with_very_long_hyperparameter_suffix"
    df = pl.concat(
        pl_metrics.from_numpy(
            truth, np.clip(rng.random(150) * 0.7 + truth * 0.03 * i, 0, 1)
        ).with_columns(model=pl.lit(f"{long}_lr{i}_depth{3 * i}"))
        for i in range(10)
    )
    fig = plot.reliability(pl_metrics.calibration_curve(df, by="model"))
    fig.draw_without_rendering()
    diagram, counts = fig.axes
    assert diagram.get_legend() is None
    legend = counts.get_legend()
    assert legend.get_window_extent().y1 < counts.get_window_extent().y0
    assert len(legend.get_texts()) == 10


def test_small_multiple_legends_of_long_names_stay_inside_their_panels() -> None:
    """Six models of 60-letter names, a panel per class: each legend, its labels wrapped to
    three lines, was taller than its panel (over the curves, the next panel's title, past
    the figure's edge). Their names are cut in the middle now, a line each, still apart."""
    rng = np.random.default_rng(0)
    classes = [f"Eurasian_collared_dove_species_{i}_call_type" for i in range(4)]
    truth = rng.random((60, 4)) < 0.3
    long = "gradient_boosting_with_very_long_hyperparameter_suffix"
    # (and names apart in their middle only, a sweep's: cut past their common start)
    for models in (
        [f"{long}_lr{i}_depth{3 * i}" for i in range(1, 7)],
        [f"{long}_lr{i}e-5_{long}" for i in range(1, 7)],
    ):
        df = pl.concat(
            pl_metrics.from_numpy(
                truth, rng.random((60, 4)) + truth * 0.2 * i, class_names=classes
            ).with_columns(model=pl.lit(model))
            for i, model in enumerate(models)
        )
        fig = plot.roc_curves(pl_metrics.roc_curve(df, by="model"))
        fig.draw_without_rendering()
        for ax in fig.axes:
            legend = ax.get_legend()
            box, panel = legend.get_window_extent(), ax.get_window_extent()
            assert panel.y0 - 2 <= box.y0
            assert box.y1 <= panel.y1 + 2
            texts = [t.get_text() for t in legend.get_texts()]
            assert len(set(texts)) == 6
            assert all("\n" not in t and "…" in t and "(AUC " in t for t in texts), texts


def _scored(
    models: list[str], classes: tuple[str, ...] = ("a", "b"), seed: int = 0
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n_ids = 40
    return pl.DataFrame(
        {
            "model": np.repeat(models, n_ids * len(classes)),
            "id": np.tile(np.repeat(np.arange(n_ids), len(classes)), len(models)),
            "class": list(classes) * (n_ids * len(models)),
            "score": rng.random(n_ids * len(classes) * len(models)),
            "truth": np.tile(
                [k == i % len(classes) for i in range(n_ids) for k in range(len(classes))],
                len(models),
            ),
        }
    )


def _entries(ax: Any) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def _drawn_without_collapse(fig: Any) -> None:
    FigureCanvasAgg(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied ... collapsed"
        fig.canvas.draw()


@pytest.mark.parametrize(
    ("table_of", "draw"),
    [
        (pl_metrics.roc_curve, plot.roc_curves),
        (pl_metrics.precision_recall_curve, plot.pr_curves),
        (pl_metrics.calibration_curve, plot.reliability),
    ],
)
def test_series_named_with_an_underscore_or_nothing_keep_their_legend_entries(
    table_of: Any, draw: Any
) -> None:
    # matplotlib leaves labels starting with "_" (and empty ones) out of a legend: a model
    # "_baseline" was drawn without its entry (nor its AUC), as was a class "_background".
    fig = draw(table_of(_scored(["_baseline", "model", ""]), by="model"))
    for ax in fig.axes:
        if ax.get_legend() is not None:
            entries = _entries(ax)
            assert [e.split(" (")[0] for e in entries] == ["''", "_baseline", "model"]
            # Each entry's sample is its own line's colour (not the diagonal's, say).
            drawn = [line.get_color() for line in ax.get_lines() if line.get_label() != "_diagonal"]
            shown = [handle.get_color() for handle in ax.get_legend().legend_handles]
            assert shown == drawn
    one = draw(table_of(_scored(["m"], ("_background", "bird", "_other")).drop("model")))
    assert [e.split(" (")[0] for e in _entries(one.axes[0])] == ["_background", "_other", "bird"]
    bars = plot.per_class_bars(
        pl_metrics.f1(_scored(["_baseline", "model", ""]), average=None, by="model")
    )
    assert _entries(bars.axes[0]) == ["''", "_baseline", "model"]


def test_long_names_apart_in_two_places_keep_the_panels_readable() -> None:
    # Cut in their middle, or from where they first differ, these names collided: the
    # legend fell back to three lines a name, taller than its panel (axes collapsed).
    models = [
        f"resnet50_pretrained_lr_{['1e-3', '3e-4'][j % 2]}_seed_{j}_augmentation_heavy"
        for j in range(8)
    ]
    fig = plot.roc_curves(pl_metrics.roc_curve(_scored(models), by="model"))
    _drawn_without_collapse(fig)
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    legend, panel = (a.get_window_extent(renderer).height for a in (ax.get_legend(), ax))
    assert legend <= 0.6 * panel
    entries = _entries(ax)
    assert len(set(entries)) == 8
    assert all("\n" not in e for e in entries)
    assert "_0_" in entries[0] or "d_0" in entries[0]  # the seed tells them apart


def test_a_wrapped_name_keeps_an_escaped_dollar_whole() -> None:
    # Wrapped between the backslash and the "$", a line ended in a stray "\".
    name = "A" * 28 + "$" + "B" * 27 + "$" + "C" * 10
    fig = plot.roc_curves(pl_metrics.roc_curve(_scored([name, "other"]), by="model"))
    lines = _entries(fig.axes[0])[0].split("\n")
    assert len(lines) > 1
    assert not [line for line in lines if line.endswith("\\")]
    assert "".join(lines).replace("\\$", "$").startswith(name)


@pytest.mark.parametrize(
    ("table_of", "draw"),
    [(pl_metrics.roc_curve, plot.roc_curves), (pl_metrics.calibration_curve, plot.reliability)],
)
def test_a_series_without_a_class_is_told_in_that_panel(table_of: Any, draw: Any) -> None:
    # Tables concatenated, model b scored on class x alone: class y's panel drew model a
    # alone, with no word of b.
    table = pl.concat(
        [
            table_of(_scored(["a"], ("x", "y")), by="model"),
            table_of(_scored(["b"], ("x",), seed=1), by="model"),
        ]
    )
    fig = draw(table)
    _drawn_without_collapse(fig)
    panel = next(ax for ax in fig.axes if ax.get_title() == "class y")
    assert _entries(panel)[1] == "b (no rows)"
    x = next(ax for ax in fig.axes if ax.get_title() == "class x")
    assert not any(e.endswith("(no rows)") for e in _entries(x))
