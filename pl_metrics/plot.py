"""Plots of metric tables (``pip install "pl_metrics[plot]"``: matplotlib).

Each function takes a table that pl_metrics returned (a LazyFrame is collected) and gives
a matplotlib ``Figure`` (no global pyplot state, so it works headless); save it with
``fig.savefig("x.png")`` or ``.svg``. Column options end in ``_col``, as elsewhere in pl_metrics.
"""

from __future__ import annotations

import functools
import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ParamSpec

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The only place this module learns a metric's direction: the metric registry.
from pl_metrics._compare import MAX_RESAMPLES as _MAX_RESAMPLES
from pl_metrics._curve_tables import thinned
from pl_metrics._frame import (
    MetricsInputError,
    check_confidence,
    check_integer,
    checked_options,
    column_name,
    column_names,
    did_you_mean,
    distinct_columns,
    shown,
    table_option,
)
from pl_metrics._registry import METRICS as _METRICS

__all__ = [
    "distributions",
    "heatmap",
    "intervals",
    "per_class_bars",
    "pr_curves",
    "reliability",
    "roc_curves",
]

#: Up to this many series, `per_class_bars` draws grouped bars in one panel with a legend.
MAX_GROUPED_SERIES = 8
#: Up to this many bars (series x classes), `per_class_bars` draws several series side by
#: side in one panel; more get a panel each.
MAX_GROUPED_BARS = 600
#: Up to this many series, `per_class_bars` draws one small panel per series; beyond, it
#: refuses and asks for a filter.
MAX_PANELS = 40
#: A ROC or PR curve is drawn through at most this many of its points, evenly spread along
#: it (`pl_metrics._curve_tables.thinned`): more do not show at a figure's size. Its AUC or
#: AP is computed from all of them.
MAX_DRAWN_POINTS = 5000
#: `distributions` draws at most this many bins per histogram: more do not show at a
#: figure's size (a million took matplotlib over ten minutes).
MAX_HISTOGRAM_BINS = 1000
_INTERVAL_COLUMNS = ("metric", "estimate", "lower", "upper", "std")


def _need_matplotlib() -> None:
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError as error:
        raise ImportError('plots need matplotlib: pip install "pl_metrics[plot]"') from error


def _figure(width: float = 8.0, height: float = 4.5) -> Any:
    from matplotlib.figure import Figure  # (every plot checked it first: `_fitted`)

    return Figure(figsize=(width, height), layout="constrained")


_P = ParamSpec("_P")


def _fitted(plot: Callable[_P, Any]) -> Callable[_P, Figure]:
    """Fit the titles of the figure ``plot`` returns inside it (see `_fit_titles`)."""

    @functools.wraps(plot)
    def fitted(*args: _P.args, **kwargs: _P.kwargs) -> Figure:
        _need_matplotlib()  # (told before any work: the curves picked their colours first)
        fig: Figure = plot(*args, **kwargs)
        _fit_titles(fig)
        return fig

    return fitted


class _TitleWrapper(textwrap.TextWrapper):
    """Lines of whole words, as `textwrap`'s, a word longer than a line broken after a ``_``.

    After its last ``_`` that fits: ``Eurasian_collared_dove_`` / ``call_type``, not
    ``..._ca`` / ``ll_type``.
    """

    def _handle_long_word(
        self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int
    ) -> None:
        chunk = reversed_chunks[-1]
        room = max(width - cur_len, 1)
        cut = chunk.rfind("_", 0, room) + 1
        if cut >= room // 2:  # (a _ near its start: a short piece and a line more)
            cur_line.append(chunk[:cut])
            reversed_chunks[-1] = chunk[cut:]
        else:
            super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)


def _fit_titles(fig: Any) -> None:
    """Wrap (then shrink) each title that runs past the figure's edges: long key names.

    Measured once laid out; a centred title gets twice its centre's distance to the nearer
    edge. The figure lays itself out again when saved, around the wrapped lines.
    """
    titles: list[tuple[Any, Any]] = [(t, None) for t in [fig._suptitle] if t and t.get_text()]
    titles += [(ax.title, ax) for ax in fig.axes if ax.title.get_text()]
    several = sum(bool(ax.get_title()) for ax in fig.axes) > 1  # (a colour bar is no panel)
    # Wrapped again from the text as given (a word broken in the first pass, joined again
    # by a space, read as two words).
    given = [title.get_text() for title, _ in titles]
    for _ in range(2):  # a wrap can move the layout: measure again once
        fig.draw_without_rendering()
        width = fig.bbox.width
        changed = False
        for (title, ax), text in zip(titles, given, strict=True):
            box = title.get_window_extent()
            centre = (box.x0 + box.x1) / 2
            room = 2 * min(centre, width - centre) * 0.96
            inside = box.x0 >= 0 and box.x1 <= width
            if ax is not None and several:  # a panel's title: not over its neighbours'
                panel = ax.get_window_extent().width
                inside, room = inside and box.width <= panel, min(room, panel)
            if inside or room <= 0:
                continue
            longest = max(len(line) for line in title.get_text().split("\n"))
            chars = max(8, int(longest * room / box.width))
            # (a word longer than a line, a class of 80 letters, broken: at a font small
            # enough for it, it was unreadable; after a _ where it has one)
            lines = _TitleWrapper(chars, break_on_hyphens=False).fill(" ".join(text.split()))
            title.set_text(lines)
            wide = title.get_window_extent().width  # (its width needs no new layout)
            if wide > room:  # still wider than its room: a smaller font
                title.set_fontsize(max(6.0, title.get_fontsize() * room / wide))
            changed = True
        if not changed:
            return


def _need(
    table: object,
    columns: Sequence[str],
    *,
    numeric: Sequence[str] = (),
    labels: Sequence[str] = (),
    made_by: str = "",
    options: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """``table`` collected and checked for ``columns``.

    ``made_by``: the calls that make such tables, for the error on a missing column.
    ``options``: the options that name some of ``columns`` (``{"class": "class_col"}``): a
    table that lacks one is told to name its own column with the option.
    ``numeric`` columns must hold numbers; ``labels`` columns values to name classes, series
    or folds by (not lists or structs, which cannot key a dict). A LazyFrame is collected
    (the lazy idiom's tables plot as they are); an Arrow table or a pandas frame is read as
    the metrics read them.
    """
    df = table_option("table", table)
    schema = df.collect_schema()  # told before a lazy table is computed
    missing = [c for c in columns if c not in schema]
    if missing:
        named = f"column {missing[0]!r}" if len(missing) == 1 else f"columns {missing}"
        close = did_you_mean(missing[0], schema.names())  # ("F1": the table's "f1")
        source = f"; {close}" if close else f"; plot a table of {made_by}" if made_by else ""
        option = (options or {}).get(missing[0])
        if option is not None and len(missing) == 1 and not close:  # (classes as "digit")
            role = option.removesuffix("_col")
            source = f"; pass {option}= naming its {role} column{source.replace('; ', ', or ', 1)}"
        raise MetricsInputError(f"the table has no {named}; its columns: {schema.names()}{source}")
    for name in numeric:  # text or booleans would fail deep inside polars or matplotlib
        if not schema[name].is_numeric():
            raise MetricsInputError(
                f"column {name!r}: expected numbers to plot, got {schema[name]}"
            )
    for name in labels:
        if schema[name].is_nested():
            raise MetricsInputError(
                f"column {name!r}: expected values to label the plot with, got {schema[name]}"
            )
    if isinstance(df, pl.LazyFrame):
        df = df.collect()
    if df.height == 0:
        raise MetricsInputError("the table is empty: nothing to plot")
    # Float32 keys as the decimals they stand for: labelled 0.1, not 0.100000001490116 (as
    # Python reads them back); a Float64 0.30000001192092896 stays as it is.
    keys = [c for c, dtype in df.schema.items() if dtype == pl.Float32 and c not in numeric]
    return df.with_columns(pl.col(keys).cast(pl.String).cast(pl.Float64))


def _the_metric(table: object, metric: str | None) -> str:
    """``metric``, or the one column of ``table`` named as a registered metric."""
    if metric is not None:
        return metric
    names = table_option("table", table).collect_schema().names()
    found = [name for name in names if name in _METRICS]
    if len(found) != 1:
        held = f"columns {found}" if found else "no column"
        raise MetricsInputError(
            f"option 'metric': name the column to plot; the table has {held} named as a "
            f"metric (its columns: {names})"
        )
    return found[0]


#: A confusion table's counts (`per_class_bars` draws them): of a class's fixed positives
#: and negatives, more of them found is better, more of them missed worse.
_COUNT_DIRECTIONS = {"tp": True, "tn": True, "fp": False, "fn": False}


def _higher_is_better(metric: str) -> bool | None:
    """True or False for a score or a loss; None for a name without a direction."""
    entry = _METRICS.get(metric)
    return _COUNT_DIRECTIONS.get(metric) if entry is None else entry.higher_is_better


def _direction(metric: str) -> str:
    better = _higher_is_better(metric)
    if better is None:
        return "direction unknown"
    return "higher is better" if better else "lower is better"


def _unique_rows(table: pl.DataFrame, columns: list[str], hint: str) -> None:
    count = "len"
    while count in columns:  # (a key column named len: polars' count would repeat it)
        count = f"_{count}"
    counts = table.group_by(columns, maintain_order=True).agg(pl.len().alias(count))
    repeated = counts.filter(pl.col(count) > 1)
    if repeated.height:
        first = repeated.row(0, named=True)
        rows = first.pop(count)
        example = ", ".join(f"{k}={v!r}" for k, v in first.items())
        raise MetricsInputError(
            f"the table has {repeated.height} ({', '.join(columns)}) combinations with several "
            f"rows (e.g. {example}: {rows} rows); {hint}"
        )


def _sort_key(value: Any) -> tuple[tuple[int, Any], ...]:
    """Natural order: numbers as numbers, and digit runs in names too (``b_2`` before ``b_10``).

    NaN, then nulls, come last.
    """
    if isinstance(value, float) and math.isnan(value):
        # (NaN compares False: sorted among numbers, it leaves them in no order)
        return ((1, ""), (2, ""))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ((0, value),)
    if value is None:  # a null class, fold or series last
        return ((2, ""),)
    parts = re.split(r"(\d+)", str(value))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def _keyed(value: Any) -> Any:
    """``value`` as a dict key: any NaN as the one `math.nan` object.

    NaN is not equal to itself: a dict finds a NaN key by identity only.
    """
    return math.nan if isinstance(value, float) and math.isnan(value) else value


def _in_order(values: pl.Series) -> list[Any]:
    """The distinct values in natural order; an enum's in its declared order, as tables are."""
    present = values.unique().to_list()
    if isinstance(values.dtype, pl.Enum):
        return [v for v in [*values.dtype.categories.to_list(), None] if v in present]
    return sorted(present, key=_sort_key)


def _rows_in_order(table: pl.DataFrame, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    """The distinct rows of ``keys``, each column in `_in_order`'s order."""
    ranks = [
        {v: i for i, v in enumerate(_in_order(table[k]))}
        if isinstance(table.schema[k], pl.Enum)
        else None
        for k in keys
    ]

    def order(row: tuple[Any, ...]) -> list[Any]:
        return [
            _sort_key(v) if r is None else ((0, r[v]),) for r, v in zip(ranks, row, strict=True)
        ]

    return sorted(table.select(keys).unique().rows(), key=order)


def _series_label(keys: Sequence[str], values: Sequence[Any]) -> str:
    """``knn`` for one key column, ``knn / fold 0`` for more (the first key's value alone)."""
    if not keys:
        return "all"
    texts = [_value_text(v) for v in values]
    parts = [texts[0], *(f"{k} {v}" for k, v in zip(keys[1:], texts[1:], strict=True))]
    return " / ".join(parts)


def _value_text(value: Any) -> str:
    r"""A key value as a label: 15 digits of a float (0.3 for 0.1 * 3).

    (A Float32 column's values are their decimals already: see `_need`.) A ``$`` is
    escaped: matplotlib would read ``$5k-$10k`` as mathtext (and fail on ``$\frac$``).
    """
    return _escaped(_key_text(value))


def _key_text(value: Any) -> str:
    """A key value's text, unescaped: 15 digits of a float (see `_value_text`).

    Text of spaces alone, or none, is quoted (``''``): a legend entry, tick or title of
    nothing read as a missing name.
    """
    if isinstance(value, str) and not value.strip():
        return repr(value)
    return f"{value:.15g}" if isinstance(value, float) else str(value)


def _escaped(text: str) -> str:
    """``text`` with its ``$`` escaped (see `_value_text`)."""
    return text.replace("$", r"\$")


#: Tick labels longer than this are shortened in their middle (a name of 80 letters, turned
#: upright, ran off the figure).
_LONGEST_TICK = 40


def _ticks(values: Sequence[Any]) -> list[str]:
    """Key values as tick labels (`_value_text`), the middle of long ones cut.

    Not cut where that would make two alike (a sweep's names differ in their middle:
    lr_2e-5 and lr_3e-5).
    """
    texts = [_key_text(v) for v in values]  # (cut before escaping: a cut splits no "\$")
    cut = [t if len(t) <= _LONGEST_TICK else f"{t[: _LONGEST_TICK - 16]}…{t[-15:]}" for t in texts]
    shown = cut if len(set(cut)) == len(set(texts)) else texts
    return [_escaped(t) for t in shown]


def _colours(n: int) -> list[Any]:
    from matplotlib import colormaps

    name = "tab10" if n <= 10 else "tab20"
    cmap = colormaps[name]
    return [cmap(i % cmap.N) for i in range(n)]


#: The widest figure of small multiples, in inches.
_WIDEST = 24.0


def _tick_size(count: int) -> float:
    return 10.0 if count <= 12 else 8.0 if count <= 30 else 7.0


def _per_class_call(metric: str) -> str:
    """How to make a table of ``metric``'s per-class values, by the registry's facts."""
    entry = _METRICS.get(metric)
    if entry is None:
        return "per-class values, e.g. f1(df, average=None, by='model')"
    if entry.per_class == "never":
        return (
            f"per-class values of a metric that has them ({metric} has none), e.g. "
            "f1(df, average=None, by='model')"
        )
    if entry.per_class == "always":  # (a table with no column of its name)
        return (
            "per-class values: name one of its value columns as the metric, or use e.g. "
            "f1(df, average=None, by='model')"
        )
    option = "per_class=True" if "per_class" in entry.options else "average=None"
    return f"per-class values, e.g. {metric}(df, {option}, by='model')"


@checked_options
@_fitted
def per_class_bars(
    table: pl.DataFrame | pl.LazyFrame,
    metric: str | None = None,
    *,
    class_col: str = "class",
    by: str | Sequence[str] | None = None,
    model_col: str | None = None,
) -> Any:
    """Bars of a per-class metric, one colour per series, side by side, with a legend.

    The series are the combinations of ``by``, labelled ``knn / fold 0``, as in
    `roc_curves`; the table must have one row per series and class.
    Up to `MAX_GROUPED_SERIES` series share one panel; up to `MAX_PANELS`, each series gets
    a small panel (shared y axis, a colour per value of the first key column); more are
    refused with a `MetricsInputError` asking to filter the table.

    Parameters
    ----------
    table
        A per-class table, such as ``lwlrap(df, per_class=True, by="model")`` or
        ``f1(df, average=None, by=["model", "fold"])``.
    metric
        The column to plot; left out, the table's one column named as a metric.
    class_col
        The table's class column.
    by
        The columns whose combinations are the series; default: the table's key columns,
        every column except ``class_col``, ``metric``, ``weight`` and other float columns
        (e.g. ``model``, or ``model`` and ``fold``).
    model_col
        ``model_col="model"`` is ``by="model"``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel, or a small panel per series.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> fig = plot.per_class_bars(pl_metrics.f1(df, average=None, by="model"))
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['forest', 'knn', 'logreg', 'naive_bayes']
    >>> fig = plot.per_class_bars(pl_metrics.f1(df, average=None, by=["model", "fold"]), "f1")
    >>> len(fig.axes), fig.axes[1].get_title()
    (20, 'forest / fold 1')
    """
    metric = _the_metric(table, metric)
    metric, class_col = column_name("metric", metric), column_name("class_col", class_col)
    if model_col is not None:
        if by is not None:
            raise MetricsInputError("options 'by' and 'model_col' both name the series: give one")
        by = column_name("model_col", model_col)
    given_keys = None if by is None else list(column_names("by", by))
    distinct_columns(
        [("metric", metric), ("class_col", class_col)]
        + [("model_col" if model_col else "by", k) for k in given_keys or []]
    )
    named = [class_col, *(given_keys or [])]
    table = _need(
        table,
        [*named, metric],
        numeric=[metric],
        labels=named,
        made_by=_per_class_call(metric),
        options={class_col: "class_col"},
    )
    if given_keys is not None:
        keys = given_keys
        others = _key_columns(table, [class_col, metric, *keys])
        option = "model_col" if model_col is not None else "by"
        hint = (
            f"with {option}={model_col if model_col is not None else keys!r} each "
            f"({', '.join([*keys, class_col])}) needs one row; "
            + (f"filter the table on {others}, or " if others else "")
            + f"leave {option} unset to draw every combination"
        )
    else:
        # A confusion table's other counts are values, not keys of series.
        counts = list(_COUNT_DIRECTIONS) if metric in _COUNT_DIRECTIONS else []
        keys = _key_columns(table, [class_col, metric, *counts])
        hint = "each series needs one row per class"
        floats = _float_keys(table, [class_col, metric, *_COUNT_DIRECTIONS, *_METRICS])
        if floats:
            hint += f"; float columns are keys when named: pass by={[*keys, *floats]!r}"
    _unique_rows(table, [*keys, class_col], hint)

    classes = _in_order(table[class_col])
    series = _rows_in_order(table, keys) if keys else [()]
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
        found = {_keyed(c): v for c, v in zip(rows[class_col].to_list(), rows[metric], strict=True)}
        got = [found.get(_keyed(c)) for c in classes]
        heights.append([math.nan if v is None else float(v) for v in got])
    labels = [_series_label(keys, values) for values in series]
    by = f" by {' and '.join(keys)}" if keys else ""
    title = f"{metric} per {class_col}{by} ({_direction(metric)})"
    # Side by side, several series' bars of hundreds of classes are a carpet of thin
    # stripes: beyond `MAX_GROUPED_BARS` bars, a panel per series.
    grouped = len(series) == 1 or len(series) * len(classes) <= MAX_GROUPED_BARS
    if len(series) <= MAX_GROUPED_SERIES and grouped:
        return _grouped_bars(classes, heights, labels, keys, metric, class_col, title)
    first_values = [values[0] for values in series]
    return _bar_panels(classes, heights, labels, first_values, metric, class_col, title)


def _key_columns(table: pl.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The columns that tell series apart: not floats, nor lists or structs (unhashable)."""
    return [
        c
        for c, dtype in table.schema.items()
        if c not in exclude and c != "weight" and not dtype.is_float() and not dtype.is_nested()
    ]


def _float_keys(table: pl.DataFrame, not_keys: Sequence[str]) -> list[str]:
    """Float columns that may key series (a threshold, a hyperparameter): when named."""
    return [
        c
        for c, dtype in table.schema.items()
        if dtype.is_float() and c not in not_keys and c != "weight"
    ]


#: A line of `per_class_bars`' legend, in characters: longer series names wrap (a legend of
#: 60-character names took three quarters of the figure, squeezing the bars).
_BAR_LEGEND_CHARS = 28


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
    longest = max(len(t) for t in _ticks(classes))
    fig = _figure(min(16.0, max(8.0, 2.5 + m * (0.12 * n + 0.25))), 4.5 + 0.07 * min(longest, 30))
    ax = fig.add_subplot()
    width = 0.8 / n
    shown = [_wrapped(label, _BAR_LEGEND_CHARS) for label in labels]
    bars = []
    for k, (values, colour) in enumerate(zip(heights, _colours(n), strict=True)):
        xs = [i - 0.4 + (k + 0.5) * width for i in range(m)]
        bars.append(_bars(ax, xs, values, width, color=colour))
    per_class_inches = (fig.get_figwidth() - 2.5) / m
    # Every k-th class named where their names, turned upright, would overlap (as panels do).
    every = max(1, math.ceil(1.3 * tick_size / 72 / per_class_inches))
    rotate = longest * tick_size * 0.6 / 72 > 0.9 * per_class_inches * every
    ax.set_xticks(range(0, m, every), _ticks(classes)[::every], fontsize=tick_size)
    if rotate:
        ax.tick_params(axis="x", labelrotation=90)
    ax.set_xlim(-0.6, m - 0.4)
    ax.set_xlabel(class_col if every == 1 else f"{class_col} ({m:,}; one in {every} named)")
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.yaxis.grid(True, alpha=0.3)
    ax.set_axisbelow(True)
    if keys:
        ax.legend(  # (the labels as they are: see `_draw_panel`)
            bars,
            shown,
            title=_wrapped(" / ".join(keys), _BAR_LEGEND_CHARS),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            frameon=False,
        )
    return fig


def _bars(ax: Any, xs: Sequence[float], values: Sequence[float], width: float, **kw: Any) -> Any:
    """Bars of ``values``, marked where no bar can be drawn: no bar would read as 0.

    "n/a" where a value is missing (null or NaN), "inf" where it is infinite (a log loss of
    eps=0). Returns matplotlib's bars.
    """
    heights = [v if math.isfinite(v) else math.nan for v in values]
    bars = ax.bar(xs, heights, width, **kw)
    for x, value in zip(xs, values, strict=True):
        if not math.isfinite(value):
            ax.text(
                x, 0.0, _value_text(value) if math.isinf(value) else "n/a", rotation=90,
                ha="center", va="bottom", fontsize=7, color=kw["color"],
                transform=ax.get_xaxis_transform(),
            )  # fmt: skip
    return bars


#: The narrowest a class's place in a panel of bars gets, in inches, where columns of
#: panels can be fewer.
_NARROWEST_BAR = 0.04


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
    first_values = [_keyed(v) for v in first_values]  # (a NaN key: one colour, one run)
    firsts = list(dict.fromkeys(first_values))
    colour_of = dict(zip(firsts, _colours(len(firsts)), strict=True))
    head = first_values[0]
    run = next(
        (
            j
            for j in range(1, n + 1)
            if j == n or not (first_values[j] is head or first_values[j] == head)
        ),
        n,
    )
    ncols = run if 1 < run <= 6 and n % run == 0 else min(6, math.ceil(math.sqrt(n)))
    # Hundreds of classes: fewer columns, so that a bar stays some 4 pixels wide (500
    # classes in two columns of panels were bars of 2).
    while ncols > 1 and ((_WIDEST - 1.0) / ncols - 0.4) / m < _NARROWEST_BAR:
        ncols -= 1
    nrows = math.ceil(n / ncols)
    longest = max(len(t) for t in _ticks(classes))
    # At most _WIDEST inches in all (150 classes in 3 columns made a figure 70 wide).
    panel_width = min(max(2.2, 0.15 * m + 0.6), (_WIDEST - 1.0) / ncols)
    fig = _figure(1.0 + ncols * panel_width, 1.0 + nrows * (1.7 + 0.06 * min(longest, 30)))
    tick_size = min(_tick_size(m), 8.0)
    first = None
    for i, (label, values, value) in enumerate(zip(labels, heights, first_values, strict=True)):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=first, sharey=first)
        first = first or ax
        _bars(ax, range(m), values, 0.8, color=colour_of[value])
        ax.set_title(label, fontsize=9)
        ax.yaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=tick_size)
        if i + ncols < n:  # a panel below shows the class names
            ax.tick_params(axis="x", labelbottom=False)
        if i % ncols:
            ax.tick_params(axis="y", labelleft=False)
    assert first is not None
    per_class = (panel_width - 0.4) / m  # inches
    # Every k-th class named where their names, turned upright, would overlap.
    every = max(1, math.ceil(1.3 * tick_size / 72 / per_class))
    first.set_xticks(range(0, m, every), _ticks(classes)[::every])
    first.set_xlim(-0.6, m - 0.4)
    if longest * tick_size * 0.6 / 72 > 0.9 * per_class * every:
        for ax in fig.axes:
            ax.tick_params(axis="x", labelrotation=90)
    fig.suptitle(title)
    fig.supxlabel(class_col)
    fig.supylabel(metric)
    return fig


@checked_options
@_fitted
def distributions(
    table: pl.DataFrame | pl.LazyFrame,
    metrics: Sequence[str] | None = None,
    *,
    bins: int = 30,
) -> Any:
    """Histograms of metric values over groups (e.g. per trial).

    As the BirdCLEF 2022 metrics notebook draws them: one panel per metric, titled with its
    direction; the panels share their x axis when every value lies in [0, 1] and each
    metric's values spread over a quarter of their pooled range at least, and each keeps its
    own scale otherwise (scores and losses, or a metric whose values would fill one bar).

    Parameters
    ----------
    table
        Metric values, a row per group: a `report` by trial, fold or model, say.
    metrics
        The columns to draw; left out, the table's columns named as metrics.
    bins
        The bins of each histogram (at most `MAX_HISTOGRAM_BINS`).

    Returns
    -------
    matplotlib.figure.Figure
        A panel per metric.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> fig = plot.distributions(pl_metrics.report(df, ["lrap", "f1"], by=["model", "fold"]))
    >>> [ax.get_title() for ax in fig.axes]
    ['lrap (higher is better)', 'f1 (higher is better)']
    """
    if metrics is None:  # a report's metric columns, as heatmap takes its one
        names = table_option("table", table).collect_schema().names()
        metrics = [name for name in names if name in _METRICS]
        if not metrics:
            raise MetricsInputError(
                f"option 'metrics': name the columns to draw; the table has no column named as "
                f"a metric (its columns: {', '.join(names)})"
            )
    metrics = list(column_names("metrics", metrics))
    if not metrics:
        raise MetricsInputError("option 'metrics': none given")
    bins = check_integer("bins", bins)
    if bins > MAX_HISTOGRAM_BINS:
        raise MetricsInputError(
            f"option 'bins': expected at most {MAX_HISTOGRAM_BINS:,} (more do not show at a "
            f"figure's size), got {bins:,}"
        )
    table = _need(table, metrics, numeric=metrics)
    # Nulls (NaN in numpy), NaN and infinite values are left out: a histogram's range is finite.
    values = [v[np.isfinite(v)] for v in (table[m].cast(pl.Float64).to_numpy() for m in metrics)]
    present = [v for v in values if v.size]
    unit = all(v.min() >= 0.0 and v.max() <= 1.0 for v in present)
    if unit and present:  # ... and each spreads over a quarter of it: else a panel is one bar
        spread = np.ptp(np.concatenate(present))
        unit = spread == 0 or min(np.ptp(v) for v in present) >= spread / 4
    edges: Any = bins
    if unit:  # shared x axis: the same bins for every panel, or a narrow panel's vanish
        pooled = np.concatenate(values)
        lo, hi = (float(pooled.min()), float(pooled.max())) if pooled.size else (0.0, 1.0)
        if lo == hi:  # one value: a bin around it, inside [0, 1]
            lo, hi = _around(lo)
        edges = np.linspace(lo, hi, bins + 1)
    ncols = min(3, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig = _figure(1.0 + 3.8 * ncols, 1.0 + 3.0 * nrows)
    from matplotlib.ticker import MaxNLocator

    first = None
    for i, (metric, data, colour) in enumerate(
        zip(metrics, values, _colours(len(metrics)), strict=True)
    ):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=first if unit else None)
        first = first or ax
        panel_edges = edges
        if not unit and data.size and np.ptp(data) == 0:  # one value: a bin around it
            # (matplotlib's is a unit either side: lrap 1.0 drawn from 0.5 to 1.5)
            panel_edges = np.linspace(*_around(float(data[0])), bins + 1)
        ax.hist(data, bins=panel_edges, color=colour, edgecolor="white", linewidth=0.8)
        if data.size:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of groups
        else:  # (an empty histogram drew counts from -0.045 to 0.045)
            ax.text(0.5, 0.5, "no finite values", ha="center", va="center", color="0.4",
                    transform=ax.transAxes)  # fmt: skip
            ax.set_yticks([])
        ax.xaxis.set_major_locator(MaxNLocator(5))  # (a narrow range's long ticks ran together)
        ax.set_title(f"{metric} ({_direction(metric)})")
        ax.set_xlabel(metric)
        if i % ncols == 0:
            ax.set_ylabel("number of groups")
        ax.yaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
    keys = _key_columns(table, metrics)
    over = f" {' x '.join(keys)}" if keys else ""
    missing = [
        f"{m} {table.height - v.size:,}"
        for m, v in zip(metrics, values, strict=True)
        if v.size < table.height
    ]
    left_out = f" (no finite value, left out: {', '.join(missing)})" if missing else ""
    fig.suptitle(f"Distribution over {table.height:,}{over} groups{left_out}")
    return fig


def _around(value: float) -> tuple[float, float]:
    """A histogram's range about its one value.

    5% of it either side (0.05 at least), inside [0, 1] for a value there.
    """
    half = 0.05 * max(abs(value), 1.0)
    low, high = value - half, value + half
    return (max(0.0, low), min(1.0, high)) if 0.0 <= value <= 1.0 else (low, high)


@checked_options
@_fitted
def heatmap(
    table: pl.DataFrame | pl.LazyFrame,
    metric: str | None = None,
    *,
    model_col: str = "model",
    fold_col: str = "fold",
) -> Any:
    """A model x fold grid of a metric (from ``report(..., by=[model, fold])``), annotated.

    Models are sorted best first by their mean over folds (higher or lower is better as the
    metric says); the colour scale runs from worst (dark) to best (bright).

    Parameters
    ----------
    table
        A metric per model and fold: ``report(..., by=[model_col, fold_col])``.
    metric
        The column to plot; left out, the table's one column named as a metric.
    model_col
        The column of the grid's rows.
    fold_col
        The column of the grid's columns.

    Returns
    -------
    matplotlib.figure.Figure
        One panel, with a colour bar.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> fig = plot.heatmap(pl_metrics.lrap(df, by=["model", "fold"]))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['knn', 'forest', 'logreg', 'naive_bayes']
    """
    metric = column_name("metric", _the_metric(table, metric))
    model_col, fold_col = column_name("model_col", model_col), column_name("fold_col", fold_col)
    distinct_columns([("metric", metric), ("model_col", model_col), ("fold_col", fold_col)])
    table = _need(
        table,
        [model_col, fold_col, metric],
        numeric=[metric],
        labels=[model_col, fold_col],
        made_by=f"report(df, [{metric!r}], by=[{model_col!r}, {fold_col!r}])",
    )
    _unique_rows(
        table, [model_col, fold_col], f"filter the table to one {metric} per model and fold"
    )
    better = _higher_is_better(metric)
    folds = _in_order(table[fold_col])
    fold_names = _ticks(folds)
    # The grid is filled here rather than pivoted: a pivot names its columns by the folds,
    # which may be null or named like the model column.
    column = {_keyed(f): j for j, f in enumerate(folds)}
    rows: dict[Any, list[float]] = {}
    cells = table.select(model_col, fold_col, pl.col(metric).cast(pl.Float64))
    for model, fold, value in cells.iter_rows():
        row = rows.setdefault(_keyed(model), [math.nan] * len(folds))
        row[column[_keyed(fold)]] = math.nan if value is None else value
    sign = 1.0 if better is False else -1.0  # best first

    def best_first(model: Any) -> tuple[Any, ...]:
        known = [v for v in rows[model] if not math.isnan(v)]
        mean = sum(known) / len(known) if known else math.nan
        return (not known, sign * mean if known else 0.0, _sort_key(model))

    order = sorted(rows, key=best_first)
    values = np.array([rows[m] for m in order], dtype=np.float64).reshape(len(order), -1)
    models = _ticks(order)
    longest = max(len(m) for m in models)
    fig = _figure(max(5.0, 2.6 + 0.08 * longest + 0.9 * len(folds)), 1.6 + 0.45 * len(models))
    ax = fig.add_subplot()
    # Values over more than a decade (a loss, one model far off the others) on a log scale:
    # on a linear one the outlier alone set the colours, and the others all looked alike.
    known = values[np.isfinite(values)]
    log = bool(known.size) and known.min() > 0 and known.max() >= 10 * known.min()
    # ... only where the far values are the high ones: a log scale spreads the low end, so
    # a low outlier (a weak model's F1) squeezed all the others into one colour.
    log = log and float(np.median(known)) < math.sqrt(known.min() * known.max())
    from matplotlib.colors import LogNorm

    image = ax.imshow(
        values,
        aspect="auto",
        cmap="viridis" if better is not False else "viridis_r",
        norm=LogNorm() if log else None,
    )
    # Names wider than their cell (0.9 inches) turned, or they run into each other.
    turned = max(len(f) for f in fold_names) * 9 * 0.6 / 72 > 0.8
    tilt = {"rotation": 30, "ha": "right", "rotation_mode": "anchor"} if turned else {}
    ax.set_xticks(range(len(folds)), fold_names, **tilt)
    ax.set_yticks(range(len(models)), models)
    ax.set_xlabel(fold_col)
    # (By the mean over folds: `compare` ranks by the value of the folds pooled, which may
    # differ where folds differ in size.)
    ranked = f"{model_col}\n(best mean first)"  # (two lines fit the grid of two models)
    ax.set_ylabel(ranked if better is not None else model_col)
    size = 9 if len(folds) <= 8 else 7
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            value = values[i, j]
            if not math.isfinite(value):  # a blank cell: its text grey, not the scale's
                shown_value = "n/a" if math.isnan(value) else "inf" if value > 0 else "-inf"
                ax.text(j, i, shown_value, ha="center", va="center", color="grey", fontsize=size)
                continue
            red, green, blue, _ = image.cmap(image.norm(value))
            light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
            colour = "black" if light else "white"
            ax.text(j, i, f"{value:.4f}", ha="center", va="center", color=colour, fontsize=size)
    scale = ", log scale" if log else ""
    fig.colorbar(image, ax=ax, label=f"{metric} ({_direction(metric)}{scale})")
    ax.set_title(f"{metric} by {model_col} and {fold_col}")
    return fig


@checked_options
@_fitted
def intervals(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = None,
    confidence: float | None = None,
    n_resamples: int | None = None,
) -> Any:
    """Bootstrap intervals (from `pl_metrics.bootstrap`): a panel per metric, best first.

    Each metric gets its own panel and x scale, titled with its direction; its rows (a point
    and an interval each) are sorted best first from the top (a metric pl_metrics does not
    know: highest estimate first), with the values written on the right.

    A table of `pl_metrics.paired` draws its differences (``model_b - model_a``) the same
    way, with a line at 0 (no difference), its rows in the table's order.

    Parameters
    ----------
    table
        A table of `pl_metrics.bootstrap` or `pl_metrics.paired`.
    by
        The key column(s) whose values label the rows, as the other plots' series; default:
        all of them (e.g. ``model``; of a paired table, ``pair``, ``model_a`` or ``model_b``
        too).
    confidence, n_resamples
        Those the table was made with, written in the x axis' label ("95% bootstrap
        interval, 1,000 resamples"): the table does not hold them.

    Returns
    -------
    matplotlib.figure.Figure
        A panel per metric.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> ci = pl_metrics.bootstrap(df, "lrap", by="model", n_resamples=200, seed=0)
    >>> fig = plot.intervals(ci, confidence=0.95, n_resamples=200)
    >>> fig.axes[0].get_xlabel()
    'lrap: estimate and 95% bootstrap interval, 200 resamples'
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['knn', 'forest', 'logreg', 'naive_bayes']
    """
    if confidence is not None:
        check_confidence(confidence)
    if n_resamples is not None:  # (as bootstrap and paired, whose tables these are)
        check_integer("n_resamples", n_resamples, 2, _MAX_RESAMPLES)
    interval = "bootstrap interval"
    if confidence is not None:
        interval = f"{100 * confidence:g}% {interval}"
    if n_resamples is not None:
        interval += f", {n_resamples:,} resamples"
    bounds = ["estimate", "lower", "upper"]
    differences = _paired_differences(table)
    if differences is not None:
        table = differences[0]
    table = _need(
        table, ["metric", *bounds], numeric=bounds, labels=["metric"], made_by="bootstrap(...)"
    )
    keys = [c for c in table.columns if c not in _INTERVAL_COLUMNS]
    if differences is not None:
        keys = differences[2]
    names = keys if by is None else list(column_names("by", by))
    _need(table, names, labels=names)
    # (polars sorts NaN above every number: a NaN bound, drawn as no interval, is not refused)
    bounds_nan = pl.col("lower").is_nan() | pl.col("upper").is_nan()
    upside_down = table.filter((pl.col("lower") > pl.col("upper")) & ~bounds_nan).height
    if upside_down:
        raise MetricsInputError(
            f"columns 'lower' and 'upper': {upside_down:,} "
            f"{'row has' if upside_down == 1 else 'rows have'} lower above upper; a "
            "bootstrap(...) or paired(...) table has lower <= upper"
        )
    panels = table.partition_by("metric", maintain_order=True)  # a null metric too
    metrics = [panel["metric"][0] for panel in panels]
    longest = max((len(_row_name(names, row)) for row in table.iter_rows(named=True)), default=0)
    heights = [1.0 + 0.32 * p.height for p in panels]
    fig = _figure(min(14.0, 6.5 + 0.08 * longest), 0.4 + sum(heights))
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    for ax, metric, rows in zip(axes[:, 0], metrics, panels, strict=True):
        best_high = _higher_is_better(metric) is not False
        rows = rows.with_columns(pl.col("estimate", "lower", "upper").cast(pl.Float64))
        if differences is None:
            by_estimate = pl.col("estimate").fill_nan(None)
            rows = rows.sort(by_estimate, descending=best_high, nulls_last=True)
        estimate = rows["estimate"].to_numpy()
        lower, upper = rows["lower"].to_numpy(), rows["upper"].to_numpy()
        ys = list(range(rows.height))
        # The interval and its estimate apart: a percentile interval need not hold the
        # estimate (a skewed or biased metric), which errorbar's offsets cannot draw.
        with np.errstate(invalid="ignore"):  # an infinite bound: no interval drawn
            middle, half = (lower + upper) / 2, (upper - lower) / 2
            ax.errorbar(middle, ys, xerr=half, fmt="none", ecolor="C0", capsize=3)
        ax.plot(estimate, ys, "o", color="C0")
        ax.set_yticks(ys, [_row_name(names, row) or metric for row in rows.iter_rows(named=True)])
        ax.set_ylim(rows.height - 0.5, -0.5)  # first row (the best) on top
        if names:  # what the rows are: "0" alone could be a fold or a class
            ax.set_ylabel(" / ".join(_value_text(n) for n in names))
        ax.xaxis.grid(True, alpha=0.3)
        ax.set_axisbelow(True)
        if differences is not None:
            ax.axvline(0.0, color="0.55", linestyle="--", linewidth=1.0)
            pairs = [(_value_text(b), _value_text(a)) for b, a in differences[1]]
            better = _higher_is_better(metric)
            side = _direction(metric)
            if len(pairs) == 1 and better is not None:  # which side of 0 favours model_b
                side = f"{'above' if better else 'below'} 0: {pairs[0][0]} better"
            baselines = {a for _, a in pairs}
            named = (
                f"{pairs[0][0]} - {pairs[0][1]}"
                if len(pairs) == 1
                else f"each model - {pairs[0][1]}"
                if len(baselines) == 1
                else "model_b - model_a"
            )
            ax.set_title(f"{metric}: {named} ({side})")
            ax.set_xlabel(f"{metric} difference and {interval}")
        else:
            ax.set_title(f"{metric} ({_direction(metric)})")
            ax.set_xlabel(f"{metric}: estimate and {interval}")
        transform = ax.get_yaxis_transform()
        digits = _decimals(lower, upper)
        for y, (e, lo, hi) in enumerate(zip(estimate, lower, upper, strict=True)):
            text = f"{_fixed(e, digits)} [{_fixed(lo, digits)}, {_fixed(hi, digits)}]"
            ax.text(1.02, y, text, transform=transform, va="center", fontsize=8)
    return fig


def _paired_differences(
    table: object,
) -> tuple[pl.DataFrame, list[tuple[Any, Any]], list[str]] | None:
    """A `pl_metrics.paired` table as `intervals` reads a bootstrap's, and its model pairs.

    With them, the columns that label its rows unless ``label`` names others. None for
    other tables. Rows are labelled by their pair (``knn - logreg``) when there
    are several, then by the table's other keys (the fold, say); by the pair alone where
    there are none. ``model_a``, ``model_b`` and ``pair`` may label them too.
    """
    df = table_option("table", table)
    names = df.collect_schema().names()
    if "difference" not in names or "estimate" in names:
        return None
    df = _need(df, ["model_a", "model_b"], labels=["model_a", "model_b"], made_by="paired(...)")
    pairs = df.select("model_b", "model_a").unique(maintain_order=True).rows()
    shown = ("metric", "difference", "lower", "upper", "p_value", "model_a", "model_b")
    labelled = [c for c in df.columns if c not in shown]
    if len(pairs) > 1 or not labelled:
        labelled.insert(0, "pair")
    pair = pl.format("{} - {}", pl.col("model_b"), pl.col("model_a"))
    out = df.rename({"difference": "estimate"}).with_columns(pair.alias("pair"))
    others = [c for c in ("pair", "model_a", "model_b") if c not in labelled]
    return out.select(*labelled, *others, "metric", "estimate", "lower", "upper"), pairs, labelled


def _fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, or more where it would read as 0.

    A bound of -0.0014 written "-0.00" read as one that touches 0, not one that crosses it.
    """
    if math.isnan(value):
        return "n/a"  # (as the heatmap and the bars write it)
    text = f"{value + 0.0:.{digits}f}"  # (+ 0.0: -0.0 is 0)
    for more in range(digits + 1, digits + 4):
        if not math.isfinite(value) or value == 0 or float(text) != 0:
            return text
        text = f"{value:.{more}f}"
    # Smaller still (rounding's -3e-16 beside 0.3): its sign and size, not 15 zeros.
    return text if float(text) != 0 else f"{value:.0e}"


def _decimals(lower: np.ndarray, upper: np.ndarray) -> int:
    """Decimals for a panel's values, the same for each row.

    Two digits of its narrowest interval (the digits past those are noise), so that close
    models stay apart. (A per-value ``.4g`` dropped trailing zeros: ``0.985 [0.9806, 0.989]``.)
    """
    with np.errstate(invalid="ignore"):  # (inf - inf)
        widths = upper - lower
        scale = np.abs(np.concatenate([lower, upper]))
    scale = scale[np.isfinite(scale)]
    # Widths within rounding of the values (sums in another order) are no width.
    noise = 1e-12 * (float(scale.max()) if scale.size else 1.0)
    widths = widths[np.isfinite(widths) & (widths > noise)]
    if widths.size:
        return min(8, max(0, 1 - math.floor(math.log10(float(widths.min())))))
    values = np.abs(np.concatenate([lower, upper]))
    values = values[np.isfinite(values) & (values > 0)]
    return 4 if not values.size else min(8, max(0, 3 - math.floor(math.log10(values.max()))))


def _row_name(names: Sequence[str], row: dict[str, Any]) -> str:
    """``knn / class 0``: the first column's value, then the others' named, as in legends."""
    return _series_label(names, [row[k] for k in names]) if names else ""


# Curves: ROC, precision-recall, reliability.

#: Up to this many lines share the one panel of a curve plot; more are refused (filter first).
MAX_LINES = 20
#: Up to this many lines share each panel of a curve plot's small multiples (a panel per
#: class); more are refused.
MAX_PANEL_LINES = 8
#: A table of one series draws up to this many classes as lines of one panel; more get a
#: panel each.
MAX_CLASS_LINES = 10
#: Reliability lines zigzag where bins hold few rows: one series draws up to this many
#: classes in one panel, and more get a panel each.
MAX_RELIABILITY_CLASS_LINES = 5
#: Curve plots draw at most this many class panels by default (the first, in natural order).
MAX_CLASS_PANELS = 12


@dataclass(frozen=True)
class _CurveKind:
    """What a curve plot reads from its table and how it draws and summarises a line."""

    name: str  # "ROC curves"
    x: str
    y: str
    xlabel: str
    ylabel: str
    stat: str  # the legend's number: "AUC", "AP", "ECE"
    not_keys: tuple[str, ...]  # non-float columns of the table that are not series keys
    unique: str  # a column with one row per (series, class, value), when the table has it
    drawstyle: str = "default"
    marker: str | None = None
    class_lines: int = MAX_CLASS_LINES  # one series: classes drawn as lines of one panel
    made_by: str = ""  # the table's function


_ROC = _CurveKind(
    "ROC curves", "fpr", "tpr", "false positive rate", "true positive rate", "AUC",
    (), "threshold", made_by="roc_curve(...)",
)  # fmt: skip
_PR = _CurveKind(
    "Precision-recall curves", "recall", "precision", "recall", "precision", "AP",
    (), "threshold", drawstyle="steps-post",
    made_by="precision_recall_curve(...)",
)  # fmt: skip
_RELIABILITY = _CurveKind(
    "Reliability", "prob_pred", "prob_true", "mean predicted probability (prob_pred)",
    "fraction of positives (prob_true)", "ECE", ("bin",), "bin", marker="o",
    class_lines=MAX_RELIABILITY_CLASS_LINES, made_by="calibration_curve(...)",
)  # fmt: skip


@dataclass
class _Line:
    name: str
    colour: Any
    xs: np.ndarray[Any, Any]
    ys: np.ndarray[Any, Any]
    value: float  # AUC, AP or ECE of the line
    counts: np.ndarray[Any, Any] | None = None
    #: The points after which bins are missing (empty): the count line breaks there.
    gaps: np.ndarray[Any, Any] | None = None

    @classmethod
    def absent(cls, name: str, colour: Any, kind: _CurveKind) -> _Line:
        """A series without rows of a panel's class: its legend entry says so, no curve."""
        empty = np.empty(0)
        return cls(name, colour, empty, empty, math.nan, empty if kind is _RELIABILITY else None)

    def label(self, stat: str, name: str | None = None) -> str:
        """``name (AUC 0.912)``; ``name``: the line's own, or a shorter one (a cut name)."""
        if self.xs.size == 0 and math.isnan(self.value):
            return f"{self.name if name is None else name} (no rows)"
        shown = "n/a" if math.isnan(self.value) else f"{self.value:.3f}"
        return f"{self.name if name is None else name} ({stat} {shown})"


@dataclass
class _Panel:
    title: str
    lines: list[_Line] = field(default_factory=list)
    legend_title: str | None = None


@checked_options
@_fitted
def roc_curves(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    class_col: str = "class",
    by: str | Sequence[str] | None = None,
    max_classes: int = MAX_CLASS_PANELS,
) -> Any:
    """ROC curves from a `pl_metrics.roc_curve` table, with the AUC of each line.

    One line per series: the combinations of ``by`` (default: the table's key
    columns, every column except ``class_col`` and the float ones, e.g. ``model``), over
    the chance diagonal, on axes from 0 to 1. How the lines are laid out:

    * one class: one panel, a line per series (e.g. per model);
    * one series: one panel, a line per class (up to `MAX_CLASS_LINES` classes);
    * several of both (or many classes): small multiples, a panel per class (the first
      ``max_classes`` in natural order, the title says so), a line per series, the same
      colour for a series in every panel, shared axes.

    One panel holds up to `MAX_LINES` lines, each of the small multiples up to
    `MAX_PANEL_LINES`; more are refused with a `MetricsInputError` asking to filter the
    table (e.g. to one fold). Each legend entry gives the line's AUC, the trapezoid area
    under the table's points: `pl_metrics.roc_auc` (``average=None``) of the class, unless
    ``max_points`` thinned the curve.

    Parameters
    ----------
    table
        A table of `pl_metrics.roc_curve`.
    class_col
        The table's class column.
    by
        The columns whose combinations are the series; default: the table's key columns,
        every column except ``class_col`` and the float ones (e.g. ``model``).
    max_classes
        The most classes drawn as small multiples (the first, in natural order).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, or small multiples.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> table = pl_metrics.roc_curve(df.filter(pl.col("class") == "3"), by="model")
    >>> fig = plot.roc_curves(table)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['forest (AUC 0.999)', 'knn (AUC 1.000)', 'logreg (AUC 0.999)', 'naive_bayes (AUC 0.963)']
    """
    return _curve_plot(table, _ROC, class_col, by, max_classes, counts=False)


@checked_options
@_fitted
def pr_curves(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    class_col: str = "class",
    by: str | Sequence[str] | None = None,
    max_classes: int = MAX_CLASS_PANELS,
) -> Any:
    """Precision-recall curves from a `pl_metrics.precision_recall_curve` table, as steps.

    Recall on x, precision on y, laid out as `roc_curves` lays out its lines. Each legend
    entry gives the line's average precision computed from the table's points as
    scikit-learn's step-wise sum: with recall falling, the sum of
    ``(recall[i] - recall[i + 1]) * precision[i]``; that is `pl_metrics.average_precision`
    (``average=None``) of the class unless ``max_points`` thinned the curve. The steps are
    the ones that sum adds up.

    Parameters
    ----------
    table
        A table of `pl_metrics.precision_recall_curve`.
    class_col
        The table's class column.
    by
        The columns whose combinations are the series; default: the table's key columns,
        every column except ``class_col`` and the float ones (e.g. ``model``).
    max_classes
        The most classes drawn as small multiples (the first, in natural order).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, or small multiples.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    >>> fig = plot.pr_curves(pl_metrics.precision_recall_curve(df))
    >>> len(fig.axes), fig.axes[0].get_legend().get_texts()[3].get_text()
    (1, '3 (AP 0.997)')
    """
    return _curve_plot(table, _PR, class_col, by, max_classes, counts=False)


@checked_options
@_fitted
def reliability(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    class_col: str = "class",
    by: str | Sequence[str] | None = None,
    max_classes: int = MAX_CLASS_PANELS,
    counts: bool = True,
) -> Any:
    """Reliability diagram from a `pl_metrics.calibration_curve` table, with each ECE.

    Each bin's mean score (``prob_pred``) against its share of positives (``prob_true``),
    a marker per bin, over the diagonal of perfect calibration; laid out as `roc_curves`
    lays out its lines, except that one series draws at most `MAX_RELIABILITY_CLASS_LINES`
    classes in one panel (more get a panel each). With ``counts`` (the default) a small
    panel underneath shows each bin's ``count`` (on a log scale where two powers of 10 lie
    within them).
    Each legend entry gives the line's expected calibration error from the table: the
    count-weighted mean of ``|prob_true - prob_pred|``,
    `pl_metrics.expected_calibration_error` (``average=None``) with the same bins.

    Parameters
    ----------
    table
        A table of `pl_metrics.calibration_curve`.
    class_col
        The table's class column.
    by
        The columns whose combinations are the series; default: the table's key columns,
        every column except ``class_col`` and the float ones (e.g. ``model``).
    max_classes
        The most classes drawn as small multiples (the first, in natural order).
    counts
        Draw each bin's count in a panel underneath.

    Returns
    -------
    matplotlib.figure.Figure
        One panel, or small multiples.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> from pl_metrics import plot
    >>> df = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("class") == "8")
    >>> fig = plot.reliability(pl_metrics.calibration_curve(df, by="model"))
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['fraction of positives (prob_true)', 'count']
    """
    return _curve_plot(table, _RELIABILITY, class_col, by, max_classes, counts=counts)


def _curve_plot(
    table: pl.DataFrame | pl.LazyFrame,
    kind: _CurveKind,
    class_col: str,
    by: str | Sequence[str] | None,
    max_classes: int,
    *,
    counts: bool,
) -> Any:
    max_classes = check_integer("max_classes", max_classes)
    given: object = counts  # what a caller may pass, beyond the annotation
    if not isinstance(given, (bool, np.bool_)):
        raise MetricsInputError(f"option 'counts': expected True or False, got {shown(counts)}")
    class_col = column_name("class_col", class_col)
    value_cols = [kind.x, kind.y, *(["count"] if kind is _RELIABILITY else [])]
    given_keys = None if by is None else list(column_names("by", by))
    named = [class_col, *(given_keys or [])]
    table = _need(
        table,
        [*named, *value_cols],
        numeric=value_cols,
        labels=named,
        made_by=kind.made_by,
        options={class_col: "class_col"},
    )
    if given_keys is None:
        keys = _key_columns(table, [class_col, *value_cols, *kind.not_keys])
    else:
        keys = given_keys
        if class_col in keys:
            raise MetricsInputError(f"option 'by' names the class column {class_col!r}")
        points = [k for k in keys if k in (*value_cols, kind.unique)]
        if points:
            raise MetricsInputError(
                f"option 'by': {points} hold the points of each curve, not the keys of its series"
            )
    if kind.unique in table.columns:
        not_series = [class_col, *value_cols, *kind.not_keys, kind.unique, *keys]
        others = _key_columns(table, not_series)
        # Float columns (a hyperparameter, say) are series only when named in by.
        floats = _float_keys(table, not_series)
        _unique_rows(
            table,
            [*keys, class_col, kind.unique],
            "each line needs one curve: "
            + (f"add {others} to by, or " if others else "")
            + (
                f"pass by={[*keys, *floats]} (float columns are keys when named), or "
                if floats and not others
                else ""
            )
            + "filter the table to one curve per series and class",
        )
    classes = _in_order(table[class_col])
    series = _rows_in_order(table, keys) if keys else [()]
    parts = {
        tuple(map(_keyed, key)): rows
        for key, rows in table.partition_by(
            [*keys, class_col], as_dict=True, maintain_order=True
        ).items()
    }
    by = f" by {' and '.join(keys)}" if keys else ""

    def line(values: tuple[Any, ...], cls: Any, name: str, colour: Any) -> _Line:
        # (A series without the class's rows, of tables concatenated, is told in its legend.)
        rows = parts.get(tuple(map(_keyed, (*values, cls))))
        return (
            _Line.absent(name, colour, kind)
            if rows is None
            else _curve_line(rows, kind, name, colour)
        )

    if _one_panel(kind, len(classes), len(series)):
        if len(classes) == 1:
            (cls,) = classes
            names = [_series_label(keys, values) for values in series]
            title = f"{kind.name}{by}, {class_col} {_value_text(cls)}"
            found = [
                line(v, cls, n, c)
                for v, n, c in zip(series, names, _colours(len(series)), strict=True)
            ]
            legend = " / ".join(keys) or None
        else:
            (values,) = series
            where = f" of {_series_label(keys, values)}" if keys else ""
            title = f"{kind.name}{where}, one line per {class_col}"
            found = [
                line(values, c, _value_text(c), k)
                for c, k in zip(classes, _colours(len(classes)), strict=True)
            ]
            legend = class_col
        _check_lines(len(found), keys, MAX_LINES, "one panel")
        panels = [_Panel(title, found, legend)]
        return _draw_curves(panels, kind, title, counts=counts, single=True)
    _check_lines(len(series), keys, MAX_PANEL_LINES, "each class's panel")
    shown_classes = classes[:max_classes]
    colours = _colours(len(series))
    names = [_series_label(keys, values) for values in series]
    panels = []
    for cls in shown_classes:
        lines = [
            line(v, cls, n if keys else _value_text(cls), c)
            for v, n, c in zip(series, names, colours, strict=True)
        ]
        # Titled as one panel's legend: "0 (AUC 0.998)" alone could be a class or a fold.
        panels.append(_Panel(f"{class_col} {_value_text(cls)}", lines, " / ".join(keys) or None))
    title = f"{kind.name}{by}, one panel per {class_col}"
    if len(shown_classes) < len(classes):
        title += (
            f" (the first {len(shown_classes)} of {len(classes)}: filter the table on "
            f"{class_col!r} or raise max_classes, --max-classes, to see others)"
        )
    return _draw_curves(panels, kind, title, counts=counts, single=False)


def _one_panel(kind: _CurveKind, n_classes: int, n_series: int) -> bool:
    """Whether a curve plot draws one panel (of its classes, or of its series), not one a class."""
    return n_classes == 1 or (n_series == 1 and n_classes <= kind.class_lines)


def drawn_classes(kind: str, n_classes: int, n_series: int, max_classes: int) -> int:
    """How many of ``n_classes`` the ``roc``, ``pr`` or ``calibration`` plot draws."""
    one = _one_panel(
        {"roc": _ROC, "pr": _PR, "calibration": _RELIABILITY}[kind], n_classes, n_series
    )
    return n_classes if one else min(n_classes, max_classes)


def _check_lines(n: int, keys: list[str], limit: int, where: str) -> None:
    """Refuse more series than a panel shows readably (only series can be that many)."""
    if n > limit:
        raise MetricsInputError(
            f"{n} lines (one per combination of {', '.join(keys)}) are too many to read in "
            f"{where} (at most {limit}); filter the table first, e.g. "
            f"table.filter(pl.col({keys[-1]!r}) == ...), or group by fewer columns"
        )


def _curve_line(rows: pl.DataFrame, kind: _CurveKind, name: str, colour: Any) -> _Line:
    """One line's points in drawing order, and its AUC, AP or ECE."""
    # The curve's own order is its thresholds' (negative weights can make the rates fall
    # back, so sorting by them would reorder the points and change the area).
    if kind is _ROC and "threshold" in rows.columns:  # inf (null in JSON) first
        rows = rows.sort("threshold", descending=True, nulls_last=False, maintain_order=True)
    elif kind is _PR and "threshold" in rows.columns:  # the last point's is null
        rows = rows.sort("threshold", nulls_last=True, maintain_order=True)
    elif kind is _ROC:  # a ROC curve rises in both rates
        rows = rows.sort("fpr", "tpr")
    elif kind is _PR:  # sklearn's order: recall falls; at equal recall, precision rises
        rows = rows.sort(["recall", "precision"], descending=[True, False])
    else:
        rows = rows.sort("bin" if "bin" in rows.columns else kind.x)
    xs = rows[kind.x].cast(pl.Float64).to_numpy()
    ys = rows[kind.y].cast(pl.Float64).to_numpy()
    weights, gaps = None, None
    if "bin" in rows.columns:
        gaps = np.flatnonzero(np.diff(rows["bin"].cast(pl.Int64).to_numpy()) > 1)
    if kind is _ROC:
        value = float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2.0)) if xs.size > 1 else math.nan
    elif kind is _PR:  # (at least 0, as scikit-learn's: negative weights can make it less)
        value = max(0.0, float(np.sum((xs[:-1] - xs[1:]) * ys[:-1]))) if xs.size > 1 else math.nan
    else:
        weights = rows["count"].cast(pl.Float64).to_numpy()
        total = float(weights.sum())
        value = float(np.sum(weights * np.abs(ys - xs)) / total) if total > 0 else math.nan
    if weights is None and xs.size > MAX_DRAWN_POINTS:  # the value is the whole curve's
        metric = "roc_curve" if kind is _ROC else "precision_recall_curve"
        drawn = thinned(rows, [], MAX_DRAWN_POINTS, metric)
        xs, ys = (drawn[c].cast(pl.Float64).to_numpy() for c in (kind.x, kind.y))
    return _Line(name, colour, xs, ys, value, weights, gaps)


def _panel_grid(n: int) -> tuple[int, int]:
    """Columns and rows for n panels: few empty slots, then wide rather than tall."""
    ncols = min(range(min(n, 3), min(n, 5) + 1), key=lambda c: (c * math.ceil(n / c) - n, -c))
    return ncols, math.ceil(n / ncols)


def _draw_curves(
    panels: list[_Panel], kind: _CurveKind, title: str, *, counts: bool, single: bool
) -> Any:
    counts = counts and kind is _RELIABILITY
    n = len(panels)
    ncols, nrows = (1, 1) if single else _panel_grid(n)
    side = 5.2 if single else 2.9
    font = 9 if single else 7
    legend = _legend_place(panels, kind, side, font, single)
    width = 0.9 + ncols * side + (_RIGHT_LEGEND_WIDTH if legend.where == "right" else 0.0)
    height = 0.9 + nrows * side * (1.3 if counts else 1.0) + legend.below_height
    fig = _figure(width, height)
    ratios = [3, 1] * nrows if counts else [1] * nrows
    grid = fig.add_gridspec(len(ratios), ncols, height_ratios=ratios)
    step = 2 if counts else 1
    log_counts = counts and _log_counts(panels)
    first: Any = None
    first_count: Any = None
    limits = [_limits(panels, axis) for axis in ("xs", "ys")]
    for i, panel in enumerate(panels):
        row, col = divmod(i, ncols)
        ax = fig.add_subplot(grid[row * step, col], sharex=first, sharey=first)
        first = first or ax
        bottom = i + ncols >= n  # no panel below this one
        below: Any = None
        if counts:
            below = fig.add_subplot(grid[row * step + 1, col], sharex=ax, sharey=first_count)
            first_count = first_count or below
        _draw_panel(ax, panel, kind, font, legend, under=below)
        ax.set_xlim(*limits[0])  # (the panels share their axes: limits of them all)
        ax.set_ylim(*limits[1])
        if not single:
            ax.set_title(panel.title, fontsize=9)
        if col == 0:
            ax.set_ylabel(kind.ylabel, fontsize=None if single else 8)
        else:
            ax.tick_params(axis="y", labelleft=False)
        if not single:
            ax.tick_params(labelsize=7)
        if below is not None:
            _draw_counts(below, panel, log=log_counts)
            ax.tick_params(axis="x", labelbottom=False)
            if col == 0:
                below.set_ylabel("count", fontsize=None if single else 8)
            else:
                below.tick_params(axis="y", labelleft=False)
            if not single:
                below.tick_params(labelsize=7)
            ax = below
        if bottom:
            ax.set_xlabel(kind.xlabel, fontsize=None if single else 8)
        else:
            ax.tick_params(axis="x", labelbottom=False)
    if counts and not log_counts:
        # The count panels share their y axis: its floor is set once all are drawn, since
        # setting a limit stops the shared axis growing to the later panels' counts. Room
        # above too: the autoscaled top is a margin of the counts' spread, which on a floor
        # of 0 leaves the largest count's marker on the frame.
        first_count.set_ylim(0, first_count.get_ylim()[1] * 1.1)
    if single:
        fig.axes[0].set_title(title)
    else:
        fig.suptitle(title)
    return fig


#: A single panel's legend of more lines than `MAX_CLASS_LINES` goes to its right, this
#: many inches wide.
_RIGHT_LEGEND_WIDTH = 2.6
#: A legend inside a panel takes at most this share of its width; longer labels wrap, and
#: a single panel's legend goes below it when they would wrap.
_INSIDE_SHARE = 0.75
#: The width of a character of a legend, in ems (DejaVu Sans' are about 0.55 on average,
#: digits 0.64).
_CHAR_EMS = 0.62
#: A legend's line sample, with the padding and space around it, in ems.
_HANDLE_EMS = 4.0
#: A legend's line, in ems (text and spacing).
_LINE_EMS = 1.35


@dataclass(frozen=True)
class _LegendPlace:
    """Where a curve plot's legends go, and how many characters fit on a line of them.

    ``where``: ``inside`` the panels, or ``right`` of or ``below`` a single panel. Longer
    labels wrap.
    """

    where: str
    chars: int
    below_height: float = 0.0  # inches the figure gains for a legend below its panel
    cut: bool = False  # the series' names cut in their middle: wrapped, too tall inside


def _legend_place(
    panels: Sequence[_Panel], kind: _CurveKind, side: float, font: float, single: bool
) -> _LegendPlace:
    """Where the legends of ``panels`` fit, their labels wrapped to the room.

    Long key names make wide labels: a legend inside a panel covered it and its neighbours,
    and a single panel's collapsed its axes.
    """
    per_char = font * _CHAR_EMS / 72  # inches
    handle = _HANDLE_EMS * font / 72  # a line's sample and the space around it
    inside = int((side * _INSIDE_SHARE - handle) / per_char)
    if not single:
        rows = max(
            sum(len(_wrapped(line.label(kind.stat), inside).split("\n")) for line in p.lines)
            for p in panels
        )
        tall = (rows + 1) * _LINE_EMS * font / 72 > _TALLEST_INSIDE * side  # (+ its title)
        return _LegendPlace("inside", inside, cut=tall)
    labels = [line.label(kind.stat) for line in panels[0].lines]

    def height(chars: int) -> float:  # inches, a title line included
        rows = sum(len(_wrapped(label, chars).split("\n")) for label in labels) + 1
        return rows * _LINE_EMS * font / 72

    right = int((_RIGHT_LEGEND_WIDTH - handle) / per_char)
    # A reliability diagram's points lie anywhere in the square: no corner is free of them.
    beside = len(labels) > MAX_CLASS_LINES or kind is _RELIABILITY
    if beside and height(right) <= side:
        return _LegendPlace("right", right)
    if len(labels) <= MAX_CLASS_LINES and max(map(len, labels), default=0) <= inside:
        return _LegendPlace("inside", inside)
    # Too long for the panel or beside it: below it, as wide as the figure.
    below = int(((0.9 + side) * 0.95 - handle) / per_char)
    return _LegendPlace("below", below, below_height=height(below) + 0.6)


def _wrapped(text: str, chars: int) -> str:
    """``text`` in lines of at most ``chars`` characters.

    Broken after spaces, ``_``, ``-`` and ``/`` (key values are often snake_case), not in
    parentheses (a line's ``(AUC 0.912)``); a longer piece is cut into lines of its own (a
    name of 60 letters on one line squeezed the panels beside it to nothing).
    """
    lines = [""]
    for whole in re.findall(r"\([^)]*\)[ _/-]*|[^ _/-]+[ _/-]*|[ _/-]+", text):
        fits = whole.startswith("(") or len(whole.rstrip()) <= chars
        for piece in [whole] if fits else _cut(whole, chars):
            if lines[-1] and len((lines[-1] + piece).rstrip()) > chars:
                lines.append("")
            lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def _cut(text: str, chars: int) -> list[str]:
    r"""``text`` in pieces of ``chars`` characters, an escaped ``\$`` kept whole.

    (Cut between its two characters, a line ended in a stray ``\`` and the next began with
    a ``$`` that matplotlib reads as mathtext.)
    """
    pieces, start = [], 0
    while start < len(text):
        end = start + max(chars, 2)
        if text[end - 1 : end + 1] == r"\$":
            end -= 1
        pieces.append(text[start:end])
        start = end
    return pieces


def _limits(panels: list[_Panel], axis: str) -> tuple[float, float]:
    """[0, 1], or wider where rates leave it (negative weights).

    Drawn unclipped, a curve outside the axes ran over the titles and tick labels.
    """
    drawn = [np.asarray(getattr(line, axis), float) for panel in panels for line in panel.lines]
    values = np.concatenate(drawn) if drawn else np.empty(0)
    values = values[np.isfinite(values)]
    low = min(0.0, float(values.min(initial=0.0)))
    high = max(1.0, float(values.max(initial=1.0)))
    margin = 0.0 if (low, high) == (0.0, 1.0) else 0.05 * (high - low)
    return low - margin, high + margin


def _draw_panel(
    ax: Any, panel: _Panel, kind: _CurveKind, font: float, legend: _LegendPlace, under: Any = None
) -> None:
    """``panel``'s lines on ``ax``, and their legend; ``under``: its count panel, if any."""
    if kind is not _PR:
        ax.plot([0, 1], [0, 1], linestyle="--", color="0.55", linewidth=1.0, label="_diagonal")
    labels = [_wrapped(line.label(kind.stat), legend.chars) for line in panel.lines]
    if legend.cut:
        # Long series names, wrapped, made a legend taller than its panel (over the curves,
        # the next panel's title): names cut in their middle, a line each, where they stay
        # apart (as the heatmap's ticks).
        room = max(8, legend.chars - len(f" ({kind.stat} 0.000)"))
        names = _told_apart([line.name for line in panel.lines], room)
        if names is not None:
            labels = [
                line.label(kind.stat, name) for name, line in zip(names, panel.lines, strict=True)
            ]
    # (Given to the legend as they are: matplotlib leaves out labels that start with "_",
    # so a model named "_baseline" was drawn without its entry.)
    handles = []
    for line, label in zip(panel.lines, labels, strict=True):
        style: dict[str, Any] = {
            "color": line.colour,
            "linewidth": 1.6,
            "drawstyle": kind.drawstyle,
            "marker": kind.marker,
            "markersize": 4,
            "label": label,
        }
        if line.xs.size:  # (unclipped: a curve along an edge stays visible)
            handles += ax.plot(line.xs, line.ys, clip_on=False, **style)
        else:  # a series without rows here, in the legend alone (an empty line drawn
            # unclipped has no extent: the layout collapsed the panels)
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], **style))
    ax.grid(True, alpha=0.3)
    ax.set_axisbelow(True)
    if panel.lines:
        places = {  # (loc, bbox_to_anchor) in the panel's coordinates
            # (matplotlib's least covered place: a fixed corner covered a ROC curve
            # worse than chance, or a rare class's PR curve along the bottom)
            "inside": ("best", None),
            "right": ("upper left", (1.02, 1.0)),
            "below": ("upper center", (0.5, -0.1)),
        }
        loc, anchor = places[legend.where]
        holder = ax
        if legend.where == "below" and under is not None:
            # Under the counts, not between them and the diagram whose x they share.
            holder, anchor = under, (0.5, -0.45)
        title = panel.legend_title
        holder.legend(
            handles,
            labels,
            title=None if title is None else _wrapped(title, legend.chars),
            fontsize=font,
            title_fontsize=font,
            loc=loc,
            bbox_to_anchor=anchor,
            frameon=legend.where == "inside",
            framealpha=0.85,
        )


#: The most of a panel's height a legend inside it takes before its names are cut.
_TALLEST_INSIDE = 0.5


def _told_apart(whole: list[str], room: int) -> list[str] | None:
    """``whole`` names on a line each of ``room`` characters, told apart; None if none do.

    Cut in their middle; else (apart in their middle: lr_2e-5, lr_3e-5) from where they
    differ on; else (apart in two places: lr_1e-3_seed_0_augmented) from there to where
    their common end begins.
    """

    def differ_at(names: list[str]) -> int:
        return next(
            (i for i, chars in enumerate(zip(*names, strict=False)) if len(set(chars)) > 1),
            min(map(len, names)),
        )

    start = max(0, differ_at(whole) - 4)
    end = max(0, differ_at([name[::-1] for name in whole]) - 4)
    tries = (
        [_cut_middle(name, room) for name in whole],
        [_cut_middle("…" + name[start:], room) for name in whole],
        [
            _cut_middle(
                f"{'…' if start else ''}{name[start : len(name) - end]}{'…' if end else ''}", room
            )
            for name in whole
        ],
    )
    return next((names for names in tries if len(set(names)) == len(set(whole))), None)


def _cut_middle(text: str, chars: int) -> str:
    """``text`` on one line of at most ``chars`` characters shown, its middle cut.

    Its ends tell names apart. Its ``$``, escaped (`_escaped`), are cut as one character.
    """
    shown = " ".join(text.replace(r"\$", "$").split())
    if len(shown) > max(chars, 3):
        head = (max(chars, 3) - 1) // 2
        shown = f"{shown[:head]}…{shown[len(shown) - (max(chars, 3) - 1 - head) :]}"
    return _escaped(shown)


def _log_counts(panels: Sequence[_Panel]) -> bool:
    """Whether the count panels (which share their y axis) take a log scale.

    Where two powers of 10 lie within the counts; else a log axis would label one major
    tick or none (and its minor labels overlap): their scale stays linear.
    """
    counts = np.concatenate(
        [
            np.asarray(line.counts, dtype=float)
            for p in panels
            for line in p.lines
            if line.counts is not None
        ]
        or [np.zeros(0)]
    )
    counts = counts[counts > 0]
    # Two powers of 10 within the counts, each a labelled major tick (2 to 31 span a
    # decade but hold 10 alone, the axis' one label).
    return bool(counts.size) and (
        math.floor(math.log10(counts.max())) > math.ceil(math.log10(counts.min()))
    )


def _draw_counts(ax: Any, panel: _Panel, *, log: bool) -> None:
    for line in panel.lines:
        assert line.counts is not None
        if not line.counts.size:  # (a series without rows in this panel: see `_Line.absent`)
            continue
        # Empty bins between two points hold no rows: the line breaks there, not across.
        at = np.array([], np.int64) if line.gaps is None else line.gaps + 1
        xs, counts = (np.insert(np.asarray(v, float), at, np.nan) for v in (line.xs, line.counts))
        ax.plot(xs, counts, color=line.colour, linewidth=1.0, marker=".", alpha=0.7)
    if log:
        from matplotlib.ticker import NullFormatter

        ax.set_yscale("log")
        # (Counts of two decades or so: matplotlib labels the minor ticks too, crowded.)
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(3, integer=True))
    ax.grid(True, alpha=0.3)
    ax.set_axisbelow(True)
