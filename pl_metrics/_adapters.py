"""Converters to the long format from wide frames (Kaggle submissions) and numpy arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from pl_metrics._frame import FrameT, MetricsInputError

__all__ = ["from_numpy", "from_wide"]


def _class_columns(
    schema: pl.Schema, id_col: str, classes: Sequence[str] | None, skip: Sequence[str]
) -> list[str]:
    if classes is not None:
        missing = [c for c in classes if c not in schema]
        if missing:
            raise MetricsInputError(f"option 'classes': columns {missing} are not in the table")
        return list(classes)
    found = [n for n, t in schema.items() if t.is_float() and n != id_col and n not in skip]
    if not found:
        raise MetricsInputError(
            "no float score columns found; name the class columns with classes=[...]"
        )
    return found


def from_wide(
    scores: FrameT,
    truth: pl.DataFrame | pl.LazyFrame | None = None,
    *,
    id_col: str = "id",
    classes: Sequence[str] | None = None,
    labels_col: str | None = None,
    separator: str = " ",
) -> FrameT:
    """Turn a wide table (one score column per class) into the long format.

    The truth comes from one of:

    * ``truth``, a wide table with the same id and class columns holding 0/1 or booleans;
    * ``labels_col``, a column of true labels (a list, or a string split on ``separator``,
      as in Kaggle's ``"cat dog"``), in ``truth`` when given, else in ``scores``.

    Other columns of ``scores`` (a model or fold name) are kept. Lazy in, lazy out.

    Parameters
    ----------
    scores
        Wide table: ``id_col``, then one score column per class.
    truth
        Wide truth table, or a table of ``id_col`` and ``labels_col``.
    id_col
        The id column, in both tables.
    classes
        The class columns; default: every float column of ``scores``.
    labels_col
        Column of true labels (list or separated string).
    separator
        Separator of a string ``labels_col``.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``scores``)
        Columns ``id_col``, the kept columns, ``class`` (String), ``score`` (Float64) and
        ``truth`` (Boolean; null where an id has no truth, which the metrics then refuse).

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> submission = pl.DataFrame({"clip": ["a.wav", "b.wav"], "bird": [0.9, 0.2],
    ...                            "frog": [0.4, 0.7]})
    >>> solution = pl.DataFrame({"clip": ["a.wav", "b.wav"], "labels": ["bird frog", "frog"]})
    >>> long = pl_metrics.from_wide(submission, solution, id_col="clip", labels_col="labels")
    >>> long
    shape: (4, 4)
    ┌───────┬───────┬───────┬───────┐
    │ clip  ┆ class ┆ score ┆ truth │
    │ ---   ┆ ---   ┆ ---   ┆ ---   │
    │ str   ┆ str   ┆ f64   ┆ bool  │
    ╞═══════╪═══════╪═══════╪═══════╡
    │ a.wav ┆ bird  ┆ 0.9   ┆ true  │
    │ a.wav ┆ frog  ┆ 0.4   ┆ true  │
    │ b.wav ┆ bird  ┆ 0.2   ┆ false │
    │ b.wav ┆ frog  ┆ 0.7   ┆ true  │
    └───────┴───────┴───────┴───────┘
    >>> long.metrics.lrap(id_col="clip").item()
    1.0
    """
    lazy = scores.lazy()
    schema = lazy.collect_schema()
    if id_col not in schema:
        raise MetricsInputError(f"column {id_col!r} (option 'id_col') is not in the scores")
    # The labels column is in the scores table only when no truth table is given.
    skip: list[str] = [labels_col] if labels_col is not None and truth is None else []
    class_cols: list[str] = _class_columns(schema, id_col, classes, skip)
    keep: list[str] = [c for c in schema if c not in (id_col, *class_cols, *skip)]
    long = lazy.unpivot(
        on=class_cols, index=[id_col, *keep, *skip], variable_name="class", value_name="score"
    ).with_columns(pl.col("score").cast(pl.Float64))
    if labels_col is not None:
        source = long
        if truth is not None:
            truth_lf = truth.lazy().select(id_col, labels_col)
            source = long.join(truth_lf, on=id_col, how="left")
        labels = pl.col(labels_col)
        if source.collect_schema()[labels_col] == pl.String:
            labels = labels.str.split(separator)
        out = source.with_columns(labels.list.contains(pl.col("class")).alias("truth")).drop(
            labels_col
        )
    elif truth is not None:
        truth_long = (
            truth.lazy()
            .unpivot(on=class_cols, index=id_col, variable_name="class", value_name="truth")
            .with_columns(pl.col("truth").cast(pl.Boolean))
        )
        out = long.join(truth_long, on=[id_col, "class"], how="left")
    else:
        raise MetricsInputError("give the truth: a wide truth table, or labels_col")
    out = out.select(id_col, *keep, "class", "score", "truth").sort(id_col, "class")
    return out.collect() if isinstance(scores, pl.DataFrame) else out


def from_numpy(
    y_true: np.ndarray,
    y_score: np.ndarray,
    *,
    class_names: Sequence[object] | None = None,
    ids: Sequence[object] | np.ndarray | None = None,
) -> pl.DataFrame:
    """Turn scikit-learn style arrays into the long format.

    ``y_true`` is an ``(n_ids, n_classes)`` 0/1 indicator matrix, or ``(n_ids,)`` class
    indices (multi-class); ``y_score`` is ``(n_ids, n_classes)``.

    Examples
    --------
    >>> import numpy as np
    >>> import pl_metrics
    >>> y_true = np.array([[1, 0, 0], [0, 0, 1]])
    >>> y_score = np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
    >>> pl_metrics.from_numpy(y_true, y_score).metrics.lrap().item()
    0.4166...
    """
    score = np.asarray(y_score)
    if score.ndim != 2:
        raise MetricsInputError(f"y_score must be 2-D (ids, classes), got shape {score.shape}")
    n_ids, n_classes = score.shape
    truth = np.asarray(y_true)
    if truth.ndim == 1:
        if truth.shape[0] != n_ids or not np.issubdtype(truth.dtype, np.integer):
            raise MetricsInputError("1-D y_true must hold one class index per row of y_score")
        if truth.size and (truth.min() < 0 or truth.max() >= n_classes):
            raise MetricsInputError("1-D y_true has class indices outside y_score's columns")
        truth = np.eye(n_classes, dtype=bool)[truth]
    if truth.shape != score.shape:
        raise MetricsInputError(f"y_true {truth.shape} and y_score {score.shape} differ in shape")
    names = list(range(n_classes)) if class_names is None else list(class_names)
    if len(names) != n_classes:
        raise MetricsInputError(f"{len(names)} class names for {n_classes} columns")
    id_values = np.arange(n_ids) if ids is None else np.asarray(ids)
    if len(id_values) != n_ids:
        raise MetricsInputError(f"{len(id_values)} ids for {n_ids} rows")
    return pl.DataFrame(
        {
            "id": np.repeat(id_values, n_classes),
            "class": pl.Series(names * n_ids),
            "score": score.reshape(-1),
            "truth": truth.reshape(-1).astype(bool),
        }
    )
