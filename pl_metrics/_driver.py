"""Scoring prediction dumps larger than memory: id-disjoint chunks, one state each, merged.

Scoring a whole dump in one query keeps a per-id table of the whole dump in memory. The
driver instead splits the dump into chunks that never split an id (the key every metric
declares, see `pl_metrics.chunk_key`; `pl_metrics._chunks` plans them), computes each
chunk's small state in turn and merges them, so peak memory follows the chunk size, not the
dump size.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import re
import sys
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Protocol, TextIO, TypeVar

import polars as pl
from tqdm import tqdm

from pl_metrics._chunks import (
    Chunks,
    budget_bytes,
    chunking_budget,
    class_chunks,
    id_range,
    plan_chunks,
    row_bytes,
    scaled,
)
from pl_metrics._curves import average_classes, check_undefined, curve_positives
from pl_metrics._examples import naming_examples, with_hint
from pl_metrics._frame import (
    EMPTY_TABLE,
    INTERNAL,
    N_IDS,
    MetricsInputError,
    Problem,
    Ragged,
    aggregate,
    caller_stacklevel,
    check_integer,
    check_option,
    checked_options,
    raise_on_problems,
    require_column,
    shown,
    to_polars,
)
from pl_metrics._io import (
    PATH_LIKE,
    Paths,
    check_dataset,
    columns_named,
    counted_text,
    keys_from_folders,
    kind_of,
    mixed_dumps,
    mixed_tasks,
    path_items,
    require_in_every_file,
    scan,
    scan_files,
    unreadable_named,
)
from pl_metrics._io import files as find_files
from pl_metrics._registry import info
from pl_metrics._spec import (
    Average,
    Spec,
    Strategy,
    Undefined,
    made_columns,
    resolve,
)
from pl_metrics._state import MetricState, build_state, chunk_key_of, merge_states
from pl_metrics._thresholds import check_folds

__all__ = [
    "Runner",
    "Source",
    "chunk_state",
    "cluster_by_id",
    "collected_state",
    "deferred",
    "hinted",
    "local_runner",
    "named_file",
    "scan",
    "score",
    "score_spec",
    "scored",
    "source_frame",
    "warn_of_mixed_tasks",
]

_LEAST, _MOST = f"{INTERNAL}least_ids", f"{INTERNAL}most_ids"

#: What `score` reads: files, folders and globs, a LazyFrame or DataFrame, an Arrow table or
#: stream, or a ``pyarrow.dataset.Dataset``.
Source = Paths | pl.LazyFrame | pl.DataFrame | Any  # (Any: Arrow tables and streams)


def source_frame(source: Source) -> tuple[pl.LazyFrame, list[Path] | None]:
    """A lazy frame of ``source`` and, when it is files, the files (for their statistics)."""
    if isinstance(source, (pl.LazyFrame, pl.DataFrame)):
        return source.lazy(), None
    if _is_dataset(source):
        return pl.scan_pyarrow_dataset(source), None
    if hasattr(source, "__arrow_c_stream__"):
        return to_polars(source).lazy(), None
    # Paths in any iterable (a set, a generator, numpy's strings), as `scan` takes them.
    if hasattr(source, "__dask_graph__"):  # (iterating it gives its column names)
        find_files(source)  # raises, saying what to do
    items = path_items(source)
    if items is not None and all(isinstance(s, PATH_LIKE) for s in items):
        found = find_files(items)
        return scan_files(found), found  # (a column left out is explained if read)
    raise TypeError(
        "score(): expected files, folders or globs (paths, or a list of them), a "
        "polars DataFrame or "
        "LazyFrame, an Arrow table or stream, or a pyarrow.dataset.Dataset; got "
        f"{type(source).__module__}.{type(source).__name__}"
    )


def _is_dataset(source: Source) -> bool:
    """Whether ``source`` is a ``pyarrow.dataset.Dataset``."""
    return type(source).__module__.startswith("pyarrow") and hasattr(source, "scanner")


@checked_options
def score(
    source: Source,
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
    memory_budget: int | str | None = None,
    n_chunks: int | None = None,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Score files (or a LazyFrame) larger than memory, chunk by chunk, as `report` does.

    Parameters
    ----------
    source
        Parquet, IPC or CSV files, folders (hive-partitioned or not), globs, a LazyFrame or
        DataFrame, an Arrow table or stream, or a ``pyarrow.dataset.Dataset``.
    metrics, id_col, class_col, score_col, truth_col, weight_col, by
        As in `report`.
    threshold, pred_col, average, zero_division, beta, eps, class_weights, per_class, ragged
        As in `report`.
    k, padding, undefined, n_bins, strategy, max_points
        As in `report`.
    metric, thresholds, fold_col, max_fpr, per_id
        As in `report`.
    validate
        As in `report`.
    memory_budget
        Bytes (or a size such as ``"2GB"``, counted in powers of 1024; at least 1MB) the
        chunks' rows may use; decides the number of chunks (about 40 bytes a row of an Int32
        id, an Int16 class, a Float32 score and a boolean truth, as measured, and wider rows
        in proportion: say 180 bytes with Int64 ids and classes, Float64 scores and a text
        model column; 100 where each chunk filters its rows out of the whole dump, and 250
        for the class chunks of ROC AUC, the Brier score, the curves). Default: the
        ``PL_METRICS_MEMORY_BUDGET`` environment variable's, else 2 GB.
    n_chunks
        Force a number of chunks instead (never more than the ids, or the classes for the
        metrics that take whole classes).
    progress
        Show a progress bar on stderr. Default: only when stderr is a terminal.

    Returns
    -------
    DataFrame
        What `report` returns, equal to it to rounding (1e-12). Metrics computed per class
        over all its ids (those whose `chunk_key` is ``"class"``: ROC AUC, average precision,
        padded cmAP, the Brier score, binary log loss, calibration, the curves and the
        threshold tables) are scored in class-disjoint chunks
        (sets of classes of about equal rows), each holding one row per class and distinct
        score.

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
    lf, files = source_frame(source)
    named = columns_named(
        id_col, class_col, score_col, truth_col, weight_col, pred_col, fold_col, by
    )
    if files:  # a column the scan left out (types that do not widen): say so, not "missing"
        left_out = [c for c in named if c not in lf.collect_schema()]
        require_in_every_file(files, left_out)
    keys = columns_named(by, fold_col)
    # (a CSV column of numbers read as text: its values counted)
    with counted_text(lf, files, [*keys, id_col, class_col]), keys_from_folders(files, keys):
        spec = resolve(  # checks columns and options, reads nothing
            lf,
            metrics,
            id_col=id_col,
            class_col=class_col,
            score_col=score_col,
            truth_col=truth_col,
            weight_col=weight_col,
            by=by,
            threshold=threshold,
            pred_col=pred_col,
            average=average,
            zero_division=zero_division,
            beta=beta,
            eps=eps,
            class_weights=class_weights,
            per_class=per_class,
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
            ragged=ragged,
            validate=validate,
        )
    if files:  # a column the metrics read, in every file
        c = spec.columns
        require_in_every_file(files, spec.read, keys=(c.id, c.cls, *c.by))
    if _is_dataset(source):  # (nor narrower in its schema than in a file)
        check_dataset(source, spec.read)
    budget = chunking_budget(memory_budget, n_chunks)
    check_option("progress", progress, (None, True, False))
    show = sys.stderr.isatty() if progress is None else progress
    with named_file(files, spec):
        out = score_spec(
            lf,
            spec,
            files=files,
            dataset=source if _is_dataset(source) else None,
            budget=budget,
            n_chunks=n_chunks,
            runner=local_runner(lf, sys.stderr if show else None),
        )
    cols = spec.columns
    warn_of_mixed_tasks(files, cols.cls, cols.by, checked=spec.options.checks_classes)
    return out


def warn_of_mixed_tasks(
    files: Sequence[Path] | None,
    class_col: str,
    by: Sequence[str],
    *,
    checked: bool,
    run: Callable[..., str | None] | None = None,
) -> None:
    """Warn of files scored together that hold different classes (`mixed_tasks`).

    ``checked``: each id's classes were checked (with ragged='allow', shards of ids that
    each have some classes differ too). ``run(function, *args)`` runs it elsewhere (on a
    Dask worker, where the files are).
    """
    if files and len(files) > 1 and checked:
        found = (list(files), class_col, list(by))
        mixed = mixed_tasks(*found) if run is None else run(mixed_tasks, *found)
        if mixed:
            warnings.warn(mixed, UserWarning, stacklevel=caller_stacklevel())


@contextlib.contextmanager
def named_file(files: Sequence[Path] | None, spec: Spec, *, hints: bool = True) -> Iterator[None]:
    """Name the file when reading ``files`` fails: polars' errors do not.

    (On a Dask cluster, the client's reads: the workers' fail their chunks, named there.)
    ``hints``: read the files for a failed check's hint too (`hinted`; not on the Dask
    client).
    """
    cols = spec.columns
    with (
        unreadable_named(files, spec.read),
        hinted(files, cols.id, cols.cls) if hints else contextlib.nullcontext(),
    ):
        yield


@contextlib.contextmanager
def hinted(files: Sequence[Path] | None, id_col: str, class_col: str) -> Iterator[None]:
    """Several dumps stacked in one folder fail the checks of each id's classes: say so."""
    try:
        yield
    except MetricsInputError as error:
        hint = mixed_dumps(files, id_col, class_col, error.problem) if files else None
        if hint is None:
            raise
        raise with_hint(error, hint) from None


_Kept = TypeVar("_Kept")


class Runner(Protocol):
    """Scores the chunks of a plan, locally or on a cluster, yielding them in order.

    ``keep`` turns each chunk's collected state into what is kept of it, where the chunk
    was scored (a worker sends back only that).
    """

    def __call__(
        self, chunks: Chunks, spec: Spec, keep: Callable[[MetricState], _Kept]
    ) -> Iterator[_Kept]: ...


def whole(state: MetricState) -> MetricState:
    """Keeps a chunk's whole state (id chunks, merged as they come: `_merging`)."""
    return state


def local_runner(lf: pl.LazyFrame, stream: TextIO | None) -> Runner:
    """Chunks one after the other in this process, with a progress bar on ``stream``."""

    def run(chunks: Chunks, spec: Spec, keep: Callable[[MetricState], _Kept]) -> Iterator[_Kept]:
        with tqdm(
            total=chunks.rows,
            desc=f"{len(chunks)} chunk{'s' if len(chunks) > 1 else ''}: {chunks.strategy}",
            unit="row",
            unit_scale=True,
            file=stream,
            disable=stream is None,
            leave=False,  # cleared when done, so the table stands alone
        ) as bar:
            for done, rows in enumerate(chunks.filters, start=1):
                yield keep(chunk_state(lf if len(chunks) == 1 else lf.filter(rows), spec))
                bar.set_postfix_str(f"chunk {done}/{len(chunks)}", refresh=False)
                bar.update(chunks.rows * done // len(chunks) - bar.n)  # rows: about a share

    return run


def score_spec(
    lf: pl.LazyFrame,
    spec: Spec,
    *,
    files: Sequence[Path] | None = None,
    dataset: Any = None,
    budget: int,
    n_chunks: int | None = None,
    runner: Runner,
    examples: bool = True,
) -> pl.DataFrame:
    """The driver: `score` once its source and options are resolved.

    ``files`` or ``dataset``: what ``lf`` scans, for the chunk planner (`plan_chunks`).
    ``examples``: read ``lf`` again, in its id chunks, for the first rows a failed check is
    about (not where the client of a cluster would read them).
    """
    width = row_bytes(lf.collect_schema(), spec.read)

    @functools.cache  # (planned once: a failed check's rows are read in the same chunks)
    def plan() -> Chunks:
        return plan_chunks(
            lf,
            id_col=spec.columns.id,
            budget=budget,
            files=files,
            dataset=dataset,
            n_chunks=n_chunks,
            width=width,
        )

    with naming_examples(lf if examples else None, spec, lambda: plan().filters):
        return _scored_in_chunks(
            lf, spec, plan(), width, budget=budget, n_chunks=n_chunks, runner=runner
        )


def _scored_in_chunks(
    lf: pl.LazyFrame,
    spec: Spec,
    id_plan: Chunks,
    width: int,
    *,
    budget: int,
    n_chunks: int | None,
    runner: Runner,
) -> pl.DataFrame:
    """`score_spec` once its id chunks are planned (``width``: a row's bytes, `row_bytes`)."""
    # Metrics that rank ids within a class are scored in class-disjoint chunks, so each
    # chunk's curves hold only its classes; micro averages pool the classes and cannot be,
    # and 'samples' averages rank each id's classes: those use id chunks.
    by_class = [m for m in spec.metrics if chunk_key_of(m, spec.options.average) == "class"]
    by_id = [m for m in spec.metrics if m not in by_class]
    class_plan = None
    if by_class:
        class_plan = class_chunks(
            lf,
            id_plan.rows,
            spec.columns.cls,
            categorical=spec.columns.class_is_categorical,
            budget=budget,
            n_chunks=n_chunks,
            width=width,
        )
    if len(id_plan) == 1 and (class_plan is None or len(class_plan) == 1):
        # Everything fits at once: one state of every metric, as `report` computes it.
        return _merged(runner(id_plan, spec, whole))
    results = []
    class_spec = Spec(tuple(by_class), spec.columns, spec.options)
    id_options = spec.options
    if class_plan is not None and len(class_plan) > 1 and spec.options.validate:
        # A class chunk holds some of each id's rows: what is checked over an id's rows
        # together (its set of classes, its one weight, repeated rows) and over a group's
        # weights needs id chunks, first, so that the counts are the table's. A class chunk
        # of ragged input may hold only a group's ids of weight 0.
        id_options = replace(spec.options, checks_of=spec.metrics)
        class_spec = class_spec.with_options(checks_of=())
        if not by_id:  # a counts-only state over them runs those checks
            # (One whose columns no key has: confusion's are tp, fp, fn and tn.)
            named = {*spec.columns.by, spec.columns.cls, spec.columns.id}
            checker = next(
                m for m in ("confusion", "f1", "precision") if not named & {*made_columns(info(m))}
            )
            checks = Spec((checker,), spec.columns, id_options)
            checks = checks.with_options(per_id=False, average="macro")
            _merged(runner(id_plan, checks, whole))
    if by_id:
        by_id_spec = Spec(tuple(by_id), spec.columns, id_options)
        results.append(_merged(runner(id_plan, by_id_spec, whole)))
    if by_class:
        assert class_plan is not None
        # Undefined ROC AUCs are left out by each chunk and counted over all of them.
        per_class = class_spec.with_options(average=None, per_class=True, undefined="skip")
        results.append(_class_values(list(runner(class_plan, per_class, class_chunk)), class_spec))
    keys = spec.keys
    out = results[0]
    for extra in results[1:]:
        out = (
            out.join(extra, on=keys, how="left", nulls_equal=True)
            if keys
            else pl.concat([out, extra], how="horizontal")
        )
    return out.select(build_state(lf, spec).finalize().collect_schema().names())  # report's order


def deferred(lf: pl.LazyFrame, spec: Spec | Callable[[], Spec], schema: pl.Schema) -> pl.LazyFrame:
    """The metrics of ``lf`` as a LazyFrame that runs the driver when it is collected.

    Nothing is read until then. Collected, it scores ``lf`` as `score` does: in id-disjoint
    chunks within the default memory budget, each read into memory and counted by the
    kernels, so the lazy idiom has the speed of the in-memory path and the bounded memory of
    the driver. ``schema`` is the result's (from the state plan, which reads nothing).
    ``spec`` may be a function that makes it, called when collected (when it reads a table).
    """
    return pl.defer(lambda: scored(lf, spec() if callable(spec) else spec), schema=schema)


def scored(lf: pl.LazyFrame, spec: Spec, budget: int | None = None) -> pl.DataFrame:
    """The metrics of ``lf``, scored as `score` scores it, within ``budget``.

    ``budget``: bytes; None, the default budget.
    """
    budget = budget_bytes(None) if budget is None else budget
    return score_spec(lf, spec, budget=budget, runner=local_runner(lf, None))


def chunk_state(part: pl.LazyFrame, spec: Spec) -> MetricState:
    """One chunk's collected state.

    The chunk's columns are read into memory first, once for all the state's tables: a
    chunk fits the memory budget, and rows in memory are scored faster than by the
    streaming plan (the ranking family's kernel, the rows per class counted in numpy).
    """
    rows = part.select(spec.read).collect(engine="streaming")
    return build_state(rows, spec).collect()


# The chunks' collected states are small tables, whose plans the in-memory engine runs
# faster than the streaming one ("auto" picks): about 2.5 against 5 ms for one state.
_SMALL: Final = "in-memory"


def _has_ids(state: MetricState) -> bool:
    return bool(state.groups.lazy().select(pl.col(N_IDS).sum()).collect(engine=_SMALL).item())


def _merging(states: Iterable[MetricState]) -> list[MetricState]:
    """Id-disjoint chunks' states that hold ids, merged as they come, `_FAN_IN` at a time.

    Held whole to the end, the states of many chunks (a micro average's curves table of
    each chunk's distinct scores) grew the memory as the budget shrank. Merged in a tree
    (the n-th state ends as many merges of `_FAN_IN` neighbours, in the chunks' order, as
    `_FAN_IN` divides n), fewer than `_FAN_IN` of each level are held, each state copied
    log(n) / log(`_FAN_IN`) times at most, in n / (`_FAN_IN` - 1) merges. None holds an
    id: the first, whose finalize tells the empty table.
    """
    held: list[MetricState] = []
    empty = None
    count = 0
    # (a merge that fails closes the runner: its progress bar cleared, its tasks cancelled)
    with contextlib.closing(states) if isinstance(states, Generator) else contextlib.nullcontext():
        for state in states:
            if not _has_ids(state):
                empty = empty or state
                continue
            held.append(state)
            count += 1
            merged = count
            while merged % _FAN_IN == 0:
                held[-_FAN_IN:] = [_whole(held[-_FAN_IN:])]
                merged //= _FAN_IN
    return held or ([] if empty is None else [empty])


#: States merged at once as they come: a merge costs about 15 ms whatever its size (pairs
#: made 128 chunks' micro ROC AUC 1.8 s slower), and the held states are fewer than this
#: per level.
_FAN_IN: Final = 8


def collected_state(lf: pl.LazyFrame, spec: Spec) -> MetricState:
    """The collected state of ``lf``: its id-disjoint chunks' states, merged.

    Each chunk is read once, within the default budget, as `score` reads them.
    """
    chunks = plan_chunks(
        lf,
        id_col=spec.columns.id,
        budget=budget_bytes(None),
        width=row_bytes(lf.collect_schema(), spec.read),
    )
    # (an empty table's state finalizes to its error)
    return _whole(_merging(local_runner(lf, None)(chunks, spec, whole)))


def _merged(states: Iterable[MetricState]) -> pl.DataFrame:
    """Id-disjoint chunks' states, merged, then finalized."""
    held = _merging(states)
    if not held:  # (no chunk; a chunk without ids finalizes to the empty table's error)
        raise MetricsInputError(EMPTY_TABLE)
    return _whole(held).finalize().collect(engine=_SMALL)


def _whole(chunks: Sequence[MetricState]) -> MetricState:
    """The state of id-disjoint chunks' states, merged."""
    # One chunk: nothing to merge (merging re-sorts and re-sums its curves table).
    # The chunks are id-disjoint by construction: not a caller's merge (`MetricState.merged`).
    return chunks[0] if len(chunks) == 1 else replace(merge_states(chunks), merged=False)


@dataclass(frozen=True)
class ClassChunk:
    """What is kept of a class chunk's state: its values, not its curves table.

    The curves table holds a row per class and distinct score: kept for every chunk, it
    would make memory grow with the whole table's distinct scores, whatever the budget. A
    class chunk holds every row of its classes, so its per-class values are final; but its
    rows' checks count a share of the rows (a chunk raising with its own count would name
    a share of the bad rows): they are summed over the chunks and raised first.
    """

    #: The ids of each group in the chunk, and its rows' checks.
    groups: pl.DataFrame
    #: The per-class values (or the curves' points), the rows' checks left out; None when
    #: the chunk has no rows or raised.
    values: pl.DataFrame | None
    #: The positives' weight of each ``(by..., class)``, the weights of a weighted average.
    positives: pl.DataFrame
    #: The rows' checks counted in ``groups``.
    row_problems: tuple[Problem, ...]
    #: Raised by the caller after the rows' checks, in chunk order: on a cluster, bad input
    #: is not the task's failure (which would be tried again and reported as the chunk's).
    error: MetricsInputError | None = None


def class_chunk(state: MetricState) -> ClassChunk:
    """Keeps a class chunk's values (see `ClassChunk`), where the chunk was scored."""
    by = list(state.columns.by)
    problems = tuple(p for p in state.problems if p.unit == "rows")
    rows = [p.name for p in problems]
    groups = state.groups.lazy().select(*by, N_IDS, *rows).collect(engine=_SMALL)
    kept = functools.partial(
        ClassChunk, groups, positives=curve_positives(state), row_problems=problems
    )
    if not groups[N_IDS].sum():
        return kept(None)
    passing = state.groups.lazy().with_columns(pl.lit(0, groups.schema[n]).alias(n) for n in rows)
    try:
        values = replace(state, groups=passing.collect(engine=_SMALL)).finalize()
        return kept(values.collect(engine=_SMALL))
    except MetricsInputError as error:
        return kept(None, error=error)


def _class_values(chunks: Sequence[ClassChunk], spec: Spec) -> pl.DataFrame:
    """Class-disjoint chunks: each gives its classes' values; they are averaged at the end.

    Every id of a group must appear in every chunk that holds the group (each id has every
    class): a group whose id count differs between chunks has ids lacking classes.
    """
    cols, opts = spec.columns, spec.options
    by = list(cols.by)
    counts = pl.concat([c.groups for c in chunks], how="vertical_relaxed")
    if not counts[N_IDS].sum():
        raise MetricsInputError(EMPTY_TABLE)
    problems = chunks[0].row_problems
    if problems:  # raised as one chunk raises them, with the rows of all
        sums = [pl.col(n).sum() for n in [N_IDS, *(p.name for p in problems)]]
        told = [b for b in by if b != opts.fold_col]  # (tuned over folds: their sums, as one)
        raise_on_problems(aggregate(counts.lazy(), told, sums), problems, told).collect(
            engine=_SMALL
        )
    for chunk in chunks:
        if chunk.error is not None:
            raise chunk.error
    table = pl.concat([c.values for c in chunks if c.values is not None], how="vertical_relaxed")
    positives = pl.concat([c.positives for c in chunks])
    id_counts = counts.select(*by, N_IDS).filter(pl.col(N_IDS) > 0)
    spread = aggregate(
        id_counts.lazy(), by, [pl.col(N_IDS).min().alias(_LEAST), pl.col(N_IDS).max().alias(_MOST)]
    ).collect(engine=_SMALL)
    if opts.checks_classes:
        bad = spread.filter(pl.col(_LEAST) != pl.col(_MOST))
        if bad.height:
            raise MetricsInputError(
                f"column {cols.cls!r}: {bad.height:,} groups have ids that lack whole sets of "
                "classes (ragged input); pass ragged='allow' to use the rows present",
                problem="ragged",
            )
    if "roc_auc" in spec.metrics and opts.undefined == "error":  # after the data checks
        check_undefined(table.select(*by, cols.cls, "roc_auc"), by, cols, opts)
    table = check_folds(table, cols, opts)
    if spec.per_class(spec.metrics[0]):  # per-class values (and curves): the chunks' rows
        return table.sort(spec.keys, nulls_last=True, maintain_order=True)
    table = table.join(positives, on=[*by, cols.cls], how="left", nulls_equal=True)
    # Every group, also one whose classes are all left out (undefined): NaN, as report's.
    values = [spread.select(by)] if by else []
    for metric in spec.metrics:
        average = "macro" if metric == "padded_cmap" else str(opts.average)
        values.append(average_classes(table.lazy(), metric, by, average).collect(engine=_SMALL))
    out = (
        functools.reduce(lambda a, b: a.join(b, on=by, how="left", nulls_equal=True), values)
        if by
        else pl.concat(values, how="horizontal")
    )
    out = out.with_columns(pl.col(spec.metrics).fill_null(float("nan")))
    return out.sort(by, nulls_last=True) if by else out


#: Peak memory per row of a part `cluster_by_id` sorts, measured on rows of
#: `pl_metrics._chunks.REFERENCE_ROW` bytes (an Int32 id, Int16 class, Float32 score and
#: boolean truth: 24 bytes; wider rows scale it, as the chunks' bytes: 65-byte rows of a
#: text model, Int64 fold, id and class, Float64 score and weight took 80, and are given 142).
_SORTED_BYTES_PER_ROW = 24


@checked_options
def cluster_by_id(
    source: Paths,
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

    Parameters
    ----------
    source
        Files, folders or globs, as `score` reads them.
    destination
        A folder outside the source's folders and globs' folders (a file's own folder may
        hold it: ``oof.parquet`` to ``clustered/``), new or without data files (files that
        `score` reads; other files, such as notes, are left as they are).
    id_col
        The id column to sort by.
    n_parts
        At most this many files to write, each a range of ids (fewer where ids repeat in
        the sample that cuts them); by default as many as ``memory_budget`` needs.
    memory_budget
        Bytes (or a size such as ``"2GB"``, in powers of 1024) that one part's rows may take
        while it is sorted (about 24 bytes a row of an Int32 id, an Int16 class, a Float32
        score and a boolean truth, and in proportion for wider rows: every column is
        sorted). Not with ``n_parts``. Default: the ``PL_METRICS_MEMORY_BUDGET``
        environment variable's, else 2 GB.
    row_group_size
        Rows per parquet row group: the unit a chunk reads (smaller groups let a chunk read
        less beyond its ids, at the cost of more statistics).

    Returns
    -------
    list of Path
        The files written, each a range of ids, in the ids' order.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> import pl_metrics
    >>> root = Path(tempfile.mkdtemp())
    >>> parts = pl_metrics.cluster_by_id("data/digits_oof.parquet", root / "by_id", n_parts=3)
    >>> [part.name for part in parts]
    ['part-00000.parquet', 'part-00001.parquet', 'part-00002.parquet']
    >>> ids = [pl.read_parquet(part)["id"] for part in parts]
    >>> all(a.max() < b.min() for a, b in zip(ids, ids[1:]))  # id ranges, one after another
    True
    >>> pl_metrics.score(root / "by_id", "lrap", by="model").equals(
    ...     pl_metrics.score("data/digits_oof.parquet", "lrap", by="model")
    ... )
    True
    """
    items = path_items(source)  # (a generator: read once, for the scan and the check below)
    lf = scan(source if items is None else items)
    schema = lf.collect_schema()
    require_column(schema, "id_col", id_col)
    if schema[id_col].is_nested():
        raise MetricsInputError(
            f"column {id_col!r}: {schema[id_col]} ids have no order to be cut into ranges; "
            "score the source as it is (its chunks are hash buckets of the id)"
        )
    if not isinstance(destination, (str, os.PathLike)):
        raise MetricsInputError(
            f"option 'destination': expected a folder's path, got {shown(destination)}"
        )
    destination = Path(destination)
    if destination.exists() and not destination.is_dir():
        raise MetricsInputError(f"destination {str(destination)!r} is a file, not a folder")
    _check_destination(destination, items or [])
    budget = chunking_budget(memory_budget, n_parts, "n_parts")
    check_integer("row_group_size", row_group_size, 1, 2**31 - 1)  # (polars panics above)
    rows = int(lf.select(pl.len()).collect().item())
    if n_parts is None:  # a part is sorted whole, every column: wider rows take more
        per_row = scaled(_SORTED_BYTES_PER_ROW, row_bytes(schema, schema.names()))
        n_parts = max(1, math.ceil(rows * per_row / budget))
    n_parts = min(n_parts, max(1, rows))  # a part per row at most (10**12 parts: hours)
    every = max(1, rows // (n_parts * 100))
    sample = (
        lf.select(pl.col(id_col))
        .gather_every(every)
        .collect(engine="streaming")
        .to_series()
        .drop_nulls()
        .sort()
    )
    # The cuts in polars' order (an Enum's categories), which cuts the parts, not Python's,
    # and as polars values (Python's datetimes drop nanoseconds); none at the smallest id,
    # which would leave the first part empty.
    picks = sorted({int(len(sample) * k / n_parts) for k in range(1, n_parts)})
    picked = sample.gather(picks).unique(maintain_order=True) if len(sample) else sample
    picked = picked.filter(picked != sample.head(1))
    cuts = [pl.lit(picked.slice(k, 1)).first() for k in range(len(picked))]
    id_type = schema[id_col]
    destination.mkdir(parents=True, exist_ok=True)
    bounds = [None, *cuts, None]
    written = []
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = destination / f"part-{k:05d}.parquet"
        part = lf.filter(id_range(pl.col(id_col), lo, hi, id_type)).sort(id_col, nulls_last=False)
        part.sink_parquet(path, row_group_size=row_group_size)
        written.append(path)
    return written


def _folder_of(source: str | os.PathLike[str]) -> Path:
    """A source's folder: itself, or a glob's before its first wildcard ('oof/*.pq': oof)."""
    text = os.fspath(source)
    prefix = re.split(r"[*?\[]", text, maxsplit=1)[0]
    if prefix == text:
        return Path(text)
    return Path(prefix) if prefix.endswith(("/", os.sep)) else Path(prefix).parent


def _check_destination(destination: Path, sources: list[Any]) -> None:
    """Refuse a destination inside the source, or one holding data files already.

    Parts written into the source would be read with it from then on; files left in the
    destination (an earlier run's parts, more of them) would be read with the new parts.
    ``sources``: the source's paths (`path_items`).
    """
    named = [os.fsdecode(s) for s in sources if isinstance(s, PATH_LIKE)]
    target = destination.resolve()
    for folder in (f.resolve() for f in map(_folder_of, named) if f.is_dir()):
        if target.is_relative_to(folder):
            raise MetricsInputError(
                f"destination {str(destination)!r} is inside the source folder "
                f"{str(folder)!r}: the parts would be read with the source from then on; "
                "give a folder outside it"
            )
    if destination.is_dir():
        held = [p for p in destination.rglob("*") if p.is_file() and kind_of(p)]
        if held:
            raise MetricsInputError(
                f"destination {str(destination)!r} holds {len(held):,} data "
                f"file{'s' if len(held) > 1 else ''} already (e.g. {held[0].name!r}): they "
                "would be read with the new parts; give an empty or new folder"
            )
