"""One resolved, immutable description of a metric computation: metrics, columns, options.

Public functions resolve their keyword options once, here, into a `Spec`; the state
builder, the file driver, Dask and `compare` all take that spec instead of option dicts.
Every option is checked once, against the registry's facts, with errors that name it.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Final, Literal, cast

import numpy as np
import polars as pl

from pl_metrics._counts import check_zero_division
from pl_metrics._frame import (
    INTERNAL,
    LARGEST_WEIGHT,
    Columns,
    MetricsInputError,
    Ragged,
    UnknownOptionError,
    check_beta,
    check_eps,
    check_integer,
    check_option,
    compared_number,
    did_you_mean,
    is_number,
    is_pandas_series,
    listed,
    normalize_by,
    refuse_internal,
    refuse_pattern,
    require_column,
    resolve_columns,
    shown,
    to_polars,
    unsigned_zero,
)
from pl_metrics._io import counted_text, reader_error
from pl_metrics._registry import METRIC_OPTIONS, METRICS, MetricInfo, info, sweepable

__all__ = [
    "THRESHOLD_ROW",
    "UNUSED_OPTION",
    "Average",
    "Options",
    "Spec",
    "Strategy",
    "Thresholds",
    "Undefined",
    "as_given",
    "at_call",
    "check_average",
    "check_average_of",
    "check_key_name",
    "check_key_names",
    "class_text",
    "made_columns",
    "make_options",
    "metric_list",
    "refuse_unused",
    "refuse_unused_by_tuned",
    "resolve",
]

Average = Literal["macro", "micro", "weighted", "samples"] | None
#: ROC AUC of a class without positives or negatives: refuse, or leave it out.
Undefined = Literal["error", "skip"]
#: Calibration bins: equal widths on [0, 1], or equal counts (quantiles of the scores).
Strategy = Literal["uniform", "quantile"]


#: The column of a threshold table's value, and the rows' threshold once joined.
THRESHOLD = "threshold"
THRESHOLD_ROW = f"{INTERNAL}threshold"


@dataclass(frozen=True)
class Thresholds:
    """A threshold per class (and group): ``pred = score >= threshold`` of the row's class.

    Keys are compared as strings, so a table of string class names applies to an integer,
    categorical or enum class column alike. Hashable, so that states of equal options merge.
    """

    keys: tuple[str, ...]
    rows: tuple[tuple[str | None, ...], ...]
    values: tuple[float, ...]

    #: best_threshold's result columns beside the threshold: no keys, unless grouped by.
    VALUES: ClassVar[tuple[str, ...]] = ("value", "held_out_value")

    @classmethod
    def ordered(
        cls, keys: Sequence[str], rows: Iterable[Sequence[str | None]], values: Iterable[float]
    ) -> Thresholds:
        """In one order (keys by name, rows by key): states of the same table merge."""
        order = sorted(range(len(keys)), key=keys.__getitem__)
        pairs = sorted(
            ((tuple(row[i] for i in order), v) for row, v in zip(rows, values, strict=True)),
            key=lambda pair: [(cell is None, cell or "") for cell in pair[0]],
        )
        return cls(
            tuple(keys[i] for i in order), tuple(r for r, _ in pairs), tuple(v for _, v in pairs)
        )

    def keyed_by(self, by: Collection[str]) -> Thresholds:
        """The table without best_threshold's value columns, but those that ``by`` names.

        A table of `best_threshold` holds its metric's values beside the thresholds; a
        column of the data named so and grouped by keys the thresholds as any group does.
        """
        dropped = [k for k in self.VALUES if k in self.keys and k not in by]
        if not dropped:
            return self
        kept = [i for i, k in enumerate(self.keys) if k not in dropped]
        return self.ordered(
            [self.keys[i] for i in kept],
            [[row[i] for i in kept] for row in self.rows],
            self.values,
        )

    @staticmethod
    def column(key: str) -> str:
        """The internal name of a key column, as a string, for the join."""
        return f"{INTERNAL}tkey_{key}"

    @staticmethod
    def text(key: str, dtype: pl.DataType) -> pl.Expr:
        """A key column as the strings it is compared as (-0.0 as 0.0, one group of both)."""
        return _text(pl.col(key), dtype).alias(key)

    def lacking(self, rows: pl.LazyFrame, count: int = 3) -> list[dict[str, Any]]:
        """The first ``count`` keys of ``rows`` (class, and groups) without a threshold here.

        For an error that counts such rows: one read of the rows' key columns.
        """
        keys = rows.select(self.keys).unique(maintain_order=True)
        return self.joined(keys, how="anti").head(count).collect().rows(named=True)

    def joined(self, rows: pl.LazyFrame, how: Literal["left", "anti"] = "left") -> pl.LazyFrame:
        """``rows`` joined to their thresholds by their keys, compared as strings.

        ``how="anti"``: the rows without one.
        """
        schema, keys = rows.collect_schema(), [self.column(k) for k in self.keys]
        named = rows.with_columns(self.text(k, schema[k]).alias(self.column(k)) for k in self.keys)
        joined = named.join(
            self.table(schema), on=keys, how=how, nulls_equal=True, maintain_order="left"
        )
        return joined.drop(keys)

    def table(self, schema: pl.Schema) -> pl.LazyFrame:
        """The keys (as strings, under internal names) and the thresholds.

        ``schema``: the rows' types. A key read back as text from a CSV or JSON file (a
        time written ``2024-03-31T01:00:00.000000+0100``) is parsed as the rows' type and
        written as `text` writes the rows' keys; a key that does not parse, or would lose
        digits (``0.004`` for a Decimal of 2 places), stays as it is. Keys that are one once
        parsed (``0.0`` and ``0.00``) are refused.
        """
        columns: dict[str, list[str | None]] = {self.column(k): [] for k in self.keys}
        for row in self.rows:
            for key, value in zip(self.keys, row, strict=True):
                columns[self.column(key)].append(value)
        types = dict.fromkeys(columns, pl.String) | {THRESHOLD_ROW: pl.Float64}
        table = pl.DataFrame({**columns, THRESHOLD_ROW: list(self.values)}, schema=types)
        parsed = {
            self.column(k): pl.coalesce(_text(as_read, schema[k]), pl.col(self.column(k)))
            for k in self.keys
            if (as_read := _parsed(pl.col(self.column(k)), schema[k])) is not None
        }
        if not parsed:
            return table.lazy()
        read = table.with_columns(**parsed)
        names = [self.column(k) for k in self.keys]
        repeated = read.with_row_index("row").filter(pl.struct(names).is_duplicated())
        if repeated.height:
            first, second = (table.row(i)[: len(names)] for i in repeated["row"][:2])
            raise self.one_key(first, second, schema)
        return read.lazy()

    def one_key(
        self, first: tuple[str | None, ...], second: tuple[str | None, ...], schema: pl.Schema
    ) -> MetricsInputError:
        """Two keys of the table, as written, that the rows' types read as one."""
        types = ", ".join(f"{k}: {schema[k]}" for k in self.keys if k in schema)
        return MetricsInputError(
            f"option 'threshold': the threshold table's keys {first} and {second} of "
            f"({', '.join(self.keys)}) are one key once read as the rows' types ({types}); "
            "give one threshold each"
        )


def _text(column: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """`Thresholds.text` of an expression."""
    if dtype.is_float():
        column = unsigned_zero(column, dtype)
    if dtype.is_nested():  # lists, arrays, structs: no cast to text; their JSON
        return pl.struct(column.alias("k")).struct.json_encode()
    if isinstance(dtype, pl.Duration):  # no cast to text either: ISO 8601, as CSV gets it
        return column.dt.to_string("iso")
    return column.cast(pl.String)


def class_text(column: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """A class as text, for messages and ``class_weights``' keys.

    Bytes as their UTF-8 text (b"cat" as "cat"; bytes that are no UTF-8 escaped, where
    polars' cast raises), durations and nested values as `_text` writes them (polars casts
    neither to text), the rest cast. (Of a table of classes: a few rows.)
    """
    if dtype == pl.Binary:
        return column.map_batches(
            lambda s: pl.Series(
                [None if v is None else v.decode("utf-8", "backslashreplace") for v in s],
                dtype=pl.String,
            ),
            return_dtype=pl.String,
        )
    if isinstance(dtype, pl.Duration) or dtype.is_nested():
        return _text(column, dtype)
    return column.cast(pl.String)


#: How polars' CSV and JSON writers write times (a "T" or a space; an offset if zoned).
_TIME_FORMATS = [f"%Y-%m-%d{t}%H:%M:%S{f}" for t in ("T", " ") for f in ("%.f", "")]


def _flag(word: pl.Expr) -> pl.Expr:
    """Lowercase text "true" or "false" as a boolean (null otherwise: polars casts none)."""
    return pl.when(word == "true").then(True).when(word == "false").then(False)


def _parsed(text: pl.Expr, dtype: pl.DataType) -> pl.Expr | None:
    """Keys written as text, as values of ``dtype`` (null where they do not parse).

    None for the types whose text is `Thresholds.text`'s already (dates, strings).
    """
    if dtype.is_float() or dtype.is_integer():  # "0.50", "1e-05", "007", as writers spell them
        return text.str.strip_chars().cast(dtype, strict=False)
    if dtype == pl.Boolean:  # "True" (pandas), "TRUE"
        return _flag(text.str.strip_chars().str.to_lowercase())
    if isinstance(dtype, pl.Datetime):
        zoned = dtype.time_zone is not None

        def read(unit: Literal["ns", "us", "ms"]) -> pl.Expr:
            formats = [f + ("%z" if zoned else "") for f in _TIME_FORMATS]
            times = [text.str.to_datetime(f, time_unit=unit, strict=False) for f in formats]
            return pl.coalesce(times)

        # Digits past the rows' unit would be cut: such a key stays text (ns: 1677 to 2262).
        parsed, fine = read(dtype.time_unit), read("ns")
        kept = fine.is_null() | (parsed.dt.cast_time_unit("ns") == fine)
        parsed = pl.when(kept).then(parsed)
        return parsed.dt.convert_time_zone(dtype.time_zone) if zoned else parsed  # type: ignore[arg-type]
    if dtype == pl.Time:
        return text.str.to_time(strict=False)
    if isinstance(dtype, pl.Duration):  # JSON writes seconds alone ("PT86400.005S", not
        # `text`'s "P1DT0.005S"), and no time as "P0D"; a key past the rows' unit stays text.
        unit = dtype.time_unit
        per_second = {"ns": 10**9, "us": 10**6, "ms": 10**3}[unit]
        places = len(str(per_second)) - 1
        seconds = rf"(\d{{1,{19 - places}}})"  # (counted in Int128: one past Int64 is null)
        parts = text.str.extract_groups(rf"^(-?)PT{seconds}(?:\.(\d{{1,9}}))?S$")
        digits = parts.struct.field("3").fill_null("").str.pad_end(9, "0")
        below = digits.str.slice(0, places).cast(pl.Int128, strict=False)
        count = parts.struct.field("2").cast(pl.Int128) * per_second + below.fill_null(0)
        count = count.cast(pl.Int64, strict=False)
        whole = digits.str.slice(places).str.strip_chars_end("0") == ""
        signed = pl.when(parts.struct.field("1") == "-").then(-count).otherwise(count)
        return (
            pl.when(text == "P0D").then(pl.lit(0).cast(dtype)).when(whole).then(signed.cast(dtype))
        )
    if isinstance(dtype, pl.Decimal):  # "0.0" for 0.00: a CSV's inferred float
        parsed = text.cast(dtype, strict=False)
        exact = parsed.cast(pl.Float64) == text.cast(pl.Float64, strict=False)
        return pl.when(exact).then(parsed)
    return None


@dataclass(frozen=True)
class Options:
    """Metric options that shape a state (a state is only merged with an equal one)."""

    threshold: float | Thresholds = 0.5
    average: Average = "macro"
    zero_division: float = 0.0
    beta: float = 1.0
    eps: float = 1e-15
    class_weights: tuple[tuple[str, float], ...] | None = None
    per_class: bool = False
    ragged: Ragged = "error"
    validate: bool = True
    #: The k best (top_k_accuracy: default 1) or first positions (ndcg: default all).
    k: int | None = None
    padding: int = 5
    undefined: Undefined = "error"
    n_bins: int = 10
    strategy: Strategy = "uniform"
    max_points: int | None = None
    metric: str = "f1"
    thresholds: tuple[float, ...] | None = None
    fold_col: str | None = None
    max_fpr: float | None = None
    per_id: bool = False
    #: The metrics whose data checks a state runs (their checks of an id's rows and refusal
    #: of zero weights); None: its own. `score()` runs its class-chunked metrics' over the
    #: id chunks, where an id has all its rows and a group all its ids, in `report`'s order.
    checks_of: tuple[str, ...] | None = None

    @property
    def checks_classes(self) -> bool:
        """Whether each id's classes are checked: one row per class of its group."""
        return self.validate and self.ragged == "error"

    # zero_division=NaN equals NaN: states made apart (on Dask workers, say) merge.
    def _key(self) -> tuple[object, ...]:
        return tuple(
            "NaN" if isinstance(v, float) and math.isnan(v) else v
            for v in (getattr(self, f.name) for f in fields(self))
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


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
        """The key columns of the result: the groups, and the class when per class.

        A fold column that a metric tunes over (``fold_col``) groups the state, not the result.
        """
        by = [b for b in self.columns.by if b != self.options.fold_col]
        if self.options.per_id:
            return [*by, self.columns.id]
        return [*by, self.columns.cls] if self.metrics and self.per_class(self.metrics[0]) else by

    @property
    def read(self) -> list[str]:
        """The columns read: the metrics' (`Columns.used`), then a threshold table's keys.

        A table's keys are the class and ``by`` columns, or other columns whose groups are
        pooled (folds, say): each fold's rows keep their own thresholds.
        """
        threshold = self.options.threshold
        keys = threshold.keys if isinstance(threshold, Thresholds) else ()
        return list(dict.fromkeys([*self.columns.used, *keys]))

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
    class_weights: Mapping[Any, float] | None,
) -> tuple[tuple[str, float], ...] | None:
    """Normalise a ``class -> weight`` mapping (keys compared as strings) for `Options`."""
    if class_weights is None:
        return None
    if not isinstance(class_weights, Mapping) or not class_weights:
        raise MetricsInputError(
            "option 'class_weights': expected a non-empty mapping of class to weight"
            + (", got a Series: pass .to_dict()" if is_pandas_series(class_weights) else "")
        )
    typed = [v for v in class_weights.values() if not is_number(v)]
    if typed:
        raise MetricsInputError(
            "option 'class_weights': weights must be numbers, got "
            + ", ".join(shown(v) for v in typed[:3])
        )
    bad = [v for v in class_weights.values() if not math.isfinite(v) or v < 0]
    if bad:
        raise MetricsInputError(
            "option 'class_weights': weights must be finite and non-negative, got "
            + ", ".join(shown(v) for v in bad)
        )
    # The bound of sample weights: the weights' sums stay finite, their shares above zero.
    extreme = [
        v
        for v in map(float, class_weights.values())  # (numpy's float32 would overflow 1e290)
        if v > LARGEST_WEIGHT or 0 < v < 1 / LARGEST_WEIGHT
    ]
    if extreme:
        raise MetricsInputError(
            f"option 'class_weights': nonzero weights must lie in [{1 / LARGEST_WEIGHT:g}, "
            f"{LARGEST_WEIGHT:g}], got {', '.join(f'{v:g}' for v in extreme)}; rescale them "
            "(only their ratios count)"
        )
    if sum(class_weights.values()) == 0:
        raise MetricsInputError("option 'class_weights': the weights sum to zero")
    # Classes are matched as text, so 0 and "0" name one class (read as the class column's
    # type at `resolve`: `_class_weight_keys`).
    texts = [str(k) for k in class_weights]
    twice = sorted({t for t in texts if texts.count(t) > 1})
    if twice:
        keys = [k for k, t in zip(class_weights, texts, strict=True) if t in twice]
        raise MetricsInputError(
            f"option 'class_weights': {keys} name the same class, as classes are compared as "
            "text; give each class once"
        )
    weights = (float(v) for v in class_weights.values())
    return tuple(sorted(zip(texts, weights, strict=True)))  # (one order)


def _class_weight_keys(
    weights: tuple[tuple[str, float], ...], dtype: pl.DataType
) -> tuple[tuple[str, float], ...]:
    """``class_weights``' keys as the class column writes its values as text.

    A key read as the column's type and written back: True as "true", 1e-07 as "1e-7" and 1
    as "1.0" for float classes, 1.0 as "1" for integer ones, a time in the column's unit
    (pandas' nanoseconds), "1.5" as "1.50" for a Decimal of 2 places. A key that does not
    read stays as it is (and is reported as no class of the table).
    """
    key = pl.col("key")
    if dtype == pl.Boolean:
        read: pl.Expr | None = _flag(key.str.to_lowercase())
    elif dtype.is_float():
        read = key.cast(pl.Float64, strict=False).cast(dtype)
    elif dtype.is_integer():  # (integer text as it is: past 2**53, a float would round it)
        number = key.cast(pl.Float64, strict=False)
        whole = pl.when(number == number.floor()).then(number.cast(dtype, strict=False))
        read = pl.coalesce(key.cast(dtype, strict=False), whole)
    elif isinstance(dtype, (pl.Datetime, pl.Time, pl.Decimal)):  # (as threshold tables')
        read = _parsed(key, dtype)
    else:
        return weights
    assert read is not None
    texts = [text for text, _ in weights]
    written = pl.DataFrame({"key": texts}).select(pl.coalesce(read.cast(pl.String), key))
    bound = written.to_series().to_list()
    twice = sorted({b for b in bound if bound.count(b) > 1})
    if twice:
        same = [t for t, b in zip(texts, bound, strict=True) if b in twice]
        raise MetricsInputError(
            f"option 'class_weights': {same} name the same class once read as the class "
            f"column's type ({dtype}); give each class once"
        )
    return tuple(sorted(zip(bound, (w for _, w in weights), strict=True)))


#: Every value of option 'average'.
_AVERAGES: Final[tuple[Average, ...]] = (None, "macro", "micro", "weighted", "samples")
#: The most points of a curve, or rows of padding: polars' 32-bit lengths.
_LARGEST_COUNT: Final = 2**31 - 1


def check_average(average: object, averages: Sequence[object] = ()) -> None:
    """Refuse an ``average`` that no metric defines, telling the ``averages`` taken (all).

    (One a metric asked for does not define: `check_average_of`.)
    """
    if isinstance(average, str) and average.lower() == "none":
        raise MetricsInputError(
            f"option 'average': unknown value {average!r}; for a value per class, pass "
            "Python's None (average=None), not text"
        )
    if isinstance(average, str) and average == "binary":
        raise MetricsInputError(
            "option 'average': unknown value 'binary'; a binary problem is one class here "
            "(pl_metrics.from_numpy(y_true, y_score) of the positive class's 1-D scores "
            "makes it), whose value the macro, micro and weighted averages give (not samples): "
            "leave average out"
        )
    if not (isinstance(average, str) or average is None) or average not in _AVERAGES:
        check_option("average", average, averages or _AVERAGES)  # (told the values taken)


def make_options(
    *,
    threshold: float | pl.DataFrame | pl.LazyFrame = 0.5,
    average: Average = "macro",
    zero_division: float = 0.0,
    beta: float = 1.0,
    eps: float = 1e-15,
    class_weights: Mapping[Any, float] | None = None,
    per_class: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
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
    averages: Sequence[Average] = (),
) -> Options:
    """Check every option's value once, with errors that name the option."""
    threshold_option: float | Thresholds
    if is_number(threshold):
        threshold_option = compared_number(threshold)
        if not math.isfinite(threshold_option):
            raise MetricsInputError(
                f"option 'threshold': expected a finite number, got {shown(threshold)}"
            )
    else:
        threshold_option = _threshold_table(threshold)
    # (A subnormal max_fpr divides the partial area by what polars takes for zero: inf.)
    if max_fpr is not None and (not is_number(max_fpr) or not 1e-290 <= float(max_fpr) <= 1):
        raise MetricsInputError(
            f"option 'max_fpr': expected a number in [1e-290, 1], got {shown(max_fpr)}"
        )
    if metric not in sweepable():
        close = did_you_mean(metric, sweepable()) if isinstance(metric, str) else ""
        raise MetricsInputError(
            f"option 'metric': {metric!r} is not a metric of one class's confusion counts; "
            f"{close + ' ' if close else ''}expected one of {', '.join(sweepable())}"
        )
    if isinstance(thresholds, (pl.DataFrame, pl.LazyFrame)):
        raise MetricsInputError(
            "option 'thresholds': expected the numbers to sweep, got a table; a table of "
            "per-class thresholds to apply is option 'threshold'"
        )
    if thresholds is not None:
        try:
            values: list[Any] | None = (
                [thresholds] if is_number(thresholds) else list(thresholds)  # type: ignore[arg-type]
            )
        except TypeError:  # True, a 0-d array
            values = None
        if values is None or not all(is_number(v) and math.isfinite(float(v)) for v in values):
            raise MetricsInputError(
                f"option 'thresholds': expected finite numbers, got {shown(thresholds)}"
            )
        if not values:
            raise MetricsInputError(
                "option 'thresholds': expected at least one threshold, got none"
            )
        thresholds = tuple(sorted({float(v) for v in values}))  # as swept: one option
    check_average(average, averages)
    beta = check_beta(beta)
    check_option("per_class", per_class, (True, False))
    check_option("per_id", per_id, (True, False))
    check_option("ragged", ragged, ("error", "allow"))
    check_option("validate", validate, (True, False))
    check_option("undefined", undefined, ("error", "skip"))
    check_option("strategy", strategy, ("uniform", "quantile"))
    integers: list[tuple[str, object, int, int | None]] = [
        ("padding", padding, 0, _LARGEST_COUNT),
        ("n_bins", n_bins, 1, None),
    ]
    if k is not None:
        integers.append(("k", k, 1, None))
    if max_points is not None:
        integers.append(("max_points", max_points, 2, _LARGEST_COUNT))
    for name, value, low, high in integers:
        check_integer(name, value, low, high)
    if n_bins > MAX_BINS:  # an array per bin
        raise MetricsInputError(
            f"option 'n_bins': expected at most {MAX_BINS:,} bins, got {shown(n_bins)}"
        )
    # numpy's integers (from a loop over np.arange, say) as Python's.
    padding, n_bins = int(padding), int(n_bins)
    # A k beyond the classes takes them all, as any k above 2**31 does (polars' 64-bit
    # integers take it; 10**20 would not fit).
    k = None if k is None else min(int(k), 2**31)
    max_points = None if max_points is None else int(max_points)
    return Options(
        threshold=threshold_option,
        average=average,
        zero_division=check_zero_division(zero_division),
        beta=beta,
        eps=check_eps(eps),
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
        metric=metric,
        thresholds=None if thresholds is None else tuple(thresholds),
        fold_col=fold_col,
        # The whole curve (scikit-learn computes the plain AUC for max_fpr=1 too).
        max_fpr=None if max_fpr is None or max_fpr == 1 else float(max_fpr),
        per_id=bool(per_id),
    )


def as_given(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as given now, for a result whose options are resolved when collected.

    A list the caller may change, an iterator that would be spent by then and a mapping
    (``class_weights``) are copied; so is an eager threshold table, whole: polars changes a
    DataFrame in place (``df[0, "threshold"] = 0.9``), and one over numpy's or pandas'
    buffers changes with them. (A lazy table is read when collected, as documented.)
    """
    given = dict(options)
    for name in ("by", "thresholds"):  # (a numpy array or a Series is changed in place too)
        value = given.get(name)
        if name == "by" and isinstance(value, pl.Series):  # (kept a Series: by's check
            given[name] = value.clone()  # tells a column's values from names)
        elif name == "by" and is_pandas_series(value):
            given[name] = cast(Any, value).copy()
        elif isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping):
            given[name] = list(value)
    if isinstance(given.get("class_weights"), Mapping):
        given["class_weights"] = dict(given["class_weights"])
    table = given.get("threshold")
    if table is not None and not isinstance(table, pl.LazyFrame | int | float | np.number):
        try:
            read = to_polars(table)
            if isinstance(read, pl.DataFrame):  # (a copy of its buffers, not a view)
                given["threshold"] = pl.DataFrame.deserialize(io.BytesIO(read.serialize()))
        except (MetricsInputError, pl.exceptions.PolarsError, TypeError, ValueError):
            pass  # (refused by `resolve`, which tells why)
    return given


def at_call(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options to check when a lazy call is made, reading nothing.

    A lazy threshold table (say `best_threshold`'s of a LazyFrame) is read when the result
    is collected, as the rows are; until then a number stands in for it, any but the
    default, so that the options are checked as given. Its columns are checked now, as the
    data's are.
    """
    table = options.get("threshold")
    if isinstance(table, pl.LazyFrame):
        try:
            schema = table.collect_schema()
        except (pl.exceptions.PolarsError, OSError):  # (a file missing, unreadable: told
            schema = None  # when the table is read, as they are of an eager one)
        if schema is not None:
            _check_table_columns(schema)
            # (Text may be a CSV's header alone: told as empty, when read.)
            if not (schema[THRESHOLD].is_numeric() or schema[THRESHOLD] == pl.String):
                raise _not_numbers(schema[THRESHOLD])
        return {**options, "threshold": 0.25}
    return dict(options)


def _check_table_columns(schema: pl.Schema) -> list[str]:
    """A threshold table's key columns; refused without them or a threshold column."""
    if THRESHOLD not in schema:
        raise MetricsInputError(
            f"option 'threshold': a threshold table needs a numeric {THRESHOLD!r} column; its "
            f"columns are {schema.names()}"
        )
    keys = [c for c in schema if c not in (THRESHOLD, *Thresholds.VALUES)]
    if not keys:
        raise MetricsInputError(
            f"option 'threshold': the threshold table's columns {schema.names()} hold no key; "
            "it needs the class column (and any 'by' columns) to say whose thresholds they "
            "are, or give a single number as every class's threshold"
        )
    return keys


def _not_numbers(dtype: pl.DataType, some: str = "") -> MetricsInputError:
    return MetricsInputError(
        f"option 'threshold': the threshold table's {THRESHOLD!r} column holds {dtype} "
        f"values{some}, not numbers"
    )


def _threshold_table(table: object) -> Thresholds:
    """A table of thresholds: a ``threshold`` column and key columns (the class, groups)."""
    try:
        df = to_polars(table).lazy().collect()
    except TypeError:  # (a Series, polars' or pandas', streams Arrow too: no class column)
        recipe = (
            "; a dict of thresholds by class is one: pl.DataFrame({'class': list(d), "
            "'threshold': list(d.values())}), its class column named as the data's"
            if isinstance(table, Mapping)
            else "; a pandas Series of thresholds by class is one: "
            "series.rename_axis('class').reset_index(name='threshold'), its class column "
            "named as the data's"
            if is_pandas_series(table)
            else ""
        )
        raise MetricsInputError(
            "option 'threshold': expected a number or a table of (class, threshold) rows, "
            f"got {'None' if table is None else type(table).__name__}{recipe}"
        ) from None
    except (pl.exceptions.PolarsError, OSError) as error:  # a lazy table's file, say
        raise MetricsInputError(
            f"option 'threshold': cannot read the table: {reader_error(error)}"
        ) from None
    keys = _check_table_columns(df.schema)
    if df.height == 0:  # (a CSV of a header only reads as text)
        raise MetricsInputError("option 'threshold': the threshold table is empty")
    if not df[THRESHOLD].dtype.is_numeric():
        some = ""
        if df[THRESHOLD].dtype == pl.String:  # a CSV's, say: the first value read as no number
            text = df[THRESHOLD].drop_nulls()
            unread = text.filter(text.str.strip_chars().cast(pl.Float64, strict=False).is_null())
            some = (
                f" such as {unread[0]!r}"
                if unread.len()
                else f" (numbers as text: cast them, pl.col({THRESHOLD!r}).cast(pl.Float64))"
            )
        raise _not_numbers(df[THRESHOLD].dtype, some)
    values = df[THRESHOLD].cast(pl.Float64)
    unusable = values.is_null() | ~values.is_finite().fill_null(False)
    bad = int(unusable.sum())
    if bad:
        keys = [c for c in df.columns if c != THRESHOLD and not _is_result(df, c)]
        first = df.filter(unusable).row(0, named=True)
        example = ", ".join(f"{k}={first[k]!r}" for k in keys)
        raise MetricsInputError(
            f"option 'threshold': {bad:,} "
            f"{'threshold of the table is' if bad == 1 else 'thresholds of the table are'} "
            f"null, NaN or infinite, e.g. {example}: "
            f"{'null' if first[THRESHOLD] is None else first[THRESHOLD]}"
        )
    # best_threshold's value columns (floats, or nulls) are no keys; a column of another
    # type so named is a key where the call groups by it (`Thresholds.keyed_by`).
    keys = [c for c in df.columns if c != THRESHOLD and not _is_result(df, c)]
    rows = df.select(Thresholds.text(k, df.schema[k]) for k in keys).rows()
    # (Repeated keys are told with the data's columns: a table that lacks the class column
    # repeats its groups' keys, and is told as lacking it.)
    return Thresholds.ordered(keys, rows, values)


def _is_result(table: pl.DataFrame, column: str) -> bool:
    """Whether a threshold table's ``column`` is best_threshold's value (no key).

    Floats (or nulls) named as its value columns; a column of another type so named is a
    group's key where the call groups by it (`Thresholds.keyed_by`).
    """
    dtype = table.schema[column]
    return column in Thresholds.VALUES and (dtype.is_float() or dtype == pl.Null)


_DEFAULTS = Options()
#: More calibration bins than this is a typo: ids per bin would be too few to mean anything.
MAX_BINS: Final = 1_000_000


def metric_list(metrics: str | Iterable[str]) -> tuple[str, ...]:
    """The metric names asked for, known and unique, in order (a set's sorted).

    Any iterable of names: a list, a tuple, a numpy array, a pandas Index.
    """
    names: list[Any] = []
    if isinstance(metrics, str):
        names = [metrics]
    elif isinstance(metrics, Iterable) and not isinstance(metrics, bytes | Mapping | pl.Expr):
        names = sorted(metrics, key=str) if isinstance(metrics, set | frozenset) else [*metrics]
    else:
        names = [None]  # (refused below)
    if not all(isinstance(m, str) for m in names):
        raise MetricsInputError(
            f"option 'metrics': expected a metric name or a list of names, got {shown(metrics)}"
        )
    if not names:
        raise MetricsInputError("option 'metrics': give at least one metric")
    for name in names:
        info(name)  # unknown names fail here, suggesting close ones
    return tuple(dict.fromkeys(names))


#: The `MetricsInputError.problem` of an option that none of a report's metrics takes.
UNUSED_OPTION: Final = "unused_option"


def _is_default(value: object, default: object) -> bool:
    """Whether an option's value, as given (not yet checked), is its default."""
    if isinstance(value, (pl.DataFrame, pl.LazyFrame, pl.Series)):
        return False
    try:
        same = bool(value == default)
    except (TypeError, ValueError):  # an array, say: given (and refused by its check)
        return False
    nans = isinstance(value, float) and isinstance(default, float)
    return same or (nans and math.isnan(value) and math.isnan(default))  # type: ignore[arg-type]


def refuse_unused(entries: Sequence[MetricInfo], given: Mapping[str, object]) -> None:
    """Options given (not None) that none of the metrics asked for uses."""
    names = [e.name for e in entries]
    for option in METRIC_OPTIONS:
        if given.get(option) is not None and not any(option in e.options for e in entries):
            raise UnknownOptionError(
                f"option {option!r} is not used by {', '.join(names)}; the metrics that take "
                f"it: {', '.join(_takers(option))}",
                problem=UNUSED_OPTION,
            )


def refuse_unused_by_tuned(
    entries: Sequence[MetricInfo], metric: str, given: Mapping[str, object]
) -> None:
    """Refuse the options tuning passes on to a ``metric`` that does not use them.

    best_threshold and threshold_sweep pass ``zero_division`` and ``beta`` on to their
    metric, which must use them (unless another metric of the report does).
    """
    tuning = [e.name for e in entries if "metric" in e.options]
    if not tuning:
        return
    inner = METRICS[metric]
    for option in ("zero_division", "beta"):
        direct = any(option in e.options for e in entries if "metric" not in e.options)
        if given.get(option) is not None and option not in inner.options and not direct:
            raise UnknownOptionError(
                f"option {option!r} is not used by {metric} (option 'metric' of "
                f"{tuning[0]}); the metrics that take it: "
                f"{', '.join(m for m in sweepable() if option in METRICS[m].options)}",
                problem=UNUSED_OPTION,
            )


def check_average_of(entry: MetricInfo, average: str | None) -> None:
    """Refuse an ``average`` (one of those known) that ``entry``'s metric does not define."""
    if average in entry.averages:
        return
    accepted = ", ".join(repr(a) for a in entry.averages if a is not None)
    if None in entry.averages:  # (last: a flag on the command line, not a value)
        accepted += " or None" if accepted else "None"
    takers = [n for n, e in METRICS.items() if average in e.averages]
    raise MetricsInputError(
        f"option 'average': {average!r} is not defined for {entry.name} "
        f"(it takes {accepted}); {average!r} is defined for {', '.join(takers)}"
    )


def _check_metric_options(
    entries: Sequence[MetricInfo], opts: Options, given: Mapping[str, object]
) -> None:
    """Options must mean something to the metrics asked for, with values they accept.

    (Options that none of them uses at all are refused first, by `refuse_unused`.)
    """
    names = [e.name for e in entries]
    refuse_unused_by_tuned(entries, opts.metric, given)
    unweighted = [e.name for e in entries if not e.weights]
    if given.get("weight_col") is not None and unweighted:
        # Their values would be those of weighted counts, which nothing defines: refused
        # rather than silently different from their own calls.
        raise UnknownOptionError(
            f"option 'weight_col': {', '.join(unweighted)} "
            f"{'take' if len(unweighted) > 1 else 'takes'} no weights; compute "
            f"{'them' if len(unweighted) > 1 else 'it'} in a report without weight_col",
            problem=UNUSED_OPTION,
        )
    if opts.average != _DEFAULTS.average:
        for entry in entries:
            if "average" in entry.options:
                check_average_of(entry, opts.average)
    if opts.per_id and opts.per_class:  # (first: not "lrap has no per-class values")
        raise MetricsInputError("option 'per_id': values per id and per class: choose one")
    if opts.per_class:
        flat = [e.name for e in entries if e.per_class == "never"]
        if flat:
            raise MetricsInputError(
                f"option 'per_class': a per-class report cannot include {', '.join(flat)}: "
                f"{'it has' if len(flat) == 1 else 'they have'} no per-class values"
            )
    if opts.per_id:
        without = [e.name for e in entries if "per_id" not in e.options]
        if without:
            raise MetricsInputError(
                f"option 'per_id': {', '.join(without)} {'has' if len(without) == 1 else 'have'}"
                " no per-id values; score "
                f"{'it' if len(without) == 1 else 'them'} apart, without per_id"
            )
        by_class = [e.name for e in entries if "average" in e.options and opts.average != "samples"]
        if by_class:
            verb = "averages" if len(by_class) == 1 else "average"
            how = (
                "gives values per class with average=None"
                if opts.average is None
                else f"{verb} over classes with average={opts.average!r}"
            )
            raise MetricsInputError(
                f"option 'per_id': {', '.join(by_class)} {how}; per-id values are those of "
                "average='samples': pass it"
            )
    curves = [e.name for e in entries if e.kind == "curve"]
    if curves and len(entries) > 1:
        raise MetricsInputError(
            f"{curves[0]} is a table of points per class: compute it on its own, not with "
            f"{', '.join(n for n in names if n != curves[0])}"
        )
    shapes = {per_class(e, opts) for e in entries}
    if len(shapes) > 1:
        rows = [e.name for e in entries if per_class(e, opts)]
        groups = [e for e in entries if not per_class(e, opts)]
        never = [e.name for e in groups if e.per_class == "never"]
        could = [e.name for e in groups if e.per_class != "never"]
        hints = (
            [f"set option 'per_class' to have {', '.join(could)} per class too"] if could else []
        )
        hints += [f"compute {', '.join(never)} in a report of its own"] if never else []
        raise MetricsInputError(
            f"a report of {', '.join(rows)} (a row per class) cannot include "
            f"{', '.join(e.name for e in groups)}: "
            f"{', '.join(rows)} {'gives' if len(rows) == 1 else 'give'} one row per class and "
            f"{'this' if len(groups) == 1 else 'these'} one row per group; {' and '.join(hints)}"
        )


def _takers(option: str) -> list[str]:
    return [name for name, entry in METRICS.items() if option in entry.options]


def resolve(
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
) -> Spec:
    """Check the metrics, options and schema of ``frame`` (reads no rows) into a `Spec`."""
    names = metric_list(metrics)
    entries = [info(m) for m in names]
    by_given, flag = cast(object, by), cast(object, per_class)  # (typed: a caller may not be)
    if isinstance(by_given, Iterator):  # read once here: its names are read twice below
        by = list(by_given)
    # (numpy's True too; other values are refused once unused options are: ``per_class=1``.)
    if (flag is True or flag is np.True_) and average not in (None, _DEFAULTS.average):
        raise MetricsInputError(
            f"option 'per_class': per-class values are those of average=None, not "
            f"average={average!r}; give one of them"
        )
    if per_class:
        average = None
    if k is None and "top_k_accuracy" in names and "ndcg" not in names:
        k = 1  # its default, as `top_k_accuracy`'s own: states of k=1 and of no k merge
    # Options left at their default are not "given"; a changed one must be used by a metric,
    # which is checked before its value is (that it is not used says more than its range).
    # average=None (values per class) is refused where no metric averages (lrap), not where
    # each gives values per class anyway (the confusion table).
    average_not_given = _is_default(average, _DEFAULTS.average) or (
        average is None and all(e.per_class == "always" for e in entries)
    )
    given: dict[str, object] = {
        "weight_col": weight_col,
        "pred_col": pred_col,
        "class_weights": class_weights,
        "max_points": max_points,
        "thresholds": thresholds,
        "fold_col": fold_col,
        "max_fpr": max_fpr,
        "per_id": per_id or None,
        "metric": None if _is_default(metric, _DEFAULTS.metric) else metric,
        # (Its repr: average=None is given too.)
        "average": None if per_class or average_not_given else repr(average),
        "k": k,
    }
    simple = {
        "threshold": threshold,
        "zero_division": zero_division,
        "beta": beta,
        "eps": eps,
        "padding": padding,
        "undefined": undefined,
        "n_bins": n_bins,
        "strategy": strategy,
    }
    for option, value in simple.items():
        given[option] = None if _is_default(value, getattr(_DEFAULTS, option)) else value
    refuse_unused(entries, given)
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
        metric=metric,
        thresholds=thresholds,
        fold_col=fold_col,
        max_fpr=max_fpr,
        per_id=per_id,
        averages=[
            a for a in _AVERAGES if any(a in e.averages for e in entries if "average" in e.options)
        ],
    )
    _check_metric_options(entries, opts, given)
    if pred_col is not None and given["threshold"] is not None:
        raise MetricsInputError(
            f"option 'threshold': the predictions are column {pred_col!r} (option 'pred_col'), "
            "so no threshold applies; give one of them"
        )
    needs_score = pred_col is None or any("pred_col" not in e.options for e in entries)
    if needs_score and score_col is None:
        raise MetricsInputError(
            f"option 'score_col': {', '.join(names)} {'needs' if len(names) == 1 else 'need'} "
            "a score column"
            + (
                " (or predictions in pred_col)"
                if any("pred_col" in e.options for e in entries)
                else ""
            )
        )
    if fold_col is not None:  # the state groups by fold; the result does not
        require_column(frame.collect_schema(), "fold_col", fold_col)
        if fold_col in normalize_by(by):
            raise MetricsInputError(f"option 'fold_col': {fold_col!r} is also in 'by'")
        by = [*normalize_by(by), fold_col]
    # A DataFrame's text column is read for the values that are not numbers (or flags).
    keys = [*normalize_by(by), id_col, class_col]  # (name a text cell's row)
    with (
        counted_text(frame.lazy(), keys=keys) if isinstance(frame, pl.DataFrame) else nullcontext()
    ):
        cols = resolve_columns(
            frame,
            id_col=id_col,
            class_col=class_col,
            score_col=score_col if needs_score else None,
            truth_col=truth_col,
            weight_col=weight_col,
            by=by,
            pred_col=pred_col,
            fold_col=fold_col,
        )
    if isinstance(opts.threshold, Thresholds):
        table = opts.threshold.keyed_by(cols.by)
        _check_threshold_keys(table, cols, frame.collect_schema().names())
        opts = replace(opts, threshold=_integer_keys(table, frame.collect_schema()))
    if opts.class_weights is not None:
        class_type = frame.collect_schema()[cols.cls]
        opts = replace(opts, class_weights=_class_weight_keys(opts.class_weights, class_type))
    _check_result_names(entries, cols)
    # The hints of columns to group by offer none the metrics make (a column 'bin' beside
    # calibration_curve's): grouped by, it would be refused.
    made = {c for entry in entries for c in made_columns(entry)}
    cols = replace(cols, other_keys=tuple(k for k in cols.other_keys if k not in made))
    ordering = [e.name for e in entries if e.orders_classes]
    if ordering:  # (the schema again only then)
        class_type = frame.collect_schema()[cols.cls]
        if isinstance(class_type, pl.Struct):
            raise MetricsInputError(
                f"column {cols.cls!r}: {', '.join(ordering)} breaks ties by the classes' "
                f"order, which {class_type} classes lack; use integer, string or enum classes"
            )
    return Spec(names, cols, opts)


def _check_result_names(entries: Sequence[MetricInfo], cols: Columns) -> None:
    """Refuse key columns named like a column a metric makes.

    Its values, per class or per id too, sit beside the keys in its result and in its
    working tables.
    """
    for entry in entries:  # (a column made per class is told so: lwlrap's weight)
        check_key_names(cols, made_columns(entry, per_class=False), entry.name)
        check_key_names(cols, entry.class_columns, f"{entry.name} (per class)")


def made_columns(entry: MetricInfo, *, per_class: bool = True) -> tuple[str, ...]:
    """The columns a metric makes: its values, per class (``per_class``) or per id too."""
    return (*(entry.columns or (entry.name,)), *(entry.class_columns if per_class else ()))


def check_key_names(cols: Columns, made: Sequence[str], maker: str) -> None:
    """Refuse key columns (``by``, id, class) named like a column in ``made``."""
    keys = {cols.id: "id_col", cols.cls: "class_col"} | {
        name: "by" if name in cols.callers_by else "fold_col" for name in cols.by
    }
    for name, option in keys.items():
        check_key_name(name, option, made, maker)


def check_key_name(name: str, option: str, made: Sequence[str], maker: str) -> None:
    """Refuse the key column ``name`` (of ``option``) if it is named like one in ``made``.

    Or like pl_metrics' working columns: told by its own option (``model_col``), where
    `resolve` would tell it as one of ``by``.
    """
    refuse_internal(name, option)
    refuse_pattern(name, option)
    if name in made:
        raise MetricsInputError(
            f"column {name!r} (option {option!r}): {maker} makes a column of this name; "
            "rename the input's column"
        )


def _integer_keys(thresholds: Thresholds, schema: pl.Schema) -> Thresholds:
    """Keys compared as text: a table's whole floats ("0.0") as the integers of the data.

    A table read from a CSV through pandas, say, has class 0.0 for the data's class 0.
    """
    whole = re.compile(r"-?\d+\.0*")
    integer = [i for i, k in enumerate(thresholds.keys) if k in schema and schema[k].is_integer()]
    if not integer:
        return thresholds
    rows = tuple(
        tuple(
            v.split(".")[0] if i in integer and v is not None and whole.fullmatch(v) else v
            for i, v in enumerate(row)
        )
        for row in thresholds.rows
    )
    first: dict[tuple[str | None, ...], tuple[str | None, ...]] = {}
    for written, read in zip(thresholds.rows, rows, strict=True):
        if first.setdefault(read, written) != written:  # ("1" and "1.0": told as written)
            raise thresholds.one_key(first[read], written, schema)
    return replace(thresholds, rows=rows)


def _check_threshold_keys(thresholds: Thresholds, cols: Columns, names: Sequence[str]) -> None:
    """A threshold table is keyed by the class column and, optionally, group columns."""
    if cols.cls not in thresholds.keys:
        raise MetricsInputError(
            f"option 'threshold': the threshold table needs the class column {cols.cls!r}; its "
            f"key columns are {list(thresholds.keys)}"
        )
    position = thresholds.keys.index(cols.cls)
    nulls = sum(row[position] is None for row in thresholds.rows)
    if nulls:  # the data's classes are never null: such a row would match none
        rows = "row has" if nulls == 1 else "rows have"
        raise MetricsInputError(
            f"option 'threshold': {nulls:,} {rows} a null class {cols.cls!r} in the threshold "
            "table; give each threshold its class"
        )
    times = Counter(thresholds.rows)
    repeated = sum(times.values()) - len(times)
    if repeated:
        twice = next(row for row in thresholds.rows if times[row] > 1)
        raise MetricsInputError(
            f"option 'threshold': {repeated} "
            f"{'row of the table repeats' if repeated == 1 else 'rows of the table repeat'} a "
            f"({', '.join(thresholds.keys)}) "
            f"key, e.g. ({', '.join(map(str, twice))}); give one threshold each"
        )
    # Other columns of the data key a row's threshold too (each fold's own thresholds,
    # the folds pooled): a key the data lacks is refused, and so are the columns of the
    # rows' values (thresholds keyed by the truth would apply the labels).
    absent = [k for k in thresholds.keys if k not in names]  # (`by` is the data's)
    if absent:
        kept = [i for i, k in enumerate(thresholds.keys) if k not in absent]
        rest = {tuple(row[i] for i in kept) for row in thresholds.rows}
        advice = "drop it from the table"
        if len(rest) < len(thresholds.rows):  # (dropped, it would repeat a class's keys)
            first = absent[0]
            at = thresholds.keys.index(first)
            values = [repr(v) for v in sorted({row[at] for row in thresholds.rows}, key=str)]
            advice = (
                f"its {first!r} holds {len(values):,} values ({listed(values, 3)}), each with "
                f"its thresholds: keep the table's rows of this data's {first!r}, then drop "
                "that column"
            )
        raise MetricsInputError(
            f"option 'threshold': the data has no column {', '.join(map(repr, absent))}, a "
            f"key of the threshold table ({list(thresholds.keys)}); {advice}"
        )
    roles = {
        "truth_col": cols.truth,
        "score_col": cols.score,
        "pred_col": cols.pred,
        "weight_col": cols.weight,
    }
    valued = [(option, name) for option, name in roles.items() if name in thresholds.keys]
    if valued:
        option, name = valued[0]
        raise MetricsInputError(
            f"option 'threshold': the threshold table is keyed by column {name!r}, the "
            f"{option}: thresholds are keyed by the class and groups (folds, models), not by "
            "the rows' values"
        )
