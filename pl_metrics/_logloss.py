"""Multi-class log losses: plain (scikit-learn's) and class-weighted (seed 002).

Each id has exactly one true class. One aggregation per id picks the probability of the
true class (and the row sum, for rescaling); then sums per group, or per (group, true
class) for the class-weighted loss.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics._frame import (
    INTERNAL,
    N_IDS,
    Columns,
    FrameT,
    MetricsInputError,
    Problem,
    Ragged,
    aggregate,
    as_like,
    check_option,
    join_on,
    per_id_checked,
    raise_on_problems,
    resolve_columns,
)

__all__ = ["log_loss", "weighted_log_loss"]

_P_TRUE = f"{INTERNAL}p_true"
_ROW_SUM = f"{INTERNAL}row_sum"
_TRUE_CLASS = f"{INTERNAL}true_class"
_W = f"{INTERNAL}w"
_LOSS_SUM = f"{INTERNAL}loss_sum"
_W_SUM = f"{INTERNAL}w_sum"
_MEAN_LOG = f"{INTERNAL}mean_log"
_CLASS_WEIGHT = f"{INTERNAL}class_weight"
_KEY = f"{INTERNAL}key"


def _check_eps(eps: float) -> None:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 0.5:
        raise MetricsInputError(f"option 'eps': expected a number in [0, 0.5), got {eps!r}")


def _per_id(
    lf: pl.LazyFrame, cols: Columns, *, validate: bool, ragged: Ragged, max_one: bool
) -> tuple[pl.LazyFrame, list[Problem]]:
    """Per id: the true class's probability, the row sum and the weight, plus checks."""
    assert cols.score is not None
    score, truth = pl.col(cols.score).cast(pl.Float64), cols.truth_expr
    exprs = [
        score.filter(truth).first().alias(_P_TRUE),
        score.sum().alias(_ROW_SUM),
        pl.col(cols.cls).filter(truth).first().alias(_TRUE_CLASS),
        cols.weight_expr.first().alias(_W),
    ]
    checks = [
        (
            Problem("true_count", cols.truth, "ids", "do not have exactly one true class"),
            (truth.sum() != 1).cast(pl.Int64),
        ),
        (
            Problem("negative", cols.score, "rows", "are negative probabilities"),
            (score < 0).sum().cast(pl.Int64),
        ),
        (
            Problem("zero_row", cols.score, "ids", "have probabilities summing to zero"),
            (score.sum() == 0).cast(pl.Int64),
        ),
    ]
    if max_one:
        checks.append(
            (
                Problem("above_one", cols.score, "rows", "are probabilities above 1"),
                (score > 1).sum().cast(pl.Int64),
            )
        )
    if validate:
        exprs += [e.alias(p.name) for p, e in checks]
    per_id, problems = per_id_checked(lf, cols, exprs, validate=validate, ragged=ragged)
    return per_id, problems + ([p for p, _ in checks] if validate else [])


def _resolve(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    id_col: str,
    class_col: str,
    score_col: str,
    truth_col: str,
    weight_col: str | None,
    by: str | Sequence[str] | None,
    eps: float,
    ragged: Ragged,
    validate: bool,
) -> Columns:
    cols = resolve_columns(
        frame,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
    )
    _check_eps(eps)
    check_option("ragged", ragged, ("error", "allow"))
    check_option("validate", validate, (True, False))
    return cols


def log_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    eps: float = 1e-15,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Multi-class log loss: the mean over ids of ``-ln p(true class)``.

    Equals `sklearn.metrics.log_loss` on rows that sum to one. Probabilities are clipped to
    ``[eps, 1 - eps]`` (scikit-learn clips at float64's machine epsilon, 2.2e-16: the two
    differ only for probabilities below 1e-15). Rows are used as given, not rescaled, as in
    scikit-learn; `weighted_log_loss` rescales them.

    Parameters
    ----------
    frame
        Long table: one row per ``(by..., id, class)``; ``score`` is the probability.
    id_col, class_col, score_col, truth_col
        Column names. Each id has exactly one true row.
    weight_col
        Optional per-id sample weight.
    by
        Column name(s) to group by.
    eps
        Clipping bound.
    ragged, validate
        As in `lrap`.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``log_loss`` column.

    Raises
    ------
    MetricsInputError
        For ids without a true class or with several, negative probabilities or above 1,
        rows summing to zero, weights summing to zero, and the checks of `lrap`.

    Examples
    --------
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [0, 0, 1, 1, 2, 2, 3, 3],
    ...     "class": ["ham", "spam"] * 4,
    ...     "score": [0.1, 0.9, 0.9, 0.1, 0.8, 0.2, 0.35, 0.65],
    ...     "truth": [0, 1, 1, 0, 1, 0, 0, 1],
    ... })
    >>> round(df.metrics.log_loss().item(), 5)
    0.21616
    """
    cols: Columns = _resolve(
        frame,
        eps=eps,
        ragged=ragged,
        validate=validate,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=weight_col,
        by=by,
    )
    problems: list[Problem]
    per_id, problems = _per_id(frame.lazy(), cols, validate=validate, ragged=ragged, max_one=True)
    w = pl.col(_W)
    loss = -pl.col(_P_TRUE).clip(eps, 1 - eps).log()
    state = aggregate(
        per_id,
        cols.by,
        [
            pl.len().alias(N_IDS),
            (w * loss).sum().alias(_LOSS_SUM),
            w.sum().alias(_W_SUM),
            *(pl.col(p.name).sum() for p in problems),
        ],
    )
    zero = Problem(
        "zero_weight",
        cols.weight or cols.id,
        "groups",
        "have weights that sum to zero",
        "log_loss is undefined there",
    )
    state = state.with_columns((pl.col(_W_SUM) == 0).cast(pl.Int64).alias(zero.name))
    out = raise_on_problems(state, [*problems, zero], cols.by).select(
        *cols.by, (pl.col(_LOSS_SUM) / pl.col(_W_SUM)).alias("log_loss")
    )
    return as_like(frame, out.sort(list(cols.by)) if cols.by else out)


def _class_weights_frame(class_weights: Mapping[object, float] | None) -> pl.LazyFrame | None:
    if class_weights is None:
        return None
    if not isinstance(class_weights, Mapping) or not class_weights:
        raise MetricsInputError("option 'class_weights': expected a non-empty mapping")
    values = list(class_weights.values())
    bad = [
        v
        for v in values
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0
    ]
    if bad:
        raise MetricsInputError(
            f"option 'class_weights': weights must be finite and non-negative, got {bad}"
        )
    if sum(values) == 0:
        raise MetricsInputError("option 'class_weights': the weights sum to zero")
    return pl.LazyFrame(
        {_KEY: [str(k) for k in class_weights], _CLASS_WEIGHT: [float(v) for v in values]}
    )


def weighted_log_loss(
    frame: FrameT,
    *,
    id_col: str = "id",
    class_col: str = "class",
    score_col: str = "score",
    truth_col: str = "truth",
    by: str | Sequence[str] | None = None,
    class_weights: Mapping[object, float] | None = None,
    eps: float = 1e-15,
    ragged: Ragged = "error",
    validate: bool = True,
) -> FrameT:
    """Class-weighted multi-class log loss (seed 002, Mayo Clinic STRIP AI).

    Each id's probabilities are rescaled to sum to 1, then clipped to ``[eps, 1 - eps]``.
    For each class, the mean of ``ln p(true class)`` over the ids of that class; the loss is
    minus the class-weighted average of those means, so every class counts as much as its
    weight, however many ids it has.

    Parameters
    ----------
    frame, id_col, class_col, score_col, truth_col, by, eps, ragged, validate
        As in `log_loss`.
    class_weights
        Mapping ``class -> weight`` (keys compared as strings with the class column); it must
        cover exactly the classes of the table. Default: equal weights.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``frame``)
        The ``by`` columns then a Float64 ``weighted_log_loss`` column. A class that is the
        true class of no id in a group has no mean: it is left out of that group's average,
        with its weight.

    Examples
    --------
    Seed 002's worked example: five images, two of class A and three of class B.

    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.DataFrame({
    ...     "id": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
    ...     "class": ["A", "B"] * 5,
    ...     "score": [0.90, 0.20, 0.11, 0.80, 0.21, 0.23, 0.48, 0.42, 0.18, 0.10],
    ...     "truth": [1, 0, 1, 0, 0, 1, 0, 1, 0, 1],
    ... })
    >>> df.metrics.weighted_log_loss()
    shape: (1, 1)
    ┌───────────────────┐
    │ weighted_log_loss │
    │ ---               │
    │ f64               │
    ╞═══════════════════╡
    │ 0.985151          │
    └───────────────────┘
    >>> round(df.metrics.weighted_log_loss(class_weights={"A": 0.8, "B": 0.2}).item(), 5)
    1.08815
    """
    cols: Columns = _resolve(
        frame,
        eps=eps,
        ragged=ragged,
        validate=validate,
        id_col=id_col,
        class_col=class_col,
        score_col=score_col,
        truth_col=truth_col,
        weight_col=None,
        by=by,
    )
    weights = _class_weights_frame(class_weights)
    lf = frame.lazy()
    problems: list[Problem]
    per_id, problems = _per_id(lf, cols, validate=validate, ragged=ragged, max_one=False)
    log_p = (pl.col(_P_TRUE) / pl.col(_ROW_SUM)).clip(eps, 1 - eps).log()
    per_class = aggregate(per_id, [*cols.by, _TRUE_CLASS], [log_p.mean().alias(_MEAN_LOG)])
    per_class = per_class.with_columns(pl.col(_TRUE_CLASS).cast(pl.String).alias(_KEY))
    if weights is None:
        per_class = per_class.with_columns(pl.lit(1.0).alias(_CLASS_WEIGHT))
    else:
        per_class = per_class.join(weights, on=_KEY, how="left")
    cw = pl.col(_CLASS_WEIGHT)
    loss = (-(cw * pl.col(_MEAN_LOG)).sum() / cw.sum()).alias("weighted_log_loss")
    out = aggregate(per_class, cols.by, [loss])
    checks = aggregate(
        per_id, cols.by, [pl.len().alias(N_IDS), *(pl.col(p.name).sum() for p in problems)]
    )
    if weights is not None:
        present = lf.select(pl.col(cols.cls).cast(pl.String).alias(_KEY)).unique()
        coverage = [
            (
                Problem("unweighted", cols.cls, "classes", "have no weight in class_weights"),
                present.join(weights, on=_KEY, how="anti"),
            ),
            (
                Problem(
                    "unknown_weight", cols.cls, "classes", "of class_weights are not in the table"
                ),
                weights.join(present, on=_KEY, how="anti"),
            ),
        ]
        for problem, extra in coverage:
            checks = join_on(checks, extra.select(pl.len().cast(pl.Int64).alias(problem.name)), [])
            problems.append(problem)
    out = raise_on_problems(join_on(out, checks, cols.by), problems, cols.by)
    return as_like(frame, out.sort(list(cols.by)) if cols.by else out)
