"""Which rows a failed data check is about, named in its error.

The checks count rows, ids and groups inside the plan's aggregations, which keep no keys:
``column 'score': 2 rows are NaN or infinite``. On failure only, the rows' key columns are
read once more for the first few concerned (``e.g. id=17, class='3': score=nan``), so that
one bad cell of a 20M-row dump can be found.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import polars as pl

from pl_metrics._frame import (
    INTERNAL,
    Columns,
    MetricsInputError,
    listed,
    probability_rows,
    probability_sums,
    problem_rows,
)
from pl_metrics._spec import Spec, Thresholds

__all__ = ["naming_examples", "with_hint"]

#: How many examples an error names.
SHOWN = 3

_COUNT = f"{INTERNAL}example_count"
_LOW = f"{INTERNAL}example_low"
_HIGH = f"{INTERNAL}example_high"
_ALL_ROWS = f"{INTERNAL}example_all"
#: The failing rows a row check's examples are found in (ids each once, among them).
_ROWS_SEEN = 10_000


@contextmanager
def naming_examples(
    rows: pl.LazyFrame | None,
    spec: Spec,
    parts: Callable[[], Sequence[pl.Expr]] | None = None,
) -> Iterator[None]:
    """Name the first keys a failed data check is about, reading ``rows`` again.

    ``rows``: the rows the metrics read; None where there is no table to read again (the
    error as it is). ``parts``: filters of id-disjoint parts of ``rows`` that each fit in
    memory (`score`'s chunks), read one after the other until examples are found; made on
    failure only. A second read that fails leaves the error as it is too.
    """
    try:
        yield
    except MetricsInputError as error:
        find = _FINDERS.get(_finder_key(error.problem, spec.columns))
        if find is None or rows is None or error.examples:  # (named by a caller's caller)
            raise
        search = _Search(rows, spec, str(error.problem))
        try:
            found = _found(find, search, parts)
        except (Exception, pl.exceptions.PanicException):  # (the count stands without them)
            raise error from None
        if not found:
            raise
        lead = "the table lacks " if error.problem == "no_threshold" else "e.g. "
        told = lead + listed(found, SHOWN, separator="; ")
        text = str(error)
        if error.problem == "ragged" and search.repeated:
            # Rows missing beside rows repeated that the totals did not tell apart (a top-k
            # dump with each id's true row appended): the count is net, and ragged='allow'
            # alone would be refused next for the repeats.
            text += "; some ids also repeat a class (the count is net of them): drop those rows"
        raise MetricsInputError(
            f"{text}; {told}", problem=error.problem, column=error.column, examples=told
        ) from None


def with_hint(error: MetricsInputError, hint: str, text: str | None = None) -> MetricsInputError:
    """``error`` (or its ``text``) with ``hint`` added to its advice, before its examples."""
    found = error.examples
    text = (str(error) if text is None else text).removesuffix(f"; {found}" if found else "")
    return MetricsInputError(
        f"{text}; {hint}" + (f"; {found}" if found else ""),
        problem=error.problem,
        column=error.column,
        examples=found,
    )


@dataclass
class _Search:
    """What a finder looks in: the whole table, for what, and what it knows of it already."""

    rows: pl.LazyFrame
    spec: Spec
    problem: str
    #: Whether a finder of missing rows found repeated ones too (`_class_sets`).
    repeated: bool = False

    @functools.cached_property
    def group_classes(self) -> pl.DataFrame:
        """Each group's classes (all rows one group without groups), over the whole table."""
        cols = self.spec.columns
        return (
            _grouped(self.rows, cols)
            .select(*(_groups(cols) or [_ALL_ROWS]), cols.cls)
            .unique()
            .collect(engine="streaming")  # (a few rows a group, of any number of rows)
        )


def _found(
    find: Callable[[pl.LazyFrame, _Search], list[str]],
    search: _Search,
    parts: Callable[[], Sequence[pl.Expr]] | None,
) -> list[str]:
    """What ``find`` names, part after part, until more than `SHOWN` (each once)."""
    filters = [None] if parts is None else list(parts())
    found: list[str] = []
    for part in filters:
        rows = search.rows if part is None or len(filters) == 1 else search.rows.filter(part)
        found = list(dict.fromkeys([*found, *find(rows, search)]))  # (NaN keys look alike)
        if len(found) > SHOWN:
            break
    return found


def _finder_key(problem: str | None, cols: Columns) -> str | None:
    """The finder of a problem key: row checks share one (``null_score``, ``not_01_truth``)."""
    return "rows" if problem in _failing_rows(cols) else problem


def _failing_rows(cols: Columns) -> dict[str, tuple[str, pl.Expr]]:
    """Each row check's column and rows (true where a row fails it), by problem key."""
    failing = {p.key: (p.column, rows) for p, rows in problem_rows(cols)}
    if cols.score is not None:  # (the metrics of probabilities check these)
        failing |= {k: (cols.score, rows) for k, rows in probability_rows(cols.score).items()}
    return failing


def _groups(cols: Columns) -> list[str]:
    """The caller's groups (a resample number names nothing)."""
    return [b for b in cols.by if not b.startswith(INTERNAL)]


def _grouped(rows: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """``rows`` with a constant group where there are none: joins need a key."""
    return rows if _groups(cols) else rows.with_columns(pl.lit(0).alias(_ALL_ROWS))


def _named(row: dict[str, Any], keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys if k != _ALL_ROWS)


def _bad_rows(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """Rows failing a row check (nulls, NaN, values outside 0/1), with the value failed."""
    cols = search.spec.columns
    failing = _failing_rows(cols)
    if search.problem not in failing:
        return []
    column, mask = failing[search.problem]
    failed = rows.filter(mask.fill_null(False))
    if search.problem.startswith("null_") and _blank(failed, cols):
        return [_BLANK]
    keys = [*_groups(cols), cols.id]
    if column != cols.weight:  # (weights are per id: its ids, each once)
        keys.append(cols.cls)
    found = (
        failed.select(*dict.fromkeys([*keys, column]))
        .head(_ROWS_SEEN)  # (of 10M NaN scores, a few: unique would hold them all)
        .unique(keys, keep="first", maintain_order=True)
        .head(SHOWN + 1)
        .collect()
    )
    # (A null's value says nothing; a key's is in the key already.)
    value = not search.problem.startswith("null_") and column not in keys
    return [
        _named(row, keys) + (f": {column}={row[column]!r}" if value else "")
        for row in found.iter_rows(named=True)
    ]


#: Rows of nulls only: polars reads a CSV file's blank line so (pandas skips them).
_BLANK = "a row null in every column (a CSV file's blank line, as polars reads one: delete it)"


def _blank(failed: pl.LazyFrame, cols: Columns) -> bool:
    """Whether there are rows in ``failed`` and the first are null in every column read.

    (Groups aside: a hive folder's key, or a literal model column, is not null in them.)
    """
    read = [c for c in cols.used if c not in cols.by]
    first = failed.head(SHOWN + 1).select(
        (pl.len() > 0) & pl.all_horizontal(pl.col(read).is_null()).all()
    )
    return bool(first.collect().item())


def _duplicates(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """The first ids of a repeated class, each with one such class and its row count."""
    cols = search.spec.columns
    ids = [*_groups(cols), cols.id]
    found = (
        _of_ids_repeating_a_class(rows, ids, cols.cls)
        .group_by([*ids, cols.cls], maintain_order=True)
        .agg(pl.len().alias(_COUNT))
        .filter(pl.col(_COUNT) > 1)
        .unique(ids, keep="first", maintain_order=True)
        .collect()
    )
    keys = [*ids, cols.cls]
    return [f"{_named(row, keys)}: {row[_COUNT]} rows" for row in found.iter_rows(named=True)]


def _lacking(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """The first ids that lack a class other ids of their group have, with the classes."""
    cols = search.spec.columns
    rows = _grouped(rows, cols)
    groups = _groups(cols) or [_ALL_ROWS]
    classes = search.group_classes.lazy()
    n_classes = classes.group_by(groups).agg(pl.len().alias(_HIGH))
    short = (
        rows.group_by([*groups, cols.id], maintain_order=True)
        .agg(pl.col(cols.cls).n_unique().alias(_LOW))
        .join(n_classes, on=groups, nulls_equal=True, maintain_order="left")
        .filter(pl.col(_LOW) < pl.col(_HIGH))
        .select(*groups, cols.id)
        .head(SHOWN + 1)
        .collect()  # (a few ids: read once, not again in each join below)
        .lazy()
    )
    theirs = rows.join(short, on=[*groups, cols.id], how="semi", nulls_equal=True)
    missing = (
        short.join(classes, on=groups, nulls_equal=True)
        .join(theirs, on=[*groups, cols.id, cols.cls], how="anti", nulls_equal=True)
        .group_by([*groups, cols.id])
        .agg(pl.col(cols.cls).sort().head(SHOWN + 1))
        .join(short, on=[*groups, cols.id], nulls_equal=True, maintain_order="right")
        .collect()
    )
    return [
        f"{_named(row, [*groups, cols.id])} lacks {cols.cls}="
        + listed([repr(c) for c in row[cols.cls]], SHOWN, separator=", ")
        for row in missing.iter_rows(named=True)
    ]


def _per_id(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """The first ids of an id check: no or several true classes, weights that vary, sums."""
    cols = search.spec.columns
    keys = [*_groups(cols), cols.id]
    if search.problem == "weight_varies" and cols.weight is not None:
        low, high = pl.col(cols.weight).min(), pl.col(cols.weight).max()
        fails, told = pl.col(_LOW) != pl.col(_HIGH), "weights {low!r} to {high!r}"
    elif cols.score is not None and search.problem in (sums := probability_sums(cols.score)):
        low = high = sums[search.problem]
        fails, told = pl.col(_LOW), ""
    else:
        low = high = cols.truth_expr.sum()
        none = search.problem == "no_true_class"
        fails = pl.col(_LOW) == 0 if none else pl.col(_LOW) > 1
        told = "" if none else "{low} true classes"
    found = (
        rows.group_by(keys, maintain_order=True)
        .agg(low.alias(_LOW), high.alias(_HIGH))
        .filter(fails)
        .head(SHOWN + 1)
        .collect()
    )
    return [
        _named(row, keys) + (f": {told.format(low=row[_LOW], high=row[_HIGH])}" if told else "")
        for row in found.iter_rows(named=True)
    ]


def _of_ids_repeating_a_class(rows: pl.LazyFrame, ids: list[str], cls: str) -> pl.LazyFrame:
    """The rows of the first ids (keys ``ids``) that hold a class more than once."""
    # Ids first, then their rows' keys: a group_by of every (id, class) of a 20M-row dump
    # (`by` forgotten) held twice the memory of the ids'.
    repeating = (
        rows.group_by(ids, maintain_order=True)
        .agg(pl.len().alias(_COUNT), pl.col(cls).n_unique().alias(_LOW))
        .filter(pl.col(_COUNT) > pl.col(_LOW))
        .select(ids)
        .head(SHOWN + 1)
        .collect()
    )
    return rows.join(repeating.lazy(), on=ids, how="semi", nulls_equal=True, maintain_order="left")


def _fold_repeats(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """The first (id, class) keys held by several folds, with their folds."""
    cols, fold = search.spec.columns, search.spec.options.fold_col
    if fold is None:
        return []
    ids = [*(b for b in _groups(cols) if b != fold), cols.id]
    keys = [*ids, cols.cls]
    found = (
        _of_ids_repeating_a_class(rows, ids, cols.cls)
        .group_by(keys, maintain_order=True)
        .agg(pl.col(fold).unique(maintain_order=True).alias(_HIGH))
        .filter(pl.col(_HIGH).list.len() > 1)
        .unique(ids, keep="first", maintain_order=True)
        .collect()
    )
    return [
        f"{_named(row, keys)} in "
        + listed([f"{fold}={f!r}" for f in row[_HIGH]], SHOWN, separator=", ")
        for row in found.iter_rows(named=True)
    ]


def _lacked_thresholds(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """The first keys of ``rows`` (class, and groups) that the threshold table lacks."""
    table = search.spec.options.threshold
    if not isinstance(table, Thresholds):
        return []
    lacking = table.lacking(rows, count=SHOWN + 1)
    if not lacking:
        return []
    groups, cls = _groups(search.spec.columns), search.spec.columns.cls
    # The data's groups in order, other keys, the class.
    last = len(groups)
    keys = sorted(lacking[0], key=lambda k: (k == cls, groups.index(k) if k in groups else last))
    return [_named(row, keys) for row in lacking]


def _class_sets(rows: pl.LazyFrame, search: _Search) -> list[str]:
    """Keys repeated, ids lacking classes, or both (a group of both is one problem)."""
    # (Missing rows are looked for repeated ones too: the totals net them out.)
    repeated = _duplicates(rows, search)
    search.repeated = search.repeated or bool(repeated)
    lacking = _lacking(rows, search) if search.problem != "duplicate" else []
    return [*repeated[:1], *lacking[:1], *repeated[1:], *lacking[1:]]  # (one of each first)


_FINDERS: dict[str | None, Callable[[pl.LazyFrame, _Search], list[str]]] = {
    "rows": _bad_rows,
    "duplicate": _class_sets,
    "ragged": _class_sets,
    "class_sets": _class_sets,
    "no_true_class": _per_id,
    "several_true_classes": _per_id,
    "weight_varies": _per_id,
    "zero_row": _per_id,
    "row_sum_overflow": _per_id,
    "no_threshold": _lacked_thresholds,
    "fold_repeats": _fold_repeats,
}
