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

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import polars as pl

from pl_metrics._counts import check_zero_division
from pl_metrics._frame import (
    INTERNAL,
    N_IDS,
    Columns,
    MetricsInputError,
    Problem,
    Ragged,
    aggregate,
    check_option,
    contiguous,
    duplicate_problem,
    id_problems,
    join_on,
    raise_on_problems,
    row_problems,
    skip_passing,
)

__all__ = [
    "CURVE_SCORE",
    "MAX_PREFIX",
    "Family",
    "MetricState",
    "Options",
    "Parts",
    "build_state",
    "chunk_key",
    "make_options",
    "merge_states",
    "metric_names",
    "register",
]

#: State columns merged by maximum (``MIN_PREFIX``: minimum); all others are merged by sum.
MAX_PREFIX = f"{INTERNAL}max_"
#: State columns merged by minimum.
MIN_PREFIX = f"{INTERNAL}min_"
N_ROWS = f"{INTERNAL}n"  # rows of an id (per-id frame)
MAX_ROWS = f"{MAX_PREFIX}rows"  # most rows of any id in the group
CLASS_ROWS = f"{INTERNAL}class_rows"  # rows of a class in the group
CURVE_SCORE = f"{INTERNAL}score"  # the score key of the curves table
_N_CLASSES = f"{INTERNAL}n_classes"
_TOTAL_ROWS = f"{INTERNAL}total_rows"
# Class-set checks: an id has exactly the classes of its group iff it has as many rows and
# the same (wrapping) sum of class hashes. Exact up to 64-bit hash collisions.
_ID_HASH = f"{INTERNAL}id_hash"
_MIN_ROWS = f"{MIN_PREFIX}rows"
_MIN_HASH = f"{MIN_PREFIX}hash"
_MAX_HASH = f"{MAX_PREFIX}hash"
_GROUP_HASH = f"{INTERNAL}group_hash"

Average = Literal["macro", "micro", "weighted", "samples"] | None
#: ROC AUC of a class without positives or negatives: refuse, or leave it out.
Undefined = Literal["error", "skip"]


@dataclass(frozen=True)
class Options:
    """Metric options that shape a state (a state is only merged with an equal one)."""

    threshold: float = 0.5
    average: Average = "macro"
    zero_division: float = 0.0
    eps: float = 1e-15
    class_weights: tuple[tuple[str, float], ...] | None = None
    per_class: bool = False
    ragged: Ragged = "error"
    validate: bool = True
    top_k: int = 1
    padding: int = 5
    undefined: Undefined = "error"


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


class Family:
    """A metric family: its contributions to a state and how to finalize its metrics.

    Subclasses give `parts` and `finalize`; the checks and the per-class flag default to
    none and no.
    """

    def parts(self, metrics: Sequence[str], cols: Columns, opts: Options) -> Parts:
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
        """Problems of the whole table (one-row counts), from the per-class table."""
        return []

    def per_class(self, metric: str, opts: Options) -> bool:
        """Whether ``metric`` gives one row per class with these options."""
        return False

    def has_kernel(self) -> bool:
        """Whether rows in memory (a DataFrame) are scored faster than by the streaming plan."""
        return False


_FAMILIES: dict[str, Family] = {}
_CHUNK_KEYS: dict[str, str] = {}


def register(metrics: Sequence[str], family: Family, chunk: str = "id") -> None:
    """Make ``metrics`` computable by ``family``; ``chunk`` is the key parts must not split."""
    for metric in metrics:
        _FAMILIES[metric] = family
        _CHUNK_KEYS[metric] = chunk


def metric_names() -> list[str]:
    """The names of every metric that `report`, `state` and `score` accept."""
    return sorted(_FAMILIES)


def chunk_key(metric: str) -> str:
    """The key that chunks of a table must not split for ``metric``'s states to merge exactly.

    ``"id"`` for every metric here: each id's rows must be in one chunk (the ranking family
    ranks within an id). Metrics that rank across ids within a class would say ``"class"``.
    """
    _family(metric)
    return _CHUNK_KEYS[metric]


def has_kernel(metric: str) -> bool:
    """Whether ``metric`` runs faster over rows read into memory first (see `Family`)."""
    return _family(metric).has_kernel()


def _family(metric: str) -> Family:
    if metric not in _FAMILIES:
        raise MetricsInputError(
            f"unknown metric {metric!r}; expected one of {', '.join(sorted(_FAMILIES))}"
        )
    return _FAMILIES[metric]


def _unique_by_name(exprs: Sequence[pl.Expr]) -> list[pl.Expr]:
    """Drop expressions whose output name an earlier one already has (shared work)."""
    seen: dict[str, pl.Expr] = {}
    for expr in exprs:
        seen.setdefault(expr.meta.output_name(), expr)
    return list(seen.values())


@dataclass(frozen=True)
class MetricState:
    """The mergeable partial result of one or more metrics over (a part of) a table.

    Make one with `pl_metrics.state`, combine states of id-disjoint parts with `merge` (or
    `pl_metrics.merge_states`), and get the metric values with `finalize`. The tables are
    lazy until `collect` is called; a collected state is small (rows per group and class)
    and can be kept, pickled or sent elsewhere.
    """

    groups: pl.LazyFrame | pl.DataFrame
    classes: pl.LazyFrame | pl.DataFrame | None
    #: One row per ``(by..., class, score)``: the weights of positives and negatives at each
    #: distinct score, for metrics that rank ids within a class (ROC AUC, AP).
    curves: pl.LazyFrame | pl.DataFrame | None
    metrics: tuple[str, ...]
    columns: Columns
    options: Options
    problems: tuple[Problem, ...]

    def collect(self) -> MetricState:
        """Compute the state's tables (runs the state plan; the result is small)."""
        tables = [self.groups, self.classes, self.curves]
        present = [t.lazy() for t in tables if t is not None]
        done = iter(pl.collect_all(present, engine="streaming"))
        groups, classes, curves = (next(done) if t is not None else None for t in tables)
        assert groups is not None
        return replace(self, groups=groups, classes=classes, curves=curves)

    def merge(self, *others: MetricState) -> MetricState:
        """The state of the union of id-disjoint parts: sums (and maxima) of the tables."""
        return merge_states([self, *others])

    def finalize(self) -> pl.LazyFrame:
        """The metric values: one row per group (or per group and class), checks raised."""
        return _finalize(self)

    @property
    def chunk_keys(self) -> dict[str, str]:
        """For each metric, the key that parts of the table must not split (see `chunk_key`)."""
        return {m: chunk_key(m) for m in self.metrics}


def merge_states(states: Sequence[MetricState]) -> MetricState:
    """Merge states of id-disjoint parts of a table into the state of the whole.

    Every state must be of the same metrics, columns and options.
    """
    if not states:
        raise MetricsInputError("merge_states: no states to merge")
    first = states[0]
    for other in states[1:]:
        if (other.metrics, other.columns, other.options) != (
            first.metrics,
            first.columns,
            first.options,
        ):
            raise MetricsInputError(
                "merge_states: states differ in metrics, columns or options; "
                f"{first.metrics} vs {other.metrics}"
            )
    by = list(first.columns.by)
    eager = all(isinstance(s.groups, pl.DataFrame) for s in states)

    def merged(tables: list[pl.LazyFrame | pl.DataFrame], keys: list[str]) -> pl.LazyFrame:
        stacked = pl.concat([t.lazy() for t in tables], how="vertical_relaxed")
        values = [c for c in stacked.collect_schema() if c not in keys]
        exprs = [
            pl.col(c).max()
            if c.startswith(MAX_PREFIX)
            else pl.col(c).min()
            if c.startswith(MIN_PREFIX)
            else pl.col(c).sum()
            for c in values
        ]
        return aggregate(stacked, keys, exprs)

    cols = first.columns
    merged_state = replace(
        first,
        groups=merged([s.groups for s in states], by),
        classes=None
        if first.classes is None
        else merged([s.classes for s in states if s.classes is not None], [*by, cols.cls]),
        curves=None
        if first.curves is None
        else merged(
            [s.curves for s in states if s.curves is not None], [*by, cols.cls, CURVE_SCORE]
        ),
    )
    return merged_state.collect() if eager else merged_state


def build_state(
    frame: pl.DataFrame | pl.LazyFrame, metrics: Sequence[str], cols: Columns, opts: Options
) -> MetricState:
    """The lazy state of ``metrics`` over ``frame``: two aggregations sharing one input."""
    metrics = tuple(dict.fromkeys(metrics))
    lf = frame.lazy()
    by = list(cols.by)
    families: dict[int, tuple[Family, list[str]]] = {}
    for metric in metrics:
        family = _family(metric)
        families.setdefault(id(family), (family, []))[1].append(metric)
    parts = [family.parts(ms, cols, opts) for family, ms in families.values()]
    if isinstance(frame, pl.DataFrame) and any(f.has_kernel() for f, _ in families.values()):
        # A kernel needs each id's rows together; sorted once here, they also make the
        # per-id aggregation several times faster than over scattered ids.
        frame = contiguous(frame, [*by, cols.id])
        lf = frame.lazy()

    checks: list[tuple[Problem, pl.Expr]] = []
    # Every id must have every class: duplicates show in the class hashes, which cost much
    # less than a distinct count per id. Ragged input allowed: count distinct classes.
    hashed = opts.validate and opts.ragged == "error"
    if opts.validate:
        checks = row_problems(cols)
        if isinstance(frame, pl.DataFrame):
            checks = skip_passing(frame, checks)
        checks += id_problems(cols, count_duplicates=not hashed)
        checks += [c for p in parts for c in p.id_checks]
    id_exprs = [pl.len().alias(N_ROWS), *(e for p in parts for e in p.id_exprs)]
    id_exprs += [expr.alias(problem.name) for problem, expr in checks]
    if hashed:
        id_exprs.append(_class_hash(cols).sum().alias(_ID_HASH))
    # Cached: the ranking family reads it twice (before and after joining pair counts), and
    # it must be computed once. It is small: one row per id.
    per_id = lf.group_by([*by, cols.id]).agg(_unique_by_name(id_exprs)).cache()
    for extend in (f for p in parts for f in p.extend_ids):
        per_id = extend(lf, per_id)

    group_exprs = [
        pl.len().alias(N_IDS),
        pl.col(N_ROWS).max().alias(MAX_ROWS),
        *(pl.col(problem.name).sum() for problem, _ in checks),
        *(e for p in parts for e in p.group_exprs),
    ]
    class_exprs = [e for p in parts for e in p.class_exprs]
    # Ragged input and duplicates are found from the per-class row counts.
    need_classes = bool(class_exprs) or hashed
    if hashed:
        group_exprs += [
            pl.col(N_ROWS).min().alias(_MIN_ROWS),
            pl.col(_ID_HASH).min().alias(_MIN_HASH),
            pl.col(_ID_HASH).max().alias(_MAX_HASH),
        ]
    groups = aggregate(per_id, by, _unique_by_name(group_exprs))
    class_exprs = _unique_by_name(class_exprs)
    from_ids = [f for p in parts for f in p.class_from_ids]
    need_classes = need_classes or bool(from_ids)
    classes = None
    if need_classes:
        keys = [*by, cols.cls]
        classes = lf.group_by(keys).agg(pl.len().alias(CLASS_ROWS), *class_exprs)
        for make in from_ids:
            extra = make(lf, per_id)
            added = [c for c in extra.collect_schema() if c not in keys]
            classes = classes.join(extra, on=keys, how="left", nulls_equal=True).with_columns(
                pl.col(added).fill_null(0)
            )
    curves = None
    curve_exprs = _unique_by_name([e for p in parts for e in p.curve_exprs])
    if curve_exprs:
        assert cols.score is not None
        curves = lf.group_by([*by, cols.cls, pl.col(cols.score).alias(CURVE_SCORE)]).agg(
            curve_exprs
        )
    return MetricState(
        groups=groups,
        classes=classes,
        curves=curves,
        metrics=metrics,
        columns=cols,
        options=opts,
        problems=tuple(p for p, _ in checks),
    )


def _class_hash(cols: Columns) -> pl.Expr:
    """A hash of the class value that is the same in every chunk and process.

    Categorical codes can differ between files and processes: those hash their strings.
    """
    cls = pl.col(cols.cls)
    return (cls.cast(pl.String) if cols.class_is_categorical else cls).hash(seed=0)


def _class_set_checks(cols: Columns) -> list[tuple[Problem, pl.Expr]]:
    """Duplicate and missing ``(id, class)`` rows, from the group's sums over classes."""
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
        "pass ragged='allow' to rank each id over the rows it has",
    )
    mixed = Problem(
        "class_sets",
        cols.cls,
        "groups",
        "have ids that repeat a class and lack another",
        "each id needs one row per class",
    )
    return [
        (duplicate_problem(cols), (total - expected).clip(lower_bound=0).cast(pl.Int64)),
        (ragged, (expected - total).clip(lower_bound=0).cast(pl.Int64)),
        (mixed, ((total == expected) & ~same_sets).cast(pl.Int64)),
    ]


def _finalize(state: MetricState) -> pl.LazyFrame:
    cols, opts, by = state.columns, state.options, list(state.columns.by)
    groups = state.groups.lazy()
    classes = state.classes.lazy() if state.classes is not None else None
    problems = list(state.problems)

    if opts.validate and opts.ragged == "error":
        assert classes is not None
        stats = aggregate(
            classes,
            by,
            [
                pl.len().alias(_N_CLASSES),
                pl.col(CLASS_ROWS).sum().alias(_TOTAL_ROWS),
                _class_hash(cols).sum().alias(_GROUP_HASH),  # wraps around, as the ids' do
            ],
        )
        class_sets = _class_set_checks(cols)
        groups = join_on(groups, stats, by).with_columns([e.alias(p.name) for p, e in class_sets])
        problems += [p for p, _ in class_sets]
    group_checks = {
        p.key: (p, e) for m in state.metrics for p, e in _family(m).group_checks(m, cols, opts)
    }
    groups = groups.with_columns([e.alias(p.name) for p, e in group_checks.values()])
    problems += [p for p, _ in group_checks.values()]
    checks = groups.select([*by, N_IDS, *(p.name for p in problems)])
    if classes is not None:
        for metric in state.metrics:
            for problem, count in _family(metric).table_checks(metric, classes, cols, opts):
                checks = join_on(checks, count.select(pl.first().alias(problem.name)), [])
                problems.append(problem)

    per_class = [_family(m).per_class(m, opts) for m in state.metrics]
    if any(per_class) and not all(per_class):
        names = [m for m, pc in zip(state.metrics, per_class, strict=True) if not pc]
        raise MetricsInputError(
            f"a per-class report cannot include {names}: they have no per-class values"
        )
    keys = [*by, cols.cls] if all(per_class) else by
    curves = state.curves.lazy() if state.curves is not None else None
    results = [_family(m).finalize(m, groups, classes, curves, cols, opts) for m in state.metrics]
    out = results[0]
    for result in results[1:]:
        out = join_on(out, result, keys) if keys else out.join(result, how="cross")
    out = raise_on_problems(join_on(out, checks, by), problems, by)
    return out.sort(keys) if keys else out


def class_weights_option(
    class_weights: Mapping[object, float] | None,
) -> tuple[tuple[str, float], ...] | None:
    """Normalise a ``class -> weight`` mapping (keys compared as strings) for `Options`."""
    if class_weights is None:
        return None
    if not isinstance(class_weights, Mapping) or not class_weights:
        raise MetricsInputError("option 'class_weights': expected a non-empty mapping")
    bad = [
        v
        for v in class_weights.values()
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0
    ]
    if bad:
        raise MetricsInputError(
            f"option 'class_weights': weights must be finite and non-negative, got {bad}"
        )
    if sum(class_weights.values()) == 0:
        raise MetricsInputError("option 'class_weights': the weights sum to zero")
    return tuple((str(k), float(v)) for k, v in class_weights.items())


def make_options(
    *,
    threshold: float = 0.5,
    average: Average = "macro",
    zero_division: float = 0.0,
    eps: float = 1e-15,
    class_weights: Mapping[object, float] | None = None,
    per_class: bool = False,
    ragged: Ragged = "error",
    validate: bool = True,
    k: int = 1,
    padding: int = 5,
    undefined: Undefined = "error",
) -> Options:
    """Check every option once, with errors that name the option."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise MetricsInputError(f"option 'threshold': expected a number, got {threshold!r}")
    if not math.isfinite(threshold):
        raise MetricsInputError(f"option 'threshold': expected a finite number, got {threshold}")
    check_option("average", average, (None, "macro", "micro", "weighted", "samples"))
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 0.5:
        raise MetricsInputError(f"option 'eps': expected a number in [0, 0.5), got {eps!r}")
    check_option("per_class", per_class, (True, False))
    check_option("ragged", ragged, ("error", "allow"))
    check_option("validate", validate, (True, False))
    check_option("undefined", undefined, ("error", "skip"))
    for name, value, low in (("k", k, 1), ("padding", padding, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise MetricsInputError(f"option {name!r}: expected an integer >= {low}, got {value!r}")
    return Options(
        threshold=float(threshold),
        average=average,
        zero_division=check_zero_division(zero_division),
        eps=float(eps),
        class_weights=class_weights_option(class_weights),
        per_class=bool(per_class),
        ragged=ragged,
        validate=bool(validate),
        top_k=k,
        padding=padding,
        undefined=undefined,
    )
