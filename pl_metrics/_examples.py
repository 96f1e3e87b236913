"""Which rows a failed data check is about, named in its error.

The checks count rows, ids and groups inside the plan's aggregations, which keep no keys:
``column 'score': 2 rows are NaN or infinite``. On failure only, the rows' key columns are
read once more for the first few concerned (``e.g. id=17, class='3': score=nan``), so that
one bad cell of a 20M-row dump can be found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl

from pl_metrics._frame import INTERNAL, ROW_CHECKS, Columns, MetricsInputError, listed, problem_rows
from pl_metrics._spec import Spec, Thresholds

__all__ = ["naming_examples", "with_hint"]

#: How many examples an error names.
SHOWN = 3

_COUNT = f"{INTERNAL}example_count"
_LOW = f"{INTERNAL}example_low"
_HIGH = f"{INTERNAL}example_high"
_ALL_ROWS = f"{INTERNAL}example_all"


@contextmanager
def naming_examples(rows: pl.LazyFrame | None, spec: Spec) -> Iterator[None]:
    """Name the first keys a failed data check is about, reading ``rows`` again.

    ``rows``: the rows the metrics read; None where there is no table to read again (the
    error as it is). A second read that fails leaves the error as it is too.
    """
    try:
        yield
    except MetricsInputError as error:
        find = _FINDERS.get(_finder_key(error.problem))
        if find is None or rows is None or error.examples:  # (named by a caller's caller)
            raise
        try:
            found = find(rows, spec, str(error.problem))
        except (Exception, pl.exceptions.PanicException):  # (the count stands without them)
            raise error from None
        if not found:
            raise
        raise MetricsInputError(
            f"{error}; {found}", problem=error.problem, column=error.column, examples=found
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


def _finder_key(problem: str | None) -> str | None:
    """The finder of a problem key: row checks share one (``null_score``, ``not_01_truth``)."""
    if problem is not None and problem.startswith(ROW_CHECKS):
        return "rows"
    return problem


def _keys(cols: Columns) -> tuple[list[str], list[str]]:
    """The caller's groups, and the groups with id and class: the keys a row is named by."""
    groups = [b for b in cols.by if not b.startswith(INTERNAL)]  # (a resample number: none)
    return groups, [*groups, cols.id, cols.cls]


def _named(row: dict[str, Any], keys: list[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys)


def _told(items: list[str], total: int) -> str:
    """``e.g. a; b; c; ...``: the first `SHOWN` of ``items`` (of ``total``), each once."""
    items = list(dict.fromkeys(items))  # (NaN keys, or Python's microseconds, look alike)
    return "e.g. " + listed(items, SHOWN, max(total, len(items)), separator="; ")


def _bad_rows(rows: pl.LazyFrame, spec: Spec, problem: str) -> str:
    """Rows failing a row check (nulls, NaN, values outside 0/1), with the value failed."""
    cols = spec.columns
    failing = dict((p.key, (p.column, mask)) for p, mask in problem_rows(cols))
    if problem not in failing:
        return ""
    column, mask = failing[problem]
    groups, keys = _keys(cols)
    if column == cols.weight:  # (weights are per id: its ids, each once)
        keys = [*groups, cols.id]
    shown = [*keys, column] if column not in keys else keys
    found = (
        rows.filter(mask.fill_null(False))
        .select(shown)
        .unique(keys, maintain_order=True)
        .head(SHOWN + 1)
        .collect()
    )
    # (A null's value says nothing; a key's is in the key already.)
    value = not problem.startswith("null_") and column not in keys
    return _told(
        [
            _named(row, keys) + (f": {column}={row[column]!r}" if value else "")
            for row in found.iter_rows(named=True)
        ],
        found.height,
    )


def _duplicates(rows: pl.LazyFrame, spec: Spec) -> list[str]:
    """The first ids of a repeated class, each with one such class and its row count."""
    cols = spec.columns
    groups, keys = _keys(cols)
    # Ids first, then their rows' keys: a group_by of every (id, class) of a 20M-row dump
    # (`by` forgotten) held twice the memory of the ids'.
    ids = (
        rows.group_by([*groups, cols.id], maintain_order=True)
        .agg(pl.len().alias(_COUNT), pl.col(cols.cls).n_unique().alias(_LOW))
        .filter(pl.col(_COUNT) > pl.col(_LOW))
        .select(*groups, cols.id)
        .head(SHOWN + 1)
        .collect()
    )
    found = (
        rows.join(ids.lazy(), on=[*groups, cols.id], how="semi", nulls_equal=True)
        .group_by(keys, maintain_order=True)
        .agg(pl.len().alias(_COUNT))
        .filter(pl.col(_COUNT) > 1)
        .unique([*groups, cols.id], maintain_order=True)
        .collect()
    )
    return [f"{_named(row, keys)}: {row[_COUNT]} rows" for row in found.iter_rows(named=True)]


def _lacking(rows: pl.LazyFrame, spec: Spec) -> list[str]:
    """The first ids that lack a class other ids of their group have, with the classes."""
    cols = spec.columns
    groups, _ = _keys(cols)
    if not groups:  # (joins need a key: the whole table is one group)
        rows, groups = rows.with_columns(pl.lit(0).alias(_ALL_ROWS)), [_ALL_ROWS]
    classes = rows.select(*groups, cols.cls).unique()
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
    shown = [k for k in (*groups, cols.id) if k != _ALL_ROWS]
    return [
        f"{_named(row, shown)} lacks {cols.cls}="
        + listed([repr(c) for c in row[cols.cls]], SHOWN, separator=", ")
        for row in missing.iter_rows(named=True)
    ]


def _per_id(rows: pl.LazyFrame, spec: Spec, problem: str) -> str:
    """The first ids of an id check: no or several true classes, weights that vary."""
    cols = spec.columns
    groups, _ = _keys(cols)
    keys = [*groups, cols.id]
    if problem == "weight_varies" and cols.weight is not None:
        low, high = pl.col(cols.weight).min(), pl.col(cols.weight).max()
        fails, told = pl.col(_LOW) != pl.col(_HIGH), "weights {low!r} to {high!r}"
    else:
        low = high = cols.truth_expr.sum()
        fails = pl.col(_LOW) == 0 if problem == "no_true_class" else pl.col(_LOW) > 1
        told = "" if problem == "no_true_class" else "{low} true classes"
    found = (
        rows.group_by(keys, maintain_order=True)
        .agg(low.alias(_LOW), high.alias(_HIGH))
        .filter(fails)
        .head(SHOWN + 1)
        .collect()
    )
    return _told(
        [
            _named(row, keys) + (f": {told.format(low=row[_LOW], high=row[_HIGH])}" if told else "")
            for row in found.iter_rows(named=True)
        ],
        found.height,
    )


def _lacked_thresholds(rows: pl.LazyFrame, spec: Spec, problem: str) -> str:
    """The first keys of ``rows`` (class, and groups) that the threshold table lacks."""
    table = spec.options.threshold
    if not isinstance(table, Thresholds):
        return ""
    lacking = table.lacking(rows, count=SHOWN + 1)
    if not lacking:
        return ""
    groups, _ = _keys(spec.columns)  # (the data's groups in order, other keys, the class)
    keys = sorted(
        lacking[0],
        key=lambda k: (k == spec.columns.cls, groups.index(k) if k in groups else len(groups)),
    )
    return "the table lacks " + listed(
        [_named(row, keys) for row in lacking], SHOWN, separator="; "
    )


def _class_sets(rows: pl.LazyFrame, spec: Spec, problem: str) -> str:
    """Keys repeated, ids lacking classes, or both (a group of both is one problem)."""
    repeated = _duplicates(rows, spec) if problem != "ragged" else []
    lacking = _lacking(rows, spec) if problem != "duplicate" else []
    found = [*repeated[:1], *lacking[:1], *repeated[1:], *lacking[1:]]  # (one of each first)
    return _told(found, len(found)) if found else ""


_FINDERS: dict[str | None, Callable[[pl.LazyFrame, Spec, str], str]] = {
    "rows": _bad_rows,
    "duplicate": _class_sets,
    "ragged": _class_sets,
    "class_sets": _class_sets,
    "no_true_class": _per_id,
    "several_true_classes": _per_id,
    "weight_varies": _per_id,
    "no_threshold": _lacked_thresholds,
}
