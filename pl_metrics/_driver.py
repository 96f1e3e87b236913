"""Scoring prediction dumps larger than memory: id-disjoint chunks, one state each, merged.

Scoring a whole dump in one query keeps a per-id table of the whole dump in memory. The
driver instead splits the dump into chunks that never split an id (the key every metric
declares, see `pl_metrics.chunk_key`), computes each chunk's small state in turn and merges
them, so peak memory follows the chunk size, not the dump size.

Chunks are id ranges taken from parquet row-group statistics when the id column has them;
when the dump is clustered by id (see `cluster_by_id`) each chunk then reads only its own
row groups. Otherwise chunks are hash buckets of the id, and each chunk reads the whole
dump, keeping only its bucket.
"""

from __future__ import annotations

import glob
import itertools
import math
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from pl_metrics._curves import average_classes, curve_positives
from pl_metrics._frame import N_IDS, MetricsInputError, Ragged
from pl_metrics._report import state
from pl_metrics._state import (
    Average,
    MetricState,
    Undefined,
    chunk_key,
    has_kernel,
    merge_states,
)

__all__ = ["Chunks", "cluster_by_id", "plan_chunks", "scan", "score"]

#: Peak memory per row of a chunk, measured with lrap and lwlrap on 100M-400M rows (the chunk
#: read into memory for the kernel): about 35 bytes when the chunk's rows are read on their
#: own (clustered), about 65 when each chunk filters its rows out of the whole dump and sorts
#: them. Rounded up.
BYTES_PER_ROW = 40
BYTES_PER_ROW_SCATTERED = 100
_FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".ipc": "ipc",
    ".arrow": "ipc",
    ".feather": "ipc",
    ".csv": "csv",
}


def _files(source: str | Path | Sequence[str | Path]) -> list[Path]:
    items = [source] if isinstance(source, (str, Path)) else list(source)
    if not items:
        raise MetricsInputError("no input: give at least one file, folder or glob")
    files: list[Path] = []
    for item in items:
        text = str(item)
        if any(c in text for c in "*?["):
            matched = sorted(Path(p) for p in glob.glob(text, recursive=True))
            if not matched:
                raise MetricsInputError(f"no file matches {text!r}")
            files += [p for p in matched if p.is_file()]
        elif Path(text).is_dir():
            found = sorted(p for p in Path(text).rglob("*") if p.suffix.lower() in _FORMATS)
            if not found:
                raise MetricsInputError(f"folder {text!r} holds no parquet, IPC or CSV file")
            files += found
        elif Path(text).is_file():
            files.append(Path(text))
        else:
            raise MetricsInputError(f"file not found: {text!r}")
    return files


def _format(files: Sequence[Path]) -> str:
    kinds = {_FORMATS.get(p.suffix.lower()) for p in files}
    if None in kinds:
        unknown = sorted({p.suffix for p in files if p.suffix.lower() not in _FORMATS})
        raise MetricsInputError(
            f"unsupported file type {unknown}; expected {', '.join(sorted(_FORMATS))}"
        )
    if len(kinds) > 1:
        raise MetricsInputError(f"the input mixes file types: {sorted(k or '' for k in kinds)}")
    return str(kinds.pop())


def scan(source: str | Path | Sequence[str | Path]) -> pl.LazyFrame:
    """Lazily scan files, folders (hive-partitioned or not) and globs of one format.

    Parquet, IPC (Arrow, Feather) and CSV. A folder is read recursively; ``key=value``
    folder names become columns (hive partitioning), so ``oof/model=a/fold=0/part.parquet``
    gives ``model`` and ``fold`` columns.
    """
    files = _files(source)
    kind = _format(files)
    names = [str(p) for p in files]
    if kind == "parquet":
        return pl.scan_parquet(names, hive_partitioning=_is_hive(files))
    if kind == "ipc":
        return pl.scan_ipc(names, hive_partitioning=_is_hive(files))
    return pl.concat([pl.scan_csv(name) for name in names], how="diagonal_relaxed")


def _is_hive(files: Sequence[Path]) -> bool:
    return any(re.fullmatch(r"[^=]+=[^=]*", part) for p in files for part in p.parent.parts)


@dataclass(frozen=True)
class Chunks:
    """How a dump is split: one filter per chunk, none of which splits an id."""

    filters: tuple[pl.Expr, ...]
    strategy: str  # "single", "id ranges" or "hash buckets"
    rows: int

    def __len__(self) -> int:
        return len(self.filters)


def _budget_bytes(memory_budget: int | str | None) -> int:
    if memory_budget is None:
        return 2 * 1024**3
    if isinstance(memory_budget, int) and not isinstance(memory_budget, bool):
        if memory_budget <= 0:
            raise MetricsInputError("option 'memory_budget': must be positive")
        return memory_budget
    match = re.fullmatch(r"\s*([\d.]+)\s*([kmgt]?)i?b?\s*", str(memory_budget).lower())
    if not match:
        raise MetricsInputError(
            f"option 'memory_budget': expected bytes or a size like '2GB', got {memory_budget!r}"
        )
    scale = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}[match.group(2)]
    return max(1, int(float(match.group(1)) * scale))


def _row_group_ranges(files: Sequence[Path], id_col: str) -> list[tuple[Any, Any, int]] | None:
    """(min id, max id, rows) of every parquet row group, or None without statistics."""
    import pyarrow.parquet as pq

    ranges = []
    for path in files:
        meta = pq.ParquetFile(path).metadata
        names = [meta.schema.column(i).name for i in range(meta.num_columns)]
        if id_col not in names:
            return None  # a hive column or a missing column: no statistics
        index = names.index(id_col)
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            stats = group.column(index).statistics
            if stats is None or not stats.has_min_max:
                return None
            ranges.append((stats.min, stats.max, group.num_rows))
    return ranges


def plan_chunks(
    lf: pl.LazyFrame,
    *,
    id_col: str = "id",
    memory_budget: int | str | None = None,
    files: Sequence[Path] | None = None,
    n_chunks: int | None = None,
) -> Chunks:
    """Split a dump into id-disjoint chunks that each fit ``memory_budget``.

    With parquet row-group statistics of a numeric id, chunks are id ranges of about equal
    rows, estimated by spreading each row group's rows evenly over its id range. When the
    row groups are clustered by id each chunk reads only its own row groups; when they are
    scattered, every chunk reads the whole dump (and needs more memory per row, so more
    chunks are made). Other ids: row-group boundaries if the row groups are clustered, else
    hash buckets of the id.
    """
    rows = int(lf.select(pl.len()).collect().item())  # parquet: metadata only
    budget = _budget_bytes(memory_budget)
    chunks = n_chunks or max(1, math.ceil(rows * BYTES_PER_ROW / budget))
    if chunks <= 1:
        return Chunks((pl.lit(True),), "single", rows)
    ranges = None
    if files and _format(files) == "parquet":
        ranges = _row_group_ranges(files, id_col)
    ids = pl.col(id_col)
    if ranges:
        ranges.sort(key=lambda r: r[0])
        numeric = all(isinstance(v, (int, float)) for r in ranges for v in r[:2])
        if numeric:
            cuts = _even_cuts(ranges, chunks)
            clustered = _rows_read(ranges, cuts) <= 1.5 * rows
            if not clustered and n_chunks is None:
                chunks = max(chunks, math.ceil(rows * BYTES_PER_ROW_SCATTERED / budget))
                cuts = _even_cuts(ranges, chunks)
        else:
            clustered = all(a[1] < b[0] for a, b in itertools.pairwise(ranges))
            cuts = _boundary_cuts(ranges, rows / chunks) if clustered else []
        if cuts:
            bounds = [None, *cuts, None]
            filters = tuple(_id_range(ids, lo, hi) for lo, hi in itertools.pairwise(bounds))
            kind = "id ranges" if clustered else "id ranges (scattered row groups)"
            return Chunks(filters, kind, rows)
    if n_chunks is None:
        chunks = max(chunks, math.ceil(rows * BYTES_PER_ROW_SCATTERED / budget))
    bucket = ids.hash(seed=0) % chunks
    return Chunks(tuple(bucket == k for k in range(chunks)), "hash buckets", rows)


def _even_cuts(ranges: Sequence[tuple[Any, Any, int]], chunks: int) -> list[Any]:
    """Id values splitting the rows into ``chunks`` parts of about equal size.

    Each row group's rows are taken as spread evenly over ``[min, max]``; the cumulative
    row count is piecewise linear between the row groups' bounds, so it is inverted exactly.
    """
    points = sorted({float(v) for r in ranges for v in r[:2]})

    def below(x: float) -> float:
        total = 0.0
        for lo, hi, count in ranges:
            if x > hi:
                total += count
            elif x > lo:
                total += count * (x - lo) / (hi - lo)
        return total

    cumulative = [below(x) for x in points]
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


def _id_range(ids: pl.Expr, lo: Any, hi: Any) -> pl.Expr:
    """``lo <= id < hi``, open where None.

    The first range also keeps null ids, so that the data checks still see and count them.
    """
    if lo is None:
        return ids.is_null() | (ids < hi) if hi is not None else pl.lit(True)
    lower: pl.Expr = ids >= lo
    return lower & (ids < hi) if hi is not None else lower


class _Progress:
    """A one-line progress bar on a terminal's stderr: chunks done, rows/s, time left."""

    def __init__(self, total: int, rows: int, stream: TextIO | None) -> None:
        self.total, self.rows, self.stream = total, rows, stream
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        if self.stream is None:
            return
        elapsed = time.perf_counter() - self.start
        rate = self.rows * done / self.total / elapsed if elapsed > 0 else 0.0
        eta = elapsed / done * (self.total - done) if done else 0.0
        bar = "#" * (20 * done // self.total)
        self.stream.write(
            f"\r[{bar:<20}] chunk {done}/{self.total}  {rate / 1e6:6.1f}M rows/s  ETA {eta:5.0f}s"
        )
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def score(
    source: str | Path | Sequence[str | Path] | pl.LazyFrame,
    metrics: str | Sequence[str],
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    threshold: float = 0.5,
    pred: str | None = None,
    average: Average = "macro",
    zero_division: float = 0.0,
    eps: float = 1e-15,
    class_weights: Mapping[object, float] | None = None,
    per_class: bool = False,
    k: int = 1,
    padding: int = 5,
    undefined: Undefined = "error",
    ragged: Ragged = "error",
    validate: bool = True,
    memory_budget: int | str | None = None,
    n_chunks: int | None = None,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Score files (or a LazyFrame) larger than memory, chunk by chunk, as `report` does.

    Parameters
    ----------
    source
        Parquet, IPC or CSV files, folders (hive-partitioned or not), globs, or a LazyFrame.
    metrics, id_col, class_col, score_col, truth_col, weight_col, by
        As in `report`.
    threshold, pred, average, zero_division, eps, class_weights, per_class, ragged, validate
        As in `report`.
    k, padding, undefined
        As in `report`.
    memory_budget
        Bytes (or a size such as ``"2GB"``) the states may use; decides the number of chunks
        (about 40 bytes per row). Default 2 GB.
    n_chunks
        Force a number of chunks instead.
    progress
        Show a progress bar on stderr. Default: only when stderr is a terminal.

    Returns
    -------
    DataFrame
        What `report` returns, equal to it to rounding (1e-12). Metrics that rank ids within
        a class (ROC AUC, average precision, padded cmAP) are scored in class-disjoint chunks
        (hash buckets of the class), each holding one row per class and distinct score.

    Examples
    --------
    >>> import pl_metrics
    >>> out = pl_metrics.score("data/digits_oof.parquet", ["lrap", "f1"], by="model",
    ...                        n_chunks=4)
    >>> out.select("model", "lrap")
    shape: (4, 2)
    ┌─────────────┬──────────┐
    │ model       ┆ lrap     │
    │ ---         ┆ ---      │
    │ str         ┆ f64      │
    ╞═════════════╪══════════╡
    │ forest      ┆ 0.984994 │
    │ knn         ┆ 0.98811  │
    │ logreg      ┆ 0.981145 │
    │ naive_bayes ┆ 0.912151 │
    └─────────────┴──────────┘
    """
    metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
    files: list[Path] | None = None
    if isinstance(source, pl.LazyFrame):
        lf = source
    else:
        files = _files(source)
        lf = scan(files)
    options: dict[str, Any] = {
        "id_col": id_col,
        "class_col": class_col,
        "score_col": score_col,
        "truth_col": truth_col,
        "weight_col": weight_col,
        "by": by,
        "threshold": threshold,
        "pred": pred,
        "average": average,
        "zero_division": zero_division,
        "eps": eps,
        "class_weights": class_weights,
        "per_class": per_class,
        "k": k,
        "padding": padding,
        "undefined": undefined,
        "ragged": ragged,
        "validate": validate,
    }
    checked = state(lf, metric_list, **options)  # checks columns and options, reads nothing
    # Metrics that rank ids within a class are scored in class-disjoint chunks, so each
    # chunk's curves hold only its classes; micro averages pool the classes and cannot be.
    by_class = [m for m in metric_list if chunk_key(m) == "class" and average != "micro"]
    by_id = [m for m in metric_list if m not in by_class]
    show = sys.stderr.isatty() if progress is None else progress
    stream = sys.stderr if show else None
    results = []
    if by_id:
        chunks = plan_chunks(
            lf, id_col=id_col, memory_budget=memory_budget, files=files, n_chunks=n_chunks
        )
        results.append(_score_in_chunks(lf, by_id, chunks, options, stream))
    if by_class:
        rows = int(lf.select(pl.len()).collect().item())
        count = n_chunks or max(
            1, math.ceil(rows * BYTES_PER_ROW_SCATTERED / _budget_bytes(memory_budget))
        )
        cls = pl.col(class_col)
        if checked.columns.class_is_categorical:
            cls = cls.cast(pl.String)
        bucket = cls.hash(seed=0) % count
        filters = tuple(bucket == k for k in range(count)) if count > 1 else (pl.lit(True),)
        chunks = Chunks(filters, "class buckets", rows)
        results.append(_score_class_chunks(lf, by_class, chunks, checked, options, stream))
    keys = list(checked.columns.by)
    if per_class or average is None:
        keys.append(class_col)
    out = results[0]
    for extra in results[1:]:
        out = (
            out.join(extra, on=keys, how="left", nulls_equal=True)
            if keys
            else pl.concat([out, extra], how="horizontal")
        )
    return out.select(checked.finalize().collect_schema().names())  # report's column order


def chunk_state(
    part: pl.LazyFrame, metrics: Sequence[str], options: Mapping[str, Any]
) -> MetricState:
    """One id-disjoint chunk's collected state.

    Where a metric has an in-memory kernel, the chunk's columns are read into memory first:
    a chunk fits the memory budget, and the kernel is faster than the streaming plan.
    """
    planned = state(part, metrics, **options)
    if any(has_kernel(m) for m in metrics):
        rows = part.select(planned.columns.used).collect(engine="streaming")
        planned = state(rows, metrics, **options)
    return planned.collect()


def _score_in_chunks(
    lf: pl.LazyFrame,
    metrics: list[str],
    chunks: Chunks,
    options: dict[str, Any],
    stream: TextIO | None,
) -> pl.DataFrame:
    """Id-disjoint chunks: one state each, merged, then finalized."""
    bar = _Progress(len(chunks), chunks.rows, stream)
    states: list[MetricState] = []
    for done, keep in enumerate(chunks.filters, start=1):
        part = lf if len(chunks) == 1 else lf.filter(keep)
        part_state = chunk_state(part, metrics, options)
        if part_state.groups.lazy().select(pl.len()).collect().item():  # empty chunks add nothing
            states.append(part_state)
        bar.update(done)
    if not states:
        raise MetricsInputError("the table is empty: there are no rows to score")
    return merge_states(states).finalize().collect()


def _score_class_chunks(
    lf: pl.LazyFrame,
    metrics: list[str],
    chunks: Chunks,
    checked: MetricState,
    options: dict[str, Any],
    stream: TextIO | None,
) -> pl.DataFrame:
    """Class-disjoint chunks: each gives its classes' values; they are averaged at the end.

    Every id of a group must appear in every chunk that holds the group (each id has every
    class): a group whose id count differs between chunks has ids lacking classes.
    """
    cols = checked.columns
    by = list(cols.by)
    per_class_options = {**options, "average": None, "per_class": False}
    bar = _Progress(len(chunks), chunks.rows, stream)
    values, positives, ids = [], [], []
    for done, keep in enumerate(chunks.filters, start=1):
        part = lf if len(chunks) == 1 else lf.filter(keep)
        part_state = state(part, metrics, **per_class_options).collect()
        bar.update(done)
        if not part_state.groups.lazy().select(pl.col(N_IDS).sum()).collect().item():
            continue  # a bucket that no class hashed to
        values.append(part_state.finalize().collect())
        positives.append(curve_positives(part_state))
        ids.append(part_state.groups.lazy().select(*by, pl.col(N_IDS)).collect())
    if not values:
        raise MetricsInputError("the table is empty: there are no rows to score")
    table = pl.concat(values, how="vertical_relaxed")
    id_counts = pl.concat(ids).filter(pl.col(N_IDS) > 0)
    spread = (
        id_counts.group_by(by).agg(pl.col(N_IDS).min().alias("lo"), pl.col(N_IDS).max().alias("hi"))
        if by
        else id_counts.select(pl.col(N_IDS).min().alias("lo"), pl.col(N_IDS).max().alias("hi"))
    )
    if options["validate"] and options["ragged"] == "error":
        bad = spread.filter(pl.col("lo") != pl.col("hi"))
        if bad.height:
            raise MetricsInputError(
                f"column {cols.cls!r}: {bad.height:,} groups have ids that lack whole sets of "
                "classes (ragged input); pass ragged='allow' to rank each id over its rows"
            )
    if options["average"] is None:
        return table.sort([*by, cols.cls])
    table = table.join(pl.concat(positives), on=[*by, cols.cls], how="left", nulls_equal=True)
    out = None
    for metric in metrics:
        average = "macro" if metric == "padded_cmap" else str(options["average"])
        one = average_classes(table.lazy(), metric, by, average).collect()
        out = (
            one
            if out is None
            else (
                out.join(one, on=by, how="left", nulls_equal=True)
                if by
                else pl.concat([out, one], how="horizontal")
            )
        )
    assert out is not None
    out = out.with_columns(pl.col(metrics).fill_null(float("nan")))
    return out.sort(by) if by else out


def cluster_by_id(
    source: str | Path | Sequence[str | Path],
    destination: str | Path,
    *,
    id_col: str = "id",
    n_parts: int | None = None,
    memory_budget: int | str | None = None,
    row_group_size: int = 1_000_000,
) -> list[Path]:
    """Rewrite a dump as parquet files sorted by id, so that scoring reads it in id ranges.

    Scoring larger than memory splits the dump into id-disjoint chunks. When the rows of an
    id range sit together in a few row groups, parquet's statistics let each chunk read only
    those row groups: the dump is read once in all. When ids are scattered, every chunk must
    read the whole dump and keep its share: n chunks cost n reads.

    The rewrite itself works in id ranges (sampled quantiles of the id), so it also runs on
    dumps larger than memory. Returns the paths written (``part-00000.parquet``, ...).
    """
    lf = scan(source)
    rows = int(lf.select(pl.len()).collect().item())
    if n_parts is None:
        n_parts = max(1, math.ceil(rows * 24 / _budget_bytes(memory_budget)))
    every = max(1, rows // (n_parts * 100))
    sample = (
        lf.select(pl.col(id_col))
        .gather_every(every)
        .collect(engine="streaming")
        .to_series()
        .drop_nulls()
        .sort()
    )
    cuts = (
        sorted({sample[int(len(sample) * k / n_parts)] for k in range(1, n_parts)})
        if len(sample)
        else []
    )
    destination = Path(destination)
    destination.mkdir(parents=True, exist_ok=True)
    bounds = [None, *cuts, None]
    written = []
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = destination / f"part-{k:05d}.parquet"
        part = lf.filter(_id_range(pl.col(id_col), lo, hi)).sort(id_col, nulls_last=False)
        part.sink_parquet(path, row_group_size=row_group_size)
        written.append(path)
    return written
