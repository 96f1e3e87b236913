"""A DataFrame's per-id table, counted over its runs of id rows by the C kernel.

`pl_metrics._state` aggregates the rows per id with polars. In a DataFrame, ids are usually
contiguous (dumps are written id by id), and the per-id columns most reports need are
counts: rows, positives, the sum of class hashes behind the class-set checks, a weight of
one, and zeros for row checks that already passed. One pass of the kernel over each id's
rows gives all of those, the rows per class with them (and a prediction's confusion
counts per class), and families' own per-id kernels (`RunColumns`) share the runs it
found, for a fraction of a hash aggregation. Anything else (scattered ids, other columns,
classes the kernel cannot read) takes the polars aggregation, which stays the reference;
tests hold the two equal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from pl_metrics._kernel import IdRuns, deferred_on_rows, flags, id_runs, run_sums

__all__ = ["TRUTH", "ClassCounts", "RunColumns", "count_kinds", "per_id_and_classes"]

#: The truth column (boolean) of the rows that the kernels of `RunColumns` are given.
TRUTH = "__plm_runs_truth"
_PREDICTED = "__plm_runs_predicted"
_CLASS_ROW = "__plm_runs_class_row"  # marks the rows per class in the combined output
_SEGMENT = "__plm_runs_segment"


@dataclass(frozen=True)
class RunColumns:
    """Per-id columns that a family's kernel computes over each id's run of rows.

    In the same pass as the counts: the rows, read once, are split into runs once.
    """

    #: The row columns the kernel reads, named (besides the keys, class and `TRUTH`).
    inputs: list[pl.Expr]
    #: The per-id columns it gives.
    schema: pl.Schema
    #: ``(rows, runs, truth) -> {column: value per run}``; None where the kernel cannot
    #: count these rows (NaN scores, say).
    over_runs: Callable[[pl.DataFrame, IdRuns, np.ndarray], dict[str, np.ndarray] | None]
    #: ``rows -> (by..., id, columns...)`` for any rows (ids need not be contiguous); ids
    #: left out get zeros.
    over_rows: Callable[[pl.DataFrame], pl.DataFrame]


@dataclass(frozen=True)
class ClassCounts:
    """Confusion counts per (group, class) that the counts pass gives with the rows."""

    #: Each row's prediction (boolean).
    predicted: pl.Expr
    #: Each count's column and cell: ``tp``, ``fp``, ``fn`` or ``tn`` (unweighted).
    cells: dict[str, str]


def count_kinds(
    id_exprs: Sequence[pl.Expr], templates: dict[str, pl.Expr]
) -> dict[str, str] | None:
    """Each per-id column's kind of count (a key of ``templates``, or ``"zero"``).

    None when some column is none of them: the polars aggregation computes the table.
    """
    kinds, literals = {}, {}
    for expr in id_exprs:
        name, bare = expr.meta.output_name(), expr.meta.undo_aliases()
        kind = next((k for k, t in templates.items() if bare.meta.eq(t)), None)
        if kind is not None:
            kinds[name] = kind
        elif bare.meta.is_literal():
            literals[name] = bare.alias(name)
            kinds[name] = "zero"  # if it is one: checked below
        else:
            return None
    # A zero is a row check that passed on the whole frame; evaluated in one query.
    values = pl.select(*literals.values()).row(0, named=True) if literals else {}
    return None if any(v != 0 for v in values.values()) else kinds


def per_id_and_classes(
    rows: pl.LazyFrame,
    by: list[str],
    id_col: str,
    cls: str,
    truth: pl.Expr,
    id_exprs: list[pl.Expr],
    kinds: dict[str, str],
    class_rows: str | None,
    run_columns: Sequence[RunColumns] = (),
    class_counts: ClassCounts | None = None,
    class_exprs: Sequence[pl.Expr] = (),
    runs: IdRuns | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """The per-id table and the rows per class, from one deferred pass over ``rows``.

    The per-id table has ``id_exprs`` per ``(by..., id)``; the rows per ``(by..., class)``
    come when ``class_rows`` (their column's name) is given, with the ``class_counts``
    (which ``class_exprs`` compute in polars).

    ``kinds`` (from `count_kinds`) says what each per-id column counts: ``rows``,
    ``positives``, ``class_hash``, ``unit_weight`` or ``zero``. The ``run_columns`` are
    added to the per-id table. ``runs``: the id runs of ``rows``, when the caller found
    them already (see `pl_metrics._kernel.contiguous_runs`).
    """
    keys = [*by, id_col]
    plan_ids = rows.group_by(keys).agg(id_exprs)
    id_schema = plan_ids.collect_schema()
    for extra in run_columns:
        id_schema |= extra.schema
    schema = pl.Schema(id_schema)
    plan_classes = None
    if class_rows is not None:
        plan_classes = rows.group_by([*by, cls]).agg(pl.len().alias(class_rows), *class_exprs)
        class_schema = plan_classes.collect_schema()
        schema |= pl.Schema({k: v for k, v in class_schema.items() if k not in by})
        schema |= pl.Schema({_CLASS_ROW: pl.Boolean})
    extra_inputs = [e for extra in run_columns for e in extra.inputs]
    if class_counts is not None:
        extra_inputs.append(class_counts.predicted.alias(_PREDICTED))
    inputs = rows.select(*keys, cls, truth.alias(TRUTH), *extra_inputs)

    def tables(df: pl.DataFrame) -> pl.DataFrame:
        found = runs or id_runs(df, by, id_col)
        counted = _counted(df, by, keys, cls, kinds, class_rows, run_columns, class_counts, found)
        if counted is None:  # the reference plan (``rows`` are a DataFrame's: nothing read)
            ids = plan_ids.collect(engine="in-memory")
            for extra in run_columns:
                names = extra.schema.names()
                ids = ids.join(
                    extra.over_rows(df), on=keys, how="left", nulls_equal=True
                ).with_columns(pl.col(names).fill_null(0))
            classes = None if plan_classes is None else plan_classes.collect(engine="in-memory")
        else:
            ids, classes = counted
        ids = ids.cast(dict(id_schema))  # type: ignore[arg-type]
        if classes is None:
            return ids
        classes = classes.cast(dict(class_schema)).with_columns(pl.lit(True).alias(_CLASS_ROW))  # type: ignore[arg-type]
        return (
            pl.concat([ids, classes], how="diagonal")
            .select(schema.names())
            .with_columns(pl.col(_CLASS_ROW).fill_null(False))
        )

    combined = deferred_on_rows(inputs, tables, schema)
    if class_rows is None:
        return combined, None
    ids = combined.filter(~pl.col(_CLASS_ROW)).select(id_schema.names())
    classes = combined.filter(pl.col(_CLASS_ROW)).select(class_schema.names())
    return ids, classes


def _counted(
    df: pl.DataFrame,
    by: list[str],
    keys: list[str],
    cls: str,
    kinds: dict[str, str],
    class_rows: str | None,
    run_columns: Sequence[RunColumns],
    class_counts: ClassCounts | None,
    runs: IdRuns | None,
) -> tuple[pl.DataFrame, pl.DataFrame | None] | None:
    """The tables by the kernel over the id ``runs``, or None where it cannot count them."""
    if runs is None or df[TRUTH].null_count():
        return None
    predicted = None
    if class_counts is not None:
        if df[_PREDICTED].null_count():  # unchecked nulls: no prediction, polars counts
            return None
        predicted = flags(df[_PREDICTED])
    starts, truth = runs.starts, flags(df[TRUTH])
    segments = runs.segment if class_rows is not None else None
    sums = run_sums(starts, truth, df[cls], segments, predicted)
    if sums is None:
        return None
    extra_values: dict[str, np.ndarray] = {}
    for extra in run_columns:
        values_of = extra.over_runs(df, runs, truth)
        if values_of is None:
            return None
        extra_values |= values_of
    positives, hashes, per_class = sums
    lengths = np.diff(starts)
    values = {
        "rows": lengths,
        "positives": positives,
        "class_hash": hashes,
        "unit_weight": np.ones(len(lengths)),
        "zero": np.zeros(len(lengths), np.int64),
    }
    ids = runs.keys().with_columns(
        *(pl.Series(name, values[kind]) for name, kind in kinds.items()),
        *(pl.Series(name, v) for name, v in extra_values.items()),
    )
    if per_class is None or class_rows is None:
        return ids, None
    segment, classes, counts = per_class
    columns = {class_rows: counts[:, 0]}
    if class_counts is not None:
        rows_of, positives_of, predicted_of, both = counts.T
        cells = {
            "tp": both,
            "fp": predicted_of - both,
            "fn": positives_of - both,
            "tn": rows_of - positives_of - predicted_of + both,
        }
        columns |= {name: cells[cell] for name, cell in class_counts.cells.items()}
    table = pl.DataFrame({_SEGMENT: segment, cls: classes, **columns})
    if by:  # each segment's group; a group in several segments sums them
        groups = runs.groups.with_columns(pl.Series(_SEGMENT, np.arange(runs.groups.height)))
        table = table.join(groups, on=_SEGMENT).group_by([*by, cls]).agg(pl.col(*columns).sum())
    return ids, table.select(*by, cls, *columns)
