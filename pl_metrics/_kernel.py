"""Glue between polars frames and the C kernel of ``_kernels.c``.

A DataFrame's rows are in memory: the kernel counts the ranking family's pairs, the data
checks' counts (`run_sums`) and the curves table (`curve_counts`), in passes over each
id's contiguous rows. This module
finds those runs (where neighbouring keys differ, over the columns' own buffers, sorting
only when the ids are scattered), reads the columns in their chunks and splits the runs
between threads; without a C compiler at install time the kernel is missing and
`available` is false.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any, Final, Literal, NamedTuple, cast, overload

import numpy as np
import polars as pl
import pyarrow as pa
from polars.io.plugins import register_io_source

from pl_metrics._frame import INTERNAL, FrameT, class_hash, is_categorical

_kernels: ModuleType | None
#: PL_METRICS_NO_KERNEL=1 (not 0, false, no or off) runs the polars plans, as an install
#: without a compiler runs them.
_KEPT_ON: Final = frozenset({"", "0", "false", "no", "off"})
TURNED_OFF: Final = os.environ.get("PL_METRICS_NO_KERNEL", "").strip().lower() not in _KEPT_ON
if TURNED_OFF:
    _kernels = None
else:
    try:
        from pl_metrics import _kernels
    except ImportError:  # installed without a C compiler: the polars plans count the pairs
        _kernels = None

__all__ = [
    "KERNEL_SCORES",
    "TURNED_OFF",
    "ClassBlocks",
    "ClassCodes",
    "GroupCodes",
    "IdRuns",
    "RunSums",
    "are_counts",
    "available",
    "block_rows",
    "block_sums",
    "blocks_in_key_order",
    "class_blocks",
    "compensated_sums",
    "contiguous_runs",
    "cumulated_sums",
    "curve_areas",
    "curve_counts",
    "deferred_on_rows",
    "falling_in_key_order",
    "falling_key_blocks",
    "flags",
    "grouped_runs",
    "id_runs",
    "in_threads",
    "key_blocks",
    "key_change_rows",
    "key_sorted",
    "merged_falling",
    "ndcg_sums",
    "pair_counts",
    "planned",
    "run_sums",
    "segments_by_group",
    "sorted_on",
    "sorted_rising",
    "sums_from_last",
]

# Score types the kernel compares exactly: float32 as is, the others as float64.
KERNEL_SCORES = (
    pl.Float32,
    pl.Float64,
    pl.Boolean,
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
)


def deferred_on_rows(
    rows: pl.LazyFrame,
    function: Callable[[pl.DataFrame], dict[str, pl.DataFrame]],
    schemas: dict[str, pl.Schema],
) -> dict[str, pl.LazyFrame]:
    """The tables ``function`` makes of the rows of ``rows``, made when one is collected.

    ``rows`` are a DataFrame's lazy view; ``schemas`` are the tables' names and schemas.

    Made once: they are kept for as long as the plans are (the rows never change).

    Not ``map_batches``: in the streaming engine that hands over the rows re-cut into many
    small chunks, and copying those into numpy arrays costs ten times more than the
    DataFrame's own buffers, which an in-memory collect of its lazy view gives as they are.
    """
    # Made once: the rows never change, and a plan that reads the tables several times
    # (with different filters pushed into each read) would otherwise make them each time,
    # in parallel.
    lock, done = threading.Lock(), list[dict[str, pl.DataFrame]]()

    def source_of(name: str) -> Callable[..., Iterator[pl.DataFrame]]:
        def source(
            with_columns: list[str] | None,
            predicate: pl.Expr | None,
            n_rows: int | None,
            _batch_size: int | None,
        ) -> Iterator[pl.DataFrame]:
            with lock:
                if not done:
                    done.append(function(rows.collect(engine="in-memory")))
            out = done[0][name].lazy()
            if with_columns is not None:
                out = out.select(with_columns)
            if predicate is not None:
                out = out.filter(predicate)
            if n_rows is not None:
                out = out.head(n_rows)
            yield out.collect()

        return source

    return {
        name: register_io_source(source_of(name), schema=schema, is_pure=True)
        for name, schema in schemas.items()
    }


def flags(truth: pl.Series) -> np.ndarray:
    """A boolean Series without nulls as a numpy array, unpacked from its bits.

    Six times faster than ``to_numpy``, which converts value by value; each chunk is
    unpacked into its place (unpacking them apart and concatenating took six times longer).
    """
    out, at = _empty(len(truth), np.bool_), 0
    for chunk in truth.get_chunks():
        array = chunk.to_arrow()
        bits = np.frombuffer(array.buffers()[1], np.uint8)
        unpacked = np.unpackbits(bits, count=array.offset + len(array), bitorder="little")
        out[at : at + len(array)] = unpacked[array.offset :].view(np.bool_)
        at += len(array)
    return out


def _empty(n: int, dtype: type[np.generic]) -> np.ndarray:
    """``np.empty(n, dtype)``, from Arrow's mimalloc pool, for arrays made on every call.

    The pool keeps the pages of what is freed for the next call; numpy's large arrays come
    from glibc, which unmaps them, so each call faults them in again (about 2 us a 4 KiB
    page on these machines: a grouped F1 faulted 2,000 of them a call, 4-5 ms).
    """
    try:
        pool = pa.mimalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without it
        return np.empty(n, dtype)
    size = n * np.dtype(dtype).itemsize
    return np.frombuffer(pa.allocate_buffer(size, memory_pool=pool), dtype, n)


def available() -> bool:
    """Whether the C kernel was compiled at install."""
    return _kernels is not None


def thread_count() -> int:
    """Threads for the kernel: polars' pool size (``POLARS_MAX_THREADS``).

    Not the CPU count, so that Dask workers and shared machines are not oversubscribed.
    """
    return pl.thread_pool_size()


def pair_counts(
    scores: pl.Series, truth: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``R`` and ``P`` of every positive row, and per run the sums of P/R and R-P and max R.

    ``truth`` is the rows' truth as a numpy array (see `flags`); ``starts`` are the runs'
    first rows then the row count (`IdRuns.starts`). The scores are read in their chunks
    (`_Stretches`), and the runs split between polars' threads, each writing its own slices.
    """
    assert _kernels is not None
    kernels = _kernels
    is_f32 = scores.dtype == pl.Float32
    runs = len(starts) - 1
    rank = _empty(int(np.count_nonzero(truth)), np.int64)
    pos_rank = _empty(len(rank), np.int64)
    sums = (_empty(runs, np.float64), _empty(runs, np.float64), _empty(runs, np.float64))
    stretches = _Stretches([scores.cast(pl.Float32 if is_f32 else pl.Float64)], starts, runs)
    # Where each stretch's positives start: counted once per stretch, not cumulated per row.
    at = starts[stretches.cuts]
    before = np.cumsum([0, *(np.count_nonzero(truth[a:b]) for a, b in itertools.pairwise(at))])
    positives_at = dict(zip(stretches.cuts.tolist(), before.tolist(), strict=True))

    def count(piece: int, first: int, last: int, base: int, values: list[np.ndarray]) -> None:
        out = slice(positives_at[first], positives_at[last])
        kernels.pair_counts(
            starts[first : last + 1] - base,
            values[0],
            is_f32,
            truth[base : base + len(values[0])],
            rank[out],
            pos_rank[out],
            *(s[first:last] for s in sums),
        )

    stretches.each(count)
    return rank, pos_rank, sums


def in_threads(function: Callable[[int], None], items: Sequence[int]) -> None:
    """``function`` of each item, on `thread_count` threads when there are several.

    The kernels, and numpy in its loops over arrays, let go of the GIL, so threads run them
    in parallel; each item writes its own slices. Called from one of those threads, the
    items run in it, one after the other (the pool's threads would wait on each other).
    """
    if min(len(items), thread_count()) < 2 or getattr(_in_pool, "active", False):
        for item in items:
            function(item)
        return
    list(_pool().map(function, items))


#: The threads of `in_threads`, kept for the next call (starting them took 0.3-0.7 ms a
#: call, several calls a metric), with the process that started them: a forked child
#: starts its own.
_threads: tuple[int, ThreadPoolExecutor] | None = None
_threads_lock = threading.Lock()
_in_pool = threading.local()


def _pool() -> ThreadPoolExecutor:
    global _threads
    with _threads_lock:
        if _threads is None or _threads[0] != os.getpid():
            pool = ThreadPoolExecutor(
                thread_count(), thread_name_prefix="pl_metrics", initializer=_mark_in_pool
            )
            _threads = (os.getpid(), pool)
        return _threads[1]


def _mark_in_pool() -> None:
    _in_pool.active = True


class _Stretches:
    """Columns' runs of rows, cut where the threads' pieces and the columns' chunks begin.

    Each stretch of runs lies in one chunk, whose buffers a kernel reads in place, or is one
    run across chunks, whose rows alone are copied: a column is never copied whole (80 to
    160 MB for 20M scores), unless the columns are chunked differently.
    """

    def __init__(self, columns: Sequence[pl.Series], starts: np.ndarray, most: int) -> None:
        """``most``: at most this many threads (pieces)."""
        runs = len(starts) - 1
        threads = max(1, min(thread_count(), runs, most))
        if len({tuple(c.chunk_lengths()) for c in columns}) > 1:
            columns = [c.rechunk() for c in columns]
        self.columns, self.starts = columns, starts
        #: Each thread's first run, then the run count.
        self.pieces = np.linspace(0, runs, threads + 1).astype(int)
        self.chunks = [[c.to_numpy() for c in column.get_chunks()] for column in columns]
        self.bounds = np.cumsum([0, *columns[0].chunk_lengths()])
        inner = self.bounds[1:-1]
        after = np.searchsorted(starts, inner)  # the first run from each chunk's start on
        across = after[starts[after] != inner] - 1
        cuts = np.concatenate([self.pieces, after, across, across + 1])
        #: Each stretch's first run, then the run count.
        self.cuts = np.unique(cuts.clip(0, runs))

    def each(self, count: Callable[[int, int, int, int, list[np.ndarray]], None]) -> None:
        """``count(piece, first run, end run, first row, values)`` of each stretch.

        ``values`` are the columns' from its ``first row`` on; the pieces run in threads.
        """

        def in_piece(piece: int, stretches: list[tuple[int, int, int, list[np.ndarray]]]) -> None:
            for stretch in stretches:
                count(piece, *stretch)

        self.each_piece(in_piece)

    def each_piece(
        self, count: Callable[[int, list[tuple[int, int, int, list[np.ndarray]]]], None]
    ) -> None:
        """``count(piece, stretches)`` of each piece, in threads.

        ``stretches``: the piece's, in order, each ``(first run, end run, first row,
        values)`` as in `each`.
        """
        chunk_of = np.searchsorted(self.bounds, self.starts[self.cuts], "right") - 1

        def in_piece(piece: int) -> None:
            first, end = self.pieces[piece], self.pieces[piece + 1]
            stretches = []
            for k in range(np.searchsorted(self.cuts, first), np.searchsorted(self.cuts, end)):
                g0, g1, c = int(self.cuts[k]), int(self.cuts[k + 1]), int(chunk_of[k])
                a, b = int(self.starts[g0]), int(self.starts[g1])
                if b <= self.bounds[c + 1]:  # within chunk c: read in place
                    values = [ch[c] for ch in self.chunks]
                    stretches.append((g0, g1, int(self.bounds[c]), values))
                else:  # one run across chunks: a copy of its rows
                    values = [column.slice(a, b - a).to_numpy() for column in self.columns]
                    stretches.append((g0, g1, a, values))
            count(piece, stretches)

        in_threads(in_piece, range(len(self.pieces) - 1))


#: Integer classes spanning at most this many values are counted by `run_sums`, in a
#: table of at most this many counts per (segment, class) or one per row.
_MAX_CLASS_SPAN = 1 << 20
#: Integer types that convert to numpy (not Int128).
_NUMPY_INTEGERS = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
)
#: The class types `run_sums` reads: the kernel's tag for each.
_CLASS_KINDS: dict[type[pl.DataType], str] = {
    pl.Int8: "b",
    pl.Int16: "h",
    pl.Int32: "i",
    pl.Int64: "l",
    pl.UInt8: "B",
    pl.UInt16: "H",
    pl.UInt32: "I",
}


@dataclass(frozen=True)
class ClassCodes:
    """A class column as the kernels read it: an integer per row, standing for its class.

    Integers are read as they are; strings by their rank among the distinct classes, and
    categoricals and enums by their physical codes, so that every class type is counted in
    the kernel's pass (the polars plan took 3-9x longer).
    """

    #: The integers, of a type of `_CLASS_KINDS`, chunked as the classes.
    codes: pl.Series
    #: Their smallest.
    low: int
    #: The class that each integer from ``low`` on stands for, in the classes' type (null
    #: where none does).
    values: pl.Series

    @classmethod
    def of(cls, classes: pl.Series) -> ClassCodes | None:
        """None when there are none, nulls, another type, or too wide a span of integers."""
        dtype = classes.dtype
        if not len(classes) or classes.null_count():
            return None
        if is_categorical(dtype):
            codes = classes.to_physical()
        elif dtype == pl.String:
            distinct = classes.unique().sort()
            codes = classes.cast(pl.Enum(distinct)).to_physical()
        elif dtype.base_type() in _CLASS_KINDS:
            codes = classes
        else:
            return None
        if codes.dtype.base_type() not in _CLASS_KINDS:
            return None
        low, high = int(codes.min()), int(codes.max())  # type: ignore[arg-type]
        if high - low >= _MAX_CLASS_SPAN:
            return None
        if isinstance(dtype, pl.Enum):
            values = pl.Series(classes.name, dtype.categories[low : high + 1]).cast(dtype)
        elif isinstance(dtype, pl.Categorical):
            distinct = classes.unique()
            at = pl.Series(distinct.to_physical().to_numpy().astype(np.int64) - low)
            values = pl.repeat(None, high - low + 1, dtype=pl.String, eager=True)
            values = values.scatter(at, distinct.cast(pl.String)).cast(dtype)
        elif dtype == pl.String:
            values = distinct
        else:
            values = pl.Series(np.arange(low, high + 1)).cast(dtype)
        return cls(codes, low, values.rename(classes.name))

    @property
    def kind(self) -> str:
        """The kernels' tag of the integers' type."""
        return _CLASS_KINDS[self.codes.dtype.base_type()]

    def hashes(self) -> np.ndarray:
        """Each integer's `pl_metrics._frame.class_hash`, as the state sums them."""
        values = self.values
        hashed = class_hash(pl.col(values.name), categorical=is_categorical(values.dtype))
        out: np.ndarray = values.to_frame().select(hashed).to_series().to_numpy()
        return out

    def classes_of(self, codes: np.ndarray) -> pl.Series:
        """The classes that ``codes`` (integers less ``low``) stand for."""
        return self.values.gather(codes)


def ndcg_sums(
    scores: pl.Series, truth: np.ndarray, starts: np.ndarray, discounts: np.ndarray, k: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per run: its discounted cumulative gain (ties averaged) and its ideal one.

    ``discounts``: the sums of the first ``m`` discounts, for ``m`` up to the longest run;
    ``k``: the positions that count (None: all). As `pair_counts` reads the scores.
    """
    assert _kernels is not None
    kernels = _kernels
    is_f32 = scores.dtype == pl.Float32
    runs = len(starts) - 1
    dcg, ideal = _empty(runs, np.float64), _empty(runs, np.float64)
    stretches = _Stretches([scores.cast(pl.Float32 if is_f32 else pl.Float64)], starts, runs)

    def count(piece: int, first: int, last: int, base: int, values: list[np.ndarray]) -> None:
        kernels.ndcg_sums(
            starts[first : last + 1] - base,
            values[0],
            is_f32,
            truth[base : base + len(values[0])],
            discounts,
            -1 if k is None else k,
            dcg[first:last],
            ideal[first:last],
        )

    stretches.each(count)
    return dcg, ideal


class RunSums(NamedTuple):
    """What `run_sums` counts (each part None where it was not asked for)."""

    #: Per run, its positives and the wrapping sum of its class hashes.
    positives: np.ndarray | None
    hashes: np.ndarray | None
    #: The (segment, class) pairs present: their segments, classes and counts.
    per_class: tuple[np.ndarray, pl.Series, np.ndarray] | None
    #: Per segment (per group, numbered, when counted per group), the runs' ``rows``,
    #: ``positives`` and ``class_hash`` reduced by ``sum``, ``min`` and ``max``:
    #: ``per_segment[kind][op]``.
    per_segment: dict[str, dict[str, np.ndarray]] | None
    #: With ``weights``: per pair of ``per_class``, the weights of its true negatives,
    #: false positives, false negatives and true positives.
    class_weights: np.ndarray | None = None


def run_sums(
    starts: np.ndarray,
    truth: np.ndarray,
    classes: ClassCodes | None,
    firsts: np.ndarray | None,
    predicted: np.ndarray | None = None,
    *,
    by_class: bool = True,
    per_run: bool = True,
    groups: GroupCodes | None = None,
    weights: np.ndarray | None = None,
) -> RunSums | None:
    """Per run of rows, its positives and the wrapping sum of its class hashes.

    ``classes``: the rows' classes as `ClassCodes` (None: it cannot read them). The hashes
    are their `pl_metrics._frame.class_hash`, as the state's. With
    ``firsts`` (each segment's first run, `IdRuns.firsts`), also their reductions per
    segment, and if ``by_class``, counts per (segment, class): the segments, classes and
    counts of the pairs present, the counts one column of rows, or with ``predicted`` (flags
    like ``truth``) four: rows, positives, predicted positives and true positives.
    ``per_run=False``: not the values per run (the reductions per segment are enough: no
    arrays the size of the runs to fill). ``groups``: with ``firsts``, the reductions and
    counts are per group of runs instead (groups that change from id to id, whose segments
    are about as many as the runs): the reductions by group number, the (group, class)
    pairs given their group's first segment. ``weights`` (float64, a row each; with
    ``predicted``): the counts per (segment, class) also get the rows' weights of each
    (truth, prediction), summed in the rows' order within each thread's piece, then the
    pieces' sums in their order (`RunSums.class_weights`: the same bits on every run of as
    many threads, not on any number of threads). None when there are no rows or classes,
    or so widely spread classes that a table of them outgrows `_MAX_CLASS_SPAN` and the
    rows. The classes are read in their chunks (`_Stretches`).
    """
    assert _kernels is not None
    kernels = _kernels
    runs = len(starts) - 1
    if classes is None or not runs:
        return None
    kind, low, span = classes.kind, classes.low, len(classes.values)
    n_segments = 0 if firsts is None else len(firsts)
    of_run = np.zeros(0, np.int64)  # (none: the tables are per segment)
    if firsts is not None and groups is not None:
        of_run, n_segments = groups.of_run, len(groups.first_segment)
    cells = n_segments * span if by_class else 0
    if cells > max(len(classes.codes), _MAX_CLASS_SPAN):
        return None
    hash_of = classes.hashes()
    npos, hashes = (_empty(runs, np.int64), _empty(runs, np.uint64)) if per_run else (None,) * 2
    first_runs = np.zeros(0, np.int64) if firsts is None else np.asarray(firsts, np.int64)
    planes = 1 if predicted is None else 4
    # Each thread counts into its own table: as many as keep them within a column's size.
    most = max(len(classes.codes), _MAX_CLASS_SPAN) // max(planes * cells, 1)
    stretches = _Stretches([classes.codes], starts, most)
    pieces = len(stretches.pieces) - 1
    counts = np.zeros((pieces, cells * planes), np.int64)
    weighted = weights is not None and predicted is not None and by_class and cells
    weight_sums = np.zeros((pieces, cells * planes) if weighted else (0, 0), np.float64)
    row_weights = weights if weighted and weights is not None else np.zeros(0, np.float64)
    # Each piece reduces into its own tables, from their identities (none without segments).
    most_int, most_hash = np.iinfo(np.int64).max, np.iinfo(np.uint64).max
    seg_counts = np.zeros((pieces, n_segments, 6), np.int64)
    seg_counts[..., [1, 4]], seg_counts[..., [2, 5]] = most_int, -most_int - 1
    seg_hashes = np.zeros((pieces, n_segments, 3), np.uint64)
    seg_hashes[..., 1] = most_hash
    pred = np.zeros(0, np.bool_) if predicted is None else predicted
    no_runs = np.zeros(0, np.int64)

    def count(piece: int, first: int, last: int, base: int, values: list[np.ndarray]) -> None:
        rows = slice(base, base + len(values[0]))
        kernels.run_sums(
            starts[first : last + 1],
            base,
            truth[rows],
            pred[rows],
            values[0],
            kind,
            low,
            hash_of,
            first_runs,
            first,
            no_runs if npos is None else npos[first:last],
            no_runs.view(np.uint64) if hashes is None else hashes[first:last],
            counts[piece],
            seg_counts[piece].reshape(-1),
            seg_hashes[piece].reshape(-1),
            of_run,
            n_segments,
            row_weights[rows] if weighted else row_weights,
            weight_sums[piece] if weighted else row_weights,
        )

    stretches.each(count)
    per_segment = None
    if firsts is not None:
        int_sums, hash_sums = seg_counts.sum(axis=0), seg_hashes.sum(axis=0)
        int_least, hash_least = seg_counts.min(axis=0), seg_hashes.min(axis=0)
        int_most, hash_most = seg_counts.max(axis=0), seg_hashes.max(axis=0)
        per_segment = {
            kind: {"sum": sums[:, k], "min": least[:, k + 1], "max": most[:, k + 2]}
            for kind, sums, least, most, k in [
                ("rows", int_sums, int_least, int_most, 0),
                ("positives", int_sums, int_least, int_most, 3),
                ("class_hash", hash_sums, hash_least, hash_most, 0),
            ]
        }
    if firsts is None or not by_class:
        return RunSums(npos, hashes, None, per_segment)
    table = _cells_counted(counts.sum(axis=0).reshape(n_segments, span, planes))
    segment_of, code = np.nonzero(table[..., 0])
    counted = table[segment_of, code]
    weighed = None
    if weighted:  # (the pieces' sums added in their order: the same bits every run)
        weighed = weight_sums.sum(axis=0).reshape(n_segments, span, planes)[segment_of, code]
    if groups is not None:
        segment_of = groups.first_segment[segment_of]
    per_class = (segment_of, classes.classes_of(code), counted)
    return RunSums(npos, hashes, per_class, per_segment, weighed)


def _cells_counted(table: np.ndarray) -> np.ndarray:
    """A table of rows per (..., plane) as the counts the callers read.

    One plane: the rows. Four, the rows of each (truth, predicted), 0b00 to 0b11: the rows,
    positives, predicted positives and true positives.
    """
    if table.shape[-1] == 1:
        return table
    _, predicted_only, positive_only, both = np.moveaxis(table, -1, 0)
    rows = table.sum(axis=-1)
    return np.stack([rows, positive_only + both, predicted_only + both, both], axis=-1)


#: `curve_counts` sorts scores nearly all distinct instead of hashing them: a segment with
#: more (class, score) pairs than this, and than a sixteenth of a thread's rows, gives up
#: the hash table (which would outgrow the rows: 20M float64 scores took 6 GB). Rounded
#: scores stay well below (1,000 levels x 200 classes: 200,000).
_CURVE_ENTRIES = 1 << 16
_CURVE_ROWS_PER_ENTRY = 16


def _mostly_distinct(scores: pl.Series, starts: np.ndarray, firsts: np.ndarray) -> bool:
    """Whether `curve_counts`' hash tables would surely give up (scores nearly all distinct).

    Estimated from 65,536 scores spread over the rows: the largest segment's distinct
    scores, more than a thread's table holds. The tables gave up only after counting most
    of the rows (60-90 ms of 5M distinct scores, before the sort that followed); a wrong
    guess costs time, not values (both ways count the same table).
    """
    rows = int(starts[-1] - starts[0])
    sample = scores.gather(
        np.linspace(starts[0], starts[-1] - 1, min(rows, 1 << 16)).astype(np.int64)
    )
    share = sample.n_unique() / max(len(sample), 1)
    segment_rows = np.diff(starts[np.append(firsts, len(starts) - 1)])
    largest = int(segment_rows.max()) if len(segment_rows) else 0
    most = max(_CURVE_ENTRIES, rows // max(thread_count(), 1) // _CURVE_ROWS_PER_ENTRY)
    return largest * share > most


def curve_counts(
    starts: np.ndarray,
    firsts: np.ndarray,
    truth: np.ndarray,
    classes: ClassCodes | None,
    scores: pl.Series,
    weights: pl.Series | None = None,
) -> tuple[np.ndarray, pl.Series, pl.Series, np.ndarray, np.ndarray] | None:
    """The positive and negative rows per (segment, class, distinct score): the curves table.

    ``firsts``: each segment's first run (`IdRuns.firsts`). Gives the rows' segments, classes,
    scores, positives and negatives (as Float64), each (segment, class, score) once, scores
    compared as polars groups them (-0.0 as 0.0, NaN as one value); each (segment, class)'s
    rows together, highest score first (where a segment was cut between threads, its rows
    last). None when the kernel cannot read them: no ``classes``
    (`ClassCodes`), scores not Float32 or Float64 or with nulls, ``weights`` not Float64
    or with nulls. Given ``weights``, the positives' and negatives' weights instead of rows,
    each (segment, class, score)'s added in the rows' order (Kahan's compensated sum, as
    polars' group_by adds a small group's floats), the same bits on any number of threads.

    The columns are read in their chunks, the runs split between polars' threads, each
    counting its share in a hash table; where scores are nearly all distinct
    (`_CURVE_ENTRIES`), each thread sorts every row of a range of the classes instead.
    """
    assert _kernels is not None
    kernels = _kernels
    runs = len(starts) - 1
    if classes is None or scores.dtype not in (pl.Float32, pl.Float64) or scores.null_count():
        return None
    if weights is not None and (weights.dtype != pl.Float64 or weights.null_count()):
        return None
    kind, is_f32 = classes.kind, scores.dtype == pl.Float32
    first_runs = np.asarray(firsts, np.int64)
    read_columns = [classes.codes, scores, *([] if weights is None else [weights])]
    stretches = _Stretches(read_columns, starts, runs)
    found: dict[int, bytes | None] = {}  # each piece's rows
    read: dict[int, list[tuple[Any, ...]]] = {}  # each piece's stretches, as the kernel reads them

    def items(parts: list[tuple[int, int, int, list[np.ndarray]]]) -> list[tuple[Any, ...]]:
        return [
            (starts[a : b + 1] - base, a, v[0], v[1], truth[base : base + len(v[0])], *v[2:])
            for a, b, base, v in parts
        ]

    # Weights are summed in the sort mode alone: its threads share the classes, not the rows,
    # so each score's weights are added whole in the rows' order, whatever the thread count.
    hashed = weights is None and (not runs or not _mostly_distinct(scores, starts, first_runs))

    def count(piece: int, parts: list[tuple[int, int, int, list[np.ndarray]]]) -> None:
        rows = sum(int(starts[last] - starts[first]) for first, last, _, _ in parts)
        most = max(_CURVE_ENTRIES, rows // _CURVE_ROWS_PER_ENTRY)
        read[piece] = items(parts)
        found[piece] = (
            kernels.curve_counts(read[piece], first_runs, kind, is_f32, most) if hashed else None
        )

    if runs:
        stretches.each_piece(count)
    if any(rows is None for rows in found.values()):
        # Scores nearly all distinct: every row sorted instead, whole segments at a time
        # (every piece's stretches in turn: none cut between threads), each thread sorting
        # a range of the classes.
        whole = [stretch for piece in sorted(read) for stretch in read[piece]]
        rows = int(starts[-1] - starts[0])
        columns = [_empty(rows, t) for t in (np.int64, np.int64, np.uint64, np.float64, np.float64)]
        written = np.zeros(1, np.int64)
        span = len(classes.values)
        bounds = classes.low + np.linspace(0, span, min(thread_count(), span) + 1).astype(np.int64)

        def sort_share(share: int) -> None:
            code_range = int(bounds[share]), int(bounds[share + 1])
            kernels.curve_counts(
                whole, first_runs, kind, is_f32, 0, *code_range, (*columns, written)
            )

        in_threads(sort_share, range(len(bounds) - 1))
        segment, code, bits, positives, negatives = (c[: written[0]] for c in columns)
        return _curve_columns(classes, scores, is_f32, segment, code, bits, positives, negatives)
    # A segment cut between threads' pieces was counted in each: its rows are summed.
    inner = stretches.pieces[1:-1]
    segment_of = np.searchsorted(first_runs, inner, "right") - 1
    cut = segment_of[segment_of == np.searchsorted(first_runs, inner - 1, "right") - 1]
    names = ["segment", "code", "bits", "positives", "negatives"]
    record = np.dtype([(name, np.uint64 if name == "bits" else np.int64) for name in names])
    table = np.frombuffer(b"".join(found[k] or b"" for k in sorted(found)), record)
    frame = pl.DataFrame({name: table[name] for name in names})
    if len(cut):
        twice = pl.col("segment").is_in(cut.tolist())
        merged = frame.filter(twice).group_by(names[:3]).agg(pl.col(names[3:]).sum())
        # Each (segment, class)'s scores highest first, as the other rows come: the metrics
        # read them in blocks so (without `by`, the one segment is cut when threads share it).
        bits = merged["bits"].to_numpy()
        score = bits.astype(np.uint32).view(np.float32) if is_f32 else bits.view(np.float64)
        merged = merged.with_columns(pl.Series("score", score)).sort(  # (NaN first, as in C)
            ["segment", "code", "score"], descending=[False, False, True]
        )
        frame = pl.concat([frame.filter(~twice), merged.drop("score")])
    return _curve_columns(
        classes,
        scores,
        is_f32,
        *(frame[name].to_numpy() for name in names[:3]),
        *(frame[name].to_numpy().astype(np.float64) for name in names[3:]),
    )


def _curve_columns(
    classes: ClassCodes,
    scores: pl.Series,
    is_f32: bool,
    segment: np.ndarray,
    code: np.ndarray,
    bits: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
) -> tuple[np.ndarray, pl.Series, pl.Series, np.ndarray, np.ndarray]:
    """`curve_counts`' columns, classes and scores as the rows' types."""
    values = bits.astype(np.uint32).view(np.float32) if is_f32 else bits.view(np.float64)
    return (
        segment,
        classes.classes_of(code - classes.low),
        pl.Series(scores.name, values),
        positives,
        negatives,
    )


def curve_areas(
    df: pl.DataFrame, keys: Sequence[str], score: str, positives: str, negatives: str, *, roc: bool
) -> tuple[pl.DataFrame, list[np.ndarray]] | None:
    """Per ``keys`` of a curves table: the sums behind ROC AUC (``roc``) or AP.

    Summed as `pl_metrics._curves` sums them in polars, to the bit, where the table holds
    each key's rows together, scores strictly falling (`key_blocks`), as the kernel's
    curves table comes (`curve_counts`) and a collected state's is kept. Gives the keys (a
    row each) and the area, positives, negatives, positives' scale and negatives' scale.
    None for other tables (or nulls, another score type): polars sorts them.
    """
    assert _kernels is not None
    columns = [df[score], df[positives], df[negatives]]
    blocks = key_blocks(df, keys)
    if (
        blocks is None
        or columns[0].dtype not in (pl.Float32, pl.Float64)
        or any(c.dtype != pl.Float64 for c in columns[1:])
        or any(c.null_count() for c in columns)
    ):
        return None
    starts, firsts = blocks
    values = [c.rechunk().to_numpy() for c in columns]
    out = [np.empty(len(starts) - 1) for _ in range(5)]
    is_f32 = columns[0].dtype == pl.Float32
    done = _kernels.curve_areas(starts, values[0], is_f32, *values[1:], roc, *out)
    return (firsts, out) if done else None


def key_blocks(df: pl.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, pl.DataFrame] | None:
    """Where each ``keys``' rows start (then the row count), and each block's keys.

    None where a key's rows are apart, or no rows or no keys, or keys are nested or floats
    (which polars' group_by gives as it holds them: -0.0 as 0.0).
    """
    schema = df.schema
    if (
        not df.height
        or not keys
        or any(schema[k].is_nested() or schema[k].is_float() for k in keys)
    ):
        return None
    starts = np.concatenate([[0], key_change_rows(df, keys), [df.height]]).astype(np.int64)
    firsts = df.select(keys)[starts[:-1]]
    return (starts, firsts) if firsts.is_unique().all() else None


def falling_in_key_order(df: pl.DataFrame, keys: Sequence[str], column: str) -> pl.DataFrame | None:
    """``df`` sorted by ``keys`` (nulls last), then ``column`` highest first, without a sort.

    Where each key's rows are together and ``column`` (no nulls) strictly falls within them,
    as in the kernel's curves table, only the blocks are put in order. None for other tables.
    """
    blocks = blocks_in_key_order(df, keys, falling=column)
    return None if blocks is None else blocks[0]


def falling_key_blocks(
    df: pl.DataFrame, keys: Sequence[str], column: str
) -> tuple[np.ndarray, pl.DataFrame] | None:
    """`key_blocks`, where ``column`` also strictly falls within each block.

    None for nulls and NaN too (polars sorts NaN above every number), and for 128-bit
    integers, which numpy lacks.
    """
    if df[column].null_count() or df[column].dtype in (pl.Int128, pl.UInt128):
        return None
    blocks = key_blocks(df, keys)
    if blocks is None:
        return None
    values = df[column].to_numpy()
    if values.dtype.kind == "f" and np.isnan(values).any():
        return None
    falls = values[1:] < values[:-1]
    falls[blocks[0][1:-1] - 1] = True  # a block's first row against the one before's
    return blocks if falls.all() else None


def blocks_in_key_order(
    df: pl.DataFrame,
    keys: Sequence[str],
    *,
    nulls_last: bool = True,
    falling: str | None = None,
) -> tuple[pl.DataFrame, np.ndarray] | None:
    """``df`` as polars' stable sort by ``keys`` gives it, and where each key's rows start.

    Where each key's rows are together (`key_blocks`), the blocks are moved, not the rows
    sorted. None for other tables, and where the column ``falling`` does not strictly fall
    within each block (`falling_key_blocks`).
    """
    df = df.rechunk()  # (polars gathers from many chunks several times slower)
    blocks = key_blocks(df, keys) if falling is None else falling_key_blocks(df, keys, falling)
    if blocks is None:
        return None
    rows, starts = _moved_blocks(*blocks, keys, nulls_last=nulls_last)
    return (df if rows is None else df[rows]), starts


#: A row number beside a table's own columns (a key may be named "index").
_ROW = f"{INTERNAL}row"
_HASH, _NUMBER = f"{INTERNAL}hash", f"{INTERNAL}number"  # (`row_codes`)


def _moved_blocks(
    starts: np.ndarray, firsts: pl.DataFrame, keys: Sequence[str], *, nulls_last: bool
) -> tuple[np.ndarray | None, np.ndarray]:
    """The rows that put blocks in key order, and the blocks' starts there.

    ``starts``: where each block starts, then the row count; ``firsts``: each block's keys.
    No rows (None) when the blocks are in order already.
    """
    order = firsts.with_row_index(_ROW).sort(keys, nulls_last=nulls_last, maintain_order=True)
    order_of = order[_ROW].to_numpy()
    if (order_of == np.arange(len(order_of))).all():
        return None, starts
    ends = np.cumsum(np.diff(starts)[order_of])
    return block_rows(starts, order_of), np.concatenate([[0], ends]).astype(np.int64)


#: Gather indices of fewer rows than this are 32-bit (`block_rows`, `_repeat_index`).
_MOST_32_BIT_ROWS = 2**32


def block_rows(starts: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """The rows of ``blocks``, one block after the other.

    ``starts``: where each block starts, then the row count; ``blocks``: block numbers.
    32-bit rows in a buffer of Arrow's pool, below 2**32 rows: polars gathers by 32-bit
    rows, and a 64-bit index, made fresh, took a third of a gather's time.
    """
    lengths = np.diff(starts)[blocks]
    if lengths.sum() >= _MOST_32_BIT_ROWS:
        ends = np.cumsum(lengths)
        rows: np.ndarray = np.repeat(starts[blocks] - (ends - lengths), lengths)
        return rows + np.arange(int(ends[-1]))
    kept = lengths > 0  # (an empty block has no first row to step to)
    begins, lengths = starts[blocks][kept], lengths[kept]
    jumps = begins.astype(np.int64)  # from the row before each block's first
    jumps[1:] -= begins[:-1] + lengths[:-1] - 1
    return _summed_steps(lengths, jumps, within=1)


def sorted_rising(lf: pl.LazyFrame, keys: Sequence[str], column: str) -> pl.LazyFrame:
    """``lf.sort([*keys, column])``, for tables whose ``column`` falls in a block per key.

    A state's curves table holds each key's scores so, highest first (`falling_key_blocks`):
    the blocks are moved and each turned round, in one gather, without polars' sort by
    several columns (5M rows: 0.5-0.8 s). Other tables are sorted.
    """
    order = list(dict.fromkeys([*keys, column]))

    def in_order(df: pl.DataFrame) -> pl.DataFrame:
        df = df.rechunk()
        blocks = falling_key_blocks(df, order[:-1], column) if keys else None
        if blocks is None:
            return df.sort(order)
        rows, starts = _moved_blocks(*blocks, order[:-1], nulls_last=False)
        # Row i of a block [a, b) takes row a + b - 1 - i.
        turned = np.repeat(starts[:-1] + starts[1:] - 1, np.diff(starts)) - np.arange(df.height)
        return df[turned if rows is None else rows[turned]]

    return lf.map_batches(in_order, schema=lf.collect_schema(), predicate_pushdown=True)


def key_sorted(lf: pl.LazyFrame, keys: Sequence[str], *, nulls_last: bool = False) -> pl.LazyFrame:
    """``lf.sort(keys, nulls_last=nulls_last, maintain_order=True)``, for tables in blocks.

    A curve table has a row per score in a block per key: its blocks are moved
    (`blocks_in_key_order`), which for 5M rows took a tenth of polars' sort by several
    columns. Other tables are sorted.
    """

    def in_order(df: pl.DataFrame) -> pl.DataFrame:
        blocks = blocks_in_key_order(df, keys, nulls_last=nulls_last)
        if blocks is None:
            return df.sort(keys, nulls_last=nulls_last, maintain_order=True)
        return blocks[0]

    return lf.map_batches(in_order, schema=lf.collect_schema(), predicate_pushdown=True)


def planned(
    frame: FrameT,
    plan: Callable[[pl.LazyFrame], pl.LazyFrame],
    fast: Callable[[pl.DataFrame], pl.DataFrame | None],
) -> FrameT:
    """``plan(frame)``, made by ``fast`` from the collected rows where it can (not None).

    ``fast`` reads a table as it comes (a curves table in blocks, say) and gives the
    plan's table, the plan takes any other. A LazyFrame stays lazy: a ``map_batches`` step.
    """
    schema = plan(frame.lazy()).collect_schema()

    def made(df: pl.DataFrame) -> pl.DataFrame:
        done = fast(df)
        if done is None:
            # The in-memory engine adds a group's float weights in the rows' order: the same
            # bits on every run (the streaming one adds its parts as its threads finish).
            return plan(df.lazy()).collect(engine="in-memory")
        return done.select(pl.col(name).cast(dtype) for name, dtype in schema.items())

    if isinstance(frame, pl.DataFrame):
        return cast(FrameT, made(frame))
    return cast(FrameT, frame.map_batches(made, schema=schema))


def are_counts(values: np.ndarray) -> bool:
    """Whether ``values`` are counts: whole numbers from 0 whose sum is below 2**53.

    Their sums are exact, so any order of them gives the same bits.
    """
    if values.dtype == np.float64:
        # No -0.0 or NaN, a sum below 2**53, whole: in three passes.
        if (values.view(np.int64) < 0).any() or not values.sum() < 2.0**53:
            return False
        return not (values.astype(np.int64) != values).any()
    return values.dtype.kind in "iu" and not (values < 0).any()


def cumulated_sums(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sums of ``values`` up to each row, restarting at each of ``starts``, and each block's.

    As polars' ``cum_sum().over(block)`` adds them, one row at a time. For counts
    (non-negative whole numbers below 2**53, whose sums are exact in any order), one
    cumulative sum over the whole column, each block's start taken off; for other values
    (weights), each block's own. Blocks are not empty.
    """
    if are_counts(values):
        return block_sums(values, starts)
    cumulated = np.empty(len(values), np.float64)
    for a, b in itertools.pairwise(starts):
        np.cumsum(values[a:b], out=cumulated[a:b])
    return cumulated, cumulated[starts[1:] - 1]


def block_sums(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`cumulated_sums` of values known to be counts (`are_counts`); blocks not empty."""
    whole = np.cumsum(values)
    ends = whole[starts[1:] - 1]
    before = np.concatenate([np.zeros(1, whole.dtype), ends[:-1]])
    return whole - np.repeat(before, np.diff(starts)), ends - before


def compensated_sums(number: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """Each group's sum of ``values`` (rows numbered by ``number``), in the rows' order.

    With Kahan's compensation, as polars' group_by adds a small group's floats (counts need
    none: numpy's bincount adds them exactly). The kernel's: check `available` first.
    """
    assert _kernels is not None
    sums = np.empty(groups, np.float64)
    _kernels.kahan_bincount(
        np.ascontiguousarray(number, np.int64), np.ascontiguousarray(values, np.float64), sums
    )
    return sums


def sums_from_last(columns: Sequence[np.ndarray], starts: np.ndarray) -> np.ndarray:
    """Each block's sum of each column, added from the block's last row up to its first.

    One addition at a time from 0.0, as `ordered_sum` adds a curves block's rows (lowest
    score first), so the same bits. ``starts``: each block's first row, then the row count.
    Gives a row per block, a column per column.
    """
    floats = [np.ascontiguousarray(c, np.float64) for c in columns]
    starts = np.ascontiguousarray(starts, np.int64)
    sums = np.empty((len(starts) - 1, len(floats)))
    if _kernels is not None and len(floats) <= 8:
        _kernels.sums_from_last(starts, floats, sums)
        return sums
    rows = np.column_stack(floats) if floats else np.empty((int(starts[-1]), 0))
    for block, (a, b) in enumerate(itertools.pairwise(starts)):
        # numpy's cumulative sum adds in order; from 0.0 as polars' (-0.0 alone sums to 0.0)
        sums[block] = (np.cumsum(rows[a:b][::-1], axis=0)[-1] if b > a else 0.0) + 0.0
    return sums


def merged_falling(group: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's distinct score within its group, numbered groups first, highest first.

    ``score``: Float64 without NaN (-0.0 and 0.0 are one score). Gives each row's number
    and the first row of each number (the scores in that order are each group's distinct
    scores, falling). One sort of the rows (polars' stable sort of a group's runs of falling
    scores is a merge).
    """
    order = (
        pl.DataFrame({"g": group, "s": score})
        .with_row_index()
        .sort(["g", "s"], descending=[False, True], maintain_order=True)["index"]
        .to_numpy()
        .astype(np.int64)
    )
    merged, merged_group = score[order], group[order]
    distinct = np.ones(len(order), np.bool_)
    distinct[1:] = (merged[1:] != merged[:-1]) | (merged_group[1:] != merged_group[:-1])
    number = np.empty(len(order), np.int64)
    number[order] = np.cumsum(distinct) - 1
    return number, order[distinct]


def key_change_rows(df: pl.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """The rows (after the first) whose ``keys`` differ from the row before's, ascending."""
    return _union([changes.rows for changes in _each_change_rows(df, keys)])


class _Changes(NamedTuple):
    """A column's change rows, and how many of them hold a value below the row before's."""

    #: The rows, between a 0 before them and the row count after them (the runs' starts
    #: if the column's changes split every run: no copy of them to make).
    bounded: np.ndarray
    #: None where not counted (only integers are).
    below: int | None

    @property
    def rows(self) -> np.ndarray:
        """The change rows."""
        return self.bounded[1:-1]


def _each_change_rows(df: pl.DataFrame, keys: Sequence[str]) -> list[_Changes]:
    """`key_change_rows` of each of the ``keys``.

    Integer and string columns without nulls are compared over their own buffers, by the
    C kernel where there is one (a few times faster than polars' ``shift``, and outside its
    thread pool, which a plan running beside this keeps busy); the others by polars.
    """
    out: list[_Changes | None] = [None] * len(keys)

    def scan(k: int) -> None:
        key = df[keys[k]]
        if not key.null_count() and key.dtype in _NUMPY_INTEGERS:
            out[k] = _change_rows([c.to_numpy() for c in key.get_chunks()], ordered=True)
        elif not key.null_count() and key.dtype == pl.String:
            bounded = _string_change_rows(key)
            out[k] = None if bounded is None else _Changes(bounded, None)

    # The columns are scanned side by side: the kernel lets go of the GIL.
    in_threads(scan, range(len(keys)))
    for k, name in enumerate(keys):
        if out[k] is None:
            differs = pl.col(name).ne_missing(pl.col(name).shift(1)).slice(1)
            rows = np.flatnonzero(df.select(differs).to_series().to_numpy()) + 1
            out[k] = _Changes(np.concatenate([[0], rows, [df.height]], dtype=np.int64), None)
    return [changes for changes in out if changes is not None]


def _union(rows: Sequence[np.ndarray]) -> np.ndarray:
    """The rows of any of ``rows`` (each ascending, each row once), ascending and once."""
    pieces = sorted((r for r in rows if len(r)), key=len)
    if not pieces:
        return np.zeros(0, np.int64)
    # The others are few (group changes) beside the largest (id changes): inserted into
    # it, rather than all sorted together.
    union = pieces.pop()
    for piece in pieces:
        at = np.searchsorted(union, piece)
        new = (at == len(union)) | (union[np.minimum(at, len(union) - 1)] != piece)
        if new.any():  # usually none: a group changes where its ids start again
            union = np.insert(union, at[new], piece[new])
    return union


class _ChangeRows:
    """A column's change rows, found chunk by chunk and written one after the other.

    Into one array the size of the column (only the rows written touch its memory): one
    buffer per chunk, their copies and their concatenation took twice as long (5M rows).
    The rows come between a 0 and the row count (`_Changes.bounded`).
    """

    def __init__(self, height: int) -> None:
        self._out = _empty(height + 2, np.int64)
        self._out[0] = 0
        self._found = 1  # rows written, after the 0
        self.rows = 0  # rows of the chunks added
        self.below = 0  # rows below the row before (integers' chunks added with ordered)

    def add_chunk(self, values: np.ndarray, *, ordered: bool = False) -> np.ndarray:
        """The change rows within the next chunk's ``values``, as rows of the column.

        A chunk's first row is not compared with the row before (see `add_row`). The view
        returned is of the rows written. ``ordered``: count the rows below the row before
        too (integers).
        """
        at, out = self._found, self._out[self._found :]
        width = values.itemsize * (values.shape[1] if values.ndim == 2 else 1)
        order = values.dtype.kind if ordered else None
        if _kernels is not None and values.flags.c_contiguous and width in (1, 2, 4, 8, 16):
            found, below = _kernels.change_rows(values, width, out, *(order or ""))
        else:
            differs = values[1:] != values[:-1]
            rows = np.flatnonzero(differs.any(axis=1) if values.ndim == 2 else differs) + 1
            found, below = len(rows), 0
            if order:
                below = int(np.count_nonzero(values[1:] < values[:-1]))
            out[:found] = rows
        self.below += below
        out[:found] += self.rows
        self._found += found
        self.rows += len(values)
        return self._out[at : self._found]

    def add_row(self, row: int) -> None:
        """Add ``row``, after those added so far."""
        self._out[self._found] = row
        self._found += 1

    def replace_last(self, count: int, rows: np.ndarray) -> None:
        """Replace the last ``count`` rows written by ``rows`` (as many or fewer)."""
        self._found -= count
        self._out[self._found : self._found + len(rows)] = rows
        self._found += len(rows)

    def result(self) -> np.ndarray:
        """The rows written, in order, between a 0 and the row count (a view of the array)."""
        self._out[self._found] = self.rows
        return self._out[: self._found + 1]


def _change_rows(chunks: Sequence[np.ndarray], *, ordered: bool = False) -> _Changes:
    """`key_change_rows` of one column given as its chunks (2-d: rows compare whole).

    Each chunk is read where it is: concatenating them first copied the whole column.
    ``ordered``: integers, whose rows below the row before are counted too.
    """
    found, last = _ChangeRows(sum(len(c) for c in chunks)), None
    for values in chunks:
        if not len(values):
            continue
        if last is not None and np.any(values[0] != last):
            found.add_row(found.rows)
            found.below += bool(ordered and values[0] < last)
        found.add_chunk(values, ordered=ordered)
        last = values[-1]
    return _Changes(found.result(), found.below if ordered else None)


#: Strings up to this many bytes are held whole in their 16-byte view.
_INLINE_BYTES = 12


def _string_change_rows(key: pl.Series) -> np.ndarray | None:
    """`key_change_rows` of a String Series without nulls, from its Arrow string views.

    Between a 0 and the row count (`_Changes.bounded`).

    Two equal views are equal strings. Strings of up to 12 bytes are whole in their views;
    longer ones hold their length, first 4 bytes and where the rest is, so equal strings
    stored twice have different views: those rows alone are compared as strings (and the
    first rows of chunks, whose buffers are numbered per chunk). None when the views are not
    at hand.
    """
    view_type = getattr(pa, "StringViewArray", None)  # pyarrow 16 and later
    if view_type is None:
        return None
    found = _ChangeRows(len(key))
    for chunk in key.get_chunks():
        array = chunk.to_arrow(compat_level=pl.CompatLevel.newest())
        if not isinstance(array, view_type):
            return None
        buffers = array.buffers()
        views = np.frombuffer(buffers[1], np.uint64).reshape(-1, 2)
        views = views[array.offset : array.offset + len(array)]
        if not len(views):
            continue
        first = found.rows
        if first and key[first] != key[first - 1]:  # the chunk's first row, as strings
            found.add_row(first)
        changed = found.add_chunk(views)
        if len(buffers) > 2:  # some strings are too long for their views: recheck
            # A view's first 8 bytes are the length (the low 4, little-endian) and prefix.
            at = changed - first
            heads = views[:, 0]
            unsure = (heads[at] == heads[at - 1]) & ((heads[at] & 0xFFFFFFFF) > _INLINE_BYTES)
            if unsure.any():
                rows = changed[unsure]
                same = np.zeros_like(unsure)  # rows whose strings are the same after all
                same[unsure] = (key.gather(rows) == key.gather(rows - 1)).to_numpy()
                found.replace_last(len(changed), changed[~same])
    return found.result()


class GroupCodes(NamedTuple):
    """The groups of id runs numbered, where they change from id to id (`IdRuns.group_codes`)."""

    #: Each run's group, numbered from 0 in the order the groups first come.
    of_run: np.ndarray
    #: Each group's first segment (its row of `IdRuns.groups`).
    first_segment: np.ndarray
    #: How many runs (ids) each group has.
    runs: np.ndarray


@dataclass(frozen=True)
class IdRuns:
    """A frame's runs of rows of one ``(by..., id)`` key, each key in one run."""

    #: Each run's first row, then the row count.
    starts: np.ndarray
    #: Each segment's first run: a segment is a stretch of consecutive runs of one group.
    firsts: np.ndarray
    #: Each segment's ``by`` values (one row per segment).
    groups: pl.DataFrame
    #: The id column (each run's id is its value at the run's first row).
    id_column: pl.Series
    #: Whether the frame is known to be sorted by its keys.
    in_order: bool = False
    #: How many rows hold an id below the row before's (None: not counted).
    ids_below: int | None = None

    @cached_property
    def ordered(self) -> bool:
        """Whether each segment's ids increase (with no ``by``: the id column is sorted)."""
        return self.in_order or _increasing_in_segments(self)

    @cached_property
    def segment(self) -> np.ndarray:
        """Each run's segment, numbered from 0 (the kernels read `firsts` instead)."""
        sizes = np.diff(np.append(self.firsts, len(self.starts) - 1))
        return np.repeat(np.arange(len(self.firsts)), sizes)

    @cached_property
    def ids(self) -> pl.Series:
        """Each run's id."""
        return _gather(self.id_column, self.starts[:-1])

    @cached_property
    def n_groups(self) -> int:
        """How many distinct groups the segments have."""
        if len(self.firsts) <= _FEW_SEGMENTS:
            return self.groups.n_unique()
        # Many segments may be scattered groups, which the kernels count by their numbers:
        # numbered once (hashing 500,000 segments' groups took 6 ms).
        return len(self.group_codes.first_segment)

    @cached_property
    def distinct_groups(self) -> bool:
        """Whether each group has one segment (its runs are together)."""
        return self.n_groups == self.groups.height

    @cached_property
    def groups_scattered(self) -> bool:
        """Whether the groups change from id to id (rows by id, a fold per id, say).

        Then a segment holds an id or a few, and the kernels' tables per segment and class
        are about as large as the rows: F1 by fold on 4M rows took 20x as long as with each
        group's rows together.
        """
        segments = len(self.firsts)
        if segments <= _FEW_SEGMENTS or len(self.starts) - 1 >= _IDS_PER_SEGMENT * segments:
            return False
        return segments > 2 * self.n_groups  # not each group in a segment or two

    @cached_property
    def group_codes(self) -> GroupCodes:
        """Each run's group numbered: the kernels count per group, not per segment.

        For groups that change from id to id (`groups_scattered`): their tables per segment
        would be as large as the rows, and a sort by group costs 10-20x more.
        """
        listed = self.groups.with_row_index(_ROW).group_by(self.groups.columns, maintain_order=True)
        segments = listed.agg(pl.col(_ROW))[_ROW]
        of_segment = np.empty(len(self.firsts), np.int64)
        sizes = segments.list.len().to_numpy()
        of_segment[segments.explode().to_numpy()] = np.repeat(np.arange(len(segments)), sizes)
        of_run = of_segment[self.segment]
        first_segment = segments.list.first().to_numpy().astype(np.int64)
        return GroupCodes(of_run, first_segment, np.bincount(of_run, minlength=len(segments)))

    def sorted_groups(self, *, nulls_last: bool = True) -> np.ndarray:
        """The groups' numbers (`group_codes`) in the order of their ``by`` values."""
        distinct = self.groups[self.group_codes.first_segment].with_row_index(_ROW)
        return distinct.sort(self.groups.columns, nulls_last=nulls_last)[_ROW].to_numpy()

    def runs_by_group(self, *, nulls_last: bool = True) -> np.ndarray:
        """The runs, by their groups' ``by`` values, each group's in order.

        With ids in order, the ids' order sorted by group: as the state sorts them.
        """
        order = self.sorted_groups(nulls_last=nulls_last)
        # (A stable sort of 16-bit integers is a radix sort: several times faster.)
        rank = np.empty(len(order), np.uint16 if len(order) <= 2**16 else np.int64)
        rank[order] = np.arange(len(order))
        return np.argsort(rank[self.group_codes.of_run], kind="stable")

    def keys(self) -> pl.DataFrame:
        """Each run's ``(by..., id)``."""
        if not self.groups.width:
            return self.ids.to_frame()
        return self.groups[self.segment].with_columns(self.ids)


def id_runs(
    df: pl.DataFrame,
    by: Sequence[str],
    id_col: str,
    *,
    in_order: bool = False,
    few_rows: bool = False,
) -> IdRuns | None:
    """The runs of ``df``'s ``(by..., id)`` keys; None when some key has several runs.

    None too for rows averaging two or fewer per key, unless ``in_order`` or ``few_rows``
    (a row per key is expected): scattered ids, which the callers sort or aggregate with
    polars instead.

    Found from where the groups and the ids change. In the usual dump each segment's ids
    increase and the segments' groups are distinct, which is checked without gathering the
    ``by`` values of every run; otherwise the runs' keys are counted. ``in_order``: the
    frame is sorted by its keys, nothing to check.
    """
    *by_changes, id_changes = _each_change_rows(df, [*by, id_col])
    in_order = in_order or (not by and df[id_col].flags["SORTED_ASC"])
    scattered_fails = not (in_order or few_rows)
    if scattered_fails and 2 * len(id_changes.rows) > df.height:  # scattered: no unions to make
        return None
    group_rows, id_rows = _union([changes.rows for changes in by_changes]), id_changes.rows
    # Each group change's place among the id changes: where they all are (usual), the
    # runs start where ids change, no copy of the rows.
    at: np.ndarray | None = None  # (None: the groups change where the ids do)
    if np.array_equal(group_rows, id_rows):
        inside = True
    else:
        at = np.searchsorted(id_rows, group_rows)
        found = id_rows[np.minimum(at, len(id_rows) - 1)] if len(id_rows) else id_rows
        inside = np.array_equal(found, group_rows)
    if inside:
        where, starts = id_rows, id_changes.bounded
    else:
        where = _union([group_rows, id_rows])
        at = np.searchsorted(where, group_rows)
        starts = np.concatenate([np.zeros(1, np.int64), where, [df.height]], dtype=np.int64)
    if not df.height:
        starts = starts[1:]
    n_runs = len(starts) - 1
    if scattered_fails and 2 * n_runs > df.height:  # two rows or fewer per key: scattered
        return None
    # Each segment's first run: the first, and those after a group change (each once).
    if at is None:
        firsts = np.arange(n_runs)
    else:
        firsts = np.concatenate([[0], at + 1])
        firsts = firsts[firsts < n_runs]
    groups = _values_at(df, by, by_changes, starts[firsts])
    runs = IdRuns(starts, firsts, groups, df[id_col], in_order, id_changes.below)
    if in_order:
        return runs
    if where is id_rows and _one_run_per_key(df, by, by_changes, id_changes, id_col):
        return runs
    if runs.ordered and (runs.distinct_groups if by else True):
        return runs
    return runs if distinct_rows(runs.keys()) else None


def row_codes(df: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each row's number among ``df``'s distinct rows (as they first come), and their first rows.

    From the rows' 64-bit hashes, checked against the rows: polars' ``group_by`` (or
    ``n_unique``) of a million (fold, id) rows held 230-250 MB, this about 30 MB. Rows
    whose hashes collide (about never) are numbered by that ``group_by`` instead.
    """
    if not df.width:  # one key, the empty one
        return np.zeros(df.height, np.int64), np.zeros(min(df.height, 1), np.int64)
    hashes = df.hash_rows().alias(_HASH).to_frame()
    first = hashes.with_row_index(_ROW).filter(pl.col(_HASH).is_first_distinct())
    numbers = first.with_row_index(_NUMBER).select(_HASH, _NUMBER)
    numbered = hashes.join(numbers, on=_HASH, how="left", maintain_order="left")[_NUMBER]
    codes = numbered.to_numpy().astype(np.int64)
    firsts = first[_ROW].to_numpy().astype(np.int64)
    if df.equals(df[firsts[codes]]):  # each row its number's first row: no collision
        return codes, firsts
    listed = df.with_row_index(_ROW).group_by(df.columns, maintain_order=True)
    rows = listed.agg(pl.col(_ROW))[_ROW]
    codes = np.empty(df.height, np.int64)
    sizes = rows.list.len().to_numpy()
    codes[rows.explode().to_numpy()] = np.repeat(np.arange(len(rows)), sizes)
    return codes, rows.list.first().to_numpy().astype(np.int64)


def distinct_rows(df: pl.DataFrame) -> bool:
    """Whether ``df``'s rows are distinct (see `row_codes`)."""
    if df.width and df.hash_rows().n_unique() == df.height:  # distinct hashes: distinct rows
        return True
    return len(row_codes(df)[1]) == df.height


def _values_at(
    df: pl.DataFrame, by: Sequence[str], by_changes: Sequence[_Changes], rows: np.ndarray
) -> pl.DataFrame:
    """``df.select(by)[rows]`` for ascending ``rows``.

    A column of integers or text that changes seldom (a model, say) is taken from its
    stretches' values: gathering text from 500,000 rows of 5M took 7 ms, 0.3 ms this way.
    """
    columns = []
    for name, changes in zip(by, by_changes, strict=True):
        column = df[name]
        seldom = len(changes.rows) < _FEW_CHANGES < len(rows)
        if seldom and (column.dtype == pl.String or column.dtype.is_integer()):
            # (Each stretch's rows among ``rows``, numbered in 8 bits: 256 stretches at most.)
            counts = np.diff(np.searchsorted(rows, changes.bounded))
            stretch = np.repeat(np.arange(len(counts), dtype=np.uint8), counts)
            columns.append(column.gather(changes.bounded[:-1])[stretch])
        else:
            columns.append(column[rows])
    return pl.DataFrame({c.name: c for c in columns})  # (a list renames "" to column_0)


#: A ``by`` column with fewer changes than this changes seldom (`_one_run_per_key`,
#: `_values_at`).
_FEW_CHANGES = 256


def _one_run_per_key(
    df: pl.DataFrame,
    by: Sequence[str],
    by_changes: Sequence[_Changes],
    id_changes: _Changes,
    id_col: str,
) -> bool:
    """Whether runs that each start where the id changes have each key once.

    So when the ids fall only where a ``by`` column of few changes (a model, say) changes,
    and those columns' stretches are distinct: each stretch's ids rise, whatever the other
    groups do (a fold per id: counting 500,000 keys took 40 ms of 5M rows).
    """
    if not df.height:
        return True
    if id_changes.below is None:  # (counted for integer ids)
        return False
    outer = [k for k, c in zip(by, by_changes, strict=True) if len(c.rows) < _FEW_CHANGES]
    if not outer:
        return id_changes.below == 0
    rows = _union([c.rows for k, c in zip(by, by_changes, strict=True) if k in outer])
    at, ids = pl.Series(rows), df[id_col]
    if int((ids.gather(at) < ids.gather(at - 1)).sum()) != id_changes.below:
        return False  # (an id falls within a stretch)
    stretches = df.select(outer)[np.concatenate([[0], rows])]
    return stretches.n_unique() == stretches.height


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values of sorted ``values``.

    `np.unique` hashes them (numpy 2.4): 0.25 s for the 200,000 segments of a group per id.
    """
    distinct: np.ndarray = values[np.concatenate([[True], values[1:] != values[:-1]])]
    return distinct


#: Segments of at least this many ids on average, or fewer segments than this, keep the
#: kernels' tables per segment and class well below the rows: no sort.
_IDS_PER_SEGMENT, _FEW_SEGMENTS = 4, 1024


def grouped_runs(
    df: pl.DataFrame,
    by: Sequence[str],
    id_col: str,
    class_col: str | None = None,
    *,
    counts_only: bool = False,
    scattered: bool = False,
) -> tuple[pl.DataFrame, IdRuns | ClassBlocks | None]:
    """``df``'s `id_runs`, its rows sorted by ``by`` first where the groups are scattered.

    Groups that change from id to id (`IdRuns.groups_scattered`) are brought together as a
    stable sort by ``by`` would (ids keep their order, and their rows stay together), unless
    ``scattered`` or ``counts_only`` (the kernel counts per group: `IdRuns.group_codes`).

    Given ``class_col``, rows whose ids are not together but come class by class are turned
    id by id (`_turned`); or, ``counts_only`` (the caller needs the counts of `ClassBlocks`
    alone), left as they are and described by their `class_blocks`.
    """
    # Rows class by class open with a class's rows: then their classes are looked at first
    # (finding that the ids change at every row costs more).
    opens = False
    if class_col is not None and df.height > 1:
        first_two = df.slice(0, 2)
        opens = first_two[class_col].n_unique() == 1 and first_two[id_col].n_unique() == 2
    sections = _sections(df, by, id_col, class_col) if opens and class_col else None
    runs = None if sections is not None else id_runs(df, by, id_col)
    if runs is None and sections is None and class_col is not None and not opens:
        sections = _sections(df, by, id_col, class_col)
    if sections is not None:
        blocks = class_blocks(df, by, id_col, sections) if counts_only else None
        if blocks is not None:
            return df, blocks
        turned = _turned(df, by, sections)
        runs = id_runs(turned, by, id_col)
        df = df if runs is None else turned
    if runs is None or not runs.groups_scattered or scattered or counts_only:
        return df, runs
    df = _moved_by_group(df, by, runs)
    return df, id_runs(df, by, id_col)


def _moved_by_group(df: pl.DataFrame, by: Sequence[str], runs: IdRuns) -> pl.DataFrame:
    """``df.sort(by, maintain_order=True)``: each group's runs in turn, moved whole.

    A sort of the runs' groups, not of the rows (4M rows by a fold per id: 90 -> 28 ms).
    The ``by`` columns of exact types are each group's values repeated, not gathered row
    by row (with the 32-bit index, moving 5M rows by a text model and a fold per id:
    115 -> 78 ms).
    """
    exact = [b for b in by if df[b].dtype in (pl.String, pl.Boolean) or df[b].dtype.is_integer()]
    out = df.drop(exact)[block_rows(runs.starts, runs.runs_by_group(nulls_last=False))]
    if exact:
        groups, codes = runs.sorted_groups(nulls_last=False), runs.group_codes
        rows = np.bincount(codes.of_run, weights=np.diff(runs.starts)).astype(np.int64)
        values = runs.groups.select(exact)[codes.first_segment[groups]]
        repeated = values[_repeat_index(rows[groups])]
        out = pl.concat([repeated, out], how="horizontal").select(df.columns)
    return out


def _repeat_index(lengths: np.ndarray) -> np.ndarray:
    """``np.repeat(np.arange(len(lengths)), lengths)`` (each one or more), as `block_rows`."""
    if lengths.sum() >= _MOST_32_BIT_ROWS:
        return np.repeat(np.arange(len(lengths)), lengths)
    return _summed_steps(lengths, np.minimum(np.arange(len(lengths)), 1), within=0)


def _summed_steps(lengths: np.ndarray, jumps: np.ndarray, *, within: int) -> np.ndarray:
    """32-bit values stepping by ``within`` in blocks of ``lengths``, in Arrow's pool.

    At each block's first value they step by its ``jumps`` instead (the first from 0).
    """
    steps = _empty(int(lengths.sum()), np.uint32)
    steps.fill(within)
    if len(lengths):  # (negative jumps wrap around, and the 32-bit sums come out right)
        steps[np.cumsum(lengths) - lengths] = jumps.astype(np.uint32)
    return np.cumsum(steps, out=steps, dtype=np.uint32)


def sorted_on(
    df: pl.DataFrame, keys: Sequence[str], *, maintain_order: bool = False
) -> pl.DataFrame:
    """``df.sort(keys, maintain_order=...)``, by one 64-bit key where the keys make one.

    polars sorts several keys by their row encoding: 5M rows by a text model, a fold and an
    id took 1.9-4.4 s, and 0.25 s by one key of the same order (each key's rank among its
    sorted distinct values, or its offset from its least, times the sizes of the keys after
    it). Keys with nulls, keys whose sizes overflow 62 bits, and floats and categoricals are
    sorted by polars.
    """
    key, size = pl.lit(0, pl.Int64), 1
    for name in keys if df.height else ():
        column = df[name]
        if column.null_count():
            return df.sort(keys, maintain_order=maintain_order)
        if column.dtype == pl.String:
            distinct = column.unique().sort()
            code, count = pl.col(name).cast(pl.Enum(distinct)), len(distinct)
        elif isinstance(column.dtype, pl.Enum):  # sorted by its categories' order
            code, count = pl.col(name), len(column.dtype.categories)
        elif column.dtype.is_integer() or column.dtype.is_temporal() or column.dtype == pl.Boolean:
            physical = column.to_physical()
            low, high = int(physical.min()), int(physical.max())  # type: ignore[arg-type]
            if high >= 2**62 or low < -(2**62):  # (as Int64, less its least)
                return df.sort(keys, maintain_order=maintain_order)
            code, count = pl.col(name).to_physical().cast(pl.Int64) - low, high - low + 1
        else:  # floats, categoricals (their codes are not in their order), structs...
            return df.sort(keys, maintain_order=maintain_order)
        size *= count
        if size >= 2**62:
            return df.sort(keys, maintain_order=maintain_order)
        key = key * count + code.to_physical().cast(pl.Int64)
    return df.sort(key, maintain_order=maintain_order) if df.height else df


#: Sections up to this many are turned one by one (numpy's strided copies); more (a group
#: of a few ids each, say) are turned through one array of each row's place.
_SECTIONS_TURNED_APART = 256


@dataclass(frozen=True)
class _Sections:
    """A frame's rows class by class: runs of class blocks (sections) with the same keys.

    An unpivot of a wide table (a column per class) writes a class's rows, then the next
    class's, with the same keys (``by`` values and ids) in the same order in each; so do
    unpivots of several groups, one after the other. Each section of rows is a (classes x
    keys) matrix. Found from the blocks' sizes and first and last keys alone (`_sections`).
    """

    #: Each class block's first row, then the height.
    block_starts: np.ndarray
    #: Each section's first block.
    firsts: np.ndarray
    #: Each section's blocks (classes) and rows per block (keys).
    classes: np.ndarray
    ids: np.ndarray
    #: The key columns (``by``, then the id) and the class column.
    keys: list[str]
    class_col: str

    @property
    def starts(self) -> np.ndarray:
        """Each section's first row."""
        starts: np.ndarray = self.block_starts[self.firsts]
        return starts


def _sections(df: pl.DataFrame, by: Sequence[str], id_col: str, class_col: str) -> _Sections | None:
    """``df``'s sections when its rows look class by class; else None.

    They look so with blocks of the same first and last keys and sizes in each section, and
    a section of several classes.
    """
    height = df.height
    keys = [*by, id_col]
    if not height or class_col in keys:
        return None
    (class_changes,) = _each_change_rows(df, [class_col])
    block_starts = class_changes.bounded
    blocks = len(block_starts) - 1
    if 2 * blocks > height:  # blocks of two rows or fewer: not class by class
        return None
    heads = df.select(keys)[block_starts[:-1]]
    firsts = np.append(0, key_change_rows(heads, keys)).astype(np.int64)  # sections' first blocks
    classes = np.diff(np.append(firsts, blocks))
    if (classes == 1).all():  # no section of several classes
        return None
    sizes = np.diff(block_starts)
    own_first = np.repeat(firsts, classes)
    tails = df.select(keys)[block_starts[1:] - 1]
    if not (np.array_equal(sizes, sizes[own_first]) and tails.equals(tails[own_first])):
        return None
    return _Sections(block_starts, firsts, classes, sizes[firsts], keys, class_col)


def _turned(df: pl.DataFrame, by: Sequence[str], sections: _Sections) -> pl.DataFrame:
    """``df``'s rows id by id, from its `_sections`.

    Each section, a (classes x keys) matrix, turned into (keys x classes) column by column:
    each key's rows come together in a fraction of a sort's time (5M rows: a sort by id took
    0.7 s). Only the blocks' sizes and first and last keys were checked: the callers find
    the result's id runs as of any frame, and sort a layout that only looked like this one.
    """
    starts = sections.starts
    turn = _Turn(starts, sections.classes, sections.ids, df.height)
    # The groups change only where sections start (each group unpivoted apart): they stay.
    # (Scanned only now: rows by id or shuffled are told apart by their classes alone.)
    kept = set(by) if np.isin(key_change_rows(df, by), starts).all() else set()
    # (Keyed by name: a list of series would rename one named "" to column_0.)
    return pl.DataFrame({c: df[c] if c in kept else turn.column(df[c]) for c in df.columns})


#: `class_blocks` counts each (block, segment) piece of rows apart, a few microseconds
#: each: up to this many, or more as long as they average this many rows (a turn of the
#: rows costs about as much). It compares each section's blocks apart: up to this many
#: sections (100,000 sections of 2 ids took 2.3 s, against 0.25 s for the turn).
_FEW_PIECES, _ROWS_PER_PIECE, _MOST_SECTIONS = 1024, 128, 256


@dataclass(frozen=True)
class ClassBlocks:
    """Rows class by class whose every block has its section's keys, row by row.

    Their confusion counts, and the per-id counts of the data checks, come straight from
    the blocks (`pl_metrics._runs`): no turn of the rows id by id (about half the time of F1
    on 5M rows, most of it the by columns' copies).
    """

    #: The sections of class blocks, and each block's class.
    sections: _Sections
    block_classes: pl.Series
    #: The id runs of the sections' keys (their first blocks' rows, one section after
    #: another): a key's rows in the turned frame are its row there in each block.
    runs: IdRuns
    #: The rows of each piece (a block's rows of one segment), then the height; each
    #: piece's block and segment.
    piece_starts: np.ndarray
    piece_block: np.ndarray
    piece_segment: np.ndarray


def class_blocks(
    df: pl.DataFrame, by: Sequence[str], id_col: str, sections: _Sections
) -> ClassBlocks | None:
    """``df``'s `ClassBlocks`, checked row by row.

    None if some block's keys differ from its section's first block's, a class repeats in a
    section, or the pieces are too many.
    """
    keys, starts, classes, ids = sections.keys, sections.starts, sections.classes, sections.ids
    block_starts = sections.block_starts
    most_pieces = max(_FEW_PIECES, df.height // _ROWS_PER_PIECE)
    if len(starts) > _MOST_SECTIONS or len(block_starts) - 1 > most_pieces:  # (a piece a block)
        return None
    for name in keys:
        if not _blocks_repeat(df[name], starts, classes, ids):
            return None
    section_of_block = np.repeat(np.arange(len(starts)), classes)
    # A class twice in a section: duplicates, which the turned rows show as such.
    block_classes = df[sections.class_col].gather(block_starts[:-1])
    pairs = zip(section_of_block.tolist(), block_classes.to_list(), strict=True)
    if len(set(pairs)) < len(block_classes):
        return None
    if len(starts) == 1:
        key_rows = df.select(keys).slice(0, int(ids[0]))
    else:
        key_rows = df.select(keys)[block_rows(block_starts, sections.firsts)]
    runs = id_runs(key_rows, by, id_col, few_rows=True)
    if runs is None:
        return None
    # The pieces: each block cut where its section's segments start.
    section_rows = np.concatenate([[0], np.cumsum(ids)])  # in ``key_rows``
    segment_rows = runs.starts[runs.firsts]
    if len(segment_rows) > most_pieces:  # (a piece or more per segment)
        return None
    cuts = _distinct_sorted(np.sort(np.concatenate([section_rows[:-1], segment_rows])))
    cut_bounds = np.searchsorted(cuts, section_rows)  # each section's cuts
    cuts_of_block = np.diff(cut_bounds)[section_of_block]
    if cuts_of_block.sum() > most_pieces:
        return None
    at = block_rows(cut_bounds, section_of_block)
    offsets = cuts - section_rows[:-1][np.searchsorted(section_rows, cuts, "right") - 1]
    piece_starts = np.repeat(block_starts[:-1], cuts_of_block) + offsets[at]
    return ClassBlocks(
        sections,
        block_classes,
        runs,
        np.append(piece_starts, df.height),
        np.repeat(np.arange(len(block_starts) - 1), cuts_of_block),
        np.searchsorted(segment_rows, cuts, "right")[at] - 1,
    )


def _blocks_repeat(
    column: pl.Series, starts: np.ndarray, classes: np.ndarray, ids: np.ndarray
) -> bool:
    """Whether each section's blocks of ``column`` repeat its first block, row by row.

    Each block is compared with the one before: integers in numpy, the others by polars.
    """
    numeric = not column.null_count() and column.dtype in _NUMPY_INTEGERS
    values = column.to_numpy() if numeric else None
    for start, n_classes, n_ids in zip(starts, classes, ids, strict=True):
        length = (n_classes - 1) * n_ids
        if not length:
            continue
        if values is not None:
            later, earlier = (
                values[start + n_ids : start + n_ids + length],
                values[start : start + length],
            )
            if not np.array_equal(later, earlier):
                return False
        elif not column.slice(start + n_ids, length).eq_missing(column.slice(start, length)).all():
            return False
    return True


@dataclass
class _Turn:
    """Each section's rows, a (classes x ids) matrix from ``starts``, turned to (ids x classes)."""

    starts: np.ndarray
    classes: np.ndarray
    ids: np.ndarray
    height: int

    @property
    def apart(self) -> bool:
        """Whether the sections are few enough to turn one by one (else through `rows`)."""
        return len(self.starts) <= _SECTIONS_TURNED_APART

    @cached_property
    def rows(self) -> np.ndarray:
        """Each turned row's row before."""
        if self.apart:  # the rows' numbers, turned as any column
            return self._turned_apart(np.arange(self.height, dtype=np.int64))
        section = np.repeat(np.arange(len(self.starts)), self.classes * self.ids)
        at = np.arange(self.height, dtype=np.int64) - self.starts[section]
        classes = self.classes[section]
        rows: np.ndarray = self.starts[section] + (at % classes) * self.ids[section] + at // classes
        return rows

    def values(self, values: np.ndarray) -> np.ndarray:
        """A column's values, turned."""
        if self.apart:
            return self._turned_apart(values)
        gathered: np.ndarray = values[self.rows]
        return gathered

    def _turned_apart(self, values: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        for start, classes, ids in zip(self.starts, self.classes, self.ids, strict=True):
            end = start + classes * ids
            out[start:end].reshape(ids, classes)[...] = values[start:end].reshape(classes, ids).T
        return out

    def column(self, column: pl.Series) -> pl.Series:
        """A column, turned: in numpy if it holds numbers or flags without nulls."""
        if not column.null_count():
            if column.dtype == pl.Boolean:
                return pl.Series(column.name, self.values(flags(column)))
            if column.dtype in _NUMPY_INTEGERS or column.dtype in (pl.Float32, pl.Float64):
                return pl.Series(column.name, self.values(column.to_numpy()), column.dtype)
        return column.gather(self.rows)


@overload
def contiguous_runs(
    df: pl.DataFrame,
    by: Sequence[str],
    id_col: str,
    class_col: str | None = None,
    *,
    counts_only: Literal[False] = False,
    scattered: bool = False,
) -> tuple[pl.DataFrame, IdRuns]: ...


@overload
def contiguous_runs(
    df: pl.DataFrame,
    by: Sequence[str],
    id_col: str,
    class_col: str | None = None,
    *,
    counts_only: bool,
    scattered: bool = False,
) -> tuple[pl.DataFrame, IdRuns | ClassBlocks]: ...


def contiguous_runs(
    df: pl.DataFrame,
    by: Sequence[str],
    id_col: str,
    class_col: str | None = None,
    *,
    counts_only: bool = False,
    scattered: bool = False,
) -> tuple[pl.DataFrame, IdRuns | ClassBlocks]:
    """``df`` with each key's rows next to each other, and its `id_runs`, found once.

    Sorted only if the rows were not together (nor class by class: see `grouped_runs`,
    which gives ``df``'s `ClassBlocks` instead, as they are, where ``counts_only``).
    """
    df, runs = grouped_runs(df, by, id_col, class_col, counts_only=counts_only, scattered=scattered)
    if isinstance(runs, ClassBlocks):
        return df, runs
    if runs is None:
        in_order = not by and df[id_col].is_sorted()  # one or two rows per id, in order
        if not in_order:
            df = sorted_on(df, [*by, id_col])
        runs = id_runs(df, by, id_col, in_order=True)
        assert runs is not None
    if not by and runs.ordered:
        # Ids in order, the usual dump: flag it, and polars groups them without hashing.
        df = df.with_columns(pl.col(id_col).set_sorted())
    return df, runs


def segments_by_group(
    df: pl.DataFrame, runs: IdRuns, by: Sequence[str], id_col: str
) -> tuple[pl.DataFrame, IdRuns]:
    """``df`` with each group's segments next to each other, in their order, and its runs.

    Each segment's rows stay as they are, so each group's rows keep their order (and sums
    their bits, as of rows stacked by group).
    """
    segment_starts = np.append(runs.starts[runs.firsts], runs.starts[-1])
    order = np.argsort(runs.group_codes.of_run[runs.firsts], kind="stable")
    moved = df[block_rows(segment_starts, order)]
    found = id_runs(moved, by, id_col)
    if found is None:  # (an id in two of a group's segments: sorted, as such rows are)
        return contiguous_runs(moved, by, id_col)
    return moved, found


def _gather(column: pl.Series, rows: np.ndarray) -> pl.Series:
    """``column.gather(rows)`` for ascending ``rows``, from each chunk in numpy if it can.

    polars gathers from a column of many chunks several times slower.
    """
    if column.dtype not in _NUMPY_INTEGERS or column.null_count():
        return column.gather(rows)
    chunks = column.get_chunks()
    bounds = np.cumsum([0, *(len(c) for c in chunks)])
    cuts = np.searchsorted(rows, bounds)
    pieces = [
        chunk.to_numpy()[rows[a:b] - start]
        for chunk, start, a, b in zip(chunks, bounds, cuts[:-1], cuts[1:], strict=False)
    ]
    values = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
    gathered: pl.Series = pl.Series(column.name, values).cast(column.dtype)
    return gathered


def _increasing_in_segments(runs: IdRuns) -> bool:
    """Whether each run's id comes after the run before's, within each segment."""
    if runs.ids_below is None:
        return _strictly_increasing(pl.DataFrame({"segment": runs.segment, "id": runs.ids}))
    # Within a run the id is the same, so the ids drop only where runs start: they increase
    # if each drop is where a segment (a new group) starts. No gathered copy of the ids.
    at = pl.Series(runs.starts[runs.firsts[1:]])
    column = runs.id_column
    drops = int((column.gather(at) < column.gather(at - 1)).sum())
    return runs.ids_below == drops


def _strictly_increasing(df: pl.DataFrame) -> bool:
    """Whether each row's columns come after the row before's, in lexicographic order."""
    after, same = pl.lit(False), pl.lit(True)
    for k in df.columns:
        before = pl.col(k).shift(1)
        after = after | (same & (pl.col(k) > before))
        same = same & (pl.col(k) == before)
    try:
        return bool(df.select(after.slice(1).fill_null(False).all()).item())
    except pl.exceptions.PolarsError:  # keys without an order: count instead
        return False
