"""Converters to the long format from wide frames (Kaggle submissions) and numpy arrays.

The truth is checked as the metrics check a long table's: values other than 0 and 1 (or
true and false) are refused, not cast to ``True``. The data checks of `from_wide` are counted
in a small side plan and raised by one step over its single row when the result is collected,
so a ``LazyFrame`` stays lazy; a ``DataFrame`` in raises at the call.
"""

from __future__ import annotations

import decimal
import numbers
import re
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from pl_metrics._frame import (
    INTERNAL,
    FrameT,
    MetricsInputError,
    caller_stacklevel,
    checked_options,
    column_name,
    did_you_mean,
    is_categorical,
    is_pandas,
    listed,
    missing_column,
    refuse_internal,
    refuse_pattern,
    shown,
    table_option,
)
from pl_metrics._io import no_number

__all__ = ["from_numpy", "from_wide"]

#: Prefix of the columns of the side plan that counts the problems of a wide table.
_CHECK = f"{INTERNAL}wide_"
#: The labels as lists, under a name of their own: the user's may be "class" or "score",
#: or a kept column's of the scores.
_LABELS = f"{_CHECK}labels"
#: Labels that mark an id without labels, as some competitions write it.
_NO_LABEL = re.compile(r"(?i)no[ _-]?(call|label|class|bird|event)s?|none|nothing|null|empty")
#: How many unknown labels or bad columns an error names.
_SHOWN = 3


def _names(option: str, names: object) -> list[Any]:
    """The names an option gives, one (a string) or several, each once."""
    if isinstance(names, str):
        return [names]
    if isinstance(names, pl.Expr) or not isinstance(names, Iterable):
        raise MetricsInputError(f"option {option!r}: expected names, got {shown(names)}")
    given = list(names)
    # (numpy's scalars by their Python value: np.str_("a") is "a" in a column)
    plain = (n.item() if isinstance(n, np.generic) else n for n in given)
    twice = sorted(text for text, count in Counter(map(repr, plain)).items() if count > 1)
    if twice:
        raise MetricsInputError(f"option {option!r}: {', '.join(twice)} named more than once")
    return given


def _class_columns(
    schema: pl.Schema,
    id_col: str,
    classes: str | int | Sequence[str | int] | None,
    skip: Sequence[str],
) -> list[str]:
    if classes is not None:
        if isinstance(classes, (int, np.integer)) and not isinstance(classes, bool):
            classes = [classes]  # (one name, as one string is)
        # A pandas frame's integer column names are text in polars ("0", "1"): read so.
        names = [
            str(c)
            if isinstance(c, (int, np.integer)) and not isinstance(c, bool) and str(c) in schema
            else c
            for c in _names("classes", classes)
        ]
        if not names:
            raise MetricsInputError("option 'classes': give at least one class column")
        missing = [c for c in names if not isinstance(c, str) or c not in schema]
        if missing:
            texts = [c for c in missing if isinstance(c, str)]
            raise MetricsInputError(
                f"option 'classes': columns {missing} are not in the table"
                + _close_column(texts, [c for c in schema.names() if c not in names])
            )
        # Each column has one part: the unpivot would repeat it, or score the labels' lists.
        for name, part in (
            (id_col, "the id column (option 'id_col')"),
            *((label, "the labels column (option 'labels_col')") for label in skip),
        ):
            if name in names:
                raise MetricsInputError(f"option 'classes': {name!r} is {part}, not a class")
        not_scores = [f"{c!r} ({schema[c]})" for c in names if not schema[c].is_numeric()]
        if not_scores:
            raise MetricsInputError(
                f"option 'classes': columns of scores must hold numbers, not "
                f"{listed(not_scores, _SHOWN)}"
            )
        return names
    found = [n for n, t in schema.items() if t.is_float() and n != id_col and n not in skip]
    if not found:
        texts = [repr(n) for n, t in schema.items() if t == pl.String and n not in (id_col, *skip)]
        # (', ' between values: every name after the first has a space before it)
        rest = list(schema)[1:]
        spaced = [repr(n) for n in rest] if rest and all(n.startswith(" ") for n in rest) else []
        hint = (
            f"; columns {listed(spaced, _SHOWN)} have spaces around their names: a CSV written "
            "with ', ' between values reads so, its values too (' 0.9' is text); write it "
            "with commas alone"
            if spaced
            else f"; columns {listed(texts, _SHOWN)} hold text: a value that is no number (a "
            "header line repeated inside the file, 'NA') makes a CSV column text"
            if texts
            else "; name the class columns with classes=[...]"
        )
        raise MetricsInputError(f"no float score columns found{hint}")
    return found


def _unnamed_index_hint(table: object, id_col: str) -> str:
    """For a pandas frame whose ids are its unnamed index, which is no column."""
    if type(table).__module__.partition(".")[0] != "pandas":
        return ""
    index = getattr(table, "index", None)
    if index is None or index.nlevels > 1 or index.names[0] is not None:
        return ""
    import pandas

    if isinstance(index, pandas.RangeIndex) and index.start == 0 and index.step == 1:
        return ""  # (the rows' numbers: no ids)
    return f"; the frame's index is unnamed, so no column: pass frame.reset_index(names={id_col!r})"


def _close_column(missing: Sequence[str], others: Sequence[str]) -> str:
    """For columns one table lacks: the other's name closest to the first that has one.

    A name but for spaces around it first ('b  ' for 'b', too short to be close by its
    letters), then one spelled otherwise ('Cat' for 'cat'). As ``" ('b': did you mean
    'b  '?)"``, or "".
    """
    for name in missing:
        spaced = [other for other in others if other.strip() == name.strip()]
        said = f"did you mean {spaced[0]!r}?" if spaced else did_you_mean(name, others, n=1)
        if said:
            return f" ({name!r}: {said})"
    return ""


def _stray_text_id(scores: pl.LazyFrame, truth: pl.LazyFrame, id_col: str) -> str:
    """Where one table's ids are text and the other's numbers: its first id of no number.

    A CSV's one stray id ('abc' among integers, or ' 2' with a space) types its whole
    column as text. (Read on the way to an error: the call fails either way.)
    """
    for whose, table in (("the scores'", scores), ("the truth table's", truth)):
        if table.collect_schema()[id_col] == pl.String:
            text = pl.col(id_col)
            stray, spaced = (
                table.select(
                    text.filter(no_number(text)).first(),
                    text.filter(text != text.str.strip_chars()).first().alias("spaced"),
                )
                .collect()
                .row(0)
            )
            if stray is not None:
                return f" ({whose} ids hold {stray!r}, no number)"
            if spaced is not None:
                return f" ({whose} ids hold spaces around them: {spaced!r})"
    return ""


def _shown(names: Sequence[object], total: int) -> str:
    """Up to `_SHOWN` names, quoted, with ``, ...`` when there are more."""
    return listed([repr(n) for n in names], _SHOWN, total)


def _raise_on_collect(
    out: pl.LazyFrame, summary: pl.LazyFrame, check: Callable[[dict[str, Any]], None]
) -> pl.LazyFrame:
    """``out`` joined to a step that runs ``check`` on the one row of ``summary``.

    ``summary`` aggregates the input to one row of counts (its columns start with `_CHECK`);
    the step raises from there when ``out`` is collected, and its columns are dropped again.
    """

    def run(df: pl.DataFrame) -> pl.DataFrame:
        check(df.row(0, named=True))
        return df

    checked = summary.map_batches(
        run, predicate_pushdown=False, projection_pushdown=False, slice_pushdown=False
    )
    return out.join(checked, how="cross").drop(summary.collect_schema().names())


def _wide_truth(
    truth: pl.LazyFrame, id_col: str, class_cols: list[str], *, found: bool
) -> tuple[pl.LazyFrame, pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """The long truth of a wide 0/1 table, and the count of values other than 0 and 1.

    ``found``: the classes are the scores' float columns (no ``classes`` given).
    """
    schema = truth.collect_schema()
    if id_col not in schema:  # (a solution's "id" beside a submission's "row_id", say)
        others = [c for c in schema if c not in class_cols]
        close = did_you_mean(id_col, others, n=1) or (
            f"its one other column is {others[0]!r}" if len(others) == 1 else ""
        )
        raise MetricsInputError(
            f"truth: column {id_col!r} (option 'id_col'), the scores' ids, is not in the "
            f"table{f' ({close})' if close else ''}: name the id column alike in both tables"
        )
    missing = [c for c in class_cols if c not in schema]
    if missing:
        # A name spelled otherwise ('a_b ' for 'a_b', 'Cat' for 'cat'): the truth's close one.
        close = _close_column(missing, [c for c in schema if c not in class_cols and c != id_col])
        hint = (
            "; every float column of the scores is taken for a class: if some are not (a "
            "weight), name the classes with classes=[...]"
            if found
            else ""
        )
        raise MetricsInputError(
            f"truth: columns {missing} of the scores are not in the table{close}{hint}"
        )
    numeric = []
    for c in class_cols:
        if not (schema[c] == pl.Boolean or schema[c].is_integer() or schema[c].is_float()):
            raise MetricsInputError(
                f"truth: column {c!r} must be boolean or numeric 0/1, not {schema[c]}"
            )
        if schema[c] != pl.Boolean:
            numeric.append(c)
    # Nulls are kept (the metrics refuse them); NaN is neither 0 nor 1.
    not_01 = []
    for k, c in enumerate(numeric):
        wrong = (pl.col(c) != 0) & (pl.col(c) != 1)
        not_01 += [  # (and the first such value, with its id: "1" read as the value allowed)
            wrong.sum().alias(f"{_CHECK}{k}"),
            pl.col(c).filter(wrong).first().alias(f"{_CHECK}value{k}"),
            pl.col(id_col).filter(wrong).first().alias(f"{_CHECK}id{k}"),
        ]
    summary = truth.select(not_01 or [pl.lit(0).alias(f"{_CHECK}none")])

    def check(row: dict[str, Any]) -> None:
        bad = {k: c for k, c in enumerate(numeric) if row[f"{_CHECK}{k}"]}
        if bad:
            total = sum(row[f"{_CHECK}{k}"] for k in bad)
            where = "; ".join(
                f"column {c!r}: {row[f'{_CHECK}{k}']:,}, e.g. {id_col}={row[f'{_CHECK}id{k}']!r}: "
                f"{row[f'{_CHECK}value{k}']!r}"
                for k, c in list(bad.items())[:_SHOWN]
            )
            more = f"; and {len(bad) - _SHOWN:,} more columns" if len(bad) > _SHOWN else ""
            values = "value is" if total == 1 else "values are"
            raise MetricsInputError(f"truth: {total:,} {values} neither 0 nor 1 ({where}{more})")

    long = truth.select(id_col, *(pl.col(c).cast(pl.Boolean) for c in class_cols)).unpivot(
        on=class_cols, index=id_col, variable_name="class", value_name="truth"
    )
    return long, summary, check


def _unscored_truth(
    truth: pl.LazyFrame, scores_table: pl.LazyFrame, id_col: str, class_cols: list[str]
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Refuse the truth table's columns of 0/1 values that are no class of the scores.

    Classes are found by type (the float columns of the scores), so a class the submission
    lacks, or holds as integer scores, would otherwise be dropped in silence. A column is
    taken for a class's truth when it holds only 0 and 1 (a weight, a duration or a fold
    number does not).
    """
    schema, scores = truth.collect_schema(), scores_table.collect_schema()
    suspects = [
        c
        for c, t in schema.items()
        if c != id_col and c not in class_cols and (t == pl.Boolean or t.is_numeric())
    ]
    summary, zero_one = _zero_one_columns(truth, suspects, "truth")
    # A score column read as text (a CSV's "abc", "true" or repeated header line): its
    # first value that is no number, and that row's id, to name.
    texts = [c for c in suspects if scores.get(c) == pl.String]
    first = [f"{_CHECK}text_{k}" for k in range(len(texts))]
    if texts:
        bad = [no_number(pl.col(c)) for c in texts]
        summary = pl.concat(
            [
                summary,
                scores_table.select(
                    pl.struct(
                        pl.col(id_col).filter(b).first().alias("id"),
                        pl.col(c).filter(b).first().alias("value"),
                        b.sum().alias("rows"),
                    ).alias(name)
                    for c, b, name in zip(texts, bad, first, strict=True)
                ),
            ],
            how="horizontal",
        )

    def check(row: dict[str, Any]) -> None:
        found = zero_one(row)
        if not found:
            return
        for c, name in zip(texts, first, strict=True):
            text = row[name]
            if c in found and text["rows"]:
                raise MetricsInputError(
                    f"column {c!r} of the scores holds text: {text['rows']:,} "
                    f"{'value is' if text['rows'] == 1 else 'values are'} no number, such as "
                    f"{text['value']!r} ({id_col}={text['id']!r}); write every score as a number"
                )
        in_scores = [f"{c!r} ({scores[c]})" for c in found if c in scores]
        if in_scores:
            raise MetricsInputError(
                "truth: columns of 0/1 values whose scores are not float, so not taken as "
                f"classes: {listed(in_scores, _SHOWN)}; if they are classes, cast their scores "
                "to float; if not, drop them from the truth table (or name the class columns "
                "with classes=[...])"
            )
        close = _close_column(found, [c for c in scores if c != id_col])
        raise MetricsInputError(
            "truth: columns of 0/1 values with no score column, classes the submission lacks: "
            f"{_shown(found, len(found))}{close}; drop them from the truth table if they are "
            "not classes (or name the class columns with classes=[...])"
        )

    return summary, check


def _zero_one_columns(
    table: pl.LazyFrame, columns: list[str], tag: str
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], list[str]]]:
    """Which of ``columns`` hold values, all 0 or 1.

    Returns a one-row table of counts, and a function of that row naming those columns.
    """
    allowed = ((pl.col(c) == 0) | (pl.col(c) == 1) for c in columns)
    counts = [
        e
        for k, (c, fits) in enumerate(zip(columns, allowed, strict=True))
        for e in (
            fits.not_().sum().alias(f"{_CHECK}{tag}_other{k}"),
            pl.col(c).count().alias(f"{_CHECK}{tag}_values{k}"),
        )
    ]
    summary = table.select(counts or [pl.lit(0).alias(f"{_CHECK}{tag}_none")])

    def found(row: dict[str, Any]) -> list[str]:
        return [
            c
            for k, c in enumerate(columns)
            if row[f"{_CHECK}{tag}_values{k}"] and not row[f"{_CHECK}{tag}_other{k}"]
        ]

    return summary, found


def _integer_scores(
    scores: pl.LazyFrame, kept: list[str]
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Warn of kept integer columns of the scores that hold only 0 and 1 (beside labels).

    Classes are found by type: a class scored 0 everywhere (no id has it) or with hard 0/1
    predictions, that a CSV wrote as integers, would be dropped in silence (its scores no
    longer ranked); a wide truth table shows such a class, labels do not. Such a column may
    as well be a fold of a one- or two-fold file: told (once), not refused.
    """
    schema = scores.collect_schema()
    suspects = [c for c in kept if schema[c].is_integer()]
    summary, zero_one = _zero_one_columns(scores, suspects, "scores")
    told = False

    def check(row: dict[str, Any]) -> None:
        nonlocal told  # (a lazy result is checked at each collect; a report collects twice)
        found = [f"{c!r} ({schema[c]})" for c in zero_one(row)]
        if found and not told:
            told = True
            warnings.warn(
                "from_wide: integer columns of the scores holding only 0 and 1 are kept as "
                f"columns, not taken as classes: {listed(found, _SHOWN)}; if they are classes "
                "(a CSV writes scores of 0 and 1 as integers), cast them to float; if not (a "
                "fold), name the classes with classes=[...]",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )

    return summary, check


def _label_lists(table: pl.LazyFrame, labels_col: str, separator: str, where: str) -> pl.Expr:
    """``labels_col`` as a list of strings."""
    schema = table.collect_schema()
    if labels_col not in schema:
        text = [c for c, dtype in schema.items() if dtype == pl.String]  # (labels are text)
        raise MetricsInputError(
            f"column {labels_col!r} (option 'labels_col') is not in {where}"
            + (
                _close_column([labels_col], text or schema.names())
                or f"; its columns are {listed([repr(c) for c in schema.names()], 8)}"
            )
        )
    dtype = schema[labels_col]
    labels = pl.col(labels_col)
    if dtype == pl.String:
        return labels.str.split(separator)
    if isinstance(dtype, pl.List) and not dtype.inner.is_nested():
        return labels if dtype.inner == pl.String else labels.cast(pl.List(pl.String))
    if dtype.is_integer() or is_categorical(dtype):  # one label per id: a target 0..K-1
        return pl.when(labels.is_not_null()).then(pl.concat_list(labels.cast(pl.String)))
    raise MetricsInputError(
        f"column {labels_col!r}: true labels must be a list of labels, a separated string or "
        f"one label per id (an integer or categorical), not {dtype}"
    )


def _unknown_labels(
    table: pl.LazyFrame,
    id_col: str,
    labels_col: str,
    known: list[str],
    labels_type: pl.DataType | None,
    *,
    kept_integers: Sequence[str] = (),
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Count the ids whose labels (lists in `_LABELS`) are not ``known`` (and not "").

    ``labels_col``: the user's name of the labels, for the messages.

    ``labels_type``: the labels' own type (strings to split, lists, one label), for the
    hint on nulls.
    ``kept_integers``: integer columns of the scores, kept as columns: a label that names
    one gets a hint to cast it.
    """
    label = pl.element()
    unknown = pl.col(_LABELS).list.eval(label.filter(~label.is_in(known) & (label != "")))
    names = pl.col(f"{_CHECK}unknown").explode()
    summary = (
        table.select(id_col, unknown.alias(f"{_CHECK}unknown"))
        .filter(pl.col(f"{_CHECK}unknown").list.len() > 0)
        .select(
            pl.col(id_col).n_unique().alias(f"{_CHECK}ids"),
            names.n_unique().alias(f"{_CHECK}labels"),
            names.unique().sort().head(_SHOWN).implode().alias(f"{_CHECK}examples"),
            names.filter(names.is_in(list(kept_integers)))
            .unique()
            .sort()
            .implode()
            .alias(f"{_CHECK}integer_labels"),
        )
    )
    lists = pl.col(_LABELS)
    nulls = table.select(
        lists.null_count().alias(f"{_CHECK}null_labels"),
        (lists.list.len() > lists.list.drop_nulls().list.len()).sum().alias(f"{_CHECK}null_in"),
    )
    summary = pl.concat([summary, nulls], how="horizontal")

    def check(row: dict[str, Any]) -> None:
        if row[f"{_CHECK}null_labels"]:  # not "no labels": that is "" (or an empty list)
            rows = row[f"{_CHECK}null_labels"]
            where = f"column {labels_col!r}: {rows:,} {'row is' if rows == 1 else 'rows are'} null"
            if not isinstance(labels_type, pl.List) and labels_type != pl.String:  # one label
                raise MetricsInputError(f"{where}; each id needs its label: drop those rows")
            empty = repr("") if labels_type == pl.String else "[]"
            raise MetricsInputError(
                f"{where}; an id without true labels has an empty string or list there; if a "
                f"null means no label (pandas reads an empty CSV cell as NaN), fill them first: "
                f"pl.col({labels_col!r}).fill_null({empty})"
            )
        if row[f"{_CHECK}null_in"]:  # (a list's null label is no label, nor "no label")
            rows = row[f"{_CHECK}null_in"]
            raise MetricsInputError(
                f"column {labels_col!r}: {rows:,} {'row holds' if rows == 1 else 'rows hold'} "
                "a null label in the list; drop the nulls if they mean nothing: "
                f"pl.col({labels_col!r}).list.drop_nulls()"
            )
        if row[f"{_CHECK}ids"]:
            n_labels = row[f"{_CHECK}labels"]
            in_all = f" ({n_labels:,} such labels)" if n_labels > _SHOWN else ""
            ids = row[f"{_CHECK}ids"]
            integer, hint = row[f"{_CHECK}integer_labels"], ""
            if integer:
                one = len(integer) == 1
                hint = (
                    f"; {listed([repr(c) for c in integer], _SHOWN)} "
                    f"{'is an integer column' if one else 'are integer columns'} of the scores, "
                    "kept as such, not taken as a class (a CSV writes a class scored 0 "
                    f"everywhere as integers): cast {'it' if one else 'them'} to float"
                )
            joined = [  # (labels of another separator: "cat,dog" of classes cat and dog)
                (e, mark)
                for e in map(str, row[f"{_CHECK}examples"])
                for mark in (", ", "; ", ",", ";", "|")
                if mark in e and all(part in known for part in e.split(mark))
            ]
            if joined and not hint:
                label, mark = joined[0]
                hint = (
                    f"; {label!r} holds class names separated by {mark!r}: pass separator={mark!r}"
                )
            no_label = [e for e in row[f"{_CHECK}examples"] if _NO_LABEL.fullmatch(str(e))]
            if no_label and not hint:  # BirdCLEF 2021's "nocall"
                label, column = no_label[0], f"pl.col({labels_col!r})"
                hint = f"; if {label!r} marks an id without labels, " + (
                    f"drop it from the lists: {column}.list.set_difference([{label!r}])"
                    if isinstance(labels_type, pl.List)
                    else f"give it an empty string instead: {column}.replace({label!r}, '')"
                )
            raise MetricsInputError(
                f"column {labels_col!r}: {ids:,} {'id has' if ids == 1 else 'ids have'} labels "
                f"that are not class columns: {_shown(row[f'{_CHECK}examples'], n_labels)}"
                f"{in_all}{hint}"
            )

    return summary, check


def _repeated_ids(
    tables: dict[str, tuple[pl.LazyFrame, list[str]]], id_col: str
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Count the ids that repeat within each wide table, with a few of them.

    ``tables``: each table and its key columns (the id, and the scores' kept columns: a
    model's). Unpivoted, a repeated key would repeat each of its classes: the metrics would
    name the class column, not the table.
    """
    summary = pl.concat(
        [
            table.group_by(keys)
            .agg(pl.len().alias(f"{_CHECK}len"))  # (an id or kept column may be named "len")
            .filter(pl.col(f"{_CHECK}len") > 1)
            .select(
                pl.len().alias(f"{_CHECK}repeat_{k}"),
                pl.col(id_col).sort().head(_SHOWN).implode().alias(f"{_CHECK}repeat_{k}_ex"),
            )
            for k, (table, keys) in enumerate(tables.values())
        ],
        how="horizontal",
    )

    def check(row: dict[str, Any]) -> None:
        for k, (name, (_, keys)) in enumerate(tables.items()):
            count = row[f"{_CHECK}repeat_{k}"]
            if count:
                key = keys[0] if len(keys) == 1 else f"({', '.join(keys)})"
                raise MetricsInputError(
                    f"column {id_col!r}: {count:,} {'id repeats' if count == 1 else 'ids repeat'}"
                    f" in {name}, which needs one row per {key}: "
                    f"{_shown(row[f'{_CHECK}repeat_{k}_ex'], count)}"
                )

    return summary, check


def _uneven_ids(
    scores: pl.LazyFrame, id_col: str, keep: list[str]
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Count the ids that the scores hold under fewer values of the kept columns than others.

    A model (a kept column) that skips ids would be scored on the ids it has: the ids
    compared with the truth table's are all models' together. A column with one value per
    id (a fold) gives every id one row, as it should. Each id's rows are its values of the
    kept columns, each once (`_repeated_ids` checks that first).
    """
    rows = pl.col(f"{_CHECK}rows")
    fewer = rows < rows.max()
    summary = (
        scores.group_by(id_col)
        .agg(pl.len().alias(f"{_CHECK}rows"))
        .select(
            fewer.sum().alias(f"{_CHECK}uneven"),
            rows.min().alias(f"{_CHECK}uneven_fewest"),
            rows.max().alias(f"{_CHECK}uneven_most"),
            pl.col(id_col).filter(fewer).sort().head(_SHOWN).implode().alias(f"{_CHECK}uneven_ex"),
        )
    )

    def check(row: dict[str, Any]) -> None:
        count = row[f"{_CHECK}uneven"]
        if count:
            key = repr(keep[0]) if len(keep) == 1 else f"({', '.join(map(repr, keep))})"
            raise MetricsInputError(
                f"column {id_col!r}: {count:,} {'id' if count == 1 else 'ids'} of the scores "
                f"{'has' if count == 1 else 'have'} rows for fewer values of the kept columns "
                f"{key} than others (as few as {row[f'{_CHECK}uneven_fewest']:,} of "
                f"{row[f'{_CHECK}uneven_most']:,}): {_shown(row[f'{_CHECK}uneven_ex'], count)}; "
                "a model that skips ids would be scored on the ids it has"
            )

    return summary, check


def _null_ids(
    tables: dict[str, pl.LazyFrame], id_col: str
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Count the rows of each wide table without an id.

    The metrics would name them later, as rows of the long table, or (in the truth table)
    as an id the scores lack.
    """
    summary = pl.concat(
        [
            table.select(
                pl.col(id_col).null_count().alias(f"{_CHECK}null_id_{k}"),
                pl.all_horizontal(pl.all().is_null()).sum().alias(f"{_CHECK}blank_{k}"),
            )
            for k, table in enumerate(tables.values())
        ],
        how="horizontal",
    )

    def check(row: dict[str, Any]) -> None:
        for k, name in enumerate(tables):
            count = row[f"{_CHECK}null_id_{k}"]
            if count:
                blank = row[f"{_CHECK}blank_{k}"]
                lines = (  # (all of them null: polars reads a CSV's blank line so)
                    f" ({'it is' if count == 1 else 'they are'} null in every column: read "
                    "from a CSV file, a blank line; delete it)"
                    if blank == count
                    else ""
                )
                raise MetricsInputError(
                    f"column {id_col!r}: {count:,} {'row' if count == 1 else 'rows'} of {name} "
                    f"{'is' if count == 1 else 'are'} null; each row needs an id{lines}"
                )

    return summary, check


def _unmatched_ids(
    scores: pl.LazyFrame, truth: pl.LazyFrame, id_col: str
) -> tuple[pl.LazyFrame, Callable[[dict[str, Any]], None]]:
    """Count the ids of one table that the other lacks, with a few of them."""
    score_ids, truth_ids = scores.select(id_col).unique(), truth.select(id_col).unique()
    sides = {
        "no_scores": ("the truth table", "the scores", truth_ids, score_ids),
        "no_truth": ("the scores", "the truth table", score_ids, truth_ids),
    }
    summary = pl.concat(
        [
            ours.join(theirs, on=id_col, how="anti", nulls_equal=True).select(
                pl.len().alias(f"{_CHECK}{key}"),
                pl.col(id_col).sort().head(_SHOWN).implode().alias(f"{_CHECK}{key}_examples"),
            )
            for key, (_, _, ours, theirs) in sides.items()
        ],
        how="horizontal",
    )

    def check(row: dict[str, Any]) -> None:
        for key, (table, other, _, _) in sides.items():
            if row[f"{_CHECK}{key}"]:
                count, examples = row[f"{_CHECK}{key}"], row[f"{_CHECK}{key}_examples"]
                ids = "id of" if count == 1 else "ids of"
                texts = [  # (either table's: the other then lacks them)
                    (name, e)
                    for k, (name, *_) in sides.items()
                    for e in row[f"{_CHECK}{k}_examples"]
                    if isinstance(e, str)
                ]
                spaced = [(name, e) for name, e in texts if e != e.strip()]
                # ('007' beside '7': other ids, as a grader comparing text has them)
                padded = [(name, e) for name, e in texts if re.fullmatch(r"[-+]?0+\d+", e.strip())]
                whose = {"the scores": "the scores'", "the truth table": "the truth table's"}
                hint = (
                    f" ({whose[spaced[0][0]]} ids hold spaces around them: {spaced[0][1]!r})"
                    if spaced
                    else f" ({whose[padded[0][0]]} ids are written with leading zeros, such as "
                    f"{padded[0][1]!r}: ids are compared as written)"
                    if padded
                    else ""
                )
                raise MetricsInputError(
                    f"column {id_col!r}: {count:,} {ids} {table} {'is' if count == 1 else 'are'}"
                    f" not in {other}: {_shown(examples, count)}{hint}"
                )

    return summary, check


@checked_options
def from_wide(
    scores: FrameT,
    truth: pl.DataFrame | pl.LazyFrame | None = None,
    *,
    id_col: str = "id",
    classes: str | int | Sequence[str | int] | None = None,
    labels_col: str | None = None,
    separator: str = " ",
) -> FrameT:
    """Turn a wide table (one score column per class) into the long format.

    The truth comes from one of:

    * ``truth``, a wide table with the same id and class columns holding 0/1 or booleans;
    * ``labels_col``, a column of true labels (a list, or a string split on ``separator``,
      as in Kaggle's ``"cat dog"``, or one integer or categorical label per id), in
      ``truth`` when given, else in ``scores``.

    Other columns of ``scores`` (a model or fold name) are kept, but a float column is a
    class unless ``classes`` names the classes (a float weight column needs it). Lazy in,
    lazy out: the truth is checked when the result is collected (at the call for a
    DataFrame). The classes are text, which `top_k_accuracy` breaks ties by in sorted
    order; for the columns' order (scikit-learn's, on the wide matrix), cast the ``class``
    column to ``pl.Enum`` of the class columns.

    Parameters
    ----------
    scores
        Wide table: ``id_col``, then one score column per class.
    truth
        Wide truth table, or a table of ``id_col`` and ``labels_col``.
    id_col
        The id column, in both tables.
    classes
        The class columns (one name, or several), numeric and each named once; default:
        every float column of ``scores``. An integer names the column of its text (a pandas
        frame's column ``0`` is polars' ``"0"``).
    labels_col
        Column of true labels (list or separated string), or of one label per id (integer
        or categorical: a multi-class target, ``0`` naming the class column ``"0"``). Each
        must be a class column, or a column of ``scores`` left out of ``classes``; empty
        labels are ignored.
    separator
        Separator of a string ``labels_col``, a non-empty string.

    Returns
    -------
    DataFrame or LazyFrame (the type of ``scores``)
        Columns ``id_col``, the kept columns, ``class`` (String), ``score`` (Float32 when
        every class column is, else Float64) and ``truth`` (Boolean).

    Raises
    ------
    MetricsInputError
        A missing column; a wide truth value other than 0 and 1 (NaN included; a null is
        kept, and refused by the metrics as a null truth); a label that is not a class
        column, a null label in a list; an id on two rows of the truth table, or of the scores
        (with the same values of the kept columns: a model's); ids of one table missing
        from the other, or an id with rows for fewer values of the kept columns than others
        (a submission or model that skips ids would otherwise be scored on the ids it has);
        with the default
        ``classes``, a column of a wide truth table holding only 0 and 1 that is no float
        column of the scores (a class the submission lacks, or scores it holds as integers).
        Beside ``labels_col``, an integer column of the scores holding only 0 and 1 (a class
        scored 0 everywhere or with hard predictions, as a CSV writes it, or a fold) is kept
        with a warning.

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
    >>> bad = pl.DataFrame({"clip": ["a.wav", "b.wav"], "labels": ["bird cat", "frog"]})
    >>> pl_metrics.from_wide(submission, bad, id_col="clip", labels_col="labels")
    Traceback (most recent call last):
    ...
    pl_metrics._frame.MetricsInputError: column 'labels': 1 id has ... not class columns: 'cat'
    """
    index_hint = _unnamed_index_hint(scores, id_col)
    scores = table_option("scores", scores)  # type: ignore[assignment]  # (Arrow gives a DataFrame)
    truth = None if truth is None else table_option("truth", truth)
    column_name("id_col", id_col)
    if labels_col is not None:
        column_name("labels_col", labels_col)
        if labels_col == id_col:
            raise MetricsInputError(
                f"options 'id_col' and 'labels_col' both name column {id_col!r}; the labels "
                "are another column"
            )
    if not isinstance(separator, str) or not separator:
        raise MetricsInputError(
            f"option 'separator': expected a non-empty string, got {shown(separator)}"
        )
    lazy = scores.lazy()
    schema = lazy.collect_schema()
    if id_col not in schema:  # (close names suggested, as the metrics suggest them)
        scored = [c for c, dtype in schema.items() if dtype.is_float()]  # (classes, not ids)
        message = str(missing_column(schema, "id_col", id_col, taken=scored))
        message = message.replace("is not in the table", "is not in the scores")
        suggested = "pass id_col=" in message or "did you mean" in message
        if not suggested and not index_hint and len(scored) == len(schema):
            # (predict_proba's frame: scores alone, a row per id in order)
            index_hint = (
                "; scores without ids (predict_proba's) are read by from_numpy(y_true, "
                "y_score), which numbers the rows"
            )
        raise MetricsInputError(message + ("" if suggested else index_hint))
    # The labels column is in the scores table only when no truth table is given.
    skip: list[str] = [labels_col] if labels_col is not None and truth is None else []
    class_cols: list[str] = _class_columns(schema, id_col, classes, skip)
    keep: list[str] = [c for c in schema if c not in (id_col, *class_cols, *skip)]
    truth_schema: pl.Schema = pl.Schema() if truth is None else truth.lazy().collect_schema()
    for name in (id_col, *keep, *skip, *(c for c in truth_schema if c not in class_cols)):
        refuse_internal(name, None)
    for name in (id_col, *keep, *skip, *class_cols, *truth_schema):
        refuse_pattern(name, None)
    made = ("class", "score", "truth")
    for name in (id_col, *keep, *class_cols):
        if name in made:
            role = (
                "option 'id_col'"
                if name == id_col
                else "a class column"
                if name in class_cols
                else "a column kept"
            )
            raise MetricsInputError(
                f"column {name!r} ({role}): from_wide makes the columns "
                f"{', '.join(map(repr, made))}; rename it"
            )
    if truth is not None:
        ids, truth_ids = schema[id_col], truth_schema.get(id_col)
        texts = {pl.String, pl.Categorical}  # (one pandas frame's ids a category, one's text)
        if truth_ids is not None and {ids.base_type(), truth_ids.base_type()} <= texts:
            truth = truth.with_columns(pl.col(id_col).cast(ids))
        elif (
            truth_ids is not None
            and ids != truth_ids
            and not (ids.is_integer() and truth_ids.is_integer())
        ):
            raise MetricsInputError(
                f"column {id_col!r} (option 'id_col'): the scores' ids are {ids} and the truth "
                f"table's {truth_ids}{_stray_text_id(lazy, truth.lazy(), id_col)}; cast one "
                "table's ids to the other's type"
            )
    if labels_col is not None:
        # Split the labels once per row of their table, before the rows are per class.
        label_table = lazy if truth is None else truth.lazy()
        where = "the scores" if truth is None else "the truth table"
        if id_col not in label_table.collect_schema():
            raise MetricsInputError(f"column {id_col!r} (option 'id_col') is not in {where}")
        labels_type = label_table.collect_schema().get(labels_col)
        label_table = label_table.with_columns(
            _label_lists(label_table, labels_col, separator, where).alias(_LABELS)
        )
        # Labels of score columns left out of ``classes`` on purpose are not unknown.
        known = class_cols if classes is None else [c for c in schema if c not in (id_col, *skip)]
        # Integer columns of the scores are kept, not classes: a label naming one is told so.
        integer_cols = [c for c in keep if schema[c].is_integer()] if classes is None else []
        summary, check = _unknown_labels(
            label_table, id_col, labels_col, known, labels_type, kept_integers=integer_cols
        )
        if truth is None:  # the labels ride along with each row of their id
            long = _unpivot(label_table, id_col, class_cols, [*keep, _LABELS])
        else:
            long = _unpivot(lazy, id_col, class_cols, keep).join(
                label_table.select(id_col, _LABELS), on=id_col, how="left"
            )
        is_label = pl.col(_LABELS).list.contains(pl.col("class"))
        out = long.with_columns(is_label.alias("truth")).drop(_LABELS)
    elif truth is not None:
        truth_long, summary, check = _wide_truth(
            truth.lazy(), id_col, class_cols, found=classes is None
        )
        long = _unpivot(lazy, id_col, class_cols, keep)
        out = long.join(truth_long, on=[id_col, "class"], how="left")
    else:
        raise MetricsInputError("give the truth: a wide truth table, or labels_col")
    checks = [check]
    if labels_col is not None and classes is None:
        integers, integers_check = _integer_scores(lazy, keep)
        summary = pl.concat([summary, integers], how="horizontal")
        checks.append(integers_check)
    if truth is not None and labels_col is None and classes is None:
        unscored, unscored_check = _unscored_truth(truth.lazy(), lazy, id_col, class_cols)
        summary = pl.concat([summary, unscored], how="horizontal")
        checks.append(unscored_check)
    if truth is not None:  # each id needs scores and a truth: none silently dropped
        unmatched, unmatched_check = _unmatched_ids(lazy, truth.lazy(), id_col)
        summary = pl.concat([summary, unmatched], how="horizontal")
        checks.insert(0, unmatched_check)
    wide = {"the scores": (lazy, [*keep, id_col])}
    if truth is not None:
        wide["the truth table"] = (truth.lazy(), [id_col])
    repeated, repeated_check = _repeated_ids(wide, id_col)
    nulls, nulls_check = _null_ids({name: table for name, (table, _) in wide.items()}, id_col)
    summary = pl.concat([summary, repeated, nulls], how="horizontal")
    checks[:0] = [nulls_check, repeated_check]
    if keep:
        uneven, uneven_check = _uneven_ids(lazy, id_col, keep)
        summary = pl.concat([summary, uneven], how="horizontal")
        checks.insert(2, uneven_check)

    def check_all(row: dict[str, Any]) -> None:
        for one in checks:
            one(row)

    out = _raise_on_collect(out, summary, check_all)
    # The rows of an (id, class), one per model or fold, in the same order on every call
    # (polars cannot sort lists and structs: those by their hashes).
    nested = (pl.List, pl.Array, pl.Struct)
    kept = [pl.col(k).hash(seed=0) if isinstance(schema[k], nested) else k for k in keep]
    out = out.select(id_col, *keep, "class", "score", "truth").sort(id_col, "class", *kept)
    return cast(FrameT, out.collect() if isinstance(scores, pl.DataFrame) else out)


def _unpivot(
    lazy: pl.LazyFrame, id_col: str, class_cols: list[str], index: list[str]
) -> pl.LazyFrame:
    """One row per id and class column; the score a Float32 if every class column is one.

    Else a Float64: a threshold is compared in the scores' own type (a Float32 0.7 is below
    the threshold 0.7 once widened), as for the arrays of `from_numpy`.
    """
    schema = lazy.collect_schema()
    single = all(schema[c] == pl.Float32 for c in class_cols)
    # (Selected first: polars refuses to unpivot beside a column named as the results.)
    return (
        lazy.select(id_col, *index, *class_cols)
        .unpivot(on=class_cols, index=[id_col, *index], variable_name="class", value_name="score")
        .with_columns(pl.col("score").cast(pl.Float32 if single else pl.Float64))
    )


def _array(name: str, values: object) -> np.ndarray:
    """``values`` as a numpy array; ragged lists refused by name, not by numpy."""
    if is_pandas(values):
        values = _pandas_numbers(name, values)
    if isinstance(values, (pl.Series, pl.DataFrame)):  # (numpy makes NaN of nulls)
        columns = values.get_columns() if isinstance(values, pl.DataFrame) else [values]
        _refuse_missing(name, sum(_nulls_in(c) for c in columns), "null")
    if isinstance(values, pl.LazyFrame):  # (numpy makes one object of it)
        raise MetricsInputError(
            f"{name}: a LazyFrame; from_numpy takes arrays (collect it first), and "
            "pl_metrics.from_wide a wide table of an id column and a column per class"
        )
    try:
        return np.asarray(values)
    except ValueError as error:  # "setting an array element with a sequence"
        raise MetricsInputError(f"{name}: cannot be read as an array: {error}") from None


def _nulls_in(column: pl.Series) -> int:
    """The nulls of a polars column, those in its rows (a 2-D array's) too."""
    while column.dtype.is_nested():
        column = column.explode(empty_as_null=False)
    return column.null_count()


def _pandas_numbers(name: str, values: Any) -> Any:
    """Pandas' nullable numbers as numpy's, as scikit-learn reads them; else ``values`` as is.

    A Series or frame of ``Int8``, ``Float64``, ``boolean`` or Arrow's types: numpy would
    make objects of them.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    dtypes = list(values.dtypes) if getattr(values, "ndim", 1) == 2 else [values.dtype]
    numpy_types = [
        d if isinstance(d, np.dtype) else getattr(d, "numpy_dtype", None) for d in dtypes
    ]
    nullable = [d for d in dtypes if not isinstance(d, np.dtype)]
    if not nullable or not all(
        t is not None and (is_numeric_dtype(d) or is_bool_dtype(d))
        for d, t in zip(dtypes, numpy_types, strict=True)
    ):
        return values
    _refuse_missing(name, int(np.asarray(values.isna()).sum()), "pandas' NA")
    return values.to_numpy(dtype=np.result_type(*numpy_types))


def _refuse_missing(name: str, missing: int, kind: str) -> None:
    """Refuse ``name``'s missing values, counted, by their kind (null, pandas' NA, None)."""
    if missing:
        raise MetricsInputError(
            f"{name}: {missing:,} {'value is' if missing == 1 else 'values are'} missing "
            f"({kind}); drop or fill {'it' if missing == 1 else 'them'} first"
        )


def _object_numbers(name: str, values: np.ndarray) -> np.ndarray:
    """Numbers held as objects as floats, as scikit-learn reads them.

    Decimals (as SQL reads NUMERIC), Fractions, bools; a None or pandas' NA among them is
    told as missing. Other objects (text) are left as they are, for the caller to refuse.
    """
    if values.dtype.kind != "O":
        return values
    missing = [v is None or type(v).__name__ == "NAType" for v in values.flat]
    present = (v for v, gone in zip(values.flat, missing, strict=True) if not gone)
    if not all(isinstance(v, (numbers.Real, decimal.Decimal, np.bool_)) for v in present):
        return values
    _refuse_missing(name, sum(missing), "None or pandas' NA")
    try:
        return values.astype(np.float64)
    except (ValueError, OverflowError) as error:  # (a signalling NaN; an integer past floats)
        raise MetricsInputError(f"{name}: cannot be read as floats: {error}") from None


def _nulls_among(ids: object) -> np.ndarray | None:
    """Which of ``ids`` are null: None in a sequence, or null in a polars or pandas column."""
    if isinstance(ids, pl.Series):
        nulls: np.ndarray = ids.is_null().to_numpy()
        return nulls
    if is_pandas(ids):  # a Series, Index or masked array
        import pandas  # (installed: it made the ids)

        found = np.asarray(pandas.isna(ids))
        return found if found.ndim == 1 else None
    if isinstance(ids, (list, tuple)) or (isinstance(ids, np.ndarray) and ids.dtype == object):
        found = np.array([v is None for v in ids], dtype=bool)
        return found if found.ndim == 1 else None
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "mM":  # NaT: polars' null
        return np.isnat(ids) if ids.ndim == 1 else None
    return None


def _ids(values: np.ndarray) -> pl.Series:
    """The ids as a column; numpy holds ids with a None (a null) as Python objects."""
    try:
        ids = pl.Series("id", values.tolist() if values.dtype == object else values)
    except (TypeError, pl.exceptions.PolarsError):  # several types: a column holds one
        ids = None
    if ids is None or ids.dtype == pl.Object:
        kinds = sorted({type(v).__name__ for v in values.tolist() if v is not None})
        raise MetricsInputError(
            f"option 'ids': expected numbers or strings of one type, got {', '.join(kinds)}"
        )
    return ids


def _check_y_true(truth: np.ndarray, given: Any) -> None:
    """Refuse an indicator matrix with values other than 0 and 1 (or true and false)."""
    if truth.dtype == np.bool_:
        return
    if truth.dtype.kind not in "iuf":
        hint = _two_labels(truth)
        if truth.dtype == object:  # (a pandas Series of text is of objects)
            text = all(isinstance(v, str) for v in truth.ravel().tolist())
            hint = _two_labels(truth.astype(str)) if text else _object_hint("y_true", given)
        raise MetricsInputError(f"y_true: must be boolean or numeric 0/1, not {truth.dtype}{hint}")
    bad = int(np.count_nonzero((truth != 0) & (truth != 1)))  # NaN counts: neither 0 nor 1
    if bad:
        nan = int(np.count_nonzero(np.isnan(truth))) if truth.dtype.kind == "f" else 0
        of_them = f" ({nan:,} of them NaN)" if nan else _two_labels(truth)
        values = "value is" if bad == 1 else "values are"
        raise MetricsInputError(f"y_true: {bad:,} {values} neither 0 nor 1{of_them}")


def _two_labels(truth: np.ndarray) -> str:
    """Binary truth of two labels other than 0 and 1 (-1 and 1, "neg" and "pos"): a hint."""
    one_column = truth.ndim == 1 or (truth.ndim == 2 and truth.shape[1] == 1)
    labels = np.unique(truth).tolist() if one_column and truth.dtype.kind in "iufUS" else []
    if len(labels) != 2 or not all(np.isfinite(v) for v in labels if isinstance(v, float)):
        return ""
    return (
        f" (two labels, {labels[0]!r} and {labels[1]!r}: pass y_true == its positive label, "
        f"e.g. y_true == {labels[1]!r}, as scikit-learn's pos_label names it)"
    )


#: numpy's kind letters of polars' float and boolean types (integers: "i").
_KIND: Final = {pl.Float16: "f", pl.Float32: "f", pl.Float64: "f", pl.Boolean: "b"}


def _column_kinds(given: Any) -> list[tuple[Any, str]] | None:
    """A pandas or polars frame's columns and their kinds, numpy's letters; None if no frame.

    (numpy's and pandas' own dtypes, Float64, Int64 and boolean too, say their kind.)
    """
    if isinstance(given, pl.DataFrame):
        return [
            (c, _KIND.get(type(d), "i" if d.is_integer() else "O")) for c, d in given.schema.items()
        ]
    dtypes = getattr(given, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "items"):  # (a pandas Series' is one dtype)
        return None
    return [(c, getattr(d, "kind", "O")) for c, d in dtypes.items()]


def _refuse_columns_of_no_class(y_score: Any) -> None:
    """Refuse a frame of float scores holding a column of integers that are no scores.

    A submission frame's integer id column beside the float scores was read as one more
    class (scores 100 to 107), and the class indices of y_true pointed one column off. A
    class of 0/1 integers, or one named "id" (Indonesian's code) of floats, is a class.
    """
    kinds = _column_kinds(y_score)
    if not kinds or not any(kind == "f" for _, kind in kinds):
        return
    odd = [c for c, kind in kinds if kind in "iu" and not _zeros_and_ones(y_score[c])]
    if odd:
        one = len(odd) == 1
        raise MetricsInputError(
            f"y_score: {'column' if one else 'columns'} {listed([repr(str(c)) for c in odd], 4)} "
            f"{'holds integers' if one else 'hold integers'} other than 0 and 1 beside float "
            f"scores: {'is it' if one else 'are they'} the ids? y_score holds a column per "
            f"class only; drop {'it' if one else 'them'} (ids go to ids=)"
        )


def _zeros_and_ones(column: Any) -> bool:
    """Whether a frame's column holds only 0 and 1 (a missing value: told later, as such)."""
    try:
        values = np.asarray(column, dtype=float)
    except (TypeError, ValueError):  # (pandas' NA, in pandas versions that refuse the cast)
        return True
    return bool(np.isin(values[~np.isnan(values)], (0, 1)).all())


def _object_hint(name: str, given: Any) -> str:
    """Why ``given`` (y_true or y_score) made an array of objects, and what to pass instead."""
    if isinstance(given, pl.Series) and isinstance(given.dtype, pl.List):
        return (  # (numpy reads a Series of lists, which may differ in length, as objects)
            f" (a polars Series of lists: cast it to arrays of one width, "
            f"{name}.cast(pl.Array(pl.Float64, n_classes)))"
        )
    texts = [c for c, kind in _column_kinds(given) or () if kind not in "iufb"]
    if not texts:
        return _OBJECT_HINT
    which = (
        f"columns {listed([repr(str(c)) for c in texts], 4)} hold"
        if len(texts) > 1
        else f"column {str(texts[0])!r} holds"
    )
    return (
        f" (its {which} no numbers: {name} holds a column per class only; drop the others; "
        "ids go to ids=)"
    )


#: Why an array of numbers may be of objects, and what to pass instead.
_OBJECT_HINT = (
    " (a pandas frame of nullable types, Float64 or Int64, gives objects: pass "
    "frame.to_numpy(dtype=float))"
)


def _refuse_positions_read_as_labels(truth: np.ndarray, names: list[Any]) -> None:
    """Refuse integers that are read as positions, where they are also names' text.

    With ``class_names=["1", "2", "3"]``, ``[1, 2]`` are columns 1 and 2 (classes "2" and
    "3"), not the classes "1" and "2": the two readings differ, so which is meant is asked.
    """
    text = {str(n) for n in names}
    values = np.unique(truth)
    inside = values[(values >= 0) & (values < len(names))]
    differ = [v for v in inside.tolist() if str(names[v]) != str(v)]
    if differ and all(str(v) in text for v in values.tolist()):
        first = differ[0]
        raise MetricsInputError(
            f"1-D y_true: integers are read as column positions ({first} is column {first}, "
            f"class {names[first]!r}), but each is also the text of a class name; pass "
            "y_true.astype(str) to read them as labels, or class_names as integers"
        )


def _label_indices(labels: np.ndarray, class_names: Sequence[object] | None) -> np.ndarray:
    """1-D ``y_true`` of labels (``"cat"``) as class indices, by ``class_names``."""
    if class_names is None:
        if not all(isinstance(v, str) for v in labels.tolist()):
            raise MetricsInputError(
                f"1-D y_true holds objects, not class indices or labels{_OBJECT_HINT}"
            )
        raise MetricsInputError(
            "1-D y_true holds text values, not class indices: pass class_names (the label of "
            "each column of y_score) to read them as labels"
        )
    position = {name: k for k, name in enumerate(class_names)}
    unknown = sorted({v for v in labels.tolist() if v not in position}, key=str)
    if unknown:
        named = {str(name) for name in class_names}
        hint = (  # "1" against 1: the same text, another type
            "; y_true holds text and class_names integers: pass y_true.astype(int)"
            if all(isinstance(v, str) and v in named for v in unknown)
            else ""
        )
        raise MetricsInputError(
            "1-D y_true: labels that are no class_names: "
            f"{listed([repr(v) for v in unknown], _SHOWN)}{hint}"
        )
    return np.array([position[v] for v in labels.tolist()], dtype=np.int64)


@checked_options
def from_numpy(
    y_true: npt.ArrayLike,
    y_score: npt.ArrayLike,
    *,
    class_names: npt.ArrayLike | None = None,
    ids: npt.ArrayLike | None = None,
    sample_weight: npt.ArrayLike | None = None,
) -> pl.DataFrame:
    """Turn scikit-learn style arrays into the long format.

    Parameters
    ----------
    y_true
        An ``(n_ids, n_classes)`` 0/1 indicator matrix (boolean, integer or float; other
        values, NaN included, are refused; scipy sparse too), or ``(n_ids,)`` class indices
        (multi-class), or ``(n_ids,)`` labels found in ``class_names`` (``["cat", "dog"]``,
        or integers ``[1, 2, 3]``, as scikit-learn's ``labels=``: integer labels are then
        looked up in the names, not read as column positions).
    y_score
        ``(n_ids, n_classes)`` scores, finite; or, binary, ``(n_ids,)`` (or ``(n_ids, 1)``)
        scores of the positive class with ``(n_ids,)`` 0/1 ``y_true``, as scikit-learn's
        ``roc_auc_score(y_true, y_score)`` takes them: one class, named ``1`` unless
        ``class_names`` names it. (Two columns, ``predict_proba``'s, are two classes: the
        thresholded metrics and average precision then average them, and a warning says
        so unless ``class_names`` names the two.)

        Either array may be a pandas frame or Series, of nullable types too (``Int8``,
        ``Float64``, ``boolean``, Arrow's), or a polars frame or Series (of arrays, for
        2-D), as long as no value is missing. Scores held as objects are read as numbers
        when they all are (Decimals, as SQL reads NUMERIC).
    class_names
        A name for each column, once each: all strings or all integers (for float or date
        classes, map the ``class`` column afterwards). Default: the column numbers.
    ids
        A name for each row, once each: numbers or strings of one type. Default: the row
        numbers.
    sample_weight
        ``(n_ids,)`` finite weights (numbers held as objects too: Decimals, Fractions,
        bools), as scikit-learn's ``sample_weight``: a ``weight``
        column (Float64) on each of the id's rows, which the metrics weigh by when given
        ``weight_col="weight"``.

    Returns
    -------
    polars.DataFrame
        Columns ``id``, ``class``, ``score`` and ``truth`` (boolean), and ``weight`` when
        ``sample_weight`` is given, a row per id and class. `top_k_accuracy` breaks ties by
        the classes in sorted order, which is the columns' only for the default names; for
        scikit-learn's (the columns'), cast the ``class`` column of text names to
        ``pl.Enum(class_names)`` (integer names not in sorted order: name the classes by
        text).

    Examples
    --------
    >>> import numpy as np
    >>> import pl_metrics
    >>> y_true = np.array([[1, 0, 0], [0, 0, 1]])
    >>> y_score = np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
    >>> pl_metrics.from_numpy(y_true, y_score).metrics.lrap().item()
    0.4166...
    >>> weighted = pl_metrics.from_numpy(y_true, y_score, sample_weight=[1.0, 3.0])
    >>> weighted.metrics.lrap(weight_col="weight").item()  # (1 * 0.5 + 3 * 0.3333) / 4
    0.375
    >>> pl_metrics.from_numpy(y_true * 2, y_score)
    Traceback (most recent call last):
    ...
    pl_metrics._frame.MetricsInputError: y_true: 2 values are neither 0 nor 1
    """
    _warn_of_misaligned(y_true, y_score, class_names, sample_weight)
    _refuse_columns_of_no_class(y_score)
    # scipy's sparse matrices (scikit-learn's multilabel indicators often are) as dense.
    y_true, y_score = (a.toarray() if hasattr(a, "toarray") else a for a in (y_true, y_score))
    score, truth = _object_numbers("y_score", _array("y_score", y_score)), _array("y_true", y_true)
    one_column = score.ndim == 1 or (score.ndim == 2 and score.shape[1] == 1 and truth.ndim == 1)
    if one_column and truth.shape in ((len(score),), (len(score), 1)):
        # Binary, as scikit-learn's roc_auc_score(y_true, y_score) takes it (Keras' sigmoid
        # scores of shape (n, 1) too): the positive class's scores and 0/1 truth, one class
        # (named 1, its label) of one column.
        score, truth = score.reshape(-1, 1), truth.reshape(-1, 1)
        class_names = [1] if class_names is None else class_names
    if score.ndim == 1:
        raise MetricsInputError(
            f"a 1-D y_score, binary scores, needs y_true of 0/1 of shape ({len(score)},) or "
            f"({len(score)}, 1), got shape {truth.shape}"
        )
    if score.ndim != 2:
        raise MetricsInputError(f"y_score must be 2-D (ids, classes), got shape {score.shape}")
    if score.dtype.kind not in "iuf":
        raise MetricsInputError(
            f"y_score: scores must be numeric (float or integer), not {score.dtype}"
            f"{_object_hint('y_score', y_score) if score.dtype == object else ''}"
        )
    if score.dtype.kind == "f" and score.dtype.itemsize > 8:  # (long double: polars' Object)
        score = score.astype(np.float64)
    if score.dtype.kind == "f":
        nonfinite = int(np.count_nonzero(~np.isfinite(score)))
        if nonfinite:
            values = "value is" if nonfinite == 1 else "values are"
            raise MetricsInputError(f"y_score: {nonfinite:,} {values} NaN or infinite")
    n_ids, n_classes = score.shape
    if isinstance(class_names, str):  # not its letters
        raise MetricsInputError(
            f"option 'class_names': expected a name per column, got {shown(class_names)}"
        )
    if isinstance(class_names, (set, frozenset)):  # (set(y): its order is the hash's)
        raise MetricsInputError(
            "option 'class_names': a set has no order, and each name is of a column in its "
            "place: pass a list (sorted(set(y)) where the columns are in sorted order, as "
            "scikit-learn's classifiers order classes_)"
        )
    names = list(range(n_classes)) if class_names is None else _names("class_names", class_names)
    if len(names) != n_classes:
        raise MetricsInputError(f"{len(names)} class names for {n_classes} columns")
    # Class columns are integers or strings (README): names all of one of the two.
    strings = all(isinstance(n, str) for n in names)
    integers = all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in names)
    if not (strings or integers):
        kinds = sorted({type(n).__name__ for n in names})
        raise MetricsInputError(
            f"class_names: expected all strings or all integers, got {', '.join(kinds)}"
        )
    binary = truth.ndim == 1 and truth.dtype.kind in "iu" and _zeros_and_ones(truth)
    if binary and n_classes == 2 and class_names is None:
        # (A frame's second column: pandas' iloc, polars' to_series; an array's, [:, 1].)
        second = (
            "y_score.iloc[:, 1]"
            if is_pandas(y_score)
            else "y_score.to_series(1)"
            if isinstance(y_score, pl.DataFrame)
            else "y_score[:, 1]"
        )
        warnings.warn(
            "from_numpy: y_score has 2 columns, each a class, so the thresholded metrics (f1, "
            "accuracy, ...), average precision and roc_auc average the two; scikit-learn's "
            f"binary values (f1_score(y_true, {second} >= 0.5)) are the positive class's "
            f"alone: from_numpy(y_true, {second}) gives them, binary_log_loss its log loss "
            "(log_loss of the two columns is scikit-learn's too, and their roc_auc differs only "
            "where 1 - p rounds, a p below about 1e-16 tying in the other column; "
            "class_names=[0, 1] says the two classes are meant)",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    if truth.ndim == 1:
        if truth.shape[0] != n_ids:
            raise MetricsInputError(
                f"1-D y_true must hold one class index per row of y_score: {truth.shape[0]:,} "
                f"values for {n_ids:,} rows"
            )
        if truth.dtype == object and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            for v in truth.tolist()
        ):  # (a pandas column of objects)
            truth = truth.astype(np.int64)
        if truth.dtype.kind in "USO":  # labels, as scikit-learn's with labels=
            truth = _label_indices(truth, None if class_names is None else names)
        elif class_names is not None and integers and truth.dtype.kind in "iu":
            # Integer names are labels too (scikit-learn's labels=[1, 2, 3]), not positions.
            truth = _label_indices(truth, names)
        elif class_names is not None and truth.dtype.kind in "iu":
            _refuse_positions_read_as_labels(truth, names)
        elif not np.issubdtype(truth.dtype, np.integer):
            raise MetricsInputError(
                f"1-D y_true holds {truth.dtype} values, not class indices: cast whole numbers "
                "with y_true.astype(int)"
            )
        outside = (truth < 0) | (truth >= n_classes)
        from_one = class_names is None and n_classes > 2 and truth.size > 0  # (2: binary)
        if from_one and not outside.any() and truth.min() > 0:
            warnings.warn(  # (scikit-learn, which infers the labels, refuses the table)
                f"from_numpy: y_true holds no 0, read as the column indices 0 to "
                f"{n_classes - 1}; if its labels count from 1, give class_names="
                f"[1, ..., {n_classes}]",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
        if outside.any():
            count, first = int(outside.sum()), truth[outside][0]
            values = "value is" if count == 1 else "values are"
            hint = (
                "class_names hold text: integer labels are looked up in integer names"
                if class_names is not None
                else f"for labels that are no positions (1 to {n_classes}, say), name each "
                "column with class_names=[...]"
            )
            raise MetricsInputError(
                f"1-D y_true: {count:,} {values} no column index of y_score (0 to "
                f"{n_classes - 1}), such as {first}; {hint}"
            )
        truth = np.eye(n_classes, dtype=bool)[truth]
    if truth.shape != score.shape:
        hint = (
            ": for a column of class indices or labels, give np.ravel(y_true)"
            if truth.ndim == 2 and truth.shape == (n_ids, 1) and n_classes > 1
            else ""
        )
        raise MetricsInputError(
            f"y_true {truth.shape} and y_score {score.shape} differ in shape{hint}"
        )
    _check_y_true(truth, y_true)
    weights = None if sample_weight is None else _sample_weight(sample_weight, n_ids)
    nulls = _nulls_among(ids)
    if nulls is not None and nulls.any():  # numpy would make them NaN ids, or objects
        count, first = int(nulls.sum()), int(nulls.argmax())
        raise MetricsInputError(
            f"option 'ids': {count:,} {'id is' if count == 1 else 'ids are'} null (the first in "
            f"row {first}); each row needs an id"
        )
    id_values = np.arange(n_ids) if ids is None else _array("ids", ids)
    if isinstance(ids, (list, tuple)) and id_values.dtype.kind == "U":  # numpy made text of all
        _ids(np.array(ids, dtype=object))  # (refuses several types, as of an object array)
    if id_values.dtype.kind == "f" and np.isnan(id_values).any():
        count, first = int(np.isnan(id_values).sum()), int(np.isnan(id_values).argmax())
        raise MetricsInputError(
            f"option 'ids': {count:,} {'id is' if count == 1 else 'ids are'} NaN (the first in "
            f"row {first}); each row needs an id"
        )
    if id_values.ndim != 1:
        raise MetricsInputError(
            f"option 'ids': expected one id per row, got shape {id_values.shape}"
        )
    if len(id_values) != n_ids:
        raise MetricsInputError(f"{len(id_values)} ids for {n_ids} rows")
    id_series = _ids(id_values)
    repeated = id_series.filter(id_series.is_duplicated()).unique(maintain_order=True)
    if repeated.len():  # their rows would be one id's, twice over
        count = repeated.len()
        raise MetricsInputError(
            f"option 'ids': {count:,} {'id repeats' if count == 1 else 'ids repeat'} "
            f"({_shown(repeated.head(_SHOWN).to_list(), count)}); each row needs its own id"
        )
    return pl.DataFrame(
        {
            "id": id_series.gather(np.repeat(np.arange(n_ids), n_classes)),
            # (gathered: a typed column without rows too, not polars' Null of an empty list)
            "class": pl.Series(names).gather(np.tile(np.arange(n_classes), n_ids)),
            "score": score.reshape(-1).copy(),  # (not a view: the caller may reuse the array)
            "truth": truth.reshape(-1).astype(bool),
            **({} if weights is None else {"weight": np.repeat(weights, n_classes)}),
        }
    )


def _warn_of_misaligned(
    y_true: object, y_score: object, class_names: object, sample_weight: object = None
) -> None:
    """Warn where a frame's labels pair other rows or columns than their places.

    ``from_numpy`` reads frames by position, as scikit-learn does; pandas users may expect
    them aligned by index and column names (a frame of ``[b, a]`` beside ``[a, b]``, or
    beside ``class_names=[a, b]``), and a polars frame's columns are named too. A default
    index (0 to n - 1, as ``predict_proba`` frames have) names no rows: a shuffled frame's
    labels beside it pair by position, as meant.
    """
    for name, frame in (("y_true", y_true), ("y_score", y_score)):
        framed = is_pandas(frame) or isinstance(frame, pl.DataFrame)
        columns = getattr(frame, "columns", None) if framed else None
        if (
            columns is None
            or isinstance(class_names, str)
            or not isinstance(class_names, Collection)
        ):
            continue  # (a string is refused as class_names later; an iterator read once)
        if len(columns) != len(class_names) or type(columns).__name__ == "RangeIndex":
            continue  # (pd.DataFrame(proba)'s columns 0, 1, ... name nothing)
        given, named = [str(c) for c in columns], [str(c) for c in class_names]
        if given != named and sorted(given) == sorted(named):
            warnings.warn(
                f"{name}'s columns are the class_names in another order: from_numpy names "
                f"its columns by position, as scikit-learn reads labels=; to name them by "
                f"label, pass {name}[class_names] (or class_names=list({name}.columns))",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
    frames = [(n, f) for n, f in (("y_score", y_score), ("y_true", y_true)) if is_pandas(f)]
    if is_pandas(sample_weight) and frames:  # (the weights of a merge: another row order)
        name, frame = frames[0]
        if _reordered(getattr(frame, "index", None), getattr(sample_weight, "index", None)):
            warnings.warn(
                f"sample_weight holds {name}'s row (index) labels in another order: "
                "from_numpy pairs them by position, as scikit-learn does; to pair them by "
                f"label, reorder it first (sample_weight.loc[{name}.index])",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )
    fixes = []
    both_pandas = is_pandas(y_true) and is_pandas(y_score)
    if both_pandas and _reordered(getattr(y_true, "index", None), getattr(y_score, "index", None)):
        fixes.append(("row (index)", "y_true.loc[y_score.index]"))
    # Columns of polars frames are named too, and a pandas frame's beside a polars one.
    mine, theirs = _column_labels(y_true), _column_labels(y_score)
    if (
        mine is not None
        and theirs is not None
        and mine != theirs
        and len(set(mine)) == len(mine)
        and sorted(mine) == sorted(theirs)
    ):
        fixes.append(
            (
                "column",
                "y_true[y_score.columns]" if both_pandas else "y_true[list(y_score.columns)]",
            )
        )
    if fixes:
        told, reordered = (" and ".join(parts) for parts in zip(*fixes, strict=True))
        warnings.warn(
            f"y_true and y_score hold the same {told} labels in another order: from_numpy "
            f"pairs them by position, as scikit-learn does; to pair them by label, reorder "
            f"y_true first ({reordered})",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def _column_labels(frame: object) -> list[str] | None:
    """A polars or pandas frame's column labels as text; None for no frame."""
    if isinstance(frame, pl.DataFrame):
        return frame.columns
    columns = getattr(frame, "columns", None) if is_pandas(frame) else None
    return None if columns is None else [str(c) for c in columns]


def _reordered(mine: Any, theirs: Any, *, default_names_nothing: bool = True) -> bool:
    """Whether two pandas indexes hold the same labels in another order.

    A default index (0 to n - 1) names no rows (``default_names_nothing``): beside it,
    another pairs by position, as meant.
    """
    if mine is None or theirs is None or len(mine) != len(theirs) or mine.equals(theirs):
        return False
    import pandas as pd

    default = pd.RangeIndex(len(mine))
    if default_names_nothing and (mine.equals(default) or theirs.equals(default)):
        return False
    return set(mine) == set(theirs)


def _sample_weight(sample_weight: object, n_ids: int) -> np.ndarray:
    """``from_numpy``'s weights, one finite number per id, as Float64."""
    weights = _array("sample_weight", sample_weight)
    if weights.ndim != 1 or len(weights) != n_ids:
        raise MetricsInputError(
            f"sample_weight: expected one weight per row of y_score ({n_ids:,}), got shape "
            f"{weights.shape}"
        )
    weights = _object_numbers("sample_weight", weights)
    if weights.dtype.kind not in "biuf":
        raise MetricsInputError(f"sample_weight: weights must be numbers, not {weights.dtype}")
    weights = weights.astype(np.float64)
    nonfinite = int(np.count_nonzero(~np.isfinite(weights)))
    if nonfinite:
        values = "weight is" if nonfinite == 1 else "weights are"
        raise MetricsInputError(f"sample_weight: {nonfinite:,} {values} NaN or infinite")
    return weights
