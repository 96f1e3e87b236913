"""Column handling, options and lazy data checks shared by every metric family.

Every metric is a lazy plan over a long table, one row per ``(by..., id, class)``. Checks of
the schema run when the metric is called; checks of the data are counted inside the plan, as
columns of the small aggregated result, and raised by one last step on those few rows, so a
``LazyFrame`` stays lazy and no Python runs over the input rows.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import os
import re
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, ParamSpec, TypeGuard, TypeVar, cast

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

__all__ = [
    "CHECK_PREFIX",
    "EMPTY_TABLE",
    "INTERNAL",
    "LARGEST_WEIGHT",
    "N_IDS",
    "TEXT_FLAGS",
    "TEXT_NUMBERS",
    "Columns",
    "FrameT",
    "MetricsInputError",
    "Problem",
    "Ragged",
    "UnknownOptionError",
    "aggregate",
    "as_like",
    "by_hint",
    "caller_stacklevel",
    "check_beta",
    "check_confidence",
    "check_eps",
    "check_integer",
    "check_option",
    "checked_options",
    "class_hash",
    "column_name",
    "column_names",
    "compared_number",
    "did_you_mean",
    "distinct_columns",
    "duplicate_problem",
    "first_named",
    "id_problems",
    "is_categorical",
    "is_float32s",
    "is_integer",
    "is_number",
    "is_pandas",
    "is_pandas_series",
    "is_past_2_53",
    "is_series",
    "join_asof_by",
    "join_on",
    "listed",
    "missing_column",
    "normalize_by",
    "null_rows",
    "ordered_mean",
    "ordered_sum",
    "ordered_sum_of_one",
    "probability_rows",
    "probability_sums",
    "problem_rows",
    "raise_on_problems",
    "refuse_internal",
    "refuse_pattern",
    "require_column",
    "resolve_columns",
    "row_check_keys",
    "row_problems",
    "shown",
    "skip_passing",
    "sorted_within",
    "table_option",
    "tasks_hint",
    "to_polars",
    "true_class_checks",
    "unit_scale",
    "unknown_option",
    "unsigned_zero",
    "weight_varies",
]

# Bound, not constrained: a user's frame typed as either kind gets either back.
FrameT = TypeVar("FrameT", bound=pl.DataFrame | pl.LazyFrame)
#: ``"error"``: every id must have every class of its group; ``"allow"``: rank what is there.
Ragged = Literal["error", "allow"]

#: The error for a table without rows, whichever path finds it.
EMPTY_TABLE: Final = "the table is empty: there are no rows to score"
#: Prefix of internal columns; chosen so that it cannot clash with a user's column by accident.
INTERNAL = "__plm_"
CHECK_PREFIX = f"{INTERNAL}check_"
#: Number of ids in a group's state; zero (or no group at all) means the table was empty.
N_IDS = f"{INTERNAL}ids"


#: Problems of a column read as text (`MetricsInputError.problem`): numbers, or 0/1 flags,
#: with some values that are neither (a CSV's "NA", say).
TEXT_NUMBERS, TEXT_FLAGS = "text_numbers", "text_flags"


class MetricsInputError(ValueError):
    """Bad input to a metric: a missing column, bad values in the data, or an unknown option.

    The message names the column, the problem and how many rows (or ids, or groups) it touches.
    """

    def __init__(
        self,
        message: str,
        *,
        problem: str | None = None,
        column: str | None = None,
        examples: str = "",
    ) -> None:
        super().__init__(message)
        #: The data check that failed (``"duplicate"``, ``"ragged"``, ...), when one did.
        self.problem = problem
        #: The column of a column's problem, where a caller may tell more of it (its text).
        self.column = column
        #: The first rows (ids, keys) the message ends with, once found (`_examples`).
        self.examples = examples


class UnknownOptionError(MetricsInputError, TypeError):
    """An option that the function does not take: a TypeError too, as Python's own.

    Also an option that none of a report's metrics takes (``threshold`` for ``lrap``), or
    ``weight_col`` for metrics that take no weights: the same mistake as in their own call.
    """


_P = ParamSpec("_P")
_R = TypeVar("_R")


#: What scikit-learn's options are here, told to its users who pass them.
_SCIKIT_LEARN_OPTIONS: dict[str, str] = {
    "sample_weight": (
        "weights are a column here, one value per id: pl_metrics.from_numpy(..., "
        "sample_weight=w) makes it, then pass weight_col='weight' (or join it on the ids: "
        ".join(pl.DataFrame({'id': range(len(w)), 'w': w}), on='id'), weight_col='w')"
    ),
    "multi_class": (
        "roc_auc is one-vs-rest, scikit-learn's multi_class='ovr' (one-vs-one has no equivalent)"
    ),
    "pos_label": (
        "a binary problem is one class here, its 0/1 truth the positives: "
        "pl_metrics.from_numpy(y_true, y_score) of the positive class's 1-D scores makes it"
    ),
    # (scikit-learn's labels= name y_score's columns for top-k, log loss and ROC AUC: leaving
    # it out is right there; elsewhere it picks classes, which a filter does.)
    "labels": (
        "every class of the table is scored (as scikit-learn's labels= of all the columns); "
        "to score some classes only, filter the class column first"
    ),
}


def unknown_option(
    function: str, name: str, known: Iterable[str], arguments: Iterable[str] = ()
) -> UnknownOptionError:
    """The error for an option ``function`` does not take, with the closest it does.

    ``arguments``: what may be passed by position or by name (``metric``, ``model_a``),
    offered only for a near name: ``name=`` is not "did you mean 'frame'?".
    """
    # An option of other metrics (``lrap(threshold=...)``): named, as `report` names it,
    # rather than a close name (``calibration_curve(weight_col=)`` is not ``id_col``).
    # (Imported here: the registry imports this module.)
    from pl_metrics._registry import METRICS

    if function.startswith("expr."):  # an expression's inputs are named without "_col"
        metric = METRICS.get(function.removeprefix("expr."))
        given = name.removesuffix("_col")
        close = did_you_mean(given, [*known, *_close_names(given, arguments, n=1, cutoff=0.8)], n=1)
        if not close and metric is not None and name in metric.options:
            close = f"pl_metrics.{metric.name} takes it, on a whole table"
        elif not close and metric is not None and f"{name}_col" in metric.options:
            close = f"pl_metrics.{metric.name} takes {name}_col=, on a whole table"
        return UnknownOptionError(
            f"{function}: unknown option {name!r}{f'; {close}' if close else ''}",
            problem="unknown_option",
        )
    takers = [m for m, entry in METRICS.items() if name in entry.options]
    # An option of other metrics is rarely a slip: only a near name (f1(thresholds=)), not
    # any close one (lrap(average=): not "did you mean 'ragged'?").
    near = _close_names(name, arguments, n=1, cutoff=0.8)
    close = did_you_mean(name, [*known, *near], n=1, cutoff=0.8 if takers else 0.6)
    if f"{name}_col" in known:  # paired(model=): model_col, not model_a
        close = f"did you mean '{name}_col'?"
    if "by" in known and name in ("by_col", "by_cols", "group_by", "groupby", "group_col"):
        close = "did you mean 'by'?"  # (by_col was offered id_col)
    if not close:  # a slip in a short name (bi=): too few letters for difflib's ratio
        one_off = [k for k in known if len(k) == len(name) <= 3 and _one_apart(k, name)]
        close = did_you_mean(name, one_off, n=1, cutoff=0.0)
    if name in _SCIKIT_LEARN_OPTIONS:  # (sample_weight is no class_weights)
        close = _SCIKIT_LEARN_OPTIONS[name]
        if name == "sample_weight" and function in METRICS and "weight_col" not in known:
            close = "it takes no sample weights"
        if name == "labels" and "class_names" in known:
            close = "did you mean 'class_names'? (as scikit-learn's labels=)"
    if "by" in known and name in ("label", "labels") and function.endswith("intervals"):
        close = "did you mean 'by'? (the columns that label the rows)"  # (label= was its name)
    if function in METRICS and takers:
        return UnknownOptionError(
            f"{function}: option {name!r} is not one of its options; "
            + _not_taken(function, name, close, takers),
            problem="unknown_option",
        )
    if function in METRICS and not _close_names(name, [*known, *near], n=1, cutoff=0.8):
        # A slip of other metrics' option (weigth_col= where the metric takes no weights):
        # that option told as not taken, not this metric's closest (truth_col). A near name
        # of its own comes first (threshold_sweep(thresold=): its thresholds).
        others = {o for entry in METRICS.values() for o in entry.options}
        slip = _close_names(name, others - {*known, *arguments}, n=1, cutoff=0.8)
        if slip:
            takers = [m for m, entry in METRICS.items() if slip[0] in entry.options]
            return UnknownOptionError(
                f"{function}: unknown option {name!r}; did you mean {slip[0]!r}? "
                + _not_taken(function, slip[0], "", takers),
                problem="unknown_option",
            )
    return UnknownOptionError(
        f"{function}: unknown option {name!r}{f'; {close}' if close else ''}",
        problem="unknown_option",
    )


def _not_taken(function: str, name: str, close: str, takers: Sequence[str]) -> str:
    """Why metric ``function`` refuses ``name``, an option of the metrics ``takers``."""
    from pl_metrics._registry import METRICS

    if name == "weight_col":  # not "did you mean 'id_col'?"
        return "it takes no sample weights"
    if name == "per_class" and "average" in METRICS[function].options:
        return "its per-class values are those of average=None"  # (f1's, say)
    # f1(thresholds=...): "did you mean 'threshold'?" first
    listed = f"the metrics that take it: {', '.join(takers)}"
    return f"{close} ({listed})" if close else listed


def checked_options(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Refuse a misspelt option as bad input is refused: named, with the closest option.

    ``f1: unknown option 'averge'; did you mean 'average'?``, where Python's TypeError
    names no fix. (`compare` and the bootstrap check their ``**options`` themselves.)
    """
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):  # any keyword is taken
        raise TypeError(f"{function.__name__} takes **kwargs: check them in its body")
    known = frozenset(p.name for p in parameters)
    # (what to suggest: the options, and the arguments that may be passed by name)
    options = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]
    arguments = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    # (`pl_metrics.expr`'s functions have the names of metrics, and options of their own;
    # `pl_metrics.dask.score` is named so, not as `pl_metrics.score`, which takes others.)
    prefix = {"pl_metrics.expr": "expr.", "pl_metrics.dask": "dask."}.get(function.__module__, "")
    label = prefix + function.__name__

    @functools.wraps(function)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        for name in kwargs:
            if name not in known:
                raise unknown_option(label, name, options, arguments)
        return function(*args, **kwargs)

    return checked


@dataclass(frozen=True)
class Columns:
    """The resolved column names of a long prediction table."""

    id: str
    cls: str
    score: str | None
    truth: str
    weight: str | None
    by: tuple[str, ...]
    truth_is_bool: bool
    score_is_float: bool
    pred: str | None = None
    #: The scores' float type when narrower than Float64 (Float32, Float16): thresholds are
    #: compared in it, however a threshold is given (as numpy compares a float32 array with
    #: a Python float). None otherwise.
    narrow_score: pl.DataType | None = None
    pred_is_bool: bool = True
    class_is_categorical: bool = False
    #: An enum's categories have an order of their own (a categorical's do not).
    class_is_enum: bool = False
    #: The input's other columns that could be keys (not floats), for the duplicate rows'
    #: hint; not part of what states must share to merge.
    other_keys: tuple[str, ...] = field(default=(), compare=False)
    #: The ``by`` the caller gave, where it differs from `by` (``fold_col`` is added to it).
    given_by: tuple[str, ...] | None = field(default=None, compare=False)
    #: Key columns (id, class, ``by``) of a float type, whose NaN values are refused: NaN is
    #: not equal to itself, so paths that compare keys and paths that hash them differ.
    float_keys: tuple[str, ...] = field(default=(), compare=False)
    #: The fold column that `compare` pools over (its duplicate rows' hint says so).
    pooled_folds: str | None = field(default=None, compare=False)
    #: Scored by `compare`, which takes no ``by`` (its duplicate rows' hint says so).
    compared: bool = field(default=False, compare=False)

    @property
    def callers_by(self) -> tuple[str, ...]:
        """The ``by`` the caller gave: `by` less a ``fold_col`` added to it."""
        return self.by if self.given_by is None else self.given_by

    @property
    def class_hash(self) -> pl.Expr:
        """The class column's `class_hash`."""
        return class_hash(pl.col(self.cls), categorical=self.class_is_categorical)

    @property
    def truth_expr(self) -> pl.Expr:
        """Truth as a boolean (numbers 0/1 are cast; other values are caught by a check)."""
        t = pl.col(self.truth)
        return t if self.truth_is_bool else t.cast(pl.Boolean)

    @property
    def pred_expr(self) -> pl.Expr:
        """The ``pred`` column as a boolean (numbers 0/1 are cast)."""
        assert self.pred is not None
        p = pl.col(self.pred)
        return p if self.pred_is_bool else p.cast(pl.Boolean)

    @property
    def used(self) -> list[str]:
        """The columns the metrics read (in the order the null checks report them)."""
        names = [self.id, self.cls, self.truth, *self.by, self.score, self.weight, self.pred]
        return list(dict.fromkeys(n for n in names if n is not None))

    @property
    def weight_expr(self) -> pl.Expr:
        """The per-id weight as Float64 (1.0 when there is no weight column)."""
        if self.weight is None:
            return pl.lit(1.0, dtype=pl.Float64)
        return pl.col(self.weight).cast(pl.Float64)


@dataclass(frozen=True)
class Problem:
    """A data check: a count expression at some stage of a plan and how to describe it.

    ``count`` is evaluated in the aggregation that makes the check's column; later stages sum
    it. The error reads ``column 'score': 3 rows are NaN or infinite; drop or replace them
    first``.
    """

    key: str
    column: str
    unit: str
    text: str
    hint: str = ""
    #: Whether a String column ``{name}_examples`` names some of the rows concerned.
    examples: bool = False
    #: Counted over the whole table, the same on each group's row: told once, not per group.
    whole_table: bool = False
    #: A cheap test that a whole table passes, tried before counting (see `skip_passing`).
    passes: pl.Expr | None = field(default=None, compare=False)
    #: The metrics that make this check, named in its message (for a report of several).
    needed_by: tuple[str, ...] = field(default=(), compare=False)

    @property
    def name(self) -> str:
        return f"{CHECK_PREFIX}{self.key}"

    @property
    def examples_name(self) -> str:
        return f"{self.name}_examples"

    def message(self, count: int, where: str) -> str:
        hint = f"; {self.hint}" if self.hint else ""
        if self.needed_by:
            hint = f"; checked for {', '.join(self.needed_by)}{hint}"
        unit, text = self.unit, self.text
        if count == 1:  # "1 row is", not "1 rows are"
            unit = re.sub(r"\b(row|id|group|class|combination)(e?s)\b", r"\1", unit, count=1)
            text = re.sub(_PLURAL_VERB, lambda m: _SINGULAR[m[1]], text, count=1)
            hint = re.sub(r"\bthem\b", "it", hint)
        return f"column {self.column!r}: {count:,} {unit} {text}{where}{hint}"


_SINGULAR = {"are": "is", "have": "has", "do": "does", "repeat": "repeats"}
_PLURAL_VERB = rf"\b({'|'.join(_SINGULAR)})\b"


def normalize_by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    """Turn the ``by`` option (None, one name or several) into a tuple of names."""
    return () if by is None else column_names("by", by)


def distinct_columns(roles: Iterable[tuple[str, str | None]]) -> None:
    """Refuse one column named by two options: each column plays one part.

    ``roles``: ``(option, column)`` pairs, the column None where the option is unset.
    """
    seen: dict[str, str] = {}
    for option, name in roles:
        if name is None:
            continue
        if seen.get(name, option) != option:
            raise MetricsInputError(
                f"options {seen[name]!r} and {option!r} both name column {name!r}; give each "
                "its own column"
            )
        seen[name] = option


def column_name(option: str, name: object) -> str:
    """The column named by a one-column option (a list or None would fail deep inside)."""
    if not isinstance(name, str):
        raise MetricsInputError(f"option {option!r}: expected a column name, got {shown(name)}")
    return name


def column_names(option: str, names: object) -> tuple[str, ...]:
    """The columns named by an option taking one name or several, each once.

    Any iterable of names (a list, an array, a Series, a pandas Index); a set's are sorted.
    Not an expression: a column name is a string.
    """
    if isinstance(names, str):
        return (names,)
    if isinstance(names, pl.Expr) or not isinstance(names, Iterable):
        raise MetricsInputError(f"option {option!r}: expected column names, got {shown(names)}")
    series = getattr(names, "name", None) if is_series(names) else None
    hint = (  # (pandas' groupby habit: by=df["model"])
        f"; a column's values, not names? pass {option}={series!r}"
        if isinstance(series, str) and series  # (a polars Series is named "" by default)
        else ""
    )
    given = tuple(sorted(names, key=str) if isinstance(names, (set, frozenset)) else names)
    if not all(isinstance(name, str) for name in given):
        raise MetricsInputError(
            f"option {option!r}: expected column names, got {shown(list(given[:50]))}{hint}"
        )
    twice = sorted(name for name, count in Counter(given).items() if count > 1)
    if twice:
        shown_twice = listed([repr(name) for name in twice], 5)
        raise MetricsInputError(f"option {option!r}: {shown_twice} named more than once{hint}")
    return given


def is_series(value: object) -> bool:
    """Whether ``value`` is a polars or pandas Series."""
    return isinstance(value, pl.Series) or is_pandas_series(value)


def is_number(value: object) -> bool:
    """A real number, numpy's included, but not a bool."""
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))


def is_integer(value: object) -> TypeGuard[int | np.integer[Any]]:
    """An integer, numpy's included, but not a bool."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def compared_number(value: Any) -> float:
    """A threshold as compared with the scores: an integer within 64 bits stays one.

    So integer scores past 2**53 compare exactly, as numpy compares them; else a float.
    """
    if is_integer(value) and -(2**63) <= int(value) < 2**64:
        return int(value)
    try:
        return float(value)
    except OverflowError:  # an integer past float's range
        return math.inf if value > 0 else -math.inf


def shown(value: object) -> str:
    """``value`` in a message, on one line: a table or an array by its type and shape."""
    text = repr(value)
    if "\n" in text:
        shape = getattr(value, "shape", None)
        return f"a {type(value).__name__}" + ("" if shape is None else f" of shape {shape}")
    return text if len(text) <= 100 else text[:97] + "..."


def check_option(name: str, value: object, allowed: Iterable[object]) -> None:
    """Raise a `MetricsInputError` if ``value`` is not one of ``allowed``."""
    allowed = list(allowed)
    try:
        with warnings.catch_warnings():  # (a Series compared with None warns)
            warnings.simplefilter("ignore")
            known = value in allowed
    except Exception:  # a table or an array has no single truth value
        known = False
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        # Not 1 or 0.0 for True or False, which they equal: a flag is a flag.
        known = known and not any(isinstance(a, bool) and a == value for a in allowed)
    if not known:
        words = [a for a in allowed if isinstance(a, str)]
        close = did_you_mean(value, words) if isinstance(value, str) else ""
        raise MetricsInputError(
            f"option {name!r}: unknown value {shown(value)}; "
            + (f"{close} (" if close else "")
            + "expected one of "
            + ", ".join(repr(a) for a in allowed)
            + (")" if close else "")
        )


def check_integer(option: str, value: object, low: int = 1, high: int | None = None) -> int:
    """``value``, an integer in ``[low, high]``, as an int; anything else refused by name."""
    if is_integer(value):  # (not a bool)
        number = int(value)
        if low <= number and (high is None or number <= high):
            return number
    if high is None:
        wanted = "a positive integer" if low == 1 else f"an integer >= {low}"
    elif (high + 1).bit_count() == 1 and high >= 2**31 - 1:  # a type's bound, as 2**63
        wanted = f"an integer in [{low}, 2**{(high + 1).bit_length() - 1})"
    else:
        wanted = f"an integer in [{low:,}, {high:,}]"
    raise MetricsInputError(f"option {option!r}: expected {wanted}, got {shown(value)}")


def check_eps(eps: float) -> float:
    """The log losses' clipping ``eps``, a number in [0, 0.5), as a float."""
    if not is_number(eps) or not 0 <= eps < 0.5:
        raise MetricsInputError(f"option 'eps': expected a number in [0, 0.5), got {shown(eps)}")
    return float(eps)


def check_confidence(confidence: float) -> float:
    """A bootstrap interval's ``confidence``, a number in (0, 1), as a float."""
    if not is_number(confidence) or not 0 < confidence < 1:
        raise MetricsInputError(
            f"option 'confidence': expected a number in (0, 1), got {shown(confidence)}"
        )
    return float(confidence)


#: The largest F-beta ``beta``: past it, ``1 / beta**2`` underflows to 0, and a class of no
#: positive (F-beta 0 for any finite beta) would take ``zero_division`` (scikit-learn's
#: fbeta_score overflows from about 1e155).
LARGEST_BETA = 1e150


def check_beta(beta: float) -> float:
    """F-beta's ``beta``, a number in [0, `LARGEST_BETA`] (0: precision), as a float."""
    # (NaN is neither; a float32 beta compared as a float: 1e150 would overflow its type)
    if not is_number(beta) or not 0 <= float(beta) <= LARGEST_BETA:
        raise MetricsInputError(
            f"option 'beta': expected a number in [0, {LARGEST_BETA:g}] (0: precision), got "
            f"{shown(beta)}"
        )
    return float(beta)


def listed(
    items: Sequence[str], limit: int, total: int | None = None, *, separator: str = ", "
) -> str:
    """The first ``limit`` of ``items`` for a message, with ``, ...`` when there are more.

    ``total``: how many there are, when ``items`` holds only some of them (examples).
    ``separator``: ``"; "`` between items that hold commas themselves.
    """
    more = (len(items) if total is None else total) > limit
    return separator.join(items[:limit]) + (f"{separator}..." if more else "")


def did_you_mean(name: str, choices: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> str:
    """``"did you mean 'a' or 'b'?"`` for the choices close to ``name``; "" if none is.

    Case aside (``F1``: ``f1``; ``Score``: ``score``): the same name, first.
    """
    close = _close_names(name, choices, n=n, cutoff=cutoff)
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _one_apart(a: str, b: str) -> bool:
    """Whether two names of one length differ in one letter."""
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _close_names(name: str, choices: Iterable[str], *, n: int, cutoff: float) -> list[str]:
    """`did_you_mean`'s names."""
    choices = list(choices)
    same = [c for c in choices if c.lower() == name.lower() and c != name]
    close = [*same, *difflib.get_close_matches(name, choices, n=n, cutoff=cutoff)]
    return list(dict.fromkeys(close))[:n]


def require_column(
    schema: pl.Schema, option: str, name: object, taken: Collection[str] = ()
) -> None:
    """Refuse a column option that names no column of the table, suggesting close names.

    ``taken``: columns other options name, suggested for none.
    """
    if not isinstance(name, str) or name not in schema:  # None or a list: not a name
        raise missing_column(schema, option, name, taken)


#: Column options whose column a table is likely to hold just one of, by its type.
_COLUMN_KINDS: dict[str, Callable[[pl.DataType], bool]] = {
    "truth_col": lambda dtype: dtype == pl.Boolean,
    "score_col": lambda dtype: dtype.is_float(),
}
#: Names of another role, never offered for a column of its type: a boolean ``pred``
#: taken for the truth scores predictions as the truth, a float weight as the scores.
_OTHER_ROLE: dict[str, Callable[[str], bool]] = {
    "truth_col": lambda name: name.startswith(("pred", "y_pred", "yhat", "y_hat")),
    "score_col": lambda name: name == "w" or name.endswith(("weight", "weights")),
}
#: The names under which dumps often hold ids and classes (of no single type, unlike truth).
_COLUMN_NAMES: dict[str, Callable[[str], bool]] = {
    "id_col": lambda name: (
        name in {"id", "sample", "index", "idx", "row", "key"} or name.endswith(("_id", "_ids"))
    ),
    "class_col": lambda name: (
        name
        in {
            "class",
            "label",
            "labels",
            "target",
            "category",
            "cls",
            "class_name",
            "species",
            "tag",
            "y",
        }
        or name.endswith(("_label", "_class"))
    ),
}


def missing_column(
    schema: pl.Schema, option: str, name: object, taken: Collection[str] = ()
) -> MetricsInputError:
    """The error for a column option naming a column the table lacks, with close names.

    ``taken``: columns other options name, suggested for none (a typo of the class column
    close to "score" is no score column).
    """
    if not isinstance(name, str):
        return MetricsInputError(
            f"option {option!r}: expected a column name (a string), got {shown(name)}"
        )
    close = _separator_hint(schema) or _close_columns(schema, option, name, taken)
    if not close and option == "class_col":
        close = _one_class(name)
    if not close and option == "model_col":  # (compare's, of a dump of one model)
        close = (
            f"a dump of one model has none: add one of one value (pl.lit('mine')"
            f".alias({name!r})), or score its folds with report(..., by=its fold column)"
        )
    hint = f"; {close}" if close else ""
    return MetricsInputError(
        f"column {name!r} (option {option!r}) is not in the table; its columns are "
        f"{_columns_of(schema)}{hint}",
        column=name,
    )


def _columns_of(schema: pl.Schema, shown: int = 12) -> str:
    """A table's columns for a message: the first few of a wide table's, and their count."""
    if len(schema) <= shown:
        return str(list(schema))
    return f"{str(list(schema)[:shown])[:-1]}, ...] ({len(schema):,} columns)"


def _separator_hint(schema: pl.Schema) -> str:
    """For a CSV of other separators, read as one column ("id;class;score;truth")."""
    if len(schema) != 1:
        return ""
    header = next(iter(schema))
    for separator in (";", "\t", "|"):
        if separator in header:
            return (
                f"the file looks separated by {separator!r}, not commas (its one column is "
                f"{header!r}): write it with commas"
            )
    return ""


def _spaces_hint(schema: pl.Schema, names: Sequence[str]) -> str:
    """For a CSV written with ", " between values: its names (and values) hold the spaces."""
    spaced = [repr(c) for c in schema if c != c.strip() and c.strip() in names]
    if not spaced:
        return ""
    these = f"column {spaced[0]}" if len(spaced) == 1 else f"columns {listed(spaced, 4)}"
    return (
        f"{these} {'has' if len(spaced) == 1 else 'have'} spaces around the name: a CSV "
        "written with ', ' between values reads so, its values too (' 0.9' is text); write "
        "it with commas alone"
    )


def _close_columns(schema: pl.Schema, option: str, name: str, taken: Collection[str] = ()) -> str:
    """The table's columns that ``option`` may have meant instead of ``name``, as advice."""
    other_role = _OTHER_ROLE.get(option)  # (y_pred is close to y_true)
    schema = pl.Schema(
        {
            c: dtype
            for c, dtype in schema.items()
            if c not in taken and not (other_role and other_role(c.lower()))
        }
    )
    close = _spaces_hint(schema, [name]) or did_you_mean(name, schema, cutoff=0.5)
    names = _close_names(name, schema, n=3, cutoff=0.5)
    if close.startswith("did you mean") and len(names) == 1 and option != "by":  # its option
        close = f"{close} pass {option}={names[0]!r}"
    if not close and option in _COLUMN_KINDS:  # the one column of its type: truth as "label"
        fits = [c for c, dtype in schema.items() if _COLUMN_KINDS[option](dtype)]
        close = f"pass {option}={fits[0]!r} if that column holds it" if len(fits) == 1 else ""
    if not close and option in _COLUMN_NAMES:  # a usual name: classes as "label"
        fits = [c for c in schema if _COLUMN_NAMES[option](c.lower())]
        if len(fits) == 1:
            close = f"pass {option}={fits[0]!r} if that column holds them"
    return close


def _one_class(name: str) -> str:
    """For a table without a class column: one of one value makes a binary table long."""
    return (
        "if the table is binary (a truth and a score per id), it needs a class column of one "
        f"value: add one (class 1 on every row, say; in polars, pl.lit(1).alias({name!r}))"
    )


def _missing_columns(
    schema: pl.Schema, missing: list[tuple[str, str]], taken: Collection[str] = ()
) -> MetricsInputError:
    """The error for several column options naming columns the table lacks, all at once.

    A table of other column names (``Id``, ``Pred``), or a wide one (a column of scores
    per class), lacks them all: told in one message rather than one a run.
    """
    named = ", ".join(f"{name!r} (option {option!r})" for option, name in missing)
    close = {option: _close_columns(schema, option, name, taken) for option, name in missing}
    wide = [c for c, dtype in schema.items() if dtype.is_float()]
    given = dict(missing)

    # No class nor score column, nor any named like them, and many of floats: wide. (Its
    # other columns are then no class, score or truth column to offer: its labels, say.)
    # Columns of scores named like a class, Otto's Class_1 to Class_9, are no class; nor
    # like a score, the bird 'grecor' or the product 'store', unless named much like it
    # ('scores') beside a column that could be a long table's classes or truth.
    def floats_alone(option: str) -> bool:
        return set(_close_names(given[option], schema, n=3, cutoff=0.5)) <= set(wide)

    not_floats = len(schema) - len(wide)  # (besides the id's, a long table's class, truth)
    if (
        {"class_col", "score_col", "truth_col"} <= set(close)  # (a truth column: long)
        and len(wide) > 2
        and (not close["class_col"].startswith("did you") or floats_alone("class_col"))
        and (
            not close["score_col"]
            or (
                floats_alone("score_col")
                and (
                    not_floats <= 1
                    or not _close_names(given["score_col"], schema, n=1, cutoff=0.75)
                )
            )
        )
    ):
        moot = ("class_col", "score_col", "truth_col")
        close = {o: text for o, text in close.items() if o not in moot}
        close["wide"] = (
            f"the table looks wide (a column of scores per class: "
            f"{listed([repr(c) for c in wide], 4)}): "
            "pl_metrics.from_wide makes the long table, a row per id and class"
            + (
                # (predict_proba's frame: no id column)
                " (from_numpy(y_true, y_score) of scores without ids)"
                if len(wide) == len(schema)
                else ""
            )
        )
    if "class_col" in close:  # (a binary table's truth column offered as its classes too)
        others = [text for option, text in close.items() if option != "class_col"]
        offered = [c for c in schema if any(f"={c!r}" in text for text in others)]
        if not close["class_col"] or any(f"={c!r}" in close["class_col"] for c in offered):
            close["class_col"] = _one_class(given["class_col"])
    advice = [f"{given[o]!r}: {text}" if o in given else text for o, text in close.items() if text]
    if separated := _separator_hint(schema):  # (no close names to give: one column)
        advice = [separated]
    elif spaced := _spaces_hint(schema, [name for _, name in missing]):  # told once for all
        padded = {c.strip() for c in schema if c != c.strip()}
        others = [o for o, name in missing if name not in padded and close.get(o)]
        advice = [spaced, *(f"{given[o]!r}: {close[o]}" for o in others)]
    return MetricsInputError(
        f"columns {named} are not in the table; its columns are {_columns_of(schema)}"
        + "".join(f"; {line}" for line in advice)
    )


def refuse_internal(name: str, option: str | None) -> None:
    """Refuse a column named as pl_metrics' working columns are."""
    if name.startswith(INTERNAL):
        raise MetricsInputError(
            f"{_column_of(name, option)}: names starting with {INTERNAL!r} are pl_metrics' "
            "own; rename the column"
        )


def refuse_pattern(name: str, option: str | None) -> None:
    """Refuse a column named as polars' patterns: ``pl.col`` cannot name it alone."""
    if name == "*" or (name.startswith("^") and name.endswith("$")):
        raise MetricsInputError(
            f"{_column_of(name, option)}: polars reads a name of '^...$' as a pattern of "
            "names and '*' as every column, so no expression can name it; rename the column"
        )


def _column_of(name: str, option: str | None) -> str:
    return f"column {name!r}" + ("" if option is None else f" (option {option!r})")


def resolve_columns(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    id_col: str,
    class_col: str,
    score_col: str | None,
    truth_col: str,
    weight_col: str | None = None,
    by: str | Sequence[str] | None = None,
    pred_col: str | None = None,
    fold_col: str | None = None,
) -> Columns:
    """Check that the columns exist and have usable types; only the schema is read.

    ``fold_col``: the one of ``by`` that a metric tunes over (named as such in errors, and
    left out of the ``by`` that hints name).

    ``score_col=None`` is for metrics that take their predictions from ``pred_col``.
    """
    schema = frame.collect_schema()
    by_names = normalize_by(by)
    options = {"id_col": id_col, "class_col": class_col, "truth_col": truth_col}
    if score_col is not None:
        options["score_col"] = score_col
    if weight_col is not None:
        options["weight_col"] = weight_col
    if pred_col is not None:
        options["pred_col"] = pred_col
    named = [*options.items(), *(("by", b) for b in by_names)]
    missing = [(o, name) for o, name in named if not isinstance(name, str) or name not in schema]
    taken = {name for o, name in named if (o, name) not in missing}
    if len(missing) > 1 and all(isinstance(name, str) for _, name in missing):
        raise _missing_columns(schema, missing, taken)
    for option, name in named:
        require_column(schema, option, name, taken)
        refuse_internal(name, option)
        refuse_pattern(name, option)
    for option, name in options.items():
        if name in by_names:
            given, advice = (
                ("fold_col", "name the column of folds")
                if name == fold_col
                else ("by", "group by other columns")
            )
            raise MetricsInputError(
                f"option {given!r}: {name!r} is the {option}, which the metrics read; {advice}"
            )
    distinct_columns(options.items())

    for binary in (truth_col, pred_col):
        # Floats too: a CSV written by pandas holds 0/1 as 1.0 and 0.0 (any other value is
        # counted by the row checks, NaN included).
        if binary is not None and not (schema[binary] == pl.Boolean or schema[binary].is_numeric()):
            hint = (
                f"; map its values to booleans first, e.g. pl.col({binary!r}) == 'true' "
                "(the text of a positive)"
                if schema[binary] == pl.String or is_categorical(schema[binary])
                else ""
            )
            raise MetricsInputError(
                f"column {binary!r}: must be boolean or numbers 0/1, not {schema[binary]}{hint}",
                problem=TEXT_FLAGS if schema[binary] == pl.String else None,
                column=binary,
            )
    class_dtype = schema[class_col]
    if isinstance(class_dtype, (pl.List, pl.Array)) or class_dtype in (pl.Null, pl.Object):
        raise MetricsInputError(
            f"column {class_col!r}: classes must be integers, strings, categoricals or enums, "
            f"not {class_dtype}; a list of labels per id is the wide form: see from_wide"
        )
    for option, name in [("id_col", id_col), *(("by", b) for b in by_names)]:
        if schema[name] == pl.Object:  # Python objects: polars can neither sort nor compare them
            raise MetricsInputError(
                f"column {name!r} (option {option!r}): holds Python objects (Object), which "
                "polars cannot sort or compare; cast them to strings or numbers first"
            )
    if fold_col is not None and isinstance(schema[fold_col], (pl.List, pl.Array, pl.Struct)):
        # (Polars' as-of join, which matches the folds, panics on them.)
        raise MetricsInputError(
            f"column {fold_col!r} (option 'fold_col'): folds must be single values (numbers, "
            f"strings), not {schema[fold_col]}"
        )
    score_is_float, narrow_score = False, None
    if score_col is not None:
        score_dtype = schema[score_col]
        if not (score_dtype.is_float() or score_dtype.is_integer()):
            hint = (
                f"; if it holds numbers as text (a CSV column with one value that is not a "
                f"number, say), pl.col({score_col!r}).cast(pl.Float64) names the values that "
                "are not"
                if score_dtype == pl.String
                else f"; cast them first: pl.col({score_col!r}).cast(pl.Float64)"
                if isinstance(score_dtype, pl.Decimal)
                else f"; hard predictions are pred_col's (of the thresholded metrics), or cast "
                f"them: pl.col({score_col!r}).cast(pl.Float64)"
                if score_dtype == pl.Boolean
                else ""
            )
            raise MetricsInputError(
                f"column {score_col!r}: scores must be numeric (float or integer), "
                f"not {score_dtype}{hint}",
                problem=TEXT_NUMBERS if score_dtype == pl.String else None,
                column=score_col,
            )
        score_is_float = score_dtype.is_float()
        narrow_score = score_dtype if score_is_float and score_dtype != pl.Float64 else None
    if weight_col is not None:
        weight_dtype = schema[weight_col]
        if not (weight_dtype.is_float() or weight_dtype.is_integer()):
            cast = (
                f"; cast them first: pl.col({weight_col!r}).cast(pl.Float64)"
                if isinstance(weight_dtype, pl.Decimal) or weight_dtype == pl.Boolean
                else ""
            )
            raise MetricsInputError(
                f"column {weight_col!r}: weights must be numeric (float or integer), not "
                f"{weight_dtype}{cast}",
                problem=TEXT_NUMBERS if weight_dtype == pl.String else None,
                column=weight_col,
            )
    return Columns(
        id=id_col,
        cls=class_col,
        score=score_col,
        truth=truth_col,
        weight=weight_col,
        by=by_names,
        truth_is_bool=schema[truth_col] == pl.Boolean,
        score_is_float=score_is_float,
        narrow_score=narrow_score,
        pred=pred_col,
        pred_is_bool=pred_col is None or schema[pred_col] == pl.Boolean,
        class_is_categorical=is_categorical(schema[class_col]),
        class_is_enum=isinstance(schema[class_col], pl.Enum),
        given_by=None if fold_col is None else tuple(b for b in by_names if b != fold_col),
        float_keys=tuple(
            name
            for name in dict.fromkeys((id_col, class_col, *by_names))
            if schema[name].is_float()
        ),
        other_keys=tuple(
            name
            for name, dtype in schema.items()
            if name not in {*options.values(), *by_names}
            and not name.startswith(INTERNAL)
            # (a float is a score or weight, but a fold of pandas' with a NaN is float too)
            and (not dtype.is_float() or _FOLD.fullmatch(name) is not None)
            and not _OTHER_ROLE["truth_col"](name.lower())  # (a prediction is no group)
            and not _ROW_INDEX.fullmatch(name)  # a row number is no group
        ),
    )


#: A fold column's names (not a fold_score's, nor a scaffold's).
_FOLD = re.compile(r"(k_?)?folds?(_?(id|idx|index|no|num|number))?", re.IGNORECASE)

#: A pandas frame's row index as a column: unnamed in its CSV, then read back by pandas, or
#: kept by Arrow's conversion.
_ROW_INDEX = re.compile(r"|Unnamed: \d+|__index_level_\d+__")


def is_categorical(dtype: pl.DataType) -> bool:
    """Whether ``dtype`` holds codes of strings (categorical or enum)."""
    return isinstance(dtype, (pl.Categorical, pl.Enum))


def class_hash(classes: pl.Expr, *, categorical: bool) -> pl.Expr:
    """A hash of each class that is the same in every chunk, file and process.

    Categorical codes can differ between files and processes: those hash their strings.
    The state's class-set checks and the C kernel's sums both use it.
    """
    return (classes.cast(pl.String) if categorical else classes).hash(seed=0)


#: The largest magnitude of a weight (`row_problems`).
LARGEST_WEIGHT = 1e290


def null_rows(name: str) -> Problem:
    """Rows whose ``name`` is null: ``column 'score': 3 rows are null; drop or fill ...``."""
    return Problem(f"null_{name}", name, "rows", "are null", "drop or fill them first")


def row_problems(cols: Columns) -> list[tuple[Problem, pl.Expr]]:
    """Row-level checks: nulls, NaN/inf scores and weights, truth outside 0/1."""
    return [(problem, rows.sum()) for problem, rows in problem_rows(cols)]


def row_check_keys(cols: Columns) -> frozenset[str]:
    """The problem keys of `row_problems` (``null_score``, ``not_01_truth``)."""
    return frozenset(problem.key for problem, _ in problem_rows(cols))


def probability_rows(score: str) -> dict[str, pl.Expr]:
    """The rows failing a check of scores as probabilities, by problem key (true if it fails).

    Counted by the metrics of probabilities (`pl_metrics._curves.probability_check`, the log
    losses' negative rows), found again for a failed check's examples.
    """
    values = pl.col(score)
    return {"probability_range": (values < 0) | (values > 1), "negative": values < 0}


def probability_sums(score: str) -> dict[str, pl.Expr]:
    """Per id, whether its probabilities' sum fails a check, by problem key (an aggregation).

    Counted by the log losses, found again for a failed check's examples. A finite row
    whose sum overflows: `weighted_log_loss` would divide it by inf.
    """
    total = pl.col(score).cast(pl.Float64).sum()
    return {"zero_row": total == 0, "row_sum_overflow": total.is_infinite()}


def problem_rows(cols: Columns) -> list[tuple[Problem, pl.Expr]]:
    """The checks of `row_problems`, each with its rows: a boolean per row, true if it fails."""
    checks: list[tuple[Problem, pl.Expr]] = []
    for name in cols.used:
        checks.append((null_rows(name), pl.col(name).is_null()))
    # (Keys that are still keys: compare's pooled spec drops the fold from ``by``.)
    for name in (k for k in cols.float_keys if k in cols.used):
        nan_key = Problem(f"nan_key_{name}", name, "rows", "are NaN", "drop or replace them first")
        checks.append((nan_key, pl.col(name).is_nan()))
    if cols.score is not None and cols.score_is_float:
        checks.append(
            (
                Problem(
                    "nonfinite_score",
                    cols.score,
                    "rows",
                    "are NaN or infinite",
                    "drop or replace them first",
                    # NaN and inf make the sum NaN or inf (a finite overflow only costs a count).
                    passes=pl.col(cols.score).sum().is_finite(),
                ),
                ~pl.col(cols.score).is_finite(),
            )
        )
    if cols.weight is not None:
        checks.append(
            (
                Problem(
                    "nonfinite_weight",
                    cols.weight,
                    "rows",
                    "are NaN or infinite",
                    "drop or replace them first",
                ),
                ~pl.col(cols.weight).cast(pl.Float64).is_finite(),
            )
        )
        # Sums of weights above it (with products: F1's 2 tp, a rank times a weight)
        # overflow Float64 within 1e18 rows; products of weights below its inverse lose
        # their digits to subnormals. Between, any metric is exact up to rounding.
        magnitude = pl.col(cols.weight).cast(pl.Float64).abs()
        outside = (magnitude > LARGEST_WEIGHT) | (
            (magnitude < 1 / LARGEST_WEIGHT) & (magnitude > 0)
        )
        checks.append(
            (
                Problem(
                    "extreme_weight",
                    cols.weight,
                    "rows",
                    f"have a magnitude outside [{1 / LARGEST_WEIGHT:g}, {LARGEST_WEIGHT:g}] "
                    "(and are not 0), where sums or products of weights leave Float64's range",
                    "multiply the weights by a common factor, which changes no metric",
                    passes=(
                        (magnitude.max() <= LARGEST_WEIGHT)
                        & (magnitude.filter(magnitude > 0).min() >= 1 / LARGEST_WEIGHT)
                    ).fill_null(True),
                ),
                outside,
            )
        )
    pred_hint = (
        "option 'pred_col' takes predictions made already, boolean or 0/1; to threshold "
        "scores, give option 'threshold' instead"
    )
    for binary, is_bool, hint in (
        (cols.truth, cols.truth_is_bool, "give boolean or 0/1 values"),
        (cols.pred, cols.pred_is_bool, pred_hint),
    ):
        if binary is not None and not is_bool:
            checks.append(
                (
                    Problem(f"not_01_{binary}", binary, "rows", "are neither 0 nor 1", hint),
                    ~((pl.col(binary) == 0) | (pl.col(binary) == 1)),
                )
            )
    return checks


def skip_passing(
    frame: pl.DataFrame, checks: list[tuple[Problem, pl.Expr]]
) -> list[tuple[Problem, pl.Expr]]:
    """Row checks that find nothing anywhere in ``frame`` count a constant zero instead.

    Counting a check per id costs a little in the aggregation; over a whole DataFrame it is
    almost free (a null count is metadata). The zeros keep the state's columns the same, so
    states of chunks with and without problems still merge. Checks of other units (ids),
    or of columns ``frame`` does not have (joined later), are left as they are.
    """
    rows = [
        (p, e)
        for p, e in checks
        if p.unit == "rows" and set(e.meta.root_names()) <= set(frame.columns)
    ]
    if not rows:
        return checks
    schema = frame.lazy().select(e.alias(p.name) for p, e in rows).collect_schema()
    screens = [p.passes.alias(p.name) for p, _ in rows if p.passes is not None]
    passed = frame.select(screens).row(0, named=True) if screens else {}
    to_count = [e.alias(p.name) for p, e in rows if not passed.get(p.name)]
    found = frame.select(to_count).row(0, named=True) if to_count else {}
    passing = {p.name for p, _ in rows if not found.get(p.name)}
    return [
        (p, pl.lit(0, schema[p.name]).alias(p.name) if p.name in passing else e) for p, e in checks
    ]


def duplicate_problem(cols: Columns) -> Problem:
    """Rows that repeat an ``(by..., id, class)``."""
    keys = [k for k in (*cols.by, cols.id, cols.cls) if not k.startswith(INTERNAL)]
    return Problem(
        "duplicate",
        cols.cls,
        "rows",
        f"repeat a ({', '.join(keys)}) already present",
        "each id needs one row per class"
        + by_hint(cols)
        + "; rows repeated whole (a file read twice) go with .unique()",
    )


def by_hint(cols: Columns) -> str:
    """For rows that repeat an ``(id, class)``: the other key-like columns to group by.

    A dump of several models or folds scored without ``by`` is the usual cause.
    """
    if cols.pooled_folds is not None:
        return (
            f"; compare pools each model's {cols.pooled_folds!r} values, so an id may be in "
            "one of them only (repeated cross-validation: compare each repeat alone)"
        )
    others = _group_like(cols)
    if not others:
        return ""
    given = cols.callers_by
    these = f"column{'s' if len(others) > 1 else ''} {', '.join(others)}"
    if cols.compared:
        return (
            f"; the table also has {these}: compare takes one prediction per "
            f"({', '.join([*given, cols.id, cols.cls])}): compare each {others[0]}'s rows "
            f"alone, or score them by={[*given, *others]!r} with report"
        )

    def group(keys: list[str]) -> str:
        return keys[0] if len(keys) == 1 else f"({', '.join(keys)})"

    keys = [*given, *others]
    # Fewer keys may do, and be meant: a model's folds pooled (each id is in one fold); not
    # its seeds or repeats (each holds every id), so only a fold-named column is left out.
    folds = [c for c in others if "fold" in c.lower()]
    fewer = [*given, *(c for c in others if c not in folds)]
    pooled = (
        f", or by={fewer!r} if each {group(fewer)} does (pooling its {', '.join(folds)} values)"
        if folds and fewer and fewer != list(given)  # (not the by that just failed)
        else ""
    )
    return (
        f"; the table {'also ' if given else ''}has {these}: pass by={keys!r} if each "
        f"{group(keys)} holds one prediction per ({cols.id}, {cols.cls}){pooled}"
    )


def _group_like(cols: Columns) -> list[str]:
    """The input's other key-like columns, but those named for the class.

    A class_name or label column differs between an id's classes: grouped by, it would
    split each id.
    """
    cls = cols.cls.lower()
    return [
        c
        for c in cols.other_keys
        if "class" not in c.lower()
        and "label" not in c.lower()
        and cls not in re.split(r"[^a-z0-9]+", c.lower())  # (cls_name, not 'source' of 'c')
    ]


def tasks_hint(cols: Columns) -> str:
    """For ids whose class sets differ: the other key-like columns that may hold tasks.

    Two tasks' dumps of the same ids in one table (their own classes each), scored without
    their column in ``by``, are ragged; ``ragged='allow'`` would pool them. (Fold columns
    are left out: a fold holds every class.)
    """
    if cols.compared or cols.pooled_folds is not None:
        return ""
    others = [c for c in _group_like(cols) if "fold" not in c.lower()]
    if not others:
        return ""
    given = cols.callers_by
    these = f"column{'s' if len(others) > 1 else ''} {', '.join(others)}"
    group = others[0] if len(others) == 1 else f"({', '.join(others)})"
    return (
        f"if the table's {these} {'tell' if len(others) > 1 else 'tells'} tasks (or datasets) "
        "of their own classes apart, pass "
        f"by={[*given, *others]!r} (each {group} scored on its own)"
    )


def id_problems(cols: Columns, *, count_duplicates: bool) -> list[tuple[Problem, pl.Expr]]:
    """Checks inside one id's rows: weights that vary, and (if asked) duplicate classes.

    Duplicates cost a distinct count per id; when every id must have every class, the
    state finds them more cheaply from class hashes (see `pl_metrics._state`).
    """
    checks = []
    if count_duplicates:
        duplicates = (pl.len() - pl.col(cols.cls).n_unique()).cast(pl.Int64)
        checks.append((duplicate_problem(cols), duplicates))
    if cols.weight is not None:
        checks.append(
            (
                Problem(
                    "weight_varies",
                    cols.weight,
                    "ids",
                    "have weights that vary between rows",
                    "weights are per id",
                ),
                weight_varies(cols.weight),
            )
        )
    return checks


def weight_varies(weight: str) -> pl.Expr:
    """Per id: 1 if its ``weight`` varies between rows (weights are per id), else 0."""
    return (pl.col(weight).max() != pl.col(weight).min()).cast(pl.Int64)


def true_class_checks(
    cols: Columns, needed_by: Sequence[str] = (), several_hint: str = "", none_hint: str = ""
) -> list[tuple[Problem, pl.Expr]]:
    """The single-label metrics' check that each id has one true class: none and several apart.

    ``several_hint``: what to use instead for several true classes per id (multi-label);
    ``none_hint``: for none (binary scores, one class per id).
    """
    positives = cols.truth_expr.sum()
    # Several first: multi-label data (which often has ids of none too) is told as such.
    return [
        (
            Problem(
                "several_true_classes",
                cols.truth,
                "ids",
                "have more than one true class",
                several_hint,
                needed_by=tuple(needed_by),
            ),
            (positives > 1).cast(pl.Int64),
        ),
        (
            Problem(
                "no_true_class",
                cols.truth,
                "ids",
                "have no true class",
                "each id needs exactly one: drop those ids, or check that their true class "
                "has a row" + (f"; {none_hint}" if none_hint else ""),
                needed_by=tuple(needed_by),
            ),
            (positives == 0).cast(pl.Int64),
        ),
    ]


def unsigned_zero(column: pl.Expr, dtype: PolarsDataType = pl.Float64) -> pl.Expr:
    """Floats with -0.0 as 0.0 (polars drops a ``+ 0.0``, which would do it), named as they are."""
    return pl.when(~column.eq_missing(0)).then(column).otherwise(pl.lit(0.0, dtype))


def ordered_sum(expr: pl.Expr) -> pl.Expr:
    """The sum of ``expr`` added in the order of the rows: the same bits on every run.

    polars sums a group in parallel pieces added in whichever order threads finish, so a
    float sum may differ in its last bits between runs; users diff results across runs.
    The rows must come in a fixed order (sorted by their keys) for this to hold.
    Without a group_by, ``last`` is a slice of the whole cumulative sum: ``* 1`` copies the
    value out, so that a kept state does not hold a buffer per row (per id) of each chunk.
    """
    return expr.cum_sum().last().fill_null(0) * 1


def ordered_sum_of_one(expr: pl.Expr) -> pl.Expr:
    """`ordered_sum` of a group of one row, row by row (no group_by).

    A cumulative sum adds the value to 0 (-0.0 comes out 0.0); a null sums to 0.
    """
    return (expr + 0).fill_null(0) * 1


def ordered_mean(expr: pl.Expr) -> pl.Expr:
    """The mean of ``expr``, summed as `ordered_sum` (NaN for no values)."""
    return ordered_sum(expr) / expr.count()


def unit_scale(largest: pl.Expr) -> pl.Expr:
    """A power of two that brings ``largest`` (a magnitude, at least 0) to about 1.

    Multiplying weights by it is exact (short of subnormal numbers), so ratios of their sums
    and products are the same bits, where products of weights far from 1 (1e-170, 1e160)
    would have under- or overflowed. 1 where ``largest`` is 0.
    """
    exponent = largest.log(2).floor().clip(-1022, 1023)
    return pl.when(largest > 0).then(pl.lit(2.0).pow(-exponent)).otherwise(1.0)


def aggregate(lf: pl.LazyFrame, by: Sequence[str], exprs: Sequence[pl.Expr]) -> pl.LazyFrame:
    """``group_by(by).agg(exprs)``, or one row of ``exprs`` when there is no ``by``."""
    if by:
        return lf.group_by(list(by)).agg(exprs)
    return lf.select(exprs)


def sorted_within(
    lf: pl.LazyFrame,
    keys: Sequence[str],
    column: str,
    *,
    descending: bool = False,
    nulls_last: bool = False,
) -> pl.LazyFrame:
    """``lf`` sorted by ``keys`` and then ``column``, for tables of few groups.

    polars 2.1 sorts by several columns through row-encoded keys and one gather of the
    whole table at random, which on 20M rows of (class, score) took 10 s on 2 cores. Here
    each group's rows are sorted by ``column`` alone and gathered within the group, as one
    struct, and the groups (one row each) sorted by ``keys``: 4 s for the same table. Ties
    of ``column`` keep their order. Float keys come back as the group_by holds them (-0.0
    as 0.0), as every state table's keys already are.
    """
    if not keys:
        return lf.sort(column, descending=descending, nulls_last=nulls_last, maintain_order=True)
    rows, names = f"{INTERNAL}rows", lf.collect_schema().names()
    rest = [c for c in names if c not in keys]
    in_group = pl.struct(rest).sort_by(
        column, descending=descending, nulls_last=nulls_last, maintain_order=True
    )
    return (
        lf.group_by(list(keys))
        .agg(in_group.alias(rows))
        .sort(list(keys), nulls_last=nulls_last)
        .explode(rows)
        .unnest(rows)
        .select(names)
    )


def join_on(left: pl.LazyFrame, right: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """Join per-group columns onto ``left``; a cross join when there is no grouping."""
    if by:
        return left.join(right, on=list(by), how="left", nulls_equal=True, maintain_order="left")
    return left.join(right, how="cross", maintain_order="left")


def join_asof_by(
    left: pl.LazyFrame, right: pl.LazyFrame, by: Sequence[str], **options: Any
) -> pl.LazyFrame:
    """``left.join_asof(right, by=by, **options)``, the ``by`` values matched by hash.

    polars' as-of join orders its ``by`` values, which it cannot do for lists, arrays and
    structs (it panics), and matches no null among them (a group of a null key, with checks
    off, found no edges and no thresholds); their 64-bit hashes stand in for them (the same
    on both sides, null's too).
    """
    if not by:
        return left.join_asof(right, **options)
    codes = {k: f"{INTERNAL}asof_key_{i}" for i, k in enumerate(by)}

    def coded(lf: pl.LazyFrame) -> pl.LazyFrame:
        return lf.with_columns(pl.col(k).hash().alias(code) for k, code in codes.items())

    joined = coded(left).join_asof(coded(right).drop(by), by=list(codes.values()), **options)
    return joined.drop(codes.values())


def raise_on_problems(
    lf: pl.LazyFrame, problems: Sequence[Problem], by: Sequence[str], *, keep: bool = False
) -> pl.LazyFrame:
    """Append the step that raises on counted problems, then drops their columns.

    It runs on the final aggregated rows only (one per group, or per group and class), so it
    costs nothing and keeps the plan over the input rows free of Python. ``keep``: keep the
    columns, for a check made before the rest.
    """
    by = list(by)
    names = [p.name for p in problems]

    def check(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0 or (N_IDS in df.columns and df[N_IDS].sum() == 0):
            raise MetricsInputError(EMPTY_TABLE)
        for problem in problems:
            if not df[problem.name].max():  # the usual case, without a query per problem
                continue
            # Group-level counts repeat on each row of a group (one per class): count once.
            shown = [problem.examples_name] if problem.examples else []
            rows = df.select([*by, problem.name, *shown]).unique(maintain_order=True)
            bad = rows.filter(pl.col(problem.name) > 0)
            if bad.height and problem.whole_table:
                where = f" ({bad[problem.examples_name][0]})" if problem.examples else ""
                total = int(bad[problem.name][0])
                raise MetricsInputError(problem.message(total, where), problem=problem.key)
            if bad.height:
                total = int(bad[problem.name].sum())
                where = _where(bad, by, shown, counts_groups=problem.unit.startswith("group"))
                raise MetricsInputError(problem.message(total, where), problem=problem.key)
        return df

    checked = lf.map_batches(
        check, predicate_pushdown=False, projection_pushdown=False, slice_pushdown=False
    )
    if keep:
        return checked
    examples = [p.examples_name for p in problems if p.examples]
    return checked.drop([*names, *examples, N_IDS], strict=False)


def first_named(names: pl.Expr) -> pl.Expr:
    """An examples column of a `Problem`: the first three ``names`` (sorted), ``...`` if more."""
    more = pl.when(names.len() > 3).then(pl.lit(", ...")).otherwise(pl.lit(""))
    return pl.concat_str(names.head(3).str.join(", "), more)


def _where(
    bad: pl.DataFrame, by: Sequence[str], shown: Sequence[str], *, counts_groups: bool = False
) -> str:
    """Up to three of the groups (and examples) concerned, for an error message."""
    by = [k for k in by if not k.startswith(INTERNAL)]  # a resample number says nothing
    if not by and not shown:
        return ""
    parts = []
    # The first groups (and examples) in order, the same on every run (group_by's is not).
    # Polars cannot order lists and structs (it panics): those by their hashes.
    nested = (pl.List, pl.Array, pl.Struct)
    bad = bad.sort(
        [pl.col(k).hash(seed=0) if isinstance(bad.schema[k], nested) else k for k in [*by, *shown]],
        nulls_last=True,
    )
    if shown:  # rows per class: a group's (or the table's) first three named together
        named = pl.col(shown).head(3).str.join(", ")
        bad = bad.group_by(by, maintain_order=True).agg(named) if by else bad.select(named)
    for row in bad.head(3).iter_rows(named=True):
        text = ", ".join(f"{k}={row[k]!r}" for k in by)
        example = "; ".join(str(row[k]) for k in shown if row[k])
        parts.append(f"{text}: {example}" if text and example else text or example)
    if not by:
        return f" ({'; '.join(parts)})"
    if counts_groups:  # the count is of groups already
        return f" ({'e.g. ' if bad.height > 3 else ''}{'; '.join(parts)})"
    groups = "1 group" if bad.height == 1 else f"{bad.height:,} groups"
    return f" (in {groups}{'' if bad.height <= 3 else ', e.g.'}: {'; '.join(parts)})"


def table_option(option: str, table: object) -> pl.DataFrame | pl.LazyFrame:
    """A table given as ``option``, as `to_polars` reads it; anything else refused by name."""
    try:
        return to_polars(table)
    except TypeError as error:  # None, a dict, ...: bad input, told as the rest is
        raise MetricsInputError(f"option {option!r}: {error}") from None


def caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside pl_metrics and polars, for a warning.

    A warning given in a plan's step (when a lazy result is collected) then points at the
    user's line, not at the step's; where no user frame is on the stack (a deferred plan's
    step, run on polars' thread), at the step's line.
    """
    packages = (os.path.dirname(__file__) + os.sep, os.path.dirname(pl.__file__) + os.sep)
    frame, level = inspect.currentframe(), 0
    while frame is not None and frame.f_code.co_filename.startswith(packages):
        frame, level = frame.f_back, level + 1
    # (A step run where no user frame is on the stack, a deferred plan's: the step's line.)
    return level if frame is not None else 2


def is_pandas(value: object) -> bool:
    """Whether ``value`` is a pandas object (a frame, Series, Index or array)."""
    return type(value).__module__.partition(".")[0] == "pandas"


def is_float32s(name: str) -> pl.Expr:
    """Whether every value of Float64 column ``name`` is a Float32's (NaN aside).

    Such keys (0.0 and 1.0 folds) widen to themselves beside a Float32 column's; others
    (0.1) widen to another key (a Float32 0.1 is 0.10000000149011612).
    """
    column = pl.col(name)
    return ~(column.is_not_nan() & (column.cast(pl.Float32).cast(pl.Float64) != column)).any()


def is_past_2_53(name: str) -> pl.Expr:
    """Whether integer column ``name`` holds a value past 2**53, which a float would round."""
    column = pl.col(name)
    return ((column > 2**53) | (column < -(2**53))).any()


def is_pandas_series(value: object) -> bool:
    """Whether ``value`` is a pandas Series (given where a table or a mapping is taken)."""
    return is_pandas(value) and type(value).__name__ == "Series"


def to_polars(frame: object) -> pl.DataFrame | pl.LazyFrame:
    """A polars frame as it is; an Arrow table or stream (PyCapsule interface) as a DataFrame.

    pyarrow Tables, DuckDB relations, pandas frames and anything else that exports an Arrow
    C stream (``__arrow_c_stream__``) are accepted; polars takes their buffers without a
    copy where Arrow allows. A pandas frame's named index levels are columns, as in Arrow's
    ``Table.from_pandas``; a column of mixed types is refused by name.
    """
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame
    # A column (polars' or pandas' Series, an Arrow array) streams too, but is no table.
    pandas = is_pandas(frame)
    column = isinstance(frame, pl.Series) or (pandas and not hasattr(frame, "columns"))
    if hasattr(frame, "__arrow_c_stream__") and not column:
        if pandas:
            frame = _named_index_as_columns(frame)
            repeated = _repeated_pandas_columns(frame)
            if repeated:  # (polars' message names none of them)
                raise MetricsInputError(
                    f"the table cannot be read as columns: it has several columns named "
                    f"{listed([repr(c) for c in repeated], 3)}; rename or drop them first"
                )
        try:
            readable, ordered = _pandas_ordered(frame) if pandas else _arrow_ordered(frame)
            df = pl.DataFrame(readable)
            if df.height == 0 and _is_arrow_reader(frame):
                raise MetricsInputError(
                    f"{EMPTY_TABLE} (if this pyarrow RecordBatchReader was read before: a "
                    "reader gives its rows once; pass a pyarrow Table to score them more "
                    "than once)"
                )
            return df.with_columns(
                pl.col(name).cast(pl.Enum(labels))
                for name, labels in ordered.items()
                if name in df.columns
            )
        except MetricsInputError:  # (a ValueError, told as it is)
            raise
        except pl.exceptions.SchemaError:  # "expected Struct": a single column's stream
            pass
        # (A DuckDB stream with a column polars cannot import panics rather than raises.)
        except (
            TypeError,
            ValueError,
            NotImplementedError,  # (Arrow's, for a complex column)
            pl.exceptions.PolarsError,
            pl.exceptions.PanicException,
        ) as error:
            unreadable = (
                _complex_pandas_columns(frame) if pandas else _unreadable_arrow_columns(frame)
            )
            if unreadable:  # (polars' own message is a panic's, naming no column)
                raise MetricsInputError(
                    "the table cannot be read as columns: polars cannot read the type of "
                    f"{listed(unreadable, 3)}; drop or cast those columns first"
                ) from None
            mixed = _mixed_pandas_columns(frame) if pandas else []
            named = f"column{'s' if len(mixed) > 1 else ''} {listed([repr(c) for c in mixed], 3)}"
            where = (
                f" (Python objects of mixed or unknown types in {named}: make each column one "
                "type, or drop it)"
                if mixed
                else ""
            )
            raise MetricsInputError(
                f"the table cannot be read as columns{where}: {error}"
            ) from None
    path = isinstance(frame, (str, os.PathLike))
    raise TypeError(
        "expected a polars DataFrame or LazyFrame, or a table exporting the Arrow C stream "
        "interface (a pyarrow Table or RecordBatchReader, a DuckDB relation, a pandas "
        f"DataFrame); got {type(frame).__module__}.{type(frame).__name__}"
        + (
            f"; for files, pass pl_metrics.scan({str(frame)!r}) (lazy, any format and shards)"
            if path
            else "; for a pyarrow Dataset, pass pl.scan_pyarrow_dataset(dataset) (lazy), or "
            "score it with pl_metrics.score(dataset, ...)"
            if type(frame).__module__.startswith("pyarrow") and hasattr(frame, "scanner")
            else "; for a Dask frame, .compute() it (a pandas frame, read as it is), or write "
            "it to parquet (.to_parquet(folder)) and score the folder with pl_metrics.score "
            "or pl_metrics.dask.score"
            if hasattr(frame, "__dask_graph__")
            else "; for a pandas Series, pass series.reset_index() (its index levels, id and "
            "class, as columns)"
            if is_pandas_series(frame)
            else "; for scikit-learn's arrays, pl_metrics.from_numpy(y_true, y_score) makes "
            "the long table"
            if isinstance(frame, np.ndarray)
            else ""
        )
    )


def _is_arrow_reader(frame: object) -> bool:
    """Whether ``frame`` is a pyarrow RecordBatchReader (an IPC stream's reader too)."""
    if not type(frame).__module__.startswith("pyarrow"):
        return False
    import pyarrow as pa

    return isinstance(frame, pa.RecordBatchReader)


def _named_index_as_columns(frame: Any) -> Any:
    """A pandas frame with its named index levels as columns (polars would drop them).

    Arrow's own conversion keeps them: say the ids, after ``set_index("id")`` (which pandas
    may hold as a RangeIndex: ids 0, 1, ... in order). A level named as a column already
    (``set_index("id", drop=False)``) and an unnamed level (the row numbers) are left out.
    """
    levels = [n for n in frame.index.names if n is not None and n not in frame.columns]
    if not levels:
        return frame
    repeated = [n for n, count in Counter(levels).items() if count > 1]
    if repeated:  # (pandas' "use a level number")
        raise MetricsInputError(
            f"the table cannot be read as columns: its index has several levels named "
            f"{listed([repr(n) for n in repeated], 3)}; rename them first "
            "(frame.index.set_names([...]))"
        )
    from pandas.errors import PerformanceWarning  # (installed: it made the frame)

    with warnings.catch_warnings():  # ("highly fragmented": read_csv's, not the caller's)
        warnings.simplefilter("ignore", PerformanceWarning)
        return frame.reset_index(level=levels)


def _pandas_ordered(frame: Any) -> tuple[Any, dict[str, list[str]]]:
    """A pandas frame's ordered categoricals of text, with their labels in order.

    polars reads them as plain categoricals, whose labels sort as text; read as enums they
    keep the declared order (which `top_k_accuracy` breaks ties by, as scikit-learn's
    ``labels=``).
    """
    ordered = {
        str(name): [str(c) for c in dtype.categories]
        for name, dtype in frame.dtypes.items()
        if getattr(dtype, "ordered", False) and all(isinstance(c, str) for c in dtype.categories)
    }
    # pandas' Arrow-backed columns (dtype_backend="pyarrow"): their ordered dictionaries.
    for index, dtype in enumerate(frame.dtypes):
        arrow = getattr(dtype, "pyarrow_dtype", None)
        if arrow is not None and _ordered_text(arrow):
            column = frame.iloc[:, index].array.__arrow_array__()
            ordered[str(frame.columns[index])] = _dictionary_labels(column)
    return frame, ordered


def _ordered_text(dtype: Any) -> bool:
    """Whether an Arrow type is an ordered dictionary of text."""
    import pyarrow as pa

    text = [pa.types.is_string, pa.types.is_large_string]
    if hasattr(pa.types, "is_string_view"):  # (pyarrow 16 and later)
        text.append(pa.types.is_string_view)
    return bool(
        pa.types.is_dictionary(dtype)
        and dtype.ordered
        and any(is_text(dtype.value_type) for is_text in text)
    )


def _dictionary_labels(column: Any) -> list[str]:
    """An Arrow dictionary column's labels, in the order its chunks first give them."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    labels = (label for chunk in chunks for label in chunk.dictionary.to_pylist())
    return [label for label in dict.fromkeys(labels) if label is not None]


def _arrow_ordered(frame: Any) -> tuple[Any, dict[str, list[str]]]:
    """`_pandas_ordered` of a pyarrow Table, RecordBatch or RecordBatchReader.

    Its ordered dictionaries of text: a pandas frame's ordered categoricals, through Arrow.
    A reader is read first (polars would read it whole anyway), for its dictionaries. Chunks
    of different dictionaries give their labels in the order they first come.
    """
    if not type(frame).__module__.startswith("pyarrow"):
        return frame, {}
    import pyarrow as pa

    schema = getattr(frame, "schema", None)
    if not isinstance(schema, pa.Schema):
        return frame, {}
    names = [
        field.name
        for field in schema
        if _ordered_text(field.type) and len(schema.get_all_field_indices(field.name)) == 1
    ]
    if not names:
        return frame, {}
    if isinstance(frame, pa.RecordBatchReader):
        frame = frame.read_all()
    return frame, {name: _dictionary_labels(frame.column(name)) for name in names}


def _unreadable_arrow_columns(frame: Any) -> list[str]:
    """The columns of an Arrow stream whose types polars cannot import (a DuckDB interval).

    Found by the stream's schema, read again (a consumed stream names none).
    """
    import pyarrow as pa

    try:
        schema = (
            frame.schema
            if isinstance(frame, pa.Table)
            else pa.RecordBatchReader.from_stream(frame).schema
        )
    except Exception:  # (pyarrow < 15, or a stream read once)
        return []
    return [f"{f.name!r} ({f.type})" for f in schema if not _arrow_type_readable(f.type)]


def _arrow_type_readable(dtype: Any) -> bool:
    import pyarrow as pa

    try:
        pl.DataFrame(pa.table({"column": pa.array([], type=dtype)}))
    except (
        pl.exceptions.PolarsError,
        pl.exceptions.PanicException,
        TypeError,
        ValueError,
        pa.ArrowException,  # (pyarrow cannot build some empty arrays: a sparse union)
    ):
        return False
    return True


def _complex_pandas_columns(frame: Any) -> list[str]:
    """A pandas frame's columns of types Arrow has not (complex, sparse), for a message."""
    return [
        f"{str(name)!r} ({dtype})"
        for name, dtype in frame.dtypes.items()
        if dtype.kind == "c" or str(dtype).startswith("Sparse[")
    ]


def _repeated_pandas_columns(frame: Any) -> list[str]:
    """The names of a pandas frame's columns that more than one column has.

    As text, as polars names them: the columns ``1`` and ``"1"`` are two of ``'1'``.
    """
    names = Counter(str(c) for c in frame.columns)
    return [name for name, count in names.items() if count > 1]


def _mixed_pandas_columns(frame: Any) -> list[str]:
    """The object columns of a pandas frame of values of several types, or of no known one."""
    from pandas.api.types import infer_dtype

    return [
        str(name)
        for name, dtype in frame.dtypes.items()
        # ("mixed-integer-float", 1 beside 2.5, reads as floats)
        if str(dtype) == "object"
        and infer_dtype(frame[name], skipna=True) in ("mixed", "mixed-integer")
    ]


def as_like(frame: FrameT, result: pl.LazyFrame, *, small: bool = False) -> FrameT:
    """Return ``result`` lazy if ``frame`` is lazy, else collected: the type in is the type out.

    An Arrow table in (see `to_polars`) gives a DataFrame out.

    Eager results are collected with the streaming engine, which runs these plans (joins,
    filters and sums over the rows) several times faster than the in-memory engine and in
    bounded memory. ``small``: a plan over small tables only (counted by the kernels),
    which the in-memory engine runs in half the time (about 3 against 6 ms).
    """
    if isinstance(frame, pl.LazyFrame):
        return cast(FrameT, result)
    return cast(FrameT, result.collect(engine="in-memory" if small else "streaming"))
