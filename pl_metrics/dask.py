"""Score a sharded dump on a Dask cluster with the same mergeable states.

Install with ``pip install "pl_metrics[dask]"``. The client plans the chunks as
`pl_metrics.score` does (id-disjoint, and class-disjoint for metrics that rank ids within a
class; from file metadata, and for the latter the rows per class, one read of the class
column; CSV files, which have no metadata, are read once to count their rows), each worker
reads its chunk from the files itself and computes the chunk's small state, and the client
merges the states: no rows travel between the client and the workers, and the result
equals single-machine scoring (to 1e-12).
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import polars as pl

from pl_metrics._chunks import Chunks, chunking_budget
from pl_metrics._driver import (
    Runner,
    chunk_state,
    named_file,
    score_spec,
    warn_of_mixed_tasks,
)
from pl_metrics._frame import (
    MetricsInputError,
    Ragged,
    caller_stacklevel,
    check_integer,
    checked_options,
    listed,
    shown,
)
from pl_metrics._io import (
    Paths,
    columns_named,
    keys_from_folders,
    require_in_every_file,
    scan_files,
    unreadable_file,
)
from pl_metrics._io import files as find_files
from pl_metrics._spec import Average, Spec, Strategy, Undefined, resolve
from pl_metrics._state import MetricState

__all__ = ["ChunkError", "score"]

_Kept = TypeVar("_Kept")


class ChunkError(RuntimeError):
    """A chunk's task failed on every try: the call fails rather than return a part."""


def _chunk_state(
    paths: list[str], rows: pl.Expr, spec: Spec, keep: Callable[[MetricState], _Kept]
) -> _Kept:
    """Run on a worker: read the chunk's rows from the files, keep what ``keep`` takes."""
    try:
        # (The client checked the files' folders when it planned the chunks.)
        found = [Path(p) for p in paths]
        return keep(chunk_state(scan_files(found, check_folders=False).filter(rows), spec))
    except pl.exceptions.PanicException as error:
        # A corrupt file can make polars panic; its PanicException cannot be pickled back to
        # the client, which then waited forever. It travels as its text, raised outside the
        # handler so that it carries no context holding the panic.
        message = f"polars panicked: {error}"
    raise RuntimeError(message)


@contextlib.contextmanager
def _client(client: Any) -> Iterator[Any]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # the extra is not installed: the user's to fix, not a bug
        raise MetricsInputError(
            'Dask is not installed (or its distributed scheduler): pip install "pl_metrics[dask]"'
        ) from None

    if isinstance(client, str):
        try:
            connected = Client(client)  # type: ignore[no-untyped-call]
        except (ValueError, OSError) as error:  # not an address, or nothing listens there
            local = "; for a local cluster, leave client out (None)" if client == "local" else ""
            raise MetricsInputError(
                f"option 'client': cannot connect to {client!r}: {error}{local}"
            ) from error
        with connected:  # ours: closed after (left open, it tried to reconnect for 30 s)
            yield connected
        return
    if client is not None:
        if getattr(client, "status", None) in ("closing", "closed"):
            raise MetricsInputError(
                "option 'client': the client is closed; give an open one, or the scheduler's "
                "address"
            )
        yield client
        return
    # Each worker's polars pool (and so the kernels' threads) takes its share of the cores:
    # two pools of every core oversubscribed them. A POLARS_MAX_THREADS given is kept. The
    # workers inherit it from this process's environment as they start: LocalCluster's
    # env= is set after a worker imports the script, whose `import polars` sized the pool.
    threads = os.environ.get("POLARS_MAX_THREADS") or str(max(1, (os.cpu_count() or 2) // 2))
    with _environment("POLARS_MAX_THREADS", threads):
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            env={"POLARS_MAX_THREADS": threads},
            dashboard_address=":0",
            # A failed chunk is reported once, as ChunkError: not also as worker log lines.
            silence_logs=logging.CRITICAL,
        )
    with cluster, Client(cluster) as local:  # type: ignore[no-untyped-call]
        yield local


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """An environment variable set for the processes started within, then as it was.

    (This process's environment: one caller at a time, as `score` starts one cluster.)
    """
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


@checked_options
def score(
    source: Paths,
    metrics: str | Iterable[str],
    *,
    client: Any = None,
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
    retries: int = 2,
) -> pl.DataFrame:
    """Score files on a Dask cluster: `pl_metrics.score`, one chunk per task.

    Parameters
    ----------
    source
        Parquet, IPC or CSV files, folders or globs, readable at the same paths from every
        worker (a shared file system, mounted alike: URLs are refused); relative paths are
        sent as absolute ones, of the client's folder.
    metrics
        Metric names, as for `pl_metrics.score`.
    client
        A ``dask.distributed.Client``, or a scheduler address. Default: a local cluster of
        two worker processes, started and closed by this call. Its workers are checked for
        this pl_metrics and polars first; a cluster without workers yet (adaptive) is warned
        of, its tasks waiting for some.
    id_col, class_col, score_col, truth_col, weight_col, by
        As in `pl_metrics.report`.
    threshold, pred_col, average, zero_division, beta, eps, class_weights, per_class
        As in `pl_metrics.report`.
    k, padding, undefined, n_bins, strategy, max_points
        As in `pl_metrics.report`.
    metric, thresholds, fold_col, max_fpr, per_id
        As in `pl_metrics.report`.
    ragged, validate
        As in `pl_metrics.report`.
    memory_budget, n_chunks
        How to size the chunks, as in `pl_metrics.score` (the budget is per task).
    retries
        Extra tries of a failed chunk (Dask also reschedules the tasks of a lost worker).

    Returns
    -------
    DataFrame
        The same as `pl_metrics.score`.

    Raises
    ------
    ChunkError
        When a chunk's task fails on every try; the message names the chunk and the files.
    MetricsInputError
        When the data is at fault, as in `pl_metrics.score`: a file that cannot be read even
        alone (a corrupt page, a CSV field that does not parse) is named.

    Examples
    --------
    Skipped by the doctests, which run without the ``dask`` extra:

    >>> from pl_metrics import dask as on_dask
    >>> on_dask.score(  # doctest: +SKIP
    ...     "oof/*.parquet", ["lwlrap", "f1"], client="tcp://scheduler:8786", by="model"
    ... )
    """
    # Absolute, for the client as for the workers (which read from their own folders, not
    # the client's): both then read the same key= folders as columns.
    files = [Path(os.path.abspath(p)) for p in find_files(source)]
    paths = [str(p) for p in files]
    lf = scan_files(files)  # (a column left out is explained if read)
    named = columns_named(
        id_col, class_col, score_col, truth_col, weight_col, pred_col, fold_col, by
    )
    # A column the scan left out (types that do not widen): say so, not "missing".
    require_in_every_file(files, [c for c in named if c not in lf.collect_schema()])
    with keys_from_folders(files, columns_named(by, fold_col)):
        spec = resolve(  # columns and options checked on the client first
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
    c = spec.columns  # a column the metrics read, in each file
    require_in_every_file(files, spec.read, keys=(c.id, c.cls, *c.by))
    check_integer("retries", retries, 0)
    if client is not None and not isinstance(client, str) and not hasattr(client, "submit"):
        cluster = hasattr(client, "scheduler_address")  # (a LocalCluster, say)
        raise MetricsInputError(
            "option 'client': expected a dask.distributed Client or a scheduler's address, "
            f"got {shown(client)}"
            + ("; pass Client(cluster), or cluster.scheduler_address" if cluster else "")
        )
    # (The client reads too: the row count, and the distinct ids for a few rows per chunk.)
    with _client(client) as dask_client, named_file(files, spec, hints=False):
        _check_workers(dask_client)
        out = score_spec(
            lf,
            spec,
            files=files,
            budget=chunking_budget(memory_budget, n_chunks),
            n_chunks=n_chunks,
            runner=_dask_runner(dask_client, paths, retries),
            examples=False,  # (the client reads no rows)
        )
        # On a worker, where the files are (the client reads only plans and counts).
        warn_of_mixed_tasks(
            files,
            spec.columns.cls,
            spec.columns.by,
            checked=spec.options.checks_classes,
            run=lambda f, *a: dask_client.submit(f, *a).result(),
        )
    return out


#: What each worker runs to tell its versions: a builtin's call of text, which any worker
#: unpickles (a function of pl_metrics would stop one that lacks it).
_VERSIONS: Final = "(__import__('polars').__version__, __import__('pl_metrics').__version__)"


def _check_workers(client: Any) -> None:
    """Refuse workers that cannot run the chunks, before any is sent.

    A task that a worker cannot unpickle (no pl_metrics there, or a polars that reads no
    expression of this one) stopped that worker, and the call waited forever for workers
    that were gone. Each worker imports both and tells their versions (as its own imports
    find them: a path or an uploaded file too, not only an installed package).
    """
    from pl_metrics import __version__ as ours

    found = client.run(eval, _VERSIONS, on_error="return")
    if not found:  # (an adaptive cluster before it scales up; else the call waits for ever)
        warnings.warn(
            "the Dask cluster has no workers yet: the chunks wait for some to join (and "
            "workers that join later are not checked for their pl_metrics and polars)",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    wrong = []
    for worker, versions in found.items():
        if isinstance(versions, BaseException):
            wrong.append(f"{worker} cannot import them ({type(versions).__name__}: {versions})")
        elif tuple(versions) != (pl.__version__, ours):
            wrong.append(f"{worker} has polars {versions[0]}, pl_metrics {versions[1]}")
    if wrong:
        raise MetricsInputError(
            f"option 'client': {len(wrong):,} of the {len(found):,} Dask workers cannot score "
            f"the chunks ({listed(wrong, 3, separator='; ')}); every worker needs pl_metrics "
            f"{ours} and polars {pl.__version__}, as this client has"
        )


def _dask_runner(client: Any, paths: list[str], retries: int) -> Runner:
    """Each chunk a task: the worker reads its rows from the files and returns its state."""

    def run(chunks: Chunks, spec: Spec, keep: Callable[[MetricState], _Kept]) -> Iterator[_Kept]:
        pending = deque(
            client.submit(_chunk_state, paths, rows, spec, keep, retries=retries, pure=False)
            for rows in chunks.filters
        )
        total = len(pending)
        try:
            for number in range(1, total + 1):
                future = pending.popleft()  # (dropped once read: the worker frees its result)
                try:
                    state = future.result()
                except Exception as error:  # the task's own error, after its retries
                    if isinstance(error, MetricsInputError):  # the data's, found on the worker
                        raise
                    which = _unreadable_file(client, paths, spec) if _reading(error) else None
                    if which:  # a file that does not read alone: the data's error, as score()
                        raise MetricsInputError(which) from error
                    raise ChunkError(
                        f"chunk {number} of {total} ({chunks.strategy}) over "
                        f"{', '.join(paths[:3])}{' ...' if len(paths) > 3 else ''} failed "
                        f"after {retries + 1} tries: {type(error).__name__}: {error}"
                    ) from error
                del future
                yield state  # (merged as they come: the client holds a few)
        finally:  # a chunk's error, or the merge's: the tasks not yet read are cancelled
            for other in pending:
                other.cancel()

    return run


#: How long the client waits for a worker to find the file that cannot be read.
_LOCATE_SECONDS = 300


def _reading(error: BaseException) -> bool:
    """Whether a chunk's error can be a file's: polars' reading errors, a panic, an OSError."""
    panicked = isinstance(error, RuntimeError) and str(error).startswith("polars panicked")
    return panicked or isinstance(error, (pl.exceptions.ComputeError, OSError))


def _unreadable_file(client: Any, paths: list[str], spec: Spec) -> str | None:
    """`pl_metrics._io.unreadable_file`, on a worker (where the files are), or None.

    The file found is the data's error (`MetricsInputError`); None when every file reads
    alone, or the search fails or takes longer than `_LOCATE_SECONDS` (every file is read
    again): then the chunk's own error is raised, as `ChunkError`.
    """
    try:
        found = client.submit(_locate, [Path(p) for p in paths], spec.read, pure=False)
        which: str | None = found.result(timeout=_LOCATE_SECONDS)
    except Exception:
        return None
    return which


def _locate(paths: list[Path], columns: list[str]) -> str | None:
    """Run on a worker: `pl_metrics._io.unreadable_file`, a panic as None (see `_chunk_state`)."""
    try:
        return unreadable_file(paths, columns)
    except pl.exceptions.PanicException:
        pass  # not raised here: the panic cannot travel to the client
    return None
