"""A DataFrame's per-id table, counted over its runs of id rows by the C kernel.

`pl_metrics._state` aggregates the rows per id with polars. In a DataFrame, ids are usually
contiguous (dumps are written id by id), and the per-id columns most reports need are
counts: rows, positives, the sum of class hashes behind the class-set checks, a weight of
one, and zeros for row checks that already passed. One pass of the kernel over each id's
rows gives all of those, the rows per class with them (and a prediction's confusion
counts per class), ROC AUC's and AP's curves table (`CurveCounts`), and families' own
per-id kernels (`RunColumns`) share the runs it found, for a fraction of a hash
aggregation. When a report only reduces the per-id table
by group (`Reductions`), the runs' counts are reduced per group straight away. Anything
else (scattered ids, other columns, classes the kernel cannot read) takes the polars
aggregation, which stays the reference; tests hold the two equal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np
import polars as pl

from pl_metrics._frame import aggregate, sorted_within
from pl_metrics._kernel import (
    ClassBlocks,
    ClassCodes,
    GroupCodes,
    IdRuns,
    contiguous_runs,
    curve_counts,
    flags,
    run_sums,
    segments_by_group,
)

__all__ = [
    "TRUTH",
    "ClassCounts",
    "CurveCounts",
    "PerRun",
    "Reductions",
    "RunColumns",
    "Tables",
    "count_kinds",
    "per_id_and_classes",
    "true_rows",
]

#: A per-id column's values, one per run.
PerRun = np.ndarray | pl.Series
#: The truth column (boolean) of the rows that the kernels of `RunColumns` are given.
TRUTH = "__plm_runs_truth"
_PREDICTED = "__plm_runs_predicted"
_WEIGHT = "__plm_runs_weight"
_CURVE_WEIGHT = "__plm_runs_curve_weight"
_SCORE = "__plm_runs_score"
# The tables the pass makes.
_IDS, _CLASSES, _GROUPS, _CURVES = "ids", "classes", "groups", "curves"
#: The kind (`count_kinds`) of a per-id column that a `RunColumns`' kernel computes.
_RUN_KIND = "run:"
#: The kinds that the counts pass also reduces per segment, or that are constants.
_REDUCIBLE = frozenset({"rows", "positives", "class_hash", "unit_weight", "zero"})


@dataclass(frozen=True)
class RunColumns:
    """Per-id columns that a family's kernel computes over each id's run of rows.

    In the same pass as the counts: the rows, read once, are split into runs once.
    """

    #: The row columns the kernel reads, named (besides the keys, class and `TRUTH`).
    inputs: list[pl.Expr]
    #: The per-id columns it gives.
    schema: pl.Schema
    #: ``(rows, runs, truth, classes) -> {column: value per run}``, for the ``schema``'s
    #: columns and the ``aggregations``; None where the kernel cannot count these rows (NaN
    #: scores, say). ``classes``: the rows' `ClassCodes`, found once for every kernel.
    over_runs: Callable[[pl.DataFrame, IdRuns, np.ndarray, ClassCodes], Mapping[str, PerRun] | None]
    #: ``rows -> (by..., id, columns...)`` for any rows (ids need not be contiguous); ids
    #: left out get zeros. None when the ``schema`` is empty.
    over_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    #: Per-id aggregations of the rows, named, that ``over_runs`` gives too (under these
    #: names): a family puts them among its per-id columns (or checks), which the polars
    #: aggregation computes wherever the kernel does not. Their kind is ``run:<name>``
    #: (`count_kinds`).
    aggregations: Sequence[pl.Expr] = ()
    #: The family's hook of ``extend_ids`` that adds the ``schema``'s columns to the polars
    #: per-id table: left out where the kernel's pass counts them.
    replaces: Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame] | None = None

    def templates(self) -> dict[str, pl.Expr]:
        """The ``aggregations`` as `count_kinds`' templates."""
        return {
            f"{_RUN_KIND}{e.meta.output_name()}": e.meta.undo_aliases() for e in self.aggregations
        }


@dataclass(frozen=True)
class ClassCounts:
    """Confusion counts per (group, class) that the counts pass gives with the rows."""

    #: Each row's prediction (boolean).
    predicted: pl.Expr
    #: Each count's column and cell: ``tp``, ``fp``, ``fn`` or ``tn``.
    cells: dict[str, str]
    #: Each row's weight (Float64), if the counts are sums of weights.
    weight: pl.Expr | None = None


@dataclass(frozen=True)
class CurveCounts:
    """The curves table: per (group, class, score), the positive and negative rows.

    Or their weights (``weight``): the pass gives them with the other tables.
    """

    #: The score column.
    score: str
    #: The table's columns: the score, the positives and the negatives.
    key: str
    positives: str
    negatives: str
    #: The polars aggregation of the rows by ``(by..., class, key)`` that gives them.
    exprs: Sequence[pl.Expr]
    #: Each row's weight (Float64), if the table sums weights.
    weight: pl.Expr | None = None


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


class Tables(NamedTuple):
    """What `per_id_and_classes` gives: the per-id, per-class, per-group and curves tables."""

    #: One row per ``(by..., id)``; None when only the groups' reductions were asked for.
    ids: pl.LazyFrame | None
    #: One row per ``(by..., class)``, when asked for.
    classes: pl.LazyFrame | None
    #: The per-id table reduced by ``by``, when only that was asked for.
    groups: pl.LazyFrame | None
    #: One row per ``(by..., class, score)``, when asked for (`CurveCounts`).
    curves: pl.LazyFrame | None


@dataclass(frozen=True)
class Reductions:
    """Per-group reductions of per-id columns (``len``, ``sum``, ``min``, ``max``).

    Those are computed per segment of runs straight from the per-run counts, without the
    per-id table (nor its sort): integer sums do not depend on the order of the ids.
    """

    #: Each output column's operation and per-id column (None for ``len``).
    ops: dict[str, tuple[str, str | None]]

    @classmethod
    def of(cls, exprs: Sequence[pl.Expr], columns: pl.Schema) -> Reductions | None:
        """The reductions that ``exprs`` are, or None if some expression is another one.

        Sums of integer columns only: a float sum's last bits depend on the order.
        """
        forms: dict[tuple[str, str | None], pl.Expr] = {("len", None): pl.len()}
        for c, dtype in columns.items():
            forms |= {("min", c): pl.col(c).min(), ("max", c): pl.col(c).max()}
            if dtype.is_integer():
                forms[("sum", c)] = pl.col(c).sum()
        ops: dict[str, tuple[str, str | None]] = {}
        for expr in exprs:
            bare = expr.meta.undo_aliases()
            op = next((op for op, form in forms.items() if bare.meta.eq(form)), None)
            if op is None:
                return None
            ops[expr.meta.output_name()] = op
        return cls(ops)

    def per_segment(
        self,
        runs: IdRuns,
        columns: dict[str, PerRun],
        reduced: dict[str, dict[str, np.ndarray]] | None = None,
        grouped: GroupCodes | None = None,
    ) -> pl.DataFrame:
        """The reductions over each segment's runs, with its ``by`` values.

        ``columns``: values per run. ``reduced``: columns reduced per segment already, by
        operation (`pl_metrics._kernel.RunSums.per_segment`). ``grouped``: ``reduced`` is
        per group of these instead, and the rest are constants: the reductions per group.
        """
        reduced = reduced or {}
        n_runs = len(runs.starts) - 1
        firsts = runs.firsts
        if grouped is None:
            ends = np.append(firsts[1:], n_runs) if len(firsts) else firsts
            lengths, groups = ends - firsts, runs.groups
        else:
            lengths, groups = grouped.runs, runs.groups[grouped.first_segment]
        ufuncs = {"sum": np.add, "min": np.minimum, "max": np.maximum}
        out = {}
        for name, (op, column) in self.ops.items():
            if column is None:
                out[name] = lengths
            elif column in reduced:
                out[name] = reduced[column][op]
            else:
                values = columns[column]
                assert isinstance(values, np.ndarray)  # (counts: the kernels' Series are not)
                if not n_runs:
                    out[name] = values[:0].copy()
                elif values.strides == (0,) and (op != "sum" or values[0] == 0):
                    out[name] = np.broadcast_to(values[0], len(lengths))  # (a literal)
                elif values.strides == (0,):  # a constant per run (broadcast): no pass
                    out[name] = lengths.astype(values.dtype) * values[0]
                else:
                    assert grouped is None  # (values per run are reduced per segment)
                    out[name] = ufuncs[op].reduceat(values, firsts)
        rows = pl.DataFrame({"": lengths})  # (literal columns take its height)
        table = rows.with_columns(_column(n, v) for n, v in out.items()).drop("")
        return pl.concat([groups, table], how="horizontal") if groups.width else table

    def combined(self) -> list[pl.Expr]:
        """The expressions that reduce a group's segments' reductions (it may have several)."""
        again = {"len": "sum", "sum": "sum", "min": "min", "max": "max"}
        return [getattr(pl.col(name), again[op])() for name, (op, _) in self.ops.items()]


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
    group_exprs: Sequence[pl.Expr] | None = None,
    curves: CurveCounts | None = None,
) -> Tables:
    """The per-id table and the rows per class, from one pass over ``rows`` (a DataFrame's).

    The per-id table has ``id_exprs`` per ``(by..., id)``; the rows per ``(by..., class)``
    come when ``class_rows`` (their column's name) is given, with the ``class_counts``
    (which ``class_exprs`` compute in polars).

    ``kinds`` (from `count_kinds`) says what each per-id column counts: ``rows``,
    ``positives``, ``no_positive``, ``several_positives``, ``class_hash``, ``unit_weight``,
    ``zero``, or a `RunColumns`' aggregation (``run:<name>``). The other columns of the
    ``run_columns`` are added to the per-id table. ``runs``: the id runs of ``rows``, when
    the caller found them already (see `pl_metrics._kernel.contiguous_runs`).

    ``group_exprs``: when the per-id table is wanted only reduced by ``by`` with these,
    and they are `Reductions`, the groups' partial reductions come instead of the table.
    ``curves``: the curves table too.
    """
    keys = [*by, id_col]
    plan_ids = rows.group_by(keys).agg(id_exprs)
    id_schema = plan_ids.collect_schema()
    counted = pl.Schema(id_schema)
    for extra in run_columns:
        id_schema |= extra.schema
    reductions = None if group_exprs is None else Reductions.of(group_exprs, counted)
    parts: dict[str, pl.Schema] = {}
    if reductions is None:
        parts[_IDS] = pl.Schema(id_schema)
    else:
        assert group_exprs is not None
        parts[_GROUPS] = aggregate(plan_ids, by, group_exprs).collect_schema()
    plan_classes = None
    if class_rows is not None:
        plan_classes = rows.group_by([*by, cls]).agg(pl.len().alias(class_rows), *class_exprs)
        parts[_CLASSES] = plan_classes.collect_schema()
    plan_curves = None
    if curves is not None:
        curve_keys = [*by, cls, pl.col(curves.score).alias(curves.key)]
        plan_curves = rows.group_by(curve_keys).agg(curves.exprs)
        parts[_CURVES] = plan_curves.collect_schema()
    # (Families may read the same column under the same name: once.)
    extra_inputs = list({e.meta.output_name(): e for x in run_columns for e in x.inputs}.values())
    if class_counts is not None:
        extra_inputs.append(class_counts.predicted.alias(_PREDICTED))
        if class_counts.weight is not None:
            extra_inputs.append(class_counts.weight.alias(_WEIGHT))
    if curves is not None:
        extra_inputs.append(pl.col(curves.score).alias(_SCORE))
        if curves.weight is not None:
            extra_inputs.append(curves.weight.alias(_CURVE_WEIGHT))
    inputs = rows.select(*keys, cls, truth.alias(TRUTH), *extra_inputs)

    def tables(df: pl.DataFrame) -> dict[str, pl.DataFrame]:
        # (Rows reordered are the same tables: they are counted by key.) Scattered ids are
        # sorted: the kernels count them several times faster than polars' aggregation
        # (ROC AUC of 5M shuffled rows: 2 s).
        found: IdRuns | ClassBlocks | None = runs
        if found is None and df.height:
            # Counts alone are counted from rows class by class where they are; without the
            # curves table, the classes of scattered groups are counted per group.
            counts_only = not run_columns and curves is None
            df, found = contiguous_runs(
                df, by, id_col, cls, counts_only=counts_only, scattered=curves is None
            )
        if (
            curves is not None
            and isinstance(found, IdRuns)
            and by
            and not found.distinct_groups
            and not found.groups_scattered
        ):
            # A group in a few stretches (per-fold files stacked, each holding every model):
            # its stretches moved together, the curves table is counted per group, where
            # each stretch's was summed and sorted again (8x as long).
            df, found = segments_by_group(df, found, by, id_col)
        # The truth as flags, for every kernel; with nulls (unchecked), polars counts.
        truth = None if df[TRUTH].null_count() else flags(df[TRUTH])
        if isinstance(found, ClassBlocks):
            blocks, found, codes = found, None, None
            counted = None
            if truth is not None:
                counted = _counted_in_blocks(
                    df, by, cls, blocks, kinds, class_rows, class_counts, truth, reductions
                )
        else:
            # The classes as the kernels read them, found once for both passes.
            codes = None if found is None or truth is None else ClassCodes.of(df[cls])
            counted = _counted(
                df,
                by,
                cls,
                codes,
                kinds,
                class_rows,
                run_columns,
                class_counts,
                found,
                truth,
                reductions,
            )
        if counted is None:  # the reference plan (``rows`` are a DataFrame's: nothing read)
            ids = plan_ids.collect(engine="in-memory")
            for extra in run_columns:
                if extra.over_rows is None:  # (its columns are the aggregation's)
                    continue
                names = extra.schema.names()
                ids = ids.join(
                    extra.over_rows(df), on=keys, how="left", nulls_equal=True
                ).with_columns(pl.col(names).fill_null(0))
            classes = None if plan_classes is None else plan_classes.collect(engine="in-memory")
            if reductions is not None:
                assert group_exprs is not None
                ids = aggregate(ids.lazy(), by, group_exprs).collect()
        else:
            ids, classes = counted
        curve_table = None
        if curves is not None:
            if found is not None and truth is not None:
                curve_table = _curve_table(df, by, cls, codes, found, truth, curves)
            if curve_table is None:
                # In blocks, each (group, class)'s scores highest first, as the kernel's table
                # comes and the metrics read it (rows by class, say: no id runs to count).
                assert plan_curves is not None
                table = sorted_within(
                    plan_curves, [*by, cls], curves.key, descending=True, nulls_last=True
                )
                curve_table = table.collect(engine="streaming")
        out = {
            _GROUPS if reductions is not None else _IDS: ids,
            _CLASSES: classes,
            _CURVES: curve_table,
        }
        made = {}
        for part, schema in parts.items():
            frame = out[part]
            made[part] = pl.DataFrame(schema=schema) if frame is None else frame.cast(schema)
        return made

    # Counted now, not when a plan reads them: the rows are in memory, and plans over the
    # small tables alone run in the in-memory engine (`pl_metrics._state.MetricState.counted`).
    made = {name: t.lazy() for name, t in tables(inputs.collect(engine="in-memory")).items()}
    groups = made.get(_GROUPS)
    if reductions is not None and groups is not None:
        groups = aggregate(groups, by, reductions.combined()).cast(dict(parts[_GROUPS]))  # type: ignore[arg-type]
    return Tables(made.get(_IDS), made.get(_CLASSES), groups, made.get(_CURVES))


def _curve_table(
    df: pl.DataFrame,
    by: list[str],
    cls: str,
    codes: ClassCodes | None,
    runs: IdRuns,
    truth: np.ndarray,
    curves: CurveCounts,
) -> pl.DataFrame | None:
    """The curves table by the kernel, or None where it cannot count these rows."""
    weights = None if curves.weight is None else df[_CURVE_WEIGHT]
    counted = curve_counts(runs.starts, runs.firsts, truth, codes, df[_SCORE], weights)
    if counted is None:
        return None
    segment, classes, scores, positives, negatives = counted
    table = pl.DataFrame(
        {
            cls: classes,
            curves.key: scores,
            curves.positives: positives,
            curves.negatives: negatives,
        }
    )
    table = _by_group(table, runs, segment, by, [curves.positives, curves.negatives])
    return table.select(*by, cls, curves.key, curves.positives, curves.negatives)


def _by_group(
    table: pl.DataFrame, runs: IdRuns, segment: np.ndarray, by: list[str], sums: list[str]
) -> pl.DataFrame:
    """``table``, a row per ``segment`` and key, with each segment's ``by`` values.

    A group in several segments has its rows of one key added up (the ``sums``).
    """
    if not by:
        return table
    table = pl.concat([runs.groups[segment], table], how="horizontal")
    if runs.distinct_groups:
        return table
    keys = [c for c in table.columns if c not in sums]
    return table.group_by(keys).agg(pl.col(sums).sum())


def _counted(
    df: pl.DataFrame,
    by: list[str],
    cls: str,
    codes: ClassCodes | None,
    kinds: dict[str, str],
    class_rows: str | None,
    run_columns: Sequence[RunColumns],
    class_counts: ClassCounts | None,
    runs: IdRuns | None,
    truth: np.ndarray | None,
    reductions: Reductions | None,
) -> tuple[pl.DataFrame, pl.DataFrame | None] | None:
    """The tables by the kernel over the id ``runs``, or None where it cannot count them.

    ``codes``: the classes as the kernels read them (None: they cannot). ``truth``: the
    rows' truth as flags (None: it has nulls). With ``reductions``, their
    partial reductions per segment instead of the per-id table.
    """
    if runs is None or truth is None:
        return None
    predicted, weights = None, None
    if class_counts is not None:
        if df[_PREDICTED].null_count():  # unchecked nulls: no prediction, polars counts
            return None
        predicted = flags(df[_PREDICTED])
        if class_counts.weight is not None:
            if df[_WEIGHT].null_count():  # (polars leaves unchecked nulls out of its sums)
                return None
            weights = df[_WEIGHT].to_numpy()
    starts = runs.starts
    # Reduced per group, the per-id values the kernel counts are reduced as it counts them:
    # no arrays of a value per id to fill (fresh memory costs more than the counting).
    # Groups scattered (counts alone: see `grouped_runs`) make a segment of an id or a few:
    # the kernel counts per group instead, each run's group numbered.
    grouped = runs.group_codes if runs.groups_scattered else None
    reduced_only = reductions is not None and not run_columns and set(kinds.values()) <= _REDUCIBLE
    firsts = runs.firsts if class_rows is not None or reduced_only else None
    sums = run_sums(
        starts,
        truth,
        codes,
        firsts,
        predicted,
        by_class=class_rows is not None,
        per_run=not reduced_only,
        groups=grouped,
        weights=weights,
    )
    if sums is None or (
        weights is not None and class_rows is not None and sums.class_weights is None
    ):
        return None
    extra_values: dict[str, PerRun] = {}
    per_kind: dict[str, Callable[[], PerRun]] = {}
    for extra in run_columns:
        assert codes is not None  # (the counts above read them)
        counted_of = extra.over_runs(df, runs, truth, codes)
        if counted_of is None:
            return None
        values_of = dict(counted_of)
        for expr in extra.aggregations:  # (bound now: the loop variable changes)
            kind, name = f"{_RUN_KIND}{expr.meta.output_name()}", expr.meta.output_name()
            per_kind[kind] = (lambda v: lambda: v)(values_of.pop(name))
        extra_values |= values_of
    positives, hashes, per_class, per_segment, class_weights = sums
    reduced = {}
    if reduced_only and per_segment is not None:
        reduced = {name: per_segment[kind] for name, kind in kinds.items() if kind in per_segment}

    def counted(values: np.ndarray | None) -> np.ndarray:
        assert values is not None  # asked for per run whenever it is read
        return values

    per_kind |= {
        "rows": lambda: np.diff(starts),
        "positives": lambda: counted(positives),
        "class_hash": lambda: counted(hashes),
    }
    return _made_tables(
        runs,
        by,
        cls,
        kinds,
        per_kind,
        extra_values,
        reduced,
        reductions,
        per_class,
        class_rows,
        class_counts,
        grouped if reduced_only else None,
        class_weights,
    )


def _made_tables(
    runs: IdRuns,
    by: list[str],
    cls: str,
    kinds: dict[str, str],
    per_kind: dict[str, Callable[[], PerRun]],
    extra_values: dict[str, PerRun],
    reduced: dict[str, dict[str, np.ndarray]],
    reductions: Reductions | None,
    per_class: tuple[np.ndarray, pl.Series, np.ndarray] | None,
    class_rows: str | None,
    class_counts: ClassCounts | None,
    grouped: GroupCodes | None = None,
    class_weights: np.ndarray | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The per-id (or per-group) table and the per-class one, from the counts per run.

    ``per_kind``: each kind of count's values per run (`count_kinds`), made when read;
    ``reduced``: columns reduced per segment already (per group of ``grouped``, if given);
    ``per_class``: as `RunSums`' (and ``class_weights``, the weighted counts).
    """
    n_runs = len(runs.starts) - 1
    positives = cache(per_kind["positives"])  # (read by the single-label checks too)
    values: dict[str, Callable[[], PerRun]] = {
        **per_kind,
        "positives": positives,
        # The single-label families' checks, whichever pass counted the positives.
        "no_positive": lambda: (np.asarray(positives()) == 0).astype(np.int64),
        "several_positives": lambda: (np.asarray(positives()) > 1).astype(np.int64),
        # Constants: not a fresh array each (broadcast: nothing allocated).
        "unit_weight": lambda: np.broadcast_to(1.0, n_runs),
        "zero": lambda: np.broadcast_to(np.int64(0), n_runs),
    }
    per_run = {name: values[kind]() for name, kind in kinds.items() if name not in reduced}
    per_run |= extra_values
    if reductions is not None:
        ids = reductions.per_segment(runs, per_run, reduced, grouped)
    else:
        ids = runs.keys().with_columns(_column(name, v) for name, v in per_run.items())
        if runs.groups_scattered:
            # In the order the state sorts the ids in, by group: polars sorts rows in order
            # several times faster (400,000 ids by a fold per id: 23 ms, then 6 ms).
            ids = ids[runs.runs_by_group()]
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
        if class_weights is not None:  # (the planes of (truth, prediction), 0b00 to 0b11)
            cells = dict(zip(("tn", "fp", "fn", "tp"), class_weights.T, strict=True))
        columns |= {name: cells[cell] for name, cell in class_counts.cells.items()}
    table = _by_group(pl.DataFrame({cls: classes, **columns}), runs, segment, by, [*columns])
    return ids, table.select(*by, cls, *columns)


def true_rows(runs: IdRuns, truth: np.ndarray) -> np.ndarray | None:
    """The row of each run's one true class, for the single-label kernels.

    None where some run has none or several (its family's check counts it; the polars
    aggregation gives its values), or the runs do not cover the rows.
    """
    starts = runs.starts
    found = np.flatnonzero(truth)
    if (
        len(starts) < 2
        or starts[0] != 0
        or starts[-1] != len(truth)
        or len(found) != len(starts) - 1
    ):
        return None
    if not ((found >= starts[:-1]).all() and (found < starts[1:]).all()):
        return None
    return found


def _column(name: str, values: PerRun) -> pl.Series | pl.Expr:
    """A per-id column; a constant (broadcast) one as a literal.

    Polars keeps a literal column as one value: the zeros of the checks that passed cost
    nothing, where a Series of each was a fresh copy (12 of 500,000 ids: 19 ms).
    """
    if isinstance(values, pl.Series):
        return values.alias(name)
    if values.strides == (0,) and len(values):
        return pl.lit(values[0]).alias(name)
    return pl.Series(name, values)


def _counted_in_blocks(
    df: pl.DataFrame,
    by: list[str],
    cls: str,
    blocks: ClassBlocks,
    kinds: dict[str, str],
    class_rows: str | None,
    class_counts: ClassCounts | None,
    truth: np.ndarray,
    reductions: Reductions | None,
) -> tuple[pl.DataFrame, pl.DataFrame | None] | None:
    """`_counted`'s tables from rows class by class, counted where they are.

    Each id has its section's classes: its rows are their number, its class hashes their
    sum, its positives the truths at its place in each block. The counts per (group, class)
    are each block's, cut where groups change. None where the kernels could not count.
    """
    predicted = None
    if class_counts is not None:
        if df[_PREDICTED].null_count() or class_counts.weight is not None:
            return None  # (unchecked nulls: no prediction; weights: counted over the runs)
        predicted = flags(df[_PREDICTED])
    codes = ClassCodes.of(blocks.block_classes)
    if codes is None:
        return None
    code = codes.codes.to_numpy().astype(np.int64) - codes.low  # each block's class
    sections = blocks.sections
    section_hash = np.add.reduceat(codes.hashes()[code], sections.firsts)
    n_classes, n_ids = sections.classes, sections.ids
    runs = blocks.runs
    starts = runs.starts

    def per_run(per_key: np.ndarray) -> np.ndarray:
        # (A run of several key rows: an id repeated next to itself, a duplicate.)
        return per_key if len(starts) - 1 == len(per_key) else np.add.reduceat(per_key, starts[:-1])

    def positives() -> np.ndarray:
        return np.concatenate(
            [
                truth[first : first + c * n].reshape(c, n).sum(axis=0, dtype=np.int64)
                for first, c, n in zip(sections.starts, n_classes, n_ids, strict=True)
            ]
        )

    per_kind: dict[str, Callable[[], PerRun]] = {
        "rows": lambda: per_run(np.repeat(n_classes, n_ids)),
        "positives": lambda: per_run(positives()),
        "class_hash": lambda: per_run(np.repeat(section_hash, n_ids)),
    }
    per_class = None
    if class_rows is not None:
        bounds = blocks.piece_starts
        counts = np.diff(bounds)[:, None]
        if predicted is not None:
            both = truth & predicted
            each = [
                [np.count_nonzero(marks[a:b]) for marks in (truth, predicted, both)]
                for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
            ]
            counts = np.hstack([counts, np.array(each, np.int64).reshape(-1, 3)])
        # A group's class in several sections has a piece in each: added up.
        span = len(codes.values)
        pair = blocks.piece_segment * span + code[blocks.piece_block]
        pairs, of_pair = np.unique(pair, return_inverse=True)
        table = np.zeros((len(pairs), counts.shape[1]), np.int64)
        np.add.at(table, of_pair, counts)
        per_class = (pairs // span, codes.classes_of(pairs % span), table)
    return _made_tables(
        runs, by, cls, kinds, per_kind, {}, {}, reductions, per_class, class_rows, class_counts
    )
