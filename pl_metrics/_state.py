"""Mergeable metric states: the lazy plan every metric is computed from.

A state is two small tables of sums (and a few minima and maxima):

* ``groups``: one row per group (the ``by`` columns), from one aggregation per id;
* ``classes``: one row per ``(group, class)``, from one aggregation of the rows by class
  (and, for some metrics, of the per-id rows by class).

Each metric family contributes expressions to these aggregations (`Parts`), so a report of
several metrics shares them: the same two aggregations (plus the ranking family's pair
counts) however many metrics are asked for. States of id-disjoint parts of a table merge by
summing (``max_`` and ``min_`` columns by maximum and minimum), and `finalize` turns a state
into the metric values, raising on the data problems counted inside it.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

import numpy as np
import polars as pl

from pl_metrics._frame import (
    CHECK_PREFIX,
    INTERNAL,
    N_IDS,
    Columns,
    MetricsInputError,
    Problem,
    aggregate,
    checked_options,
    duplicate_problem,
    id_problems,
    is_float32s,
    is_past_2_53,
    join_on,
    ordered_sum,
    ordered_sum_of_one,
    raise_on_problems,
    row_check_keys,
    row_problems,
    shown,
    skip_passing,
    sorted_within,
    tasks_hint,
    true_class_checks,
    weight_varies,
)
from pl_metrics._kernel import (
    ClassCodes,
    IdRuns,
    contiguous_runs,
    falling_in_key_order,
    flags,
    key_sorted,
)
from pl_metrics._kernel import available as kernel_available
from pl_metrics._registry import METRICS, ChunkKey, info
from pl_metrics._runs import (
    ClassCounts,
    CurveCounts,
    RunColumns,
    count_kinds,
    per_id_and_classes,
)
from pl_metrics._spec import Options, Spec, Thresholds, check_average, check_average_of

__all__ = [
    "CLASS_ROWS",
    "CURVE_NEG",
    "CURVE_POS",
    "CURVE_SCORE",
    "LWLRAP_WEIGHT",
    "MAX_PREFIX",
    "MIN_PREFIX",
    "N_ROWS",
    "Family",
    "IdsHook",
    "MetricState",
    "Parts",
    "build_state",
    "chunk_key",
    "chunk_key_of",
    "curve_exprs",
    "family_of",
    "merge_states",
    "register",
    "single_class_ids",
    "sums_to_zero",
    "weighs_something",
]

#: State columns merged by maximum (``MIN_PREFIX``: minimum); all others are merged by sum.
MAX_PREFIX = f"{INTERNAL}max_"
#: State columns merged by minimum.
MIN_PREFIX = f"{INTERNAL}min_"
N_ROWS = f"{INTERNAL}n"  # rows of an id (per-id frame)
MAX_ROWS = f"{MAX_PREFIX}rows"  # most rows of any id in the group
CLASS_ROWS = f"{INTERNAL}class_rows"  # rows of a class in the group
CURVE_SCORE = f"{INTERNAL}score"  # the score key of the curves table
CURVE_POS = f"{INTERNAL}pos_w"  # the curves table's weight of positives at the score
CURVE_NEG = f"{INTERNAL}neg_w"  # and of negatives
_N_CLASSES = f"{INTERNAL}n_classes"
_TOTAL_ROWS = f"{INTERNAL}total_rows"
_FEWEST_OF_A_CLASS = f"{INTERNAL}fewest_of_a_class"  # fewest rows of any class in the group
_MOST_OF_A_CLASS = f"{INTERNAL}most_of_a_class"
# Class-set checks: an id has exactly the classes of its group iff it has as many rows and
# the same (wrapping) sum of class hashes. Exact up to 64-bit hash collisions.
_ID_HASH = f"{INTERNAL}id_hash"
_MIN_ROWS = f"{MIN_PREFIX}rows"
_MIN_HASH = f"{MIN_PREFIX}hash"
_MAX_HASH = f"{MAX_PREFIX}hash"
_GROUP_HASH = f"{INTERNAL}group_hash"
_WEIGHTED_IDS = f"{INTERNAL}weighted_ids"  # ids whose weight is not zero
_ID_WEIGHT, _WEIGHT_SUM = f"{INTERNAL}id_weight", f"{INTERNAL}weight_sum"
_ABS_WEIGHT_SUM = f"{INTERNAL}abs_weight_sum"

#: Per id: its weight times its positive labels (lwlrap's weight, before normalising).
LWLRAP_WEIGHT = f"{INTERNAL}lwlrap_weight"

IdsHook = Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]


@dataclass
class Parts:
    """What one metric family adds to the aggregations of a state."""

    id_exprs: list[pl.Expr] = field(default_factory=list)
    id_checks: list[tuple[Problem, pl.Expr]] = field(default_factory=list)
    group_exprs: list[pl.Expr] = field(default_factory=list)
    class_exprs: list[pl.Expr] = field(default_factory=list)
    #: ``(rows, per_id) -> per_id`` with more columns, before the per-group sums.
    extend_ids: list[IdsHook] = field(default_factory=list)
    #: ``(rows, per_id) -> (by..., class, sums)``, joined onto the per-class table.
    class_from_ids: list[IdsHook] = field(default_factory=list)
    #: Aggregations of the rows by ``(by..., class, score)``: the curves table.
    curve_exprs: list[pl.Expr] = field(default_factory=list)
    #: Columns the rows need first (a joined threshold per class), before any aggregation.
    prepare: list[Callable[[pl.LazyFrame], pl.LazyFrame]] = field(default_factory=list)
    #: Per-id columns of a kernel, computed in the pass that counts a DataFrame's per-id
    #: table over its id runs (`pl_metrics._runs`): they stand in for per-id aggregations
    #: (`RunColumns.aggregations`) or for a hook of ``extend_ids`` (`RunColumns.replaces`).
    run_columns: RunColumns | None = None
    #: The ``class_exprs`` as confusion counts of a prediction (or sums of the rows'
    #: weights), which the pass over a DataFrame's id runs counts with the rows per class
    #: (`pl_metrics._runs`).
    class_counts: ClassCounts | None = None


def curve_exprs(cols: Columns) -> list[pl.Expr]:
    """The curves table's sums: the weight of positive and negative rows at each score."""
    truth, weight = cols.truth_expr, cols.weight_expr
    if cols.weight is None:  # counts: twice as fast as summing a filtered constant
        return [
            truth.sum().cast(pl.Float64).alias(CURVE_POS),
            (~truth).sum().cast(pl.Float64).alias(CURVE_NEG),
        ]
    return [
        weight.filter(truth).sum().alias(CURVE_POS),
        weight.filter(~truth).sum().alias(CURVE_NEG),
    ]


class Family:
    """A metric family: its contributions to a state and how to finalize its metrics.

    Subclasses give `parts` and `finalize`; the checks default to none. Which metrics a
    family computes, and their facts, are in the registry (`pl_metrics._registry`).
    """

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options, in_memory: bool) -> Parts:
        """What ``metrics`` add to the state; ``in_memory``: the rows are a DataFrame."""
        raise NotImplementedError

    def finalize(
        self,
        metric: str,
        groups: pl.LazyFrame,
        classes: pl.LazyFrame | None,
        curves: pl.LazyFrame | None,
        cols: Columns,
        opts: Options,
    ) -> pl.LazyFrame:
        raise NotImplementedError

    def group_checks(
        self, metric: str, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.Expr]]:
        """Problems counted on a group's state (as expressions of its columns)."""
        return []

    def table_checks(
        self, metric: str, classes: pl.LazyFrame, cols: Columns, opts: Options
    ) -> list[tuple[Problem, pl.LazyFrame]]:
        """Problems of the whole table, from the per-class table.

        Each a one-row table: the count, then some examples if the problem has them.
        """
        return []

    def result_problems(self, metric: str, cols: Columns, opts: Options) -> list[Problem]:
        """Problems that `finalize` counts in columns of its result (named as the problem)."""
        return []

    def id_values(self, metric: str, cols: Columns, opts: Options) -> list[pl.Expr]:
        """With ``per_id``: the id's value of ``metric`` (named so), from the per-id table.

        Companion columns may follow (lwlrap's weight).
        """
        raise NotImplementedError(metric)

    def has_kernel(self) -> bool:
        """Whether a DataFrame's rows go to a kernel that needs each id's rows together.

        `build_state` then makes them contiguous (sorting only if they are not).
        """
        return False


_FAMILIES: dict[str, Family] = {}


def register(module: str, family: Family) -> None:
    """Make ``family`` compute the registry's metrics of family module ``module``."""
    _FAMILIES[module] = family


@checked_options
def chunk_key(metric: str, *, average: str | None = None) -> ChunkKey:
    """The key that chunks of a table must not split for ``metric``.

    ``"id"`` for metrics that rank or count within an id: each id's rows must be in one
    chunk, and `merge_states` adds such chunks' states exactly. ``"class"`` for those that
    rank or bin ids within a class (ROC AUC, average precision, padded cmAP, the Brier
    score, binary log loss, calibration, the curves and threshold tables): `score()` and
    `pl_metrics.dask.score()` cut them by class and average the chunks' per-class values
    themselves; `merge_states` is for id-disjoint chunks of any metric. Their ``"micro"``
    and ``"samples"`` averages pool the classes, or rank each id's: ``"id"``.

    Parameters
    ----------
    metric
        A metric's name.
    average
        The metric's ``average`` option, if given.

    Returns
    -------
    Literal["id", "class"]
        ``"id"`` or ``"class"``.

    Examples
    --------
    >>> import pl_metrics
    >>> pl_metrics.chunk_key("lwlrap"), pl_metrics.chunk_key("roc_auc")
    ('id', 'class')
    >>> pl_metrics.chunk_key("roc_auc", average="samples")
    'id'
    """
    entry = info(metric)
    if average is not None and not entry.averages:
        raise MetricsInputError(f"option 'average': {metric} takes no average")
    if average is not None:  # (told as the metric tells it)
        check_average(average, entry.averages)
        check_average_of(entry, average)
    return chunk_key_of(metric, average)


def chunk_key_of(metric: str, average: str | None) -> ChunkKey:
    """`chunk_key` of an average checked already (a report's, which some metrics ignore)."""
    return "id" if average in ("micro", "samples") else info(metric).chunk_key


def family_of(metric: str) -> Family:
    """The `Family` that computes ``metric``, its module imported on first use."""
    module = info(metric).module
    if module not in _FAMILIES:  # the family module registers itself when imported
        importlib.import_module(f"pl_metrics.{module}")
    return _FAMILIES[module]


def _same_by_name(exprs: Sequence[pl.Expr]) -> list[pl.Expr]:
    """One expression per output name: families share work by naming it the same.

    Two different expressions under one name would be a bug (one would silently win), so
    that raises here, when the plan is built.
    """
    seen: dict[str, pl.Expr] = {}
    for expr in exprs:
        name = expr.meta.output_name()
        if name not in seen:
            seen[name] = expr
        elif not seen[name].meta.eq(expr):
            raise RuntimeError(
                f"internal error in pl_metrics (a bug, please report it): two metric families "
                f"define the state column {name!r} differently"
            )
    return list(seen.values())


def _id_checks(
    spec: Spec, parts: Sequence[Parts], in_memory: bool
) -> list[tuple[Problem, pl.Expr]]:
    """The checks of an id's rows of the metrics whose checks the state runs, and its own.

    In the order `report` raises them, also where a state checks other metrics than it
    computes (`Options.checks_of`): then the parts of all of them, a family's checks of
    more metrics holding those of fewer.
    """
    cols, opts = spec.columns, spec.options
    if not [m for m in opts.checks_of or () if m not in spec.metrics]:
        return [c for p in parts for c in p.id_checks]
    families: dict[int, tuple[Family, list[str]]] = {}
    for metric in [*(opts.checks_of or ()), *spec.metrics]:
        family = family_of(metric)
        families.setdefault(id(family), (family, []))[1].append(metric)
    checked = [f.parts(ms, cols, opts, in_memory) for f, ms in families.values()]
    return [c for p in checked for c in p.id_checks]


def _same_checks(checks: Sequence[tuple[Problem, pl.Expr]]) -> list[tuple[Problem, pl.Expr]]:
    """Checks of several families, each problem once (see `_same_by_name`).

    A problem that several families check names all their metrics (each family names those
    of its metrics that check it). It names them even where they are all the call asked for:
    a chunked path's state may compute other metrics than the call's, and the message must
    be the same on every path.
    """
    exprs = _same_by_name([e.alias(p.name) for p, e in checks])
    problems: dict[str, Problem] = {}
    for problem, _ in checks:  # the metrics that check it, of every family
        seen = problems.get(problem.name)
        needed_by = (*seen.needed_by, *problem.needed_by) if seen else problem.needed_by
        hints = dict.fromkeys(h for h in (seen.hint if seen else "", problem.hint) if h)
        problems[problem.name] = replace(
            problem, needed_by=tuple(dict.fromkeys(needed_by)), hint="; ".join(hints)
        )
    return [(problems[e.meta.output_name()], e) for e in exprs]


@dataclass(frozen=True, repr=False, eq=False)  # by identity: its tables are frames
class MetricState:
    """The mergeable partial result of one or more metrics over (a part of) a table.

    Make one with `pl_metrics.state`, combine states of id-disjoint parts with `merge` (or
    `pl_metrics.merge_states`), and get the metric values with `finalize`. The tables are
    lazy until `collect` is called; a collected state is small (rows per group and class)
    and can be kept, pickled or sent elsewhere.

    Examples
    --------
    Two parts of one model's predictions, ids apart, scored apart and merged:

    >>> import polars as pl
    >>> import pl_metrics
    >>> knn = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    >>> first = pl_metrics.state(knn.filter(pl.col("id") < 900), "lrap", by="fold")
    >>> first
    MetricState(metrics=['lrap'], by=['fold'], groups=lazy, classes=lazy)
    >>> first = first.collect()
    >>> first
    MetricState(metrics=['lrap'], by=['fold'], groups=5 rows, classes=50 rows)
    >>> rest = pl_metrics.state(knn.filter(pl.col("id") >= 900), "lrap", by="fold").collect()
    >>> first.merge(rest).finalize().collect()
    shape: (5, 2)
    ┌──────┬──────────┐
    │ fold ┆ lrap     │
    │ ---  ┆ ---      │
    │ i8   ┆ f64      │
    ╞══════╪══════════╡
    │ 0    ┆ 0.990278 │
    │ 1    ┆ 0.982454 │
    │ 2    ┆ 0.985887 │
    │ 3    ┆ 0.991876 │
    │ 4    ┆ 0.990065 │
    └──────┴──────────┘
    >>> whole = pl_metrics.lrap(knn, by="fold")  # the same, up to the sums' rounding
    >>> merged = first.merge(rest).finalize().collect()
    >>> bool((merged["lrap"] - whole["lrap"]).abs().max() < 1e-12)
    True
    """

    groups: pl.LazyFrame | pl.DataFrame
    classes: pl.LazyFrame | pl.DataFrame | None
    #: One row per ``(by..., class, score)``: the weights of positives and negatives at each
    #: distinct score, for metrics that rank ids within a class (ROC AUC, AP).
    curves: pl.LazyFrame | pl.DataFrame | None
    spec: Spec
    problems: tuple[Problem, ...]
    #: With ``per_id``: one row per ``(by..., id)``, each metric's value of that id.
    ids: pl.LazyFrame | pl.DataFrame | None = None
    #: Whether the kernels counted every table from a DataFrame's rows: the plans read small
    #: tables only, which the in-memory engine runs faster than the streaming one.
    counted: bool = field(default=False, compare=False)
    #: Merged by the caller (`merge_states`) from parts that may not be id-disjoint: a failed
    #: check of each id's classes says so.
    merged: bool = field(default=False, compare=False)
    #: Whether the tables are plans over a LazyFrame (until collected): each of the
    #: finalizing plan's joins would read it again.
    scans: bool = field(default=False, compare=False)
    #: The LazyFrame whose state this is, until collected: `collect` reads it again, so a
    #: copy of a lazy state with other tables must set it to None.
    source: pl.LazyFrame | None = field(default=None, compare=False, repr=False)
    #: The parts of a merged state, while some part is lazy: `collect` collects them.
    parts: tuple[MetricState, ...] = field(default=(), compare=False, repr=False)
    #: A token of each state made by `build_state` that this one holds (its own, or its
    #: merged parts'): a part given twice, inside a collected or pickled merge too, shows.
    leaves: frozenset[str] = field(
        default_factory=lambda: frozenset({uuid.uuid4().hex}), compare=False, repr=False
    )

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics this state computes."""
        return self.spec.metrics

    @cached_property
    def _schemas(self) -> dict[str, pl.Schema]:
        """Each table's schema, by field name (found once: a merge reads every part's)."""
        tables = {"groups": self.groups, "classes": self.classes, "curves": self.curves}
        tables["ids"] = self.ids
        return {name: t.lazy().collect_schema() for name, t in tables.items() if t is not None}

    def __repr__(self) -> str:
        tables = {
            "groups": self.groups,
            "classes": self.classes,
            "curves": self.curves,
            "ids": self.ids,
        }
        sizes = ", ".join(
            f"{name}={t.height:,} rows" if isinstance(t, pl.DataFrame) else f"{name}=lazy"
            for name, t in tables.items()
            if t is not None
        )
        return f"MetricState(metrics={list(self.metrics)}, by={list(self.columns.by)}, {sizes})"

    @property
    def columns(self) -> Columns:
        """The resolved columns of the table the state was computed from."""
        return self.spec.columns

    @property
    def options(self) -> Options:
        """The options the state was computed with."""
        return self.spec.options

    def collect(self) -> MetricState:
        """Compute the state's tables (the result is small).

        A LazyFrame's state is computed as `pl_metrics.score` computes it: each id-disjoint
        chunk read once. The state's own plan reads the frame once per table and joins the
        tables: a frame that is not the same to the bit on every read (a float sum over a
        window, say) would mix two reads.

        Examples
        --------
        >>> import polars as pl
        >>> import pl_metrics
        >>> lf = pl.scan_parquet("data/digits_oof.parquet")
        >>> pl_metrics.state(lf, ["lrap", "f1"], by="model").collect()
        MetricState(metrics=['lrap', 'f1'], by=['model'], groups=4 rows, classes=40 rows)
        """
        if self.source is not None:
            # Imported here: the driver imports this module.
            from pl_metrics._driver import collected_state

            # (its chunks' states are new: the tokens are this state's, as a part's)
            return replace(collected_state(self.source, self.spec), leaves=self.leaves)
        if self.parts:
            return merge_states([part.collect() for part in self.parts])
        return _collected(self, "in-memory" if self.counted else "streaming")

    def merge(self, *others: MetricState) -> MetricState:
        """The state of the union of id-disjoint parts: sums (and maxima) of the tables.

        As `pl_metrics.merge_states` of this state and ``others``.

        Examples
        --------
        >>> import polars as pl
        >>> import pl_metrics
        >>> df = pl.read_parquet("data/digits_oof.parquet")
        >>> odd, even = (df.filter(pl.col("id") % 2 == k) for k in (1, 0))
        >>> merged = pl_metrics.state(odd, "f1", by="model").merge(
        ...     pl_metrics.state(even, "f1", by="model")
        ... )
        >>> merged.finalize().collect().equals(pl_metrics.f1(df, by="model"))
        True
        """
        return merge_states([self, *others])

    def finalize(self) -> pl.LazyFrame:
        """The metric values: one row per group (or per group and class), checks raised.

        A LazyFrame, whatever the parts were (the state is lazy until collected): call
        ``.collect()`` on it for the table.

        Examples
        --------
        >>> import polars as pl
        >>> import pl_metrics
        >>> df = pl.read_parquet("data/digits_oof.parquet")
        >>> pl_metrics.state(df, "lrap", by="model").finalize().sort("model").collect()
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
        plan = _finalize(self)
        if not self.scans:
            return plan
        # Of a LazyFrame's state, the state is collected first (its tables read the input
        # once each; as one plan, the finalizing joins read it 24 times for four metrics).
        return pl.defer(lambda: _finalize(self.collect()).collect(), schema=plan.collect_schema())

    @property
    def chunk_keys(self) -> dict[str, ChunkKey]:
        """For each metric, the key that parts of the table must not split (see `chunk_key`)."""
        return {m: chunk_key_of(m, self.spec.options.average) for m in self.metrics}


def _collected(state: MetricState, engine: Literal["streaming", "in-memory"]) -> MetricState:
    """The state with its tables collected, each sorted by its keys (later sums in order)."""
    tables = [state.groups, state.classes, state.curves, state.ids]
    done = iter(pl.collect_all([t.lazy() for t in tables if t is not None], engine=engine))
    groups, classes, curves, ids = (
        None if t is None else _in_key_order(next(done), state.spec) for t in tables
    )
    assert groups is not None
    return replace(state, groups=groups, classes=classes, curves=curves, ids=ids, scans=False)


def _in_key_order(df: pl.DataFrame, spec: Spec) -> pl.DataFrame:
    """A collected state table sorted by its keys.

    The groups; then the class (and score, highest first) of the per-class tables, or the id
    of the per-id values.
    """
    cols = spec.columns
    keys = [k for k in [*cols.by, cols.cls, CURVE_SCORE] if k in df.columns]
    if cols.id in df.columns:
        keys = [*cols.by, cols.id]
    if CURVE_SCORE in keys:  # a row per (group, class, score): few groups of many rows
        # Scores highest first, as the metrics read them: the kernel's table comes so.
        ordered = falling_in_key_order(df, keys[:-1], CURVE_SCORE)
        if ordered is not None:
            return ordered
        curves = sorted_within(df.lazy(), keys[:-1], CURVE_SCORE, descending=True, nulls_last=True)
        return curves.collect()
    return df.sort(keys, nulls_last=True, maintain_order=True) if keys else df


#: A merge's column of the rows whose key no other row has.
_ALONE = f"{INTERNAL}alone"


def _merged_value(column: str, *, several: bool) -> pl.Expr:
    """The merge of a state column's values of one key: its max, min or sum in order.

    ``several``: an aggregation over the key's rows; else the value of its one row, as that
    aggregation gives it (`ordered_sum_of_one`).
    """
    value = pl.col(column)
    if column.startswith(MAX_PREFIX):
        return value.max() if several else value
    if column.startswith(MIN_PREFIX):
        return value.min() if several else value
    return ordered_sum(value) if several else ordered_sum_of_one(value)


@checked_options
def merge_states(states: Iterable[MetricState]) -> MetricState:
    """Merge states of id-disjoint parts of a table into the state of the whole.

    Every state must be of the same metrics (in any order: the merge gives the first's),
    columns and options; how each was computed (from a DataFrame, a LazyFrame or files)
    does not matter.

    The parts must not share an id: an id scored whole in two parts is not caught (a state
    keeps sums, not ids; a ``per_id=True`` one keeps ids, and refuses it) and counts twice.
    An id split between parts (some of its classes in each) is refused, by the ragged-table
    check; with ``ragged="allow"``, which turns that check off, cut parts by id, never by
    class.

    Parameters
    ----------
    states
        States of `pl_metrics.state`, or merged ones.

    Returns
    -------
    MetricState
        The state of the parts together; its ``finalize()`` gives the metrics' table.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    >>> halves = [df.filter(pl.col("id") % 2 == k) for k in range(2)]  # id-disjoint
    >>> merged = pl_metrics.merge_states([pl_metrics.state(h, "lrap") for h in halves])
    >>> round(merged.finalize().collect().item(), 6), round(pl_metrics.lrap(df).item(), 6)
    (0.98811, 0.98811)
    """
    if isinstance(states, MetricState):  # merge_states(a): a list was meant
        raise TypeError("merge_states: expected a list of MetricState objects, got one state")
    if not isinstance(states, Iterable):
        raise TypeError(
            f"merge_states: expected a list of MetricState objects, got {shown(states)}"
        )
    states = list(states)  # a generator, say
    if not states:
        raise MetricsInputError("merge_states: no states to merge")
    strangers = sorted({type(s).__name__ for s in states if not isinstance(s, MetricState)})
    if strangers:
        raise TypeError(
            f"merge_states: expected MetricState objects (from pl_metrics.state), got "
            f"{', '.join(strangers)}"
        )
    repeated = len(states) - len({id(s) for s in states})
    if repeated:  # its ids would count twice
        raise MetricsInputError(
            f"merge_states: {repeated} of the states {'is' if repeated == 1 else 'are'} given "
            "twice; the parts must be id-disjoint"
        )
    # A merge of lazy merges takes their parts: merged one at a time, 400 lazy states made
    # 400 levels of plans, each merge slower than the last (210 s in all). Sums come in the
    # same order (each table's rows of a key are added one after the other).
    parts = [part for s in states for part in (s.parts or (s,))]
    # (Before the specs, which tell a class's type less exactly; of the parts, once: a
    # Float64 key's values may be read for it.)
    as_text = _check_key_types(parts)
    first = states[0]
    for other in states[1:]:
        # The same metrics in another order make the same tables (their columns are named,
        # not placed by metric): the merge gives them in the first state's order.
        same_metrics = sorted(other.spec.metrics) == sorted(first.spec.metrics)
        if replace(other.spec, metrics=first.spec.metrics if same_metrics else ()) != first.spec:
            raise MetricsInputError(
                "merge_states: states differ in " + _difference(first.spec, other.spec)
            )
    # A part given twice, alone or inside merges (whose tokens are their parts'), shows as
    # a token counted twice.
    leaves = frozenset().union(*(s.leaves for s in states))
    if len(leaves) < sum(len(s.leaves) for s in states):
        raise MetricsInputError(
            "merge_states: a state is given again, inside a merged one (or as a copy, "
            "pickled); the parts must be id-disjoint"
        )
    states = parts
    first = states[0]
    by = list(first.columns.by)
    eager = all(isinstance(s.groups, pl.DataFrame) for s in states)

    def merged(name: str, keys: list[str]) -> pl.LazyFrame:
        tables = [getattr(s, name) for s in states if name in s._schemas]
        schemas = [s._schemas[name] for s in states if name in s._schemas]
        texts = [k for k in as_text if k in keys]
        # A part whose key is a float counts NaN keys, a check the integer parts lack: it
        # counts none there.
        checks = {
            c: d for schema in schemas for c, d in schema.items() if c.startswith(CHECK_PREFIX)
        }
        stacked = pl.concat(
            [
                t.lazy().with_columns(
                    pl.col(texts).cast(pl.String),
                    *(pl.lit(0, d).alias(c) for c, d in checks.items() if c not in schema),
                )
                for t, schema in zip(tables, schemas, strict=True)
            ],
            how="diagonal_relaxed",
        )
        if keys:  # each key's rows in the order of the states: sums in a fixed order
            stacked = stacked.sort(keys, nulls_last=True, maintain_order=True)
        # The stack's columns, in their order (the stack's own schema would resolve every
        # part's plan again: each merge of a merge one at a time slower than the last).
        columns: dict[str, None] = {}
        for schema in schemas:
            columns |= dict.fromkeys([*schema, *(c for c in checks if c not in schema)])
        values = [c for c in columns if c not in keys]
        exprs = [_merged_value(c, several=True) for c in values]
        if not keys:
            return aggregate(stacked, keys, exprs)
        # Most keys of a curves table (a class's score, a group's under micro averages)
        # come in one part alone: their rows are their own sums. The group_by's sums in
        # order over millions of groups of one row took 14 s and 4.8 GB for a state of
        # 4.75M rows merged from 4 chunks, where scoring them at once took 3 s.
        position = pl.int_range(pl.len())

        def differs(shift: int) -> pl.Expr:  # from the key of the row ``shift`` before
            return pl.any_horizontal(pl.col(k).ne_missing(pl.col(k).shift(shift)) for k in keys)

        opens = (position == 0) | differs(1)
        closes = (position == pl.len() - 1) | differs(-1)
        stacked = stacked.with_columns((opens & closes).alias(_ALONE))
        alone = stacked.filter(_ALONE).select(
            *keys, *(_merged_value(c, several=False) for c in values)
        )
        several = aggregate(stacked.filter(~pl.col(_ALONE)), keys, exprs)
        merged_rows: pl.LazyFrame = pl.concat([several, alone], how="vertical_relaxed")
        return merged_rows

    cols = first.columns
    merged_state = replace(
        first,
        merged=len(states) > 1,
        scans=any(s.scans for s in states),  # a lazy part's tables: collected first
        source=None,
        parts=tuple(states) if any(s.scans for s in states) else (),
        leaves=leaves,
        problems=tuple({p.key: p for s in states for p in s.problems}.values()),
        groups=merged("groups", by),
        classes=None if first.classes is None else merged("classes", [*by, cols.cls]),
        curves=None if first.curves is None else merged("curves", [*by, cols.cls, CURVE_SCORE]),
        # Per-id values of id-disjoint parts: each id in one part, the rows stacked.
        ids=None
        if first.ids is None
        else pl.concat(
            [
                s.ids.lazy()
                .with_columns(pl.col(as_text).cast(pl.String))
                .select(first._schemas["ids"].names())  # (the first's metrics' order)
                for s in states
                if s.ids is not None
            ],
            how="vertical_relaxed",  # keys of two widths, integers beside floats
        ).sort([*by, cols.id], nulls_last=True, maintain_order=True),
    )
    # Eager states merge in the in-memory engine: sums in the states' order, so the same
    # parts give the same bits every time.
    return _collected(merged_state, "in-memory") if eager else merged_state


#: Fields of `Columns` that say how a column was typed, as a user would put it.
_COLUMN_TYPES = {
    "truth_is_bool": ("truth", "boolean", "numbers 0/1"),
    "pred_is_bool": ("pred", "boolean", "numbers 0/1"),
    "score_is_float": ("score", "float", "integer"),
    "class_is_categorical": ("class", "categorical", "not categorical"),
    "class_is_enum": ("class", "enum", "not enum"),
}


#: Fields of `Columns` that name a column, by the option that names it.
_COLUMN_OPTIONS = {
    "id": "id_col",
    "cls": "class_col",
    "score": "score_col",
    "truth": "truth_col",
    "weight": "weight_col",
    "by": "by",
    "pred": "pred_col",
}


def _difference(a: Spec, b: Spec) -> str:
    def shown(value: object) -> str:
        text = repr(value)
        return text if len(text) <= 80 else text[:77] + "..."

    if sorted(a.metrics) != sorted(b.metrics):  # (in another order they merge)
        return f"metrics: {list(a.metrics)} vs {list(b.metrics)}"
    if a.columns != b.columns:
        fields = [
            f
            for f, spec in a.columns.__dataclass_fields__.items()
            if spec.compare and getattr(a.columns, f) != getattr(b.columns, f)
        ]
        typed = [f for f in fields if f in _COLUMN_TYPES or f == "narrow_score"]
        if typed and len(typed) == len(fields):  # the same columns, typed differently
            f = typed[0]
            if f == "narrow_score":
                name = a.columns.score
                types = [str(c.narrow_score or "Float64") for c in (a.columns, b.columns)]
            elif f in ("class_is_categorical", "class_is_enum"):  # an enum is categorical too
                name = a.columns.cls
                types = [
                    "enum"
                    if c.class_is_enum
                    else "categorical"
                    if c.class_is_categorical
                    else "neither categorical nor enum"
                    for c in (a.columns, b.columns)
                ]
            else:
                column, yes, no = _COLUMN_TYPES[f]
                name = getattr(a.columns, "cls" if column == "class" else column)
                types = [yes if getattr(c, f) else no for c in (a.columns, b.columns)]
            return (
                f"the type of column {name!r}: {types[0]} vs {types[1]}; cast it to one "
                "type in every part"
            )
        # Columns named apart: by their options (a column's typing follows from its name).
        named = [f for f in fields if f in _COLUMN_OPTIONS] or fields
        return "columns: " + ", ".join(
            f"{_COLUMN_OPTIONS.get(f, f)} {shown(getattr(a.columns, f))} vs "
            f"{shown(getattr(b.columns, f))}"
            for f in named
        )
    fields = [
        f for f in a.options.__dataclass_fields__ if getattr(a.options, f) != getattr(b.options, f)
    ]
    # Not other metrics' options, set for these (lwlrap's per_class sets average); the
    # options of every metric (ragged, validate) stay.
    taken = {o for m in a.metrics for o in info(m).options}
    others = {o for entry in METRICS.values() for o in entry.options} - taken
    fields = [f for f in fields if f not in others] or fields
    return "options: " + ", ".join(
        _thresholds_difference(getattr(a.options, f), getattr(b.options, f))
        or f"{f} {shown(getattr(a.options, f))} vs {shown(getattr(b.options, f))}"
        for f in fields
    )


def _reads_as_number(text: str | None) -> bool:
    """Whether a threshold table's key, held as text, reads as a number (1, 1e-05, inf)."""
    try:
        float(text or "")
    except ValueError:
        return False
    return True


def _thresholds_difference(a: object, b: object) -> str:
    """Two threshold tables' first difference, or a table beside a number; "" for numbers.

    Their reprs are too long to show, and cut short they look the same.
    """
    if isinstance(a, Thresholds) != isinstance(b, Thresholds):  # a table beside a number
        return "threshold: " + " vs ".join(
            "a table" if isinstance(t, Thresholds) else repr(t) for t in (a, b)
        )
    if not (isinstance(a, Thresholds) and isinstance(b, Thresholds)):
        return ""
    if a.keys != b.keys:
        return f"threshold: tables keyed by {list(a.keys)} vs {list(b.keys)}"
    tables = [dict(zip(t.rows, t.values, strict=True)) for t in (a, b)]
    for key in dict.fromkeys([*a.rows, *b.rows]):
        mine, theirs = (t.get(key) for t in tables)
        if mine != theirs:
            # (Keys are held as text, whatever the column's type: a number is shown bare.)
            where = ", ".join(
                f"{k}={v if _reads_as_number(v) else repr(v)}"
                for k, v in zip(a.keys, key, strict=True)
            )
            missing = " (None: no row)" if None in (mine, theirs) else ""
            return f"threshold: at {where}, {mine} vs {theirs}{missing}"
    return "threshold: the same rows in another order"


def _check_key_types(states: Sequence[MetricState]) -> list[str]:
    """The parts' class, ``by`` and id columns have one type: the merge compares their values.

    (An Int64 class beside a String one hashes differently, so the merged checks would
    report ids repeating classes; groups' enums of other categories do not sort as one;
    per-id ids of integers beside text would sort as text.)
    Returns the keys (groups', per-id ids) that are text of several kinds (String,
    categorical, enum): they stack as String.
    """
    cols = states[0].columns

    def key_types(state: MetricState) -> dict[str, pl.DataType]:
        found: dict[str, pl.DataType] = {}
        for schema in state._schemas.values():
            found |= {k: schema[k] for k in (*cols.by, cols.cls, cols.id) if k in schema}
        return found

    def text(dtype: pl.DataType) -> bool:
        return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))

    def mixed(a: pl.DataType, b: pl.DataType) -> bool:
        """Integers beside floats: as floats, two integers past 2**53 may be one value."""
        return (a.is_integer() and b.is_float()) or (a.is_float() and b.is_integer())

    def same(name: str, a: pl.DataType, b: pl.DataType) -> bool:
        """Whether the parts' values of the column stack and compare as one type."""
        if a == b or (a.is_integer() and b.is_integer()):  # integers hash alike at any width
            return True
        if name == cols.cls:  # classes are hashed as typed
            return False
        if name != cols.id and isinstance(a, pl.Enum) and isinstance(b, pl.Enum):
            return False  # groups' enums of other categories do not sort as one (ids: text)
        if a.is_float() and b.is_float():  # a Float32 0.1 widens to 0.10000000149011612
            return {a, b} == {pl.Float32(), pl.Float64()} and all(
                _key_values(states, name, lambda t: t == pl.Float64, is_float32s(name))
            )
        if mixed(a, b):
            return not any(_key_values(states, name, lambda t: t.is_integer(), is_past_2_53(name)))
        # Group keys stack widened: numbers as numbers, text as text.
        return (a.is_numeric() and b.is_numeric()) or (text(a) and text(b))

    first = key_types(states[0])
    as_text = set()
    for state in states[1:]:
        for name, dtype in key_types(state).items():
            if name in first and not same(name, first[name], dtype):
                why = ", with integers past 2**53 (as floats, two could be one value)"
                raise MetricsInputError(
                    f"merge_states: the type of column {name!r}: {_type_text(first[name])} vs "
                    f"{_type_text(dtype)}{why if mixed(first[name], dtype) else ''}; cast it "
                    "to one type in every part"
                )
            if name in first and dtype != first[name] and text(dtype):
                as_text.add(name)
    return sorted(as_text)


def _key_values(
    states: Sequence[MetricState], name: str, typed: Callable[[pl.DataType], bool], test: pl.Expr
) -> Iterator[bool]:
    """A one-value ``test`` of key ``name``, of each of the states' tables typing it so.

    `is_past_2_53` of integer keys, `is_float32s` of Float64 ones: a lazy state's tables
    are read for it, one at a time, as far as the caller's ``any`` or ``all`` goes.
    """
    for state in states:
        for table, schema in state._schemas.items():
            if name in schema and typed(schema[name]):
                yield bool(getattr(state, table).lazy().select(test).collect().item())


def _type_text(dtype: pl.DataType) -> str:
    """``dtype`` in a message: an enum of many categories by their count, not each."""
    text = str(dtype)
    if isinstance(dtype, pl.Enum) and len(text) > 80:
        return f"Enum of {len(dtype.categories):,} categories"
    return text


def build_state(frame: pl.DataFrame | pl.LazyFrame, spec: Spec) -> MetricState:
    """The lazy state of ``spec`` over ``frame``: two aggregations sharing one input.

    A DataFrame's rows are in memory: families with an in-memory kernel use it on them.
    """
    cols, opts = spec.columns, spec.options
    in_memory = isinstance(frame, pl.DataFrame)
    lf = frame.lazy()
    by = list(cols.by)
    families: dict[int, tuple[Family, list[str]]] = {}
    for metric in spec.metrics:
        family = family_of(metric)
        families.setdefault(id(family), (family, []))[1].append(metric)
    parts = [family.parts(ms, cols, opts, in_memory) for family, ms in families.values()]
    runs = None
    if isinstance(frame, pl.DataFrame) and any(f.has_kernel() for f, _ in families.values()):
        # A kernel needs each id's rows together; sorted once here, they also make the
        # per-id aggregation several times faster than over scattered ids.
        # Scattered groups stay (their classes counted per group) unless the curves table,
        # counted per segment, is asked for.
        per_segment = any(p.curve_exprs for p in parts)
        frame, runs = contiguous_runs(frame, by, cols.id, cols.cls, scattered=not per_segment)
        lf = frame.lazy()
    prepared = [f for p in parts for f in p.prepare]
    for prepare in prepared:
        lf = prepare(lf)

    checks: list[tuple[Problem, pl.Expr]] = []
    # Every id must have every class: duplicates show in the class hashes, which cost much
    # less than a distinct count per id. Ragged input allowed: count distinct classes.
    hashed = opts.checks_classes
    if opts.validate:
        checks = row_problems(cols) + id_problems(cols, count_duplicates=not hashed)
        checks = _same_checks([*checks, *_id_checks(spec, parts, in_memory)])
        if isinstance(frame, pl.DataFrame):
            # Also the families' checks of rows (scores outside [0, 1], say): a count per id
            # that is not one of the kernel's would send the rows to the polars plan.
            checks = skip_passing(frame, checks)
    id_exprs = [pl.len().alias(N_ROWS), *(e for p in parts for e in p.id_exprs)]
    id_exprs += [expr for _, expr in checks]
    if hashed:
        id_exprs.append(cols.class_hash.sum().alias(_ID_HASH))
    weighted = bool(_refusing_zero_weights(spec))
    summed = bool(_refusing_zero_sums(spec))
    if weighted:  # groups whose weights are all zero, or sum to zero (`_finalize`)
        id_exprs.append((cols.weight_expr.first() != 0).cast(pl.Int64).alias(_WEIGHTED_IDS))
    if summed:
        id_exprs.append(cols.weight_expr.first().cast(pl.Float64).alias(_ID_WEIGHT))
    id_exprs = _same_by_name(id_exprs)
    group_exprs = [
        pl.len().alias(N_IDS),
        pl.col(N_ROWS).max().alias(MAX_ROWS),
        *(pl.col(problem.name).sum() for problem, _ in checks),
        *(e for p in parts for e in p.group_exprs),
    ]
    if weighted:
        group_exprs.append(pl.col(_WEIGHTED_IDS).sum())
    if summed:
        group_exprs.append(ordered_sum(pl.col(_ID_WEIGHT)).alias(_WEIGHT_SUM))
        group_exprs.append(ordered_sum(pl.col(_ID_WEIGHT).abs()).alias(_ABS_WEIGHT_SUM))
    if hashed:
        group_exprs += [
            pl.col(N_ROWS).min().alias(_MIN_ROWS),
            pl.col(_ID_HASH).min().alias(_MIN_HASH),
            pl.col(_ID_HASH).max().alias(_MAX_HASH),
        ]
    group_exprs = _same_by_name(group_exprs)
    class_exprs = _same_by_name([e for p in parts for e in p.class_exprs])
    from_ids = [f for p in parts for f in p.class_from_ids]
    # Ragged input and duplicates are found from the per-class row counts.
    need_classes = bool(class_exprs) or hashed or bool(from_ids)
    curve_exprs = _same_by_name([e for p in parts for e in p.curve_exprs])
    per_id, counted_classes, groups, curves = None, None, None, None
    reads_rows = True  # whether polars aggregates some table from the rows
    run_columns = [p.run_columns for p in parts if p.run_columns is not None]
    weights = None
    if in_memory and cols.weight is not None and kernel_available():
        weights = _weight_run_columns(cols)
    candidates = run_columns if weights is None else [*run_columns, weights]
    kinds = count_kinds(id_exprs, _count_templates(cols, candidates))
    if weights is not None and kinds and set(kinds.values()) & set(weights.templates()):
        run_columns.append(weights)  # (counted only where some per-id column reads it)
    extends = [f for p in parts for f in p.extend_ids]
    if isinstance(frame, pl.DataFrame) and kernel_available() and not prepared and kinds:
        # Counts only (the usual report): one pass of the kernel over the id runs, which
        # also counts the rows per class and the confusion counts, if those are all.
        counts = [p.class_counts for p in parts if p.class_counts is not None]
        names = {e.meta.output_name() for e in class_exprs}
        class_counts = counts[0] if len(counts) == 1 and names == set(counts[0].cells) else None
        counted = not class_exprs or class_counts is not None
        # The run columns come in the table; other families may extend it.
        replaced = [p.run_columns.replaces for p in parts if p.run_columns is not None]
        extends = [f for p in parts for f in p.extend_ids if all(f is not r for r in replaced)]
        only_groups = not extends and not from_ids and not opts.per_id
        counted_curves = None
        if curve_exprs:  # the pass counts them too
            assert cols.score is not None
            weight = None if cols.weight is None else cols.weight_expr
            counted_curves = CurveCounts(
                cols.score, CURVE_SCORE, CURVE_POS, CURVE_NEG, curve_exprs, weight
            )
        tables = per_id_and_classes(
            lf,
            by,
            cols.id,
            cols.cls,
            cols.truth_expr,
            id_exprs,
            kinds,
            CLASS_ROWS if need_classes and counted else None,
            run_columns,
            class_counts,
            class_exprs,
            runs,
            group_exprs if only_groups else None,
            counted_curves,
        )
        per_id, counted_classes, groups, curves = tables
        reads_rows = bool(
            (groups is None and (per_id is None or extends))
            or (need_classes and (counted_classes is None or from_ids))
            or (curve_exprs and curves is None)
        )
    if groups is None:
        if per_id is None:
            per_id = lf.group_by([*by, cols.id]).agg(id_exprs)
        # Cached: the ranking family reads it twice (before and after joining pair counts),
        # and it must be computed once. It is small: one row per id.
        per_id = per_id.cache()
        for extend in extends:
            per_id = extend(lf, per_id)
        # A fixed order of the ids, so that the groups' float sums are the same on every run.
        per_id = per_id.sort([*by, cols.id], nulls_last=True)
        groups = aggregate(per_id, by, group_exprs)
    classes = counted_classes
    if need_classes:
        keys = [*by, cols.cls]
        if classes is None:
            classes = lf.group_by(keys).agg(pl.len().alias(CLASS_ROWS), *class_exprs)
        for make in from_ids:
            assert per_id is not None  # the per-id table was asked for (see only_groups)
            extra = make(lf, per_id)
            added = [c for c in extra.collect_schema() if c not in keys]
            classes = classes.join(extra, on=keys, how="left", nulls_equal=True).with_columns(
                pl.col(added).fill_null(0)
            )
    if curve_exprs and curves is None:
        assert cols.score is not None
        curves = lf.group_by([*by, cols.cls, pl.col(cols.score).alias(CURVE_SCORE)]).agg(
            curve_exprs
        )
        if in_memory:
            # The weights of tied scores summed as the in-memory engine does, a group's rows
            # in order: the streaming one adds a group's parts in whichever order its
            # threads finish, which changed the last bits from run to run. In blocks, each
            # (group, class)'s scores highest first, as the kernel's table comes: the metrics
            # read it so (unsorted, weighted ROC AUC of 5M rows looked for blocks, then fell
            # back to a plan that sorted it: 2.1 s).
            keys = [*by, cols.cls]
            curves = sorted_within(curves, keys, CURVE_SCORE, descending=True, nulls_last=True)
            curves = curves.collect(engine="in-memory").lazy()
    ids = None
    if opts.per_id:
        assert per_id is not None
        values = [e for m in spec.metrics for e in family_of(m).id_values(m, cols, opts)]
        ids = per_id.select(*by, cols.id, *_same_by_name(values))
    return MetricState(
        groups=groups,
        classes=classes,
        curves=curves,
        spec=spec,
        problems=tuple(p for p, _ in checks),
        ids=ids,
        counted=not reads_rows,
        scans=not in_memory,
        source=None if in_memory else frame.lazy(),
    )


def single_class_ids() -> pl.Expr:
    """The ids of a group that have one row (class) each: all of them, if its largest has one."""
    return pl.when(pl.col(MAX_ROWS) < 2).then(pl.col(N_IDS).cast(pl.Int64)).otherwise(0)


#: The kernel's count of each check of `true_class_checks`, by the check's key.
_TRUE_CLASS_KINDS = {"no_true_class": "no_positive", "several_true_classes": "several_positives"}


def _count_templates(cols: Columns, run_columns: Sequence[RunColumns]) -> dict[str, pl.Expr]:
    """The per-id columns `pl_metrics._runs` can count, as the expressions families use.

    With the aggregations of the kernels' ``run_columns``.
    """
    templates = {
        "rows": pl.len(),
        "positives": cols.truth_expr.sum().cast(pl.Int64),
        # (The single-label families' checks: ids without a true class, or with several.)
        **{_TRUE_CLASS_KINDS[problem.key]: expr for problem, expr in true_class_checks(cols)},
        "class_hash": cols.class_hash.sum(),
    }
    if cols.weight is None:
        templates["unit_weight"] = cols.weight_expr.first()
    for run_column in run_columns:
        templates |= run_column.templates()
    return templates


_RUN_WEIGHT = f"{INTERNAL}run_weight"  # the weight column, as given, for the kernel


def _weight_run_columns(cols: Columns) -> RunColumns:
    """Each id's weight, as the families and checks read it, over its run of rows.

    So that weighted reports too take the counts pass, not the per-id aggregation. The
    weight is an id's first row's; it varies if some row's differs from the row before's
    within the run (as its maximum differs from its minimum). Null and NaN weights take
    the aggregation.
    """
    assert cols.weight is not None
    first = cols.weight_expr.first()
    varies = weight_varies(cols.weight)  # (the check's expression: the kernel stands in)
    named = {
        f"{INTERNAL}run_w": first,
        f"{INTERNAL}run_w_nonzero": (first != 0).cast(pl.Int64),
        f"{INTERNAL}run_w_float": first.cast(pl.Float64),
        f"{INTERNAL}run_w_varies": varies,
    }

    def over_runs(
        df: pl.DataFrame, runs: IdRuns, truth: np.ndarray, classes: ClassCodes
    ) -> dict[str, np.ndarray] | None:
        weights, starts = df[_RUN_WEIGHT], runs.starts
        n_runs = len(starts) - 1
        if (
            not n_runs
            or weights.null_count()
            or (weights.dtype.is_float() and weights.is_nan().any())
        ):
            return None
        firsts = weights.gather(starts[:-1]).cast(pl.Float64).to_numpy()
        # The rows whose weight is not the row before's, but for those that start a run.
        changed = flags(weights.slice(1) != weights.slice(0, len(weights) - 1))
        changed[starts[1:-1] - 1] = False
        rows = np.flatnonzero(changed) + 1
        vary = np.zeros(n_runs, np.int64)
        vary[np.searchsorted(starts, rows, side="right") - 1] = 1
        values = [firsts, (firsts != 0).astype(np.int64), firsts, vary]
        return dict(zip(named, values, strict=True))

    aggregations = [e.alias(name) for name, e in named.items()]
    inputs = [pl.col(cols.weight).alias(_RUN_WEIGHT)]
    return RunColumns(inputs, pl.Schema(), over_runs, aggregations=aggregations)


#: The advice of a failed check of an id's classes in a state the caller merged.
_MERGED_HINT = (
    "this state is merged from parts, which must be id-disjoint: parts cut by class, or an "
    "id in two parts, look so (cut the parts by id, e.g. by a hash of it)"
)


def _class_set_checks(
    cols: Columns, *, merged: bool, fold_col: str | None
) -> list[tuple[Problem, pl.Expr]]:
    """Duplicate and missing ``(id, class)`` rows, from the group's sums over classes.

    ``merged``: the state is the caller's merge of parts, which may not be id-disjoint.
    ``fold_col``: the column of folds a metric tunes over (one of ``by``).
    """
    # Counts are unsigned: subtract as signed integers.
    expected = pl.col(N_IDS).cast(pl.Int64) * pl.col(_N_CLASSES).cast(pl.Int64)
    total = pl.col(_TOTAL_ROWS).cast(pl.Int64)
    same_sets = (
        (pl.col(_MIN_ROWS) == pl.col(_N_CLASSES))
        & (pl.col(MAX_ROWS) == pl.col(_N_CLASSES))
        & (pl.col(_MIN_HASH) == pl.col(_GROUP_HASH))
        & (pl.col(_MAX_HASH) == pl.col(_GROUP_HASH))
    )
    ragged = Problem(
        "ragged",
        cols.cls,
        "(id, class) rows",
        "are missing: some ids lack a class that other ids of their group have (ragged input)",
        "pass ragged='allow' to use the rows present (a missing cell is neither a positive "
        "nor a negative)",
    )
    mixed = Problem(
        "class_sets",
        cols.cls,
        "groups",
        "have ids that repeat a class and ids that lack one (or ids that do both)",
        "each id needs one row per class",
    )
    duplicate = duplicate_problem(cols)
    if merged:  # ragged='allow' on class-disjoint parts would give a wrong number
        duplicate, mixed = (
            replace(p, hint=f"{p.hint}; or {_MERGED_HINT}") for p in (duplicate, mixed)
        )
        # (An id in several parts counts in each: the count may pass the table's rows.)
        ragged = replace(
            ragged,
            text=ragged.text.replace(
                "are missing:", "are missing, each part's ids counted in that part:", 1
            ),
            hint=f"{_MERGED_HINT}; if ids do lack classes, {ragged.hint}",
        )
    elif fold_col is not None:
        # Out-of-fold tuning groups by the fold too: an id with rows in two folds is split.
        ragged = replace(
            ragged,
            hint=f"an id is in one fold: if option 'fold_col' ({fold_col!r}) differs between "
            f"the classes of an id, fix that column; if ids do lack classes, {ragged.hint}",
        )
    elif named := [repr(b) for b in cols.by if not b.startswith(INTERNAL)]:
        # An id split over groups lacks classes in each.
        split = named[0] if len(named) == 1 else f"one of {', '.join(named)}"
        ragged = replace(
            ragged,
            hint=f"{ragged.hint}; or, if {split} differs between the classes of one id's "
            "prediction (its rows then split over groups), fix that column",
        )
    # Tasks of their own classes told before ragged='allow', which would pool them.
    if not merged and fold_col is None and (tasks := tasks_hint(cols)):
        ragged = replace(ragged, hint=f"{tasks}; if ids do lack classes, {ragged.hint}")
        mixed = replace(mixed, hint=f"{mixed.hint}; {tasks}")
    # Rows missing beside rows repeated: the totals' difference is neither (2 missing and 1
    # repeated net to "1 missing"), so such a group is told as one of both. An id of too
    # few rows lacks a class, and so does some id where a class has fewer rows than the
    # group has ids (an id may repeat one class and lack another); too many, the same.
    n_ids = pl.col(N_IDS).cast(pl.Int64)
    lacks = (pl.col(_MIN_ROWS) < pl.col(_N_CLASSES)) | (pl.col(_FEWEST_OF_A_CLASS) < n_ids)
    repeats = (pl.col(MAX_ROWS) > pl.col(_N_CLASSES)) | (pl.col(_MOST_OF_A_CLASS) > n_ids)
    both = lacks & repeats
    return [
        (duplicate, pl.when(both).then(0).otherwise(total - expected).clip(lower_bound=0)),
        (ragged, pl.when(both).then(0).otherwise(expected - total).clip(lower_bound=0)),
        (mixed, (both | ((total == expected) & ~same_sets)).cast(pl.Int64)),
    ]


def weighs_something() -> pl.Expr:
    """Whether a score of the curves table has ids of some weight.

    Its positives' or negatives' weight is not 0; scikit-learn drops rows of weight 0.
    """
    return (pl.col(CURVE_POS) != 0) | (pl.col(CURVE_NEG) != 0)


def sums_to_zero(total: pl.Expr, magnitude: pl.Expr) -> pl.Expr:
    """Weights summing to zero, up to rounding: chunks' sums cancel in another order."""
    return total.abs() <= 1e-12 * magnitude


def _refusing_zero_weights(spec: Spec) -> list[str]:
    """The metrics of ``spec`` that a group of all-zero weights makes an error, if checked.

    None for per-id values, which do not depend on the weights.
    """
    if not spec.options.validate or spec.columns.weight is None or spec.options.per_id:
        return []
    checked = spec.options.checks_of
    return [
        m for m in (spec.metrics if checked is None else checked) if info(m).zero_weights != "nan"
    ]


def _refusing_zero_sums(spec: Spec) -> list[str]:
    """The metrics of ``spec`` that a group whose weights sum to zero makes an error."""
    return [m for m in _refusing_zero_weights(spec) if info(m).zero_weights == "sum"]


def _finalize(state: MetricState) -> pl.LazyFrame:
    cols, opts, by = state.columns, state.options, list(state.columns.by)
    groups = state.groups.lazy()
    classes = None
    if state.classes is not None:  # in a fixed order, for the sums over classes
        classes = state.classes.lazy().sort([*by, cols.cls], nulls_last=True)
    problems = list(state.problems)
    nan_by = [p for p in problems if p.key.startswith("nan_key_") and p.column in by]
    if nan_by:  # before any join on the groups: NaN keys need not match there
        groups = raise_on_problems(groups, nan_by, by, keep=True)

    if opts.checks_classes:
        assert classes is not None
        stats = aggregate(
            classes,
            by,
            [
                pl.len().alias(_N_CLASSES),
                pl.col(CLASS_ROWS).sum().alias(_TOTAL_ROWS),
                pl.col(CLASS_ROWS).min().cast(pl.Int64).alias(_FEWEST_OF_A_CLASS),
                pl.col(CLASS_ROWS).max().cast(pl.Int64).alias(_MOST_OF_A_CLASS),
                cols.class_hash.sum().alias(_GROUP_HASH),  # wraps around, as the ids' do
            ],
        )
        class_sets = _class_set_checks(cols, merged=state.merged, fold_col=opts.fold_col)
        groups = join_on(groups, stats, by).with_columns([e.alias(p.name) for p, e in class_sets])
        # Bad rows first, then the table's shape (duplicate or missing rows), then the rest:
        # a repeated (id, class) is named as such, not as an id with two true classes.
        row_checks = row_check_keys(cols)
        rows = [p for p in problems if p.key in row_checks]
        rest = [p for p in problems if p.key not in row_checks]
        problems = [*rows, *(p for p, _ in class_sets), *rest]
    refusing = _refusing_zero_weights(state.spec)
    if refusing and cols.weight is not None:  # (refusing implies a weight column)
        # As scikit-learn, which refuses weights that are all zero (LRAP gives NaN).
        zero = Problem(
            "all_zero_weights",
            cols.weight,
            "groups",
            "have weights that are all zero",
            f"{', '.join(refusing)} {'is' if len(refusing) == 1 else 'are'} undefined there",
        )
        groups = groups.with_columns((pl.col(_WEIGHTED_IDS) == 0).cast(pl.Int64).alias(zero.name))
        problems.append(zero)
    summing = _refusing_zero_sums(state.spec)
    if summing:  # negative weights (all zero is the problem above)
        zero_sum = Problem(
            "zero_weight_sum",
            cols.weight or cols.id,
            "groups",
            "have weights that sum to zero",
            f"{', '.join(summing)} {'is' if len(summing) == 1 else 'are'} undefined there",
        )
        undefined = sums_to_zero(pl.col(_WEIGHT_SUM), pl.col(_ABS_WEIGHT_SUM)) & (
            pl.col(_WEIGHTED_IDS) > 0
        )
        groups = groups.with_columns(undefined.cast(pl.Int64).alias(zero_sum.name))
        problems.append(zero_sum)
    if state.ids is not None and state.merged and opts.validate:  # (sums cannot tell it)
        shared = Problem(
            "ids_in_several_parts",
            cols.id,
            "ids",
            "are in several of the merged parts",
            "the parts must be id-disjoint",
        )
        id_col = pl.col(cols.id)
        repeated = id_col.filter(id_col.is_duplicated()).n_unique().cast(pl.Int64)
        groups = join_on(groups, aggregate(state.ids.lazy(), by, [repeated.alias(shared.name)]), by)
        problems.append(shared)
    group_checks = {
        p.key: (p, e) for m in state.metrics for p, e in family_of(m).group_checks(m, cols, opts)
    }
    groups = groups.with_columns([e.alias(p.name) for p, e in group_checks.values()])
    problems += [p for p, _ in group_checks.values()]
    checks = groups.select([*by, N_IDS, *(p.name for p in problems)])
    if classes is not None:
        for metric in state.metrics:
            for problem, count in family_of(metric).table_checks(metric, classes, cols, opts):
                # (A count, then the examples when the problem has them.)
                named = [problem.name, problem.examples_name][: 1 + problem.examples]
                checks = join_on(
                    checks, count.rename(dict(zip(count.collect_schema(), named, strict=True))), []
                )
                problems.append(replace(problem, whole_table=True))

    keys = state.spec.keys
    curves = state.curves.lazy() if state.curves is not None else None
    results, result_problems = [], []
    if state.ids is not None:  # per id: the values as they are, after the same checks
        results.append(_per_id_values(state))
    for metric in state.metrics if state.ids is None else ():
        family = family_of(metric)
        results.append(family.finalize(metric, groups, classes, curves, cols, opts))
        # Problems found while finalizing (an undefined ROC AUC) raise after the data checks.
        result_problems += family.result_problems(metric, cols, opts)
    out = results[0]
    for result in results[1:]:
        out = join_on(out, result, keys) if keys else out.join(result, how="cross")
    result_by = [b for b in by if b != opts.fold_col]
    if result_by != by:  # tuned over folds: the folds' checks add up into the result's groups
        checks = aggregate(checks, result_by, _over_folds(checks, by, problems))
    out = raise_on_problems(
        join_on(out, checks, result_by), [*problems, *result_problems], result_by
    )
    if keys and any(m in _CURVE_TABLES for m in state.metrics):  # a row per score: in blocks
        return key_sorted(out, keys, nulls_last=True)
    return out.sort(keys, nulls_last=True, maintain_order=True) if keys else out


#: Metrics whose results have a row per class and score (`pl_metrics._curve_tables`).
_CURVE_TABLES = ("roc_curve", "precision_recall_curve")


def _over_folds(checks: pl.LazyFrame, by: list[str], problems: list[Problem]) -> list[pl.Expr]:
    """The checks' counts per fold, as counts of the groups the folds make up.

    Rows and ids add up. A problem of groups is one of the result's groups if it is so in
    some fold, or, for weights that are all zero (or sum to zero), in every fold: a fold of
    zero weight adds nothing to the held-out counts, and the other folds tune its
    thresholds. A count over the whole table is the same on every fold's row.
    """
    counted = {p.name: p for p in problems}
    exprs = []
    for name in checks.collect_schema():
        problem = counted.get(name)
        if name in by:
            continue
        if problem is not None and problem.key in ("all_zero_weights", "zero_weight_sum"):
            exprs.append(pl.col(name).min())
        elif problem is not None and (problem.whole_table or problem.unit.startswith("groups")):
            exprs.append(pl.col(name).max())
        else:
            exprs.append(pl.col(name).sum())
    return exprs


def _per_id_values(state: MetricState) -> pl.LazyFrame:
    """The per-id table: ``(by..., id, metric...)``; lwlrap's ids also get their ``weight``.

    An id's lwlrap weight is its share of the group's (weighted) positive labels, so that
    ``sum(lwlrap * weight)`` over the ids of a group is the group's lwlrap.
    """
    assert state.ids is not None
    cols, by = state.columns, list(state.columns.by)
    ids = state.ids.lazy()
    names = list(state.metrics)
    if LWLRAP_WEIGHT in ids.collect_schema():
        total = pl.col(LWLRAP_WEIGHT).sum()
        share = pl.col(LWLRAP_WEIGHT) / (total.over(by) if by else total)
        ids = ids.with_columns(share.alias("weight"))
        names.insert(names.index("lwlrap") + 1, "weight")  # (beside it, as per class)
    return ids.select(*by, cols.id, *names)
