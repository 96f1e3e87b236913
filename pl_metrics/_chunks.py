"""Chunk planning: split a dump into id-disjoint (or class-disjoint) parts within a budget.

Chunks are id ranges taken from parquet row-group statistics when the id column has them;
when the dump is clustered by id (see `pl_metrics.cluster_by_id`) each chunk then reads
only its own row groups. Otherwise chunks are hash buckets of the id, and each chunk reads
the whole dump, keeping only its bucket.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
import polars as pl

from pl_metrics._frame import (
    MetricsInputError,
    caller_stacklevel,
    check_integer,
    is_integer,
    is_number,
)
from pl_metrics._io import batch_ranges, file_format, row_group_ranges

__all__ = [
    "BUDGET_VARIABLE",
    "BYTES_PER_CLASS_ROW",
    "BYTES_PER_ROW",
    "BYTES_PER_ROW_SCATTERED",
    "REFERENCE_ROW",
    "Chunks",
    "budget_bytes",
    "chunking_budget",
    "class_chunks",
    "id_range",
    "plan_chunks",
    "row_bytes",
    "scaled",
]

#: Peak memory per row of a chunk, measured with lrap and lwlrap on 100M-400M rows (the chunk
#: read into memory for the kernel): about 35 bytes when the chunk's rows are read on their
#: own (clustered), about 65 when each chunk filters its rows out of the whole dump and sorts
#: them. Rounded up. Measured on rows of `REFERENCE_ROW` bytes; wider rows scale them.
BYTES_PER_ROW = 40
BYTES_PER_ROW_SCATTERED = 100
#: The same of a class chunk (`class_chunks`: ROC AUC, the Brier score, the curve tables),
#: whose rows are ranked within each class: 145 to 235 bytes a row measured on the rows
#: above, 5M rows a chunk (roc_auc, average_precision, brier_score, calibration_curve,
#: best_threshold, roc_curve), 520 on the wider rows below (roc_curve), which
#: `BYTES_PER_ROW_SCATTERED` scaled covers: the larger of the two.
BYTES_PER_CLASS_ROW = 250
#: The bytes of the columns read of the rows those were measured on: an Int32 id, an Int16
#: class, a Float32 score and a boolean truth. (Rows of a text model, Int64 fold, id and
#: class, a Float64 score and a boolean truth, 57 bytes, peaked at 6.4 times the memory of
#: 40 bytes a row: 256 bytes a row, one chunk of 4M rows.)
REFERENCE_ROW = 11


def row_bytes(schema: pl.Schema, columns: Sequence[str]) -> int:
    """The bytes of one row of ``columns`` in memory, about (text as a 16-byte view and some)."""
    return sum(_width(schema[name]) for name in columns)


def _width(dtype: pl.DataType) -> int:
    """Bytes of one value of ``dtype``, about."""
    if dtype == pl.Boolean:
        return 1
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        return 4  # a code
    if dtype in (pl.String, pl.Binary):
        return 24
    if isinstance(dtype, pl.Array):
        return dtype.size * _width(dtype.inner)  # type: ignore[arg-type]  # (an instance)
    if dtype.is_nested() or dtype == pl.Object:
        return 32
    if dtype == pl.Date:
        return 4
    if isinstance(dtype, pl.Decimal):
        return 16
    if dtype.is_numeric():  # the bits in its name: Int32 is 4
        bits = re.search(r"(8|16|32|64|128)", str(dtype))
        return int(bits[1]) // 8 if bits else 8
    return 8  # times, durations, datetimes (whose time zone may hold digits)


def scaled(per_row: int, width: int) -> float:
    """``per_row`` (measured on rows of `REFERENCE_ROW` bytes) for rows of ``width`` bytes."""
    return per_row * max(1.0, width / REFERENCE_ROW)


@dataclass(frozen=True)
class Chunks:
    """How a dump is split: one filter per chunk, none of which splits an id."""

    filters: tuple[pl.Expr, ...]
    strategy: str  # "single", "id ranges", "hash buckets" or "class sets"
    rows: int

    def __len__(self) -> int:
        return len(self.filters)


#: The smallest memory budget: below it, chunks of a few thousand rows each cost more in
#: per-chunk work than they save (and "0" would mean a chunk per row).
MIN_BUDGET = 1024**2


def chunking_budget(
    memory_budget: int | str | None, count: int | None, count_option: str = "n_chunks"
) -> int:
    """The budget in bytes, when a count of chunks (or parts) may be forced instead."""
    if memory_budget is not None and count is not None:
        raise MetricsInputError(
            f"options 'memory_budget' and {count_option!r}: give one of them (the budget "
            "decides the count)"
        )
    if count is not None:  # (the count replaces any budget, the environment's too)
        check_integer(count_option, count)
        return DEFAULT_BUDGET
    return budget_bytes(memory_budget)


#: The environment variable of the default budget: of the lazy idiom and `compare`, which
#: take no option of it, and of `score` without ``memory_budget``.
BUDGET_VARIABLE = "PL_METRICS_MEMORY_BUDGET"
#: The default budget without it: 2 GB.
DEFAULT_BUDGET = 2 * 1024**3


def budget_bytes(memory_budget: int | str | None) -> int:
    """Parse a memory budget once: bytes, or a size such as ``"2GB"``.

    None: `BUDGET_VARIABLE`'s, else 2 GB.
    """
    option = "option 'memory_budget'"
    if memory_budget is None:
        memory_budget = os.environ.get(BUDGET_VARIABLE, "").strip() or None
        if memory_budget is None:
            return DEFAULT_BUDGET
        option = f"environment variable {BUDGET_VARIABLE}"
    # Bytes as a number, 1.5e9 and 1e16 alike (1e16's text is no size's).
    if is_integer(memory_budget) or (
        is_number(memory_budget) and math.isfinite(cast(float, memory_budget))
    ):
        budget = int(memory_budget)
    else:
        size = str(memory_budget).lower()
        match = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)i?b?\s*", size)
        if not match:
            raise MetricsInputError(
                f"{option}: expected bytes or a size like '2GB', got {memory_budget!r}"
            )
        scale = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}[match.group(2)]
        budget = int(float(match.group(1)) * scale)
    if budget < MIN_BUDGET:  # "0", "0.5": a chunk per few rows would take hours
        raise MetricsInputError(
            f"{option}: {memory_budget!r} is below the smallest budget, 1MB "
            f"({MIN_BUDGET:,} bytes: sizes count in powers of 1024)"
        )
    return budget


def plan_chunks(
    lf: pl.LazyFrame,
    *,
    id_col: str = "id",
    budget: int,
    files: Sequence[Path] | None = None,
    dataset: Any = None,
    n_chunks: int | None = None,
    width: int = REFERENCE_ROW,
) -> Chunks:
    """Split a dump into id-disjoint chunks that each fit ``budget`` bytes.

    ``width``: the bytes of a row of the columns read (`row_bytes`): wider rows, more chunks.
    ``dataset``: the ``pyarrow.dataset.Dataset`` that ``lf`` scans, whose batches' id ranges
    stand for row groups' statistics: pyarrow filters by an id range as it reads, but a hash
    bucket only once polars has the whole dataset in memory.

    With parquet row-group statistics of a numeric id, chunks are id ranges of about equal
    rows, estimated by spreading each row group's rows evenly over its id range. When the
    row groups are clustered by id each chunk reads only its own row groups; when they are
    scattered, every chunk reads the whole dump (and needs more memory per row, so more
    chunks are made). Other ids: row-group boundaries if the row groups are clustered, else
    hash buckets of the id.
    """
    rows = int(lf.select(pl.len()).collect().item())  # parquet: metadata only
    per_row, scattered = scaled(BYTES_PER_ROW, width), scaled(BYTES_PER_ROW_SCATTERED, width)
    chunks = n_chunks or max(1, math.ceil(rows * per_row / budget))
    chunks = min(chunks, max(1, rows))  # never more chunks than rows
    if n_chunks is not None and chunks > 1 and rows < chunks * 1_000:
        # Chunks of a few rows (n_chunks taken for the rows per chunk, say) cost a read each:
        # no more of them than ids, counted only then.
        distinct = lf.select(pl.col(id_col).n_unique()).collect(engine="streaming").item()
        chunks = min(chunks, max(1, int(distinct)))
    if chunks <= 1:
        return Chunks((pl.lit(True),), "single", rows)
    ranges = None
    ids = pl.col(id_col)
    id_type = lf.collect_schema()[id_col]
    # Row groups' statistics tell where each chunk's rows are (each reads its row groups
    # only, where they are clustered); a LazyFrame of integer ids is cut in ranges of its
    # ids' histogram, which a parquet scan below it filters by its own statistics too.
    histogram = False
    if files and file_format(files) == "parquet" and _ranged(id_type):
        ranges = row_group_ranges(files, id_col)
    elif dataset is not None and _ranged(id_type) and not _unfiltered_by_pyarrow(id_type):
        ranges = batch_ranges(dataset, id_col)
    elif not files and dataset is None and id_type.is_integer():
        ranges = _histogram_ranges(lf, id_col)
        histogram = True
    # (Infinite float ids spread a row group's rows over an infinite range, where the cuts
    # are NaN: fewer chunks than asked. Hash buckets, then.)
    if ranges and any(isinstance(v, float) and not math.isfinite(v) for r in ranges for v in r[:2]):
        ranges = None
    if ranges:
        ranges.sort(key=lambda r: r[0])
        numeric = all(isinstance(v, (int, float)) for r in ranges for v in r[:2])
        if numeric and histogram:  # (where the rows lie is not known: sized as scattered)
            if n_chunks is None:
                chunks = max(chunks, math.ceil(rows * scattered / budget))
            cuts, clustered = _even_cuts(ranges, chunks), False
        elif numeric:
            cuts = _even_cuts(ranges, chunks)
            clustered = _rows_read(ranges, cuts) <= 1.5 * rows
            if not clustered and n_chunks is None:
                chunks = max(chunks, math.ceil(rows * scattered / budget))
                cuts = _even_cuts(ranges, chunks)
        else:
            # (Row groups may share their boundary id: the cuts are by value, so each id is
            # in one chunk whatever row groups hold it.)
            clustered = all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))
            cuts = _boundary_cuts(ranges, rows / chunks) if clustered else []
        if cuts:
            bounds = [None, *cuts, None]
            if id_type == pl.UInt64 and not files:
                # polars hands a pyarrow Dataset's scan (score()'s, or a LazyFrame of
                # scan_pyarrow_dataset) the comparison with an int64 literal: pyarrow then
                # casts the ids to int64 and raises on one past 2**63. Compared as Int128,
                # exactly, the filter stays polars'.
                ids, id_type = ids.cast(pl.Int128), pl.Int128()
            filters = tuple(id_range(ids, lo, hi, id_type) for lo, hi in itertools.pairwise(bounds))
            kind = (
                "id ranges"
                if clustered
                else "id ranges (of the ids' histogram)"
                if histogram
                else "id ranges (scattered row groups)"
            )
            return Chunks(filters, kind, rows)
    if n_chunks is None:
        chunks = max(chunks, math.ceil(rows * scattered / budget))
    bucket = ids.hash(seed=0) % chunks
    return Chunks(tuple(bucket == k for k in range(chunks)), "hash buckets", rows)


#: The bins of a LazyFrame's ids counted to cut them in ranges (`_histogram_ranges`).
HISTOGRAM_BINS = 1024


def _histogram_ranges(lf: pl.LazyFrame, id_col: str) -> list[tuple[int, int, int]] | None:
    """The ids' smallest and largest value and rows in each of `HISTOGRAM_BINS` bins.

    Two streaming reads of the id column. The bins are of the ids' values (as floats, in
    order), their bounds the ids found in each, so the ranges never overlap; None where
    there is one id value or none (only nulls).
    """
    ids = pl.col(id_col)
    low, high = (
        lf.select(ids.min().alias("low"), ids.max().alias("high"))
        .collect(engine="streaming")
        .row(0)
    )
    if low is None or low == high:
        return None
    # (The difference as a 128-bit integer: as floats, ids near 2**64 are one value, and
    # in the ids' own type it wraps past its range. Wherever the bins fall, the cuts are
    # exact ids, each chunk's range disjoint: only their sizes would suffer.)
    offset = ids.cast(pl.Int128) - pl.lit(low, dtype=pl.Int128)
    spread = offset.cast(pl.Float64) / float(high - low)
    bin_of = (spread * HISTOGRAM_BINS).floor().clip(0, HISTOGRAM_BINS - 1)
    counted = (
        lf.filter(ids.is_not_null())
        .group_by(bin_of.alias("bin"))
        .agg(ids.min().alias("low"), ids.max().alias("high"), pl.len().alias("rows"))
        .collect(engine="streaming")
    )
    return [(int(a), int(b), int(n)) for a, b, n in counted.select("low", "high", "rows").rows()]


def _ranged(id_type: pl.DataType) -> bool:
    """Whether parquet's statistics of ``id_type`` are values that polars compares its ids to.

    Not an Enum's (its text, where polars compares its categories in their order), nor a
    half float's (raw bytes); a duration's are, unless in seconds (`_column_statistics`).
    """
    if id_type.is_integer() or id_type in (pl.Float32, pl.Float64, pl.Boolean, pl.Time):
        return True
    text = isinstance(id_type, (pl.String, pl.Binary, pl.Categorical))
    return (text and not isinstance(id_type, pl.Enum)) or isinstance(
        id_type, (pl.Date, pl.Datetime, pl.Duration, pl.Decimal)
    )


def _unfiltered_by_pyarrow(id_type: pl.DataType) -> bool:
    """Ids whose ranges polars does not hand to pyarrow's scan: it would read them whole."""
    return isinstance(id_type, (pl.Decimal, pl.Duration))


def _even_cuts(ranges: Sequence[tuple[Any, Any, int]], chunks: int) -> list[Any]:
    """Id values splitting the rows into ``chunks`` parts of about equal size.

    Each row group's rows are taken as spread evenly over ``[min, max]``; the cumulative
    row count is piecewise linear between the row groups' bounds, so it is inverted exactly.
    """
    points = sorted({float(v) for r in ranges for v in r[:2]})
    cumulative = _rows_below(points, ranges).tolist()
    total = sum(r[2] for r in ranges)
    integer = all(isinstance(v, int) for r in ranges for v in r[:2])
    cuts: list[Any] = []
    for k in range(1, chunks):
        target = total * k / chunks
        for (x0, c0), (x1, c1) in itertools.pairwise(zip(points, cumulative, strict=True)):
            if c0 <= target <= c1 and c1 > c0:
                cut: Any = x0 + (x1 - x0) * (target - c0) / (c1 - c0)
                cut = math.ceil(cut) if integer else cut
                if not cuts or cut > cuts[-1]:
                    cuts.append(cut)
                break
    return cuts


def _rows_below(points: list[float], ranges: Sequence[tuple[Any, Any, int]]) -> np.ndarray:
    """The rows of ``ranges`` below each of ``points`` (sorted, every range's bounds among them).

    A row group's rows are spread evenly over ``(min, max]`` (all at once past a range of one
    value), so the count rises between two neighbouring points by the slopes of the row
    groups spanning them: one pass, where each point summing every row group was quadratic
    (8,000 points of 4,000 row groups: 1.5 s to plan). Differences of neighbouring points
    keep the digits of large ids, which their products would lose.
    """
    at = np.asarray(points)
    lo, hi = (np.array([float(r[i]) for r in ranges]) for i in (0, 1))
    count = np.array([float(r[2]) for r in ranges])
    start, end = np.searchsorted(at, lo), np.searchsorted(at, hi)
    spread = hi > lo
    slope = np.zeros(len(at))  # its change at each point, then the sum of those spanning
    np.add.at(slope, start[spread], count[spread] / (hi[spread] - lo[spread]))
    np.add.at(slope, end[spread], -count[spread] / (hi[spread] - lo[spread]))
    steps = np.zeros(len(at))  # the rows of one-value ranges, counted past their value
    np.add.at(steps, start[~spread], count[~spread])
    # The slopes' running sum exactly (Fractions of the floats): in floats, a wide row
    # group's tiny slope is lost beside a narrow one's, leaving rounding noise after it.
    running = np.array([float(s) for s in itertools.accumulate(map(Fraction, slope.tolist()))])
    rises = np.maximum(running[:-1], 0.0) * np.diff(at) + steps[:-1]
    return np.concatenate([[0.0], np.cumsum(rises)])


def _rows_read(ranges: Sequence[tuple[Any, Any, int]], cuts: Sequence[Any]) -> int:
    """Rows that the chunks read in all: each reads every row group its id range touches."""
    bounds = [-math.inf, *cuts, math.inf]
    return sum(
        count
        for lo, hi in itertools.pairwise(bounds)
        for rg_lo, rg_hi, count in ranges
        if rg_hi >= lo and rg_lo < hi
    )


def _boundary_cuts(ranges: Sequence[tuple[Any, Any, int]], per_chunk: float) -> list[Any]:
    """Cuts at row-group boundaries of clustered row groups, about ``per_chunk`` rows apart."""
    cuts: list[Any] = []
    acc = 0
    for (_, _, count), (next_min, _, _) in itertools.pairwise(ranges):
        acc += count
        if acc >= per_chunk * (len(cuts) + 1) and (not cuts or next_min > cuts[-1]):
            cuts.append(next_min)
    return cuts


def id_range(ids: pl.Expr, lo: Any, hi: Any, id_type: pl.DataType) -> pl.Expr:
    """``lo <= id < hi``, open where None; the bounds take the id's type (its time zone).

    The first range also keeps null ids, so that the data checks still see and count them.
    """
    if lo is not None:
        lo = _bound(lo, id_type)
    if hi is not None:
        hi = _bound(hi, id_type)
    if lo is None:
        return ids.is_null() | (ids < hi) if hi is not None else pl.lit(True)
    lower: pl.Expr = ids >= lo
    return lower & (ids < hi) if hi is not None else lower


def _bound(value: Any, id_type: pl.DataType) -> pl.Expr:
    """A cut as a literal of the id's type; one given as an expression, as it is.

    Parquet statistics of a time-zone-aware timestamp come back in UTC: compared with the
    column as they are, polars refuses the mix of time zones.
    """
    if isinstance(value, pl.Expr):  # (a polars value already: `cluster_by_id`'s)
        return value
    if isinstance(id_type, pl.Datetime) and id_type.time_zone is not None:
        return pl.lit(value).dt.convert_time_zone(id_type.time_zone).cast(id_type)
    return pl.lit(value).cast(id_type) if not id_type.is_numeric() else pl.lit(value)


class _ClassSets(NamedTuple):
    """Classes shared out between chunks (`_class_sets`)."""

    classes: list[list[object]]
    #: The rows of the largest chunk.
    rows: int


def _class_sets(sizes: pl.DataFrame, count: int) -> _ClassSets:
    """``count`` sets of the classes of ``sizes`` (class, rows; largest first).

    Of about equal rows: each class goes to the set with the fewest rows so far.
    """
    members = [list[object]() for _ in range(count)]
    least = [(0, k) for k in range(count)]  # (rows held, chunk): a heap
    for value, size in sizes.iter_rows():
        held, k = heapq.heappop(least)
        members[k].append(value)
        heapq.heappush(least, (held + size, k))
    return _ClassSets(members, max((held for held, _ in least), default=0))


def class_chunks(
    lf: pl.LazyFrame,
    rows: int,
    class_col: str,
    *,
    categorical: bool,
    budget: int,
    n_chunks: int | None = None,
    width: int = REFERENCE_ROW,
) -> Chunks:
    """Sets of classes of about equal rows, for metrics that rank ids within a class.

    ``rows``: the dump's row count, as `plan_chunks` found it. Each chunk reads the whole
    dump and keeps its classes' rows, so no more chunks than classes are made: the rows per
    class are counted first (one read of the class column), and each class goes to the
    chunk with the fewest rows so far, largest classes first. Null classes go to the first
    chunk, whose state reports them.
    """
    per_row = max(BYTES_PER_CLASS_ROW, scaled(BYTES_PER_ROW_SCATTERED, width))
    count = n_chunks or max(1, math.ceil(rows * per_row / budget))
    single = Chunks((pl.lit(True),), "class sets", rows)
    if count <= 1:
        return single
    cls = pl.col(class_col)
    if categorical:  # categorical codes differ between files: the strings are compared
        cls = cls.cast(pl.String)
    sizes = (
        lf.select(cls.alias("class"))
        .drop_nulls()
        .group_by("class")
        .len()
        .sort("len", "class", descending=[True, False])
        .collect(engine="streaming")
    )
    count = min(count, sizes.height)
    members = _class_sets(sizes, count)
    if n_chunks is None and members.rows * per_row > budget:
        # Whole classes make uneven chunks (10 classes in 6 chunks: some hold 2, a third
        # more than a sixth of the rows): the fewest chunks whose largest fits, if any.
        # (At one class a chunk already, none fits: as many chunks as classes, no more.)
        low, high = min(count + 1, sizes.height), sizes.height
        while low < high:
            middle = (low + high) // 2
            if _class_sets(sizes, middle).rows * per_row > budget:
                low = middle + 1
            else:
                high = middle
        count = low
        members = _class_sets(sizes, count)
        if members.rows * per_row > budget:  # (a class a chunk already: none smaller)
            warnings.warn(
                f"memory budget of {budget / 2**20:,.0f} MiB: the metrics computed per class "
                "over all its ids (ROC AUC, average precision, the curves...; chunk_key says "
                "which) read a class at a time at least, and the largest of the "
                f"{sizes.height:,} classes holds {members.rows:,} rows (about "
                f"{members.rows * per_row / 2**20:,.0f} MiB): memory follows that class, "
                "beyond the budget",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
    if count <= 1:
        return single
    filters = tuple(
        cls.is_in(pl.Series(m, dtype=sizes["class"].dtype).implode()) for m in members.classes
    )
    filters = (filters[0] | cls.is_null(), *filters[1:])
    return Chunks(filters, "class sets", rows)
