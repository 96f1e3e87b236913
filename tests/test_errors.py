"""Bad input: one exception type, a message naming the column, the problem and the count."""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
import pl_metrics.dask
import pl_metrics.plot
from pl_metrics import MetricsInputError
from tests.conftest import long_table

RANKING = [
    pl_metrics.lwlrap,
    pl_metrics.lrap,
    pl_metrics.coverage_error,
    pl_metrics.label_ranking_loss,
]


@pytest.fixture
def good() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return long_table(rng.random((6, 4)) < 0.5, rng.random((6, 4))).with_columns(
        model=pl.lit("m"), w=pl.lit(1.0)
    )


def with_value(df: pl.DataFrame, column: str, value: object, rows: list[int]) -> pl.DataFrame:
    mask = pl.int_range(pl.len()).is_in(rows)
    return df.with_columns(
        pl.when(mask).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
    )


@pytest.mark.parametrize("metric", RANKING)
def test_missing_column_suggests_close_names(good: pl.DataFrame, metric) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MetricsInputError, match=r"'scores'.*did you mean 'score'"):
        metric(good, score_col="scores")
    with pytest.raises(MetricsInputError, match=r"'modl' \(option 'by'\)"):
        metric(good.lazy(), by="modl")


@pytest.mark.parametrize(
    ("column", "value", "pattern"),
    [
        ("score", None, r"column 'score': 2 rows are null"),
        ("score", float("nan"), r"column 'score': 2 rows are NaN or infinite"),
        ("score", float("inf"), r"column 'score': 2 rows are NaN or infinite"),
        ("truth", None, r"column 'truth': 2 rows are null"),
        ("id", None, r"column 'id': 2 rows are null"),
        ("class", None, r"column 'class': 2 rows are null"),
        ("model", None, r"column 'model': 2 rows are null"),
    ],
)
@pytest.mark.parametrize("metric", RANKING)
def test_bad_values_are_counted(
    good: pl.DataFrame,
    metric,
    column: str,
    value: object,  # type: ignore[no-untyped-def]
    pattern: str,
) -> None:
    bad = with_value(good, column, value, [1, 5])
    # The lazy call reads nothing: the error comes when the result is collected.
    lazy = metric(bad.lazy(), by="model")
    with pytest.raises(MetricsInputError, match=pattern):
        lazy.collect()
    with pytest.raises(MetricsInputError, match=pattern):
        metric(bad, by="model")


def test_truth_not_binary(good: pl.DataFrame) -> None:
    bad = with_value(good.with_columns(pl.col("truth").cast(pl.Int64)), "truth", 2, [0, 3, 4])
    with pytest.raises(MetricsInputError, match=r"column 'truth': 3 rows are neither 0 nor 1"):
        pl_metrics.lrap(bad)
    with pytest.raises(MetricsInputError, match=r"must be boolean or numbers 0/1, not String"):
        pl_metrics.lrap(good.with_columns(pl.col("truth").cast(pl.String)))


@pytest.mark.parametrize("dtype", [pl.Float32, pl.Float64])
@pytest.mark.parametrize("metric", ["lrap", "f1", "roc_auc", "brier_score"])
def test_float_truth_of_0_and_1_is_taken_as_scikit_learn_takes_it(
    good: pl.DataFrame, dtype: pl.DataType, metric: str
) -> None:
    """A CSV written by pandas holds 0/1 as 1.0/0.0: the same numbers; others are refused."""
    floats = good.with_columns(pl.col("truth").cast(dtype))
    want = pl_metrics.report(good, metric, by="model")
    assert_frame_equal(pl_metrics.report(floats, metric, by="model"), want)
    assert_frame_equal(pl_metrics.report(floats.lazy(), metric, by="model").collect(), want)
    for value, rows in ((0.5, [0, 3]), (float("nan"), [5])):
        bad = with_value(floats, "truth", value, rows)
        pattern = rf"column 'truth': {len(rows)} rows? (is|are) neither 0 nor 1"
        with pytest.raises(MetricsInputError, match=pattern):
            pl_metrics.report(bad, metric, by="model")


def test_duplicates(good: pl.DataFrame) -> None:
    bad = pl.concat([good, good.head(3)])
    with pytest.raises(MetricsInputError, match=r"column 'class': 3 rows repeat a \(id, class\)"):
        pl_metrics.lwlrap(bad)
    with pytest.raises(MetricsInputError, match=r"3 rows repeat a \(model, id, class\).*model='m'"):
        pl_metrics.lwlrap(bad, by="model", per_class=True)


def test_repeated_rows_are_named_in_the_tables_order() -> None:
    """The first ids' first repeated class, as the table is read: a join and a unique that
    kept no order named others in about one call of twenty (kernel and plan alike)."""
    n = 1320  # 11 ids x 3 models x 40 classes, scored without by="model"
    df = pl.DataFrame(
        {
            "id": [i // 120 for i in range(n)],
            "model": [("a", "b", "c")[(i // 40) % 3] for i in range(n)],
            "class": [f"k{i % 40}" for i in range(n)],
            "score": 0.5,
            "truth": [i % 40 == 0 for i in range(n)],
        }
    )
    want = "e.g. id=0, class='k0': 3 rows; id=1, class='k0': 3 rows; id=2, class='k0': 3 rows"
    for _ in range(60):
        with pytest.raises(MetricsInputError) as error:
            pl_metrics.lrap(df)
        assert want in str(error.value)


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("metric", ["lrap", "f1", "roc_auc"])
def test_duplicates_name_the_columns_that_could_group_them(
    good: pl.DataFrame, lazy: bool, metric: str
) -> None:
    """A dump of two folds scored without ``by``: the error says which columns to pass."""
    two = pl.concat([good.with_columns(fold=pl.lit(k)) for k in range(2)])
    frame = two.lazy() if lazy else two
    hint = (
        r"the table has columns model, fold: pass by=\['model', 'fold'\] if each \(model, fold\)"
        r" holds one prediction per \(id, class\), or by=\['model'\] if each model does "
        r"\(pooling its fold values\)"
    )
    with pytest.raises(MetricsInputError, match=r"24 rows repeat a \(id, class\).*" + hint):
        pl_metrics.report(frame, metric).lazy().collect()
    # Seeds are not pooled as folds are (each seed holds every id): the fold is the one left out.
    seeds = pl.concat([two.with_columns(seed=pl.lit(s)) for s in range(2)])
    pooled = r"or by=\['model', 'seed'\] if each \(model, seed\) does \(pooling its fold values\)"
    with pytest.raises(MetricsInputError, match=pooled):
        pl_metrics.report(seeds, metric, by="model").lazy().collect()
    also = (
        r"the table also has column fold: pass by=\['model', 'fold'\] if each \(model, fold\)"
        r" holds one prediction per \(id, class\); rows"  # (not by=['model'] again)
    )
    with pytest.raises(MetricsInputError, match=also):
        pl_metrics.report(frame, metric, by="model").lazy().collect()
    # Predictions differ between the models' rows but are no key (by=[model, pred]); a
    # flag of the run that made the rows is one.
    for pred in (pl.col("score") >= 0.5, (pl.col("score") >= 0.5).cast(pl.Int8)):
        predicted = two.with_columns(pred.alias("pred"), calibrated=pl.col("model") == "m")
        with pytest.raises(
            MetricsInputError, match=r"has columns model, fold, calibrated: pass by=\['model', "
        ):
            pl_metrics.report(predicted, metric)
    # Float columns are not keys; without other columns there is no hint.
    with pytest.raises(
        MetricsInputError,
        match=r"one row per class; rows repeated whole \(a file read twice\) go with \.unique\(\); "
        r"e\.g\. id=0, class=0: 2 rows;",
    ):
        pl_metrics.report(two.drop("model", "fold"), metric)
    assert pl_metrics.report(frame, metric, by=["model", "fold"]).lazy().collect().height == 2
    # ... but a fold is a key whatever its type: pandas writes one with a NaN as floats.
    with pytest.raises(MetricsInputError, match=hint):
        pl_metrics.report(two.with_columns(pl.col("fold").cast(pl.Float64)), metric)
    # (A float named for its fold is no fold: nor a scaffold.)
    floats = two.with_columns(fold_score=pl.col("score") / 2, scaffold=pl.col("score"))
    with pytest.raises(
        MetricsInputError, match=r"has columns model, fold: pass by=\['model', 'fold'\]"
    ):
        pl_metrics.report(floats, metric)


def test_ragged(good: pl.DataFrame) -> None:
    bad = good.filter(~((pl.col("id") < 2) & (pl.col("class") == 3)))
    pattern = r"column 'class': 2 \(id, class\) rows are missing.*ragged='allow'"
    with pytest.raises(MetricsInputError, match=pattern):
        pl_metrics.lrap(bad)
    assert 0 <= pl_metrics.lrap(bad, ragged="allow").item() <= 1


def test_empty(good: pl.DataFrame) -> None:
    for by in (None, "model"):
        with pytest.raises(MetricsInputError, match="empty"):
            pl_metrics.lrap(good.clear(), by=by)
        with pytest.raises(MetricsInputError, match="empty"):
            pl_metrics.lwlrap(good.clear().lazy(), by=by, per_class=True).collect()


def test_weights(good: pl.DataFrame) -> None:
    varies = with_value(good, "w", 2.0, [0])
    with pytest.raises(MetricsInputError, match=r"column 'w': 1 id has weights that vary"):
        pl_metrics.lrap(varies, weight_col="w")
    with pytest.raises(MetricsInputError, match=r"column 'w': 4 rows are NaN or infinite"):
        pl_metrics.coverage_error(good.with_columns(w=pl.lit(float("nan"))).head(4), weight_col="w")
    with pytest.raises(MetricsInputError, match=r"weights must be numeric"):
        pl_metrics.lrap(good.with_columns(w=pl.lit("a")), weight_col="w")
    # Decimals (DuckDB's, pyarrow's decimal128) say how to cast them.
    decimal = good.with_columns(pl.col("w", "score").cast(pl.Decimal(10, 3)))
    cast = r"cast them first: pl.col\('{}'\).cast\(pl.Float64\)$"
    with pytest.raises(MetricsInputError, match=cast.format("w")):
        pl_metrics.lrap(decimal.with_columns(pl.col("score").cast(pl.Float64)), weight_col="w")
    with pytest.raises(MetricsInputError, match=cast.format("score")):
        pl_metrics.lrap(decimal)
    # Boolean scores: hard predictions, which pred_col takes.
    with pytest.raises(MetricsInputError, match=r"not Boolean; hard predictions are pred_col's"):
        pl_metrics.lrap(good.with_columns(pl.col("score") > 0.5))
    # (from_numpy takes boolean weights as 1 and 0, as scikit-learn: a column is told how)
    with pytest.raises(MetricsInputError, match=r"not Boolean; " + cast.format("w")):
        pl_metrics.lrap(good.with_columns(w=pl.lit(True)), weight_col="w")


def test_options(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"option 'ragged': unknown value 'sometimes'"):
        pl_metrics.lrap(good, ragged="sometimes")  # type: ignore[arg-type]
    # Flags are True or False, as padding=True is refused as a number: not 1, nor 0.0.
    for flag, value in (("validate", 1), ("per_id", 0.0)):
        with pytest.raises(MetricsInputError, match=rf"^option '{flag}': unknown value {value}"):
            pl_metrics.lrap(good, **{flag: value})
    assert_frame_equal(pl_metrics.lrap(good, validate=np.True_), pl_metrics.lrap(good))
    with pytest.raises(MetricsInputError, match=r"scores must be numeric"):
        pl_metrics.lrap(good.with_columns(pl.col("score").cast(pl.String)))
    with pytest.raises(MetricsInputError, match=r"option 'by': 'id' is the id_col"):
        pl_metrics.lrap(good, by="id")
    with pytest.raises(MetricsInputError, match=r"option 'by': 'score' is the score_col"):
        pl_metrics.lrap(good, by=["score"])
    folds = good.with_columns(fold=pl.col("id") % 2)
    with pytest.raises(MetricsInputError, match=r"option 'fold_col': 'id' is the id_col"):
        pl_metrics.best_threshold(folds, "f1", fold_col="id")
    # (A slip of another metric's option: named, with the metrics that take it.)
    with pytest.raises(
        MetricsInputError,
        match=r"^lrap: unknown option 'thresold'; did you mean 'threshold'\? the metrics that ",
    ):
        pl_metrics.lrap(good, thresold=0.5)  # type: ignore[call-arg]


def test_option_values_past_their_bounds_are_refused_by_name(good: pl.DataFrame) -> None:
    """From a review of option boundaries: a subnormal max_fpr gave ROC AUC inf and NaN; a
    beta past 1e150 gave a class of no positive zero_division's 1 (its F-beta is 0 for any
    finite beta); integers past a float's range were raw OverflowErrors; a float32 class
    weight warned of an overflow; a typo of 'average' was offered values its metric
    refuses, and 'none' no hint."""
    expr_f1 = pl_metrics.expr.f1
    cases: list[tuple[Callable[[], object], str]] = [
        (
            lambda: pl_metrics.roc_auc(good, max_fpr=1e-310),
            r"'max_fpr': expected a number in \[1e-290, 1\], got 1e-310",
        ),
        (
            lambda: pl_metrics.fbeta(good, beta=1e200),
            r"'beta': expected a number in \[0, 1e\+150\]",
        ),
        (
            lambda: pl_metrics.padded_cmap(good, padding=10**400),
            r"'padding': expected an integer in \[0, 2\*\*31\), got 1000",
        ),
        (
            lambda: pl_metrics.roc_curve(good, max_points=10**400),
            r"'max_points': expected an integer in \[2, 2\*\*31\)",
        ),
        (
            lambda: good.select(expr_f1("score", "truth", threshold=10**400)),
            r"'threshold': expected a finite number, got 1000",
        ),
        (
            lambda: pl_metrics.brier_score(good, average="Macro"),  # type: ignore[arg-type]
            r"did you mean 'macro'\? \(expected one of None, 'macro'\)$",
        ),
        (
            lambda: pl_metrics.f1(good, average="none"),  # type: ignore[arg-type]
            r"'none'; for a value per class, pass Python's None",
        ),
        (
            lambda: pl_metrics.brier_score(good, average="micro"),
            r"\(it takes 'macro' or None\)",
        ),
        (
            lambda: pl_metrics.f1(good, zero_division="warn"),  # type: ignore[arg-type]
            r"NaN \(scikit-learn's 'warn' gives 0",
        ),
    ]
    for call, message in cases:
        with pytest.raises(MetricsInputError, match=message):
            call()
    # Just past the bounds, and other spellings, from the mutation review.
    for call, message in [
        (lambda: pl_metrics.roc_auc(good, max_fpr=1e-295), r"'max_fpr': expected a number in"),
        (lambda: pl_metrics.fbeta(good, beta=1e151), r"'beta': expected a number in \[0, 1e"),
        (lambda: pl_metrics.f1(good, average="NONE"), r"pass Python's None \(average=None\)"),  # type: ignore[arg-type]
        (lambda: pl_metrics.f1(good, threshold=10**400), r"expected a finite number, got 1000"),
        (lambda: pl_metrics.f1(good, threshold=None), r"\(class, threshold\) rows, got None$"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(MetricsInputError, match=message):
            call()
    # The bounds themselves are taken, with scikit-learn's numbers.
    assert np.isfinite(pl_metrics.roc_auc(good, max_fpr=1e-290).item())
    assert pl_metrics.roc_auc(good, max_fpr=1).item() == pl_metrics.roc_auc(good).item()
    assert pl_metrics.fbeta(good, beta=1e150).item() == pl_metrics.recall(good).item()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = {c: np.float32(1.0) for c in good["class"].unique()}
        pl_metrics.binary_log_loss(good)  # (the table: weighted_log_loss needs one true class)
        pl_metrics._spec.class_weights_option(weights)
        assert (
            pl_metrics.fbeta(good, beta=np.float32(2.0)).item()
            == pl_metrics.fbeta(good, beta=2.0).item()
        )


def _public_functions() -> dict[str, Any]:
    modules = [pl_metrics, pl_metrics.expr, pl_metrics.dask, pl_metrics.plot]
    return {
        f"{m.__name__}.{name}": getattr(m, name)
        for m in modules
        for name in m.__all__
        if inspect.isfunction(getattr(m, name))
    }


@pytest.mark.parametrize("name", list(_public_functions()))
def test_a_misspelt_option_is_named_with_the_closest(name: str) -> None:
    """Every public function refuses a misspelt option by name, suggesting the option meant
    (a MetricsInputError, and a TypeError as Python's own), before it reads anything."""
    function = _public_functions()[name]
    parameters = inspect.signature(function).parameters.values()
    options = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]
    if not options:  # nothing to misspell (metric_names)
        return
    meant = options[-1]
    typo = meant[:-1] + "_x" if len(meant) > 3 else meant + "x"
    required = [p for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    with pytest.raises(TypeError) as error:
        function(*[None] * len(required), **{typo: 1})
    assert isinstance(error.value, MetricsInputError)
    label = name.removeprefix("pl_metrics.").removeprefix("plot.")
    assert str(error.value) == (f"{label}: unknown option {typo!r}; did you mean {meant!r}?"), name


def _named_arguments() -> list[tuple[str, str]]:
    """Every public function's arguments that may be passed by name."""
    return [
        (name, p.name)
        for name, function in _public_functions().items()
        for p in inspect.signature(function).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD
    ]


@pytest.mark.parametrize(("name", "meant"), _named_arguments())
def test_a_misspelt_argument_is_named_with_the_closest(name: str, meant: str) -> None:
    """An argument that may also be passed by name (`metric`, `thresholds`, `score`) is
    suggested as the options are: `metrics=` and `scores=` were told of no fix."""
    function = _public_functions()[name]
    parameters = inspect.signature(function).parameters.values()
    typo = meant[0] + meant  # (not metric for metrics: an option of report's, best_threshold's)
    required = [p for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    with pytest.raises(MetricsInputError) as error:
        function(*[None] * len(required), **{typo: 1})
    assert f"unknown option {typo!r}; did you mean {meant!r}" in str(error.value), name


def test_arguments_are_offered_for_near_names_only(good: pl.DataFrame) -> None:
    # name= was "did you mean 'frame'?"; model= was model_b's, not model_col's.
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: pl_metrics.report(good, "lrap", name=1), r"^report: unknown option 'name'$"),
        (
            lambda: pl_metrics.paired(good, "lrap", "a", "b", model="m"),
            r"'model'; did you mean 'model_col'\?$",
        ),
        (
            lambda: pl_metrics.paired(good, "lrap", "a", "b", model_as="m"),
            r"'model_as'; did you mean 'model_a'\?$",
        ),
        # by_col was offered id_col; pandas' and SQL's spellings name by too.
        (
            lambda: pl_metrics.f1(good, by_col="g"),
            r"^f1: unknown option 'by_col'; did you mean 'by'\?$",
        ),
        (lambda: pl_metrics.score(good, "lrap", group_by="g"), r"'group_by'; did you mean 'by'\?$"),
        # A slip of one letter in a short name: too few letters for a ratio of likeness.
        (
            lambda: pl_metrics.lrap(good, bi="g"),
            r"^lrap: unknown option 'bi'; did you mean 'by'\?$",
        ),
        (lambda: pl_metrics.ndcg(good, j=3), r"^ndcg: unknown option 'j'; did you mean 'k'\?$"),
    ]
    for call, message in cases:
        with pytest.raises(MetricsInputError, match=message):
            call()


def test_validate_false_skips_checks(good: pl.DataFrame) -> None:
    bad = pl.concat([good, good.head(3)])
    assert pl_metrics.lrap(bad, validate=False).height == 1
    assert pl_metrics.lrap(good, validate=False).item() == pytest.approx(
        pl_metrics.lrap(good).item(), rel=1e-12
    )


def test_errors_are_value_errors() -> None:
    assert issubclass(MetricsInputError, ValueError)


def test_repeated_and_missing_class_in_one_id() -> None:
    df = pl.DataFrame(
        {
            "id": [0, 0, 0, 1, 1, 1],
            "class": ["a", "b", "b", "a", "b", "c"],
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            "truth": [True, False, False, False, True, False],
        }
    )
    with pytest.raises(
        MetricsInputError, match="1 group has ids that repeat a class and ids that lack one"
    ):
        pl_metrics.lrap(df)
    with pytest.raises(MetricsInputError, match=r"1 row repeats a \(id, class\)"):
        pl_metrics.lrap(df, ragged="allow")  # the distinct count per id finds it


@pytest.mark.parametrize("path", ["eager", "lazy", "score"])
@pytest.mark.parametrize(
    "classes",
    [
        {0: "abc", 1: "ab", 2: "ab", 3: "abca"},  # ids lack c, another repeats a
        {0: "aa", 1: "abc"},  # id 0 repeats a, lacks b and c
        {0: "aab", 1: "ab", 2: "abc"},  # id 0 repeats a and lacks c, id 1 lacks c
        {0: "aaab", 1: "abc"},  # 2 repeated, 1 missing
        # No class's count shows both a repeat and a lack: only the ids' row counts do.
        {0: "a", 1: "abbb"},  # id 0 lacks b, id 1 repeats b twice
        {0: "aab", 1: "b", 2: "b"},  # id 0 repeats a, ids 1 and 2 lack it
    ],
)
def test_missing_and_repeated_rows_do_not_net_out(path: str, classes: dict[int, str]) -> None:
    """The totals' difference (2 missing and 1 repeated: "1 row is missing") was told as
    the problem, with no word of the other, and its hint (ragged='allow') led to another
    error."""
    rows = [(i, c) for i, these in classes.items() for c in these]
    df = pl.DataFrame(rows, schema=["id", "class"], orient="row").with_columns(
        score=pl.lit(0.5), truth=pl.col("class") == "a"
    )
    run = {
        "eager": lambda: pl_metrics.f1(df),
        "lazy": lambda: pl_metrics.f1(df.lazy()).collect(),
        "score": lambda: pl_metrics.score(df.lazy(), "f1", n_chunks=2),
    }[path]
    with pytest.raises(
        MetricsInputError, match="1 group has ids that repeat a class and ids that lack one"
    ):
        run()
    with pytest.raises(MetricsInputError, match=r"rows? repeats?"):  # counted per id there
        pl_metrics.f1(df, ragged="allow")


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Int64])
def test_class_hash_check_across_dtypes(good: pl.DataFrame, dtype: pl.DataType) -> None:
    typed = good.with_columns(pl.col("class").cast(pl.String).cast(dtype))
    assert pl_metrics.lrap(typed).item() == pytest.approx(pl_metrics.lrap(good).item())
    swapped = typed.with_columns(  # id 0 repeats class 1 in place of class 2
        pl.when((pl.col("id") == 0) & (pl.col("class").cast(pl.String) == "2"))
        .then(pl.lit("1").cast(dtype))
        .otherwise(pl.col("class"))
        .alias("class")
    )
    with pytest.raises(MetricsInputError, match="repeat a class and ids that lack one"):
        pl_metrics.f1(swapped)


def test_by_naming_a_column_twice_is_refused(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"option 'by': 'model' named more than once"):
        pl_metrics.lrap(good, by=["model", "model"])
    # A column's values (pandas' groupby habit, by=df["model"]): told to name the column.
    grouped = good.with_columns(model=pl.col("id") % 2)
    numbers = grouped["model"]  # (integers: refused as no names, with the same hint)
    for values in (numbers, numbers.cast(pl.String), numbers.cast(pl.String).to_pandas()):
        for frame in (grouped, grouped.lazy()):
            with pytest.raises(MetricsInputError, match=r"values, not names\? pass by='model'$"):
                pl_metrics.lrap(frame, by=values)


def test_weights_for_a_report_with_metrics_that_take_none_are_refused(good: pl.DataFrame) -> None:
    """padded_cmap and expected_calibration_error take no weights: in a weighted report
    their values would silently differ from their own calls."""
    for unweighted in ("padded_cmap", "expected_calibration_error"):
        with pytest.raises(
            MetricsInputError, match=f"option 'weight_col': {unweighted} takes no weights"
        ):
            pl_metrics.report(good, [unweighted, "f1"], weight_col="w")
        alone = pl_metrics.report(good, [unweighted])
        assert alone.equals(pl_metrics.report(good, [unweighted, "f1"]).select(unweighted))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_n_chunks_must_be_a_positive_integer(good: pl.DataFrame, bad: object) -> None:
    with pytest.raises(MetricsInputError, match="option 'n_chunks': expected a positive integer"):
        pl_metrics.score(good.lazy(), "lrap", n_chunks=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [None, 3, ["lrap", None]])
def test_metrics_must_be_names(good: pl.DataFrame, bad: object) -> None:
    with pytest.raises(MetricsInputError, match="option 'metrics': expected a metric name"):
        pl_metrics.report(good, bad)  # type: ignore[arg-type]


def test_a_missing_fold_column_is_named_by_its_option(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"column 'fold' \(option 'fold_col'\)"):
        pl_metrics.best_threshold(good, "f1", fold_col="fold")


def test_resampling_and_compare_refuse_keys_named_like_their_columns(good: pl.DataFrame) -> None:
    two = pl.concat([good.with_columns(pl.lit(m).alias("model")) for m in ("a1", "b1")])
    for name in ("lower", "metric"):  # ("value" names a working column: a key as any)
        with pytest.raises(MetricsInputError, match=rf"column '{name}' \(option 'by'\)"):
            pl_metrics.bootstrap(two.rename({"model": name}), "lrap", by=name, n_resamples=5)
    with pytest.raises(MetricsInputError, match=r"column 'difference' \(option 'by'\)"):
        pl_metrics.paired(
            two.with_columns(difference=pl.lit(1)), "lrap", "a1", "b1", by="difference"
        )
    folds = two.with_columns(fold=pl.col("id") % 2)
    with pytest.raises(MetricsInputError, match=r"column 'lrap_mean' \(option 'model_col'\)"):
        pl_metrics.compare(folds.rename({"model": "lrap_mean"}), "lrap", model_col="lrap_mean")
    # A key named like a working column elsewhere is fine here.
    ci = pl_metrics.bootstrap(two.rename({"model": "area"}), "lrap", by="area", n_resamples=5)
    assert ci["area"].to_list() == ["a1", "b1"]


def test_compare_names_its_own_column_options(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"column 'folds' \(option 'fold_col'\)"):
        pl_metrics.compare(good, "lrap", fold_col="folds")
    with pytest.raises(MetricsInputError, match=r"column 'modl' \(option 'model_col'\)"):
        pl_metrics.compare(good.with_columns(fold=pl.lit(0)), "lrap", model_col="modl")


def test_options_that_contradict_each_other_are_refused(good: pl.DataFrame) -> None:
    preds = good.with_columns(pred=pl.col("score") > 0.5)
    # A threshold beside predictions already made would apply to nothing.
    for run in (
        lambda: pl_metrics.f1(preds, pred_col="pred", threshold=0.3),
        lambda: pl_metrics.report(preds, ["f1", "lrap"], pred_col="pred", threshold=0.3),
        lambda: pl_metrics.f1(
            preds, pred_col="pred", threshold=pl.DataFrame({"class": [0], "threshold": [0.2]})
        ),
    ):
        with pytest.raises(MetricsInputError, match=r"option 'threshold'.*column 'pred'"):
            run()
    # Per-class values are average=None's; another average asked for beside them is refused.
    for average in ("samples", "micro", "weighted"):
        with pytest.raises(MetricsInputError, match=rf"option 'per_class'.*average='{average}'"):
            pl_metrics.report(good, ["f1", "precision"], per_class=True, average=average)
    by_class = pl_metrics.report(good, ["f1", "precision"], per_class=True)
    assert by_class.equals(pl_metrics.report(good, ["f1", "precision"], average=None))
    assert by_class.equals(
        pl_metrics.report(good, ["f1", "precision"], per_class=True, average=None)
    )


def test_counts_are_of_ids_and_read_in_the_singular(good: pl.DataFrame) -> None:
    one_class = pl.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b"],
            "id": [1, 2, 3, 4, 5],
            "class": ["x"] * 5,
            "score": [0.1, 0.9, 0.8, 0.2, 0.3],
            "truth": [False, True, True, True, False],
        }
    )
    for metric in ("coverage_error", "label_ranking_loss", "ndcg"):
        with pytest.raises(
            MetricsInputError,
            match=rf"^column 'class': 5 ids have a single class \(in 2 groups: model='a'; "
            rf"model='b'\); {metric} needs at least two classes per id",
        ):
            pl_metrics.report(one_class, metric, by="model")
        with pytest.raises(MetricsInputError, match=r"^column 'class': 1 id has a single class;"):
            pl_metrics.report(one_class.head(1), metric)
    with pytest.raises(
        MetricsInputError,
        match=r"^column 'score': 1 row is NaN or infinite; drop or replace it first; "
        r"e\.g\. id=0, class=3: score=nan$",
    ):
        pl_metrics.lrap(with_value(good, "score", float("nan"), [3]))


def test_a_misspelled_method_suggests_close_ones(good: pl.DataFrame) -> None:
    for frame in (good, good.lazy()):
        with pytest.raises(
            AttributeError, match=r"no method 'lrapp'; did you mean 'lrap' or 'lwlrap'\? \(methods"
        ):
            frame.metrics.lrapp()  # type: ignore[attr-defined]
        with pytest.raises(AttributeError, match=r"no method 'nothing_like' \(methods: lwlrap"):
            frame.metrics.nothing_like()  # type: ignore[attr-defined]
    # Without underscores, or with scikit-learn's "score" (not a name of its own).
    with pytest.raises(
        MetricsInputError, match=r"^unknown metric 'F1_score'; scikit-learn's f1_score is 'f1'"
    ):
        pl_metrics.report(good, "F1_score")  # (not "F-beta with beta=1")
    for name, ours in (("f1score", "f1"), ("rocauc", "roc_auc"), ("LRAP_score", "lrap")):
        with pytest.raises(
            MetricsInputError, match=rf"^unknown metric '{name}'; did you mean '{ours}'\?"
        ):
            pl_metrics.report(good, name)


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"id_col": None}, r"option 'id_col': expected a column name \(a string\), got None"),
        ({"class_col": ["class"]}, r"option 'class_col': expected a column name"),
        ({"weight_col": 1}, r"option 'weight_col': expected a column name .* got 1"),
        ({"score_col": None}, r"option 'score_col': lrap needs a score column"),
        ({"by": 3}, r"option 'by': expected column names, got 3"),
        ({"by": pl.col("model")}, r"option 'by': expected column names"),
    ],
)
def test_column_options_must_be_names(good: pl.DataFrame, options: dict, pattern: str) -> None:  # type: ignore[type-arg]
    for frame in (good, good.lazy()):
        with pytest.raises(MetricsInputError, match=pattern):
            pl_metrics.lrap(frame, **options)


def test_compare_needs_a_fold_column(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"option 'fold_col': compare averages"):
        pl_metrics.compare(good, "lrap", fold_col=None)  # type: ignore[arg-type]


def test_numpy_integers_are_integers(good: pl.DataFrame) -> None:
    # Options often come from loops over numpy arrays.
    assert pl_metrics.ndcg(good, k=np.int64(2)).equals(pl_metrics.ndcg(good, k=2))
    assert pl_metrics.expected_calibration_error(good, n_bins=np.int32(4)).equals(
        pl_metrics.expected_calibration_error(good, n_bins=4)
    )
    assert pl_metrics.fbeta(good, beta=np.float32(2.0)).equals(pl_metrics.fbeta(good, beta=2.0))
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    assert pl_metrics.bootstrap(
        two, "lrap", by="model", n_resamples=np.int64(5), seed=np.uint8(1)
    ).equals(pl_metrics.bootstrap(two, "lrap", by="model", n_resamples=5, seed=1))
    with pytest.raises(MetricsInputError, match="option 'k': expected a positive integer"):
        pl_metrics.ndcg(good, k=np.float64(2.0))  # type: ignore[arg-type]
    assert pl_metrics.f1(good, zero_division=np.int64(1)).equals(
        pl_metrics.f1(good, zero_division=1)
    )
    assert pl_metrics.bootstrap(
        two, "lrap", by="model", n_resamples=5, confidence=np.float32(0.5)
    ).equals(pl_metrics.bootstrap(two, "lrap", by="model", n_resamples=5, confidence=0.5))
    with pytest.raises(MetricsInputError, match=r"option 'model_col': expected a column name"):
        pl_metrics.compare(two, "lrap", model_col=["model"])  # type: ignore[arg-type]


def test_by_takes_any_iterable_of_names(good: pl.DataFrame) -> None:
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in ("a", "b")]).with_columns(
        fold=pl.col("id") % 2
    )
    want = pl_metrics.lrap(two, by=["fold", "model"])
    for by in (
        np.array(["fold", "model"]),
        pl.Series(["fold", "model"]),
        {"fold": 1, "model": 2}.keys(),
        {"model", "fold"},  # a set's names are sorted
        ("fold", "model"),
    ):
        assert pl_metrics.lrap(two, by=by).equals(want)  # type: ignore[arg-type]


def test_text_scores_and_truth_get_a_hint(good: pl.DataFrame) -> None:
    # A lazy table is not read at call time: advice only.
    text = good.with_columns(pl.col("score").cast(pl.String))
    with pytest.raises(MetricsInputError, match=r"not String; if it holds numbers as text"):
        pl_metrics.lrap(text.lazy())
    words = good.with_columns(
        pl.when("truth").then(pl.lit("yes")).otherwise(pl.lit("no")).alias("truth")
    )
    with pytest.raises(
        MetricsInputError, match=r"map its values to booleans first, e\.g\. pl\.col\('truth'\) =="
    ):
        pl_metrics.lrap(words.lazy())


def test_text_scores_and_truth_of_a_dataframe_are_counted(good: pl.DataFrame) -> None:
    """A DataFrame's rows are at hand: its text column's values are told, as score()'s
    are, not advice that can be wrong ('== yes' for a column of 'true' and 'false')."""
    flags = good.with_columns(pl.col("truth").cast(pl.String))
    for call in (lambda f: pl_metrics.f1(f, by="model"), lambda f: pl_metrics.score(f, "f1")):
        with pytest.raises(
            MetricsInputError, match=r"its values are true/false \(or 0/1\) held as text"
        ):
            call(flags)
    words = good.with_columns(truth=pl.when("truth").then(pl.lit("yes")).otherwise(pl.lit("no")))
    # Words of its own, no value that reads: mapped, not written nor dropped (every row).
    told = (
        r"its values are '(no|yes)', '(no|yes)', none of them 0/1 nor true/false: map them to "
        r"booleans first, e\.g\. pl\.col\('truth'\) == '(no|yes)' if '(no|yes)' marks a positive$"
    )
    models = pl.concat([words.with_columns(model=pl.lit(m)) for m in "ab"])
    models = models.with_columns(fold=pl.col("id") % 2)
    for call in (
        lambda f: pl_metrics.lwlrap(f, by="model"),
        lambda f: pl_metrics.bootstrap(f, "lrap", by="model", n_resamples=2),
        lambda f: pl_metrics.compare(f, "lrap", fold_col="fold"),
        lambda f: pl_metrics.paired(f, "lrap", "a", "b"),
    ):
        with pytest.raises(MetricsInputError, match=told):
            call(models)
    some = good.with_columns(
        truth=pl.when(pl.col("id") == 0)
        .then(pl.lit("yes"))
        .otherwise(pl.col("truth").cast(pl.String))
    )
    with pytest.raises(
        MetricsInputError,
        match=r"\d+ rows hold values that are not 0/1 nor true/false: 'yes' \(first at id=0, "
        r"class=\S+; write",
    ):
        pl_metrics.lwlrap(some)
    # The first such row is named by its groups too, on every path that reads a DataFrame.
    some = pl.concat([some.with_columns(model=pl.lit(m), fold=pl.col("id") % 2) for m in "ab"])
    for call in (
        lambda f: pl_metrics.lwlrap(f, by="model"),
        lambda f: pl_metrics.compare(f, "lrap"),
        lambda f: pl_metrics.paired(f, "lrap", "a", "b"),
    ):
        with pytest.raises(
            MetricsInputError, match=r"\(first at model='a', (fold=0, )?id=0, class="
        ):
            call(some)
    numbers = good.with_columns(pl.col("score").cast(pl.String)).with_columns(
        score=pl.when(pl.col("id") == 0).then(pl.lit("NA")).otherwise("score")
    )
    with pytest.raises(MetricsInputError, match=r"rows? holds? .*not a number: 'NA'"):
        pl_metrics.roc_auc(numbers)


def test_a_csv_of_a_header_only_is_an_empty_table(tmp_path: Path) -> None:
    # Every column of an empty CSV reads as text: the truth's type was the error told.
    path = tmp_path / "empty.csv"
    path.write_text("id,class,score,truth\n")
    with pytest.raises(MetricsInputError, match=r"^the table is empty") as error:
        pl_metrics.f1(pl.read_csv(path))
    assert error.value.__suppress_context__  # not "during handling of" the type's error


def test_options_the_tuned_metric_does_not_use_are_refused(good: pl.DataFrame) -> None:
    with pytest.raises(MetricsInputError, match=r"'beta' is not used by f1 .*: fbeta"):
        pl_metrics.best_threshold(good, "f1", beta=2.0)
    with pytest.raises(MetricsInputError, match=r"'zero_division' is not used by matthews"):
        pl_metrics.threshold_sweep(good, "matthews_corrcoef", zero_division=1.0)
    fbeta = pl_metrics.best_threshold(good, "fbeta", beta=2.0)
    assert not fbeta.equals(pl_metrics.best_threshold(good, "fbeta"))


def test_one_threshold_for_a_sweep_is_a_number(good: pl.DataFrame) -> None:
    one = pl_metrics.threshold_sweep(good, "f1", 0.5)
    assert_frame_equal(one, pl_metrics.threshold_sweep(good, "f1", [0.5]))
    assert one["value"].to_list() == pl_metrics.f1(good, average=None)["f1"].to_list()


def test_paired_names_a_missing_model_column_and_null_models(good: pl.DataFrame) -> None:
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    with pytest.raises(MetricsInputError, match=r"'mdl' \(option 'model_col'\).*'model'"):
        pl_metrics.paired(two, "f1", "a", "b", model_col="mdl")
    nulls = two.with_columns(model=pl.when(pl.col("id") == 0).then(None).otherwise("model"))
    with pytest.raises(MetricsInputError, match=r"column 'model': 8 rows are null"):
        pl_metrics.paired(nulls, "f1", "a", "b", n_resamples=10)
    with pytest.raises(MetricsInputError, match=r"'model_a': 'a' is not a value of column 'model'"):
        pl_metrics.paired(two.with_columns(model=pl.col("id") % 2), "f1", "a", "b")


def test_paired_takes_the_models_in_the_column_s_type(good: pl.DataFrame) -> None:
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in (1, 2)])
    flipped = pl.when(pl.col("model") == 2).then(1 - pl.col("score")).otherwise("score")
    two = two.with_columns(score=flipped)
    as_int = pl_metrics.paired(two, "f1", 1, 2, n_resamples=20)
    assert_frame_equal(as_int, pl_metrics.paired(two, "f1", "1", "2", n_resamples=20))
    with pytest.raises(MetricsInputError, match=r"no rows of model '1'"):
        pl_metrics.paired(two.with_columns(pl.col("model").cast(pl.String) + "x"), "f1", 1, 2)


def test_list_classes_are_refused_by_type(good: pl.DataFrame) -> None:
    listed = good.with_columns(pl.concat_list("class").alias("class"))
    for metric in ("lrap", "roc_auc", "top_k_accuracy", "weighted_log_loss"):
        with pytest.raises(MetricsInputError, match=r"column 'class': classes must be .*List"):
            pl_metrics.report(listed.lazy(), metric)


def test_internal_column_names_are_refused(good: pl.DataFrame) -> None:
    df = good.rename({"model": "__plm_topk_true_class"})
    with pytest.raises(MetricsInputError, match=r"'__plm_topk_true_class' \(option 'by'\)"):
        pl_metrics.top_k_accuracy(df, by="__plm_topk_true_class")
    # compare's and paired's model column is told by its own option, not as one of by.
    df = good.rename({"model": "__plm_m"}).with_columns(fold=pl.col("id") % 2)
    for call in (
        lambda: pl_metrics.compare(df, "lrap", model_col="__plm_m"),
        lambda: pl_metrics.paired(df, "lrap", "a", "b", model_col="__plm_m"),
    ):
        with pytest.raises(MetricsInputError, match=r"'__plm_m' \(option 'model_col'\)"):
            call()


def test_internal_names_of_every_column_role_are_refused() -> None:
    # (compare's model column is checked apart; the score column was only by resolve's)
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "__plm_s": [0.9, 0.1, 0.2, 0.8]}
    ).with_columns(truth=pl.Series([1, 0, 0, 1]))
    with pytest.raises(MetricsInputError, match=r"'__plm_s' \(option 'score_col'\)"):
        pl_metrics.lrap(df, score_col="__plm_s")


def test_by_is_offered_only_where_it_is_an_option() -> None:
    with pytest.raises(MetricsInputError) as error:
        pl_metrics.from_numpy(np.eye(2), np.eye(2), group_by="g")
    assert "did you mean 'by'" not in str(error.value)


def test_threshold_tables_that_are_empty_or_repeat_a_class(good: pl.DataFrame) -> None:
    empty = pl.DataFrame(schema={"class": pl.Int64, "threshold": pl.Float64})
    with pytest.raises(MetricsInputError, match=r"the threshold table is empty"):
        pl_metrics.f1(good, threshold=empty)
    # Not "classes ... are '0', 'None'": a null class matches no row of the data.
    unnamed = pl.DataFrame({"class": [0, None, 1, 2, 3], "threshold": [0.5] * 5})
    with pytest.raises(MetricsInputError, match=r"^option 'threshold': 1 row has a null class"):
        pl_metrics.f1(good, threshold=unnamed)
    as_text = pl.DataFrame({"class": [0, 1, 2, 3], "threshold": ["0.5", " 0.25", "1", None]})
    with pytest.raises(
        MetricsInputError, match=r"numbers as text: cast them, pl\.col\('threshold'\)"
    ):
        pl_metrics.f1(good, threshold=as_text)
    twice = pl.DataFrame({"class": [0, 0, 1, 1, 2, 3], "threshold": [0.5] * 6})
    with pytest.raises(MetricsInputError, match=r"2 rows of the table repeat a \(class\) key"):
        pl_metrics.f1(good, threshold=twice)
    # A grouped table without its class column repeats its groups' keys: told as lacking it.
    by_group = pl.DataFrame({"g": [0, 0, 1], "threshold": [0.5, 0.3, 0.2]})
    with pytest.raises(MetricsInputError, match=r"table needs the class column 'class'"):
        pl_metrics.f1(good.with_columns(g=pl.col("id") % 2), by="g", threshold=by_group)


def test_ragged_groups_hint_at_a_key_that_varies_within_an_id(good: pl.DataFrame) -> None:
    split = good.with_columns(g=pl.int_range(pl.len()) % 3)
    with pytest.raises(
        MetricsInputError, match=r"or, if 'g' differs between the classes of one id"
    ):
        pl_metrics.lrap(split, by="g")
    with pytest.raises(MetricsInputError, match=r"if one of 'model', 'g' differs"):
        pl_metrics.lrap(split, by=["model", "g"])


def test_one_state_merged_with_itself_is_refused(good: pl.DataFrame) -> None:
    part = pl_metrics.state(good, "lrap")
    with pytest.raises(MetricsInputError, match=r"1 of the states is given twice"):
        part.merge(part)


def test_zero_sum_weights_are_found_however_the_sums_are_cut(good: pl.DataFrame, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """0.1 + 0.2 - 0.1 - 0.2 is 2.8e-17 in one order and 0 in another: both are zero."""
    weights = pl.col("id").replace_strict({0: 0.1, 1: 0.2, 2: -0.1, 3: -0.2, 4: 0.3, 5: -0.3})
    df = good.with_columns(w=weights)
    path = tmp_path / "w.parquet"
    df.write_parquet(path)
    runs = [
        lambda: pl_metrics.coverage_error(df, weight_col="w"),
        lambda: pl_metrics.score(path, "coverage_error", weight_col="w", n_chunks=3),
    ]
    for run in runs:
        with pytest.raises(MetricsInputError, match=r"1 group has weights that sum to zero"):
            run()
    per_id = pl_metrics.accuracy(df, weight_col="w", per_id=True)  # values of their own
    assert per_id.height == 6


def test_paired_refuses_a_model_the_column_cannot_hold(good: pl.DataFrame) -> None:
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in (1, 2)])
    with pytest.raises(MetricsInputError, match=r"'model_a': 1.5 is not a value of column"):
        pl_metrics.paired(two, "f1", 1.5, 2)
    enum = two.with_columns(pl.col("model").cast(pl.String).cast(pl.Enum(["1", "2", "3"])))
    with pytest.raises(MetricsInputError, match=r"'model_b': '4' is not a value"):
        pl_metrics.paired(enum, "f1", "1", "4")


def test_struct_classes_are_classes(good: pl.DataFrame) -> None:
    structs = good.with_columns(pl.struct(pl.col("class")).alias("class"))
    assert pl_metrics.lrap(structs).item() == pl_metrics.lrap(good).item()
    with pytest.raises(MetricsInputError, match=r"option 'thresholds': expected finite"):
        pl_metrics.threshold_sweep(good, "f1", True)  # type: ignore[arg-type]
    # (an empty list is not one of numbers that are not finite)
    with pytest.raises(MetricsInputError, match=r"'thresholds': expected at least one threshold"):
        pl_metrics.threshold_sweep(good, "f1", [])


def test_options_and_column_types_polars_cannot_take_are_named(
    good: pl.DataFrame, tmp_path: Path
) -> None:
    """Values that polars or numpy would fail on deep inside are refused by the option."""
    path = tmp_path / "good.parquet"
    good.write_parquet(path)
    as_objects = pl.Series("id", good["id"].to_list(), dtype=pl.Object)
    cases: list[tuple[Any, str]] = [
        (
            lambda: pl_metrics.lrap(good.with_columns(as_objects)),
            r"^column 'id' \(option 'id_col'\): holds Python objects",
        ),
        (
            lambda: pl_metrics.top_k_accuracy(good.with_columns(pl.struct("class").alias("class"))),
            r"^column 'class': top_k_accuracy breaks ties by the classes' order, which Struct",
        ),
        (
            lambda: pl_metrics.calibration_curve(good, n_bins=10**12),
            r"^option 'n_bins': expected at most 1,000,000",
        ),
        (
            lambda: pl_metrics.score(path, "lrap", progress="yes"),
            r"^option 'progress': unknown value 'yes'",
        ),
        (
            lambda: pl_metrics.score(path, "lrap", n_chunks=2, memory_budget="1GB"),
            r"^options 'memory_budget' and 'n_chunks': give one of them",
        ),
        (
            lambda: pl_metrics.cluster_by_id(path, tmp_path / "out", n_parts=0),
            r"^option 'n_parts': expected a positive",
        ),
        (
            lambda: pl_metrics.cluster_by_id(path, tmp_path / "out", row_group_size=-1),
            r"^option 'row_group_size': expected an integer in \[1, 2\*\*31\), got -1$",
        ),
        (lambda: pl_metrics.scan(None), r"^expected files, folders or globs .* got None$"),  # type: ignore[arg-type]
        (
            lambda: pl_metrics.cluster_by_id(path, None),  # type: ignore[arg-type]
            r"^option 'destination': expected a folder's path, got None$",
        ),
        (
            lambda: pl_metrics.cluster_by_id(path, tmp_path / "o", row_group_size=10**12),
            r"^option 'row_group_size': expected an integer in \[1, 2\*\*31\)",
        ),
        (
            lambda: pl_metrics.paired(good, "lrap", "m", [0.2, "x"]),  # type: ignore[arg-type]
            r"^option 'model_b': \[0\.2, 'x'\] is not a value of column 'model' \(String\)$",
        ),
        # A table or an array as an option's value: named on one line, never polars' error.
        (
            lambda: pl_metrics.f1(good, validate=good),  # type: ignore[arg-type]
            r"^option 'validate': unknown value a DataFrame of shape \(\d+, \d+\); expected one",
        ),
        (
            lambda: pl_metrics.f1(good, average=np.array(["macro", "micro"])),  # type: ignore[arg-type]
            r"^option 'average': unknown value array\(",
        ),
        (
            lambda: pl_metrics.f1(good, class_col=good),  # type: ignore[arg-type]
            r"^option 'class_col': expected a column name \(a string\), got a DataFrame of shape",
        ),
    ]
    for call, message in cases:
        with pytest.raises(MetricsInputError, match=message):
            call()
    with pytest.raises(TypeError, match=r"^merge_states: expected a list of MetricState objects"):
        pl_metrics.merge_states(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^merge_states: expected a list .*, got one state$"):
        pl_metrics.merge_states(pl_metrics.state(good, "f1"))  # type: ignore[arg-type]
    # average=None (per class) is an option too: refused where no metric averages.
    with pytest.raises(pl_metrics.UnknownOptionError, match=r"^option 'average' is not used by"):
        pl_metrics.report(good, ["lrap"], average=None)
    # A k beyond any number of classes takes them all, however large (no 64-bit overflow).
    rng = np.random.default_rng(0)
    one_label = pl_metrics.from_numpy(np.eye(4)[rng.integers(0, 4, 30)], rng.random((30, 4)))
    for metric in ("ndcg", "top_k_accuracy"):
        function = getattr(pl_metrics, metric)
        assert function(one_label, k=10**20).item() == function(one_label, k=4).item()


def test_metrics_joined_by_commas_are_told_to_be_a_list(good: pl.DataFrame) -> None:
    with pytest.raises(
        MetricsInputError,
        match=r"^unknown metric 'lrap,f1'; several metrics are a list: \['lrap', 'f1'\] \(",
    ):
        pl_metrics.report(good, "lrap,f1")


@pytest.mark.parametrize("metric", ["roc_auc", "lrap", "f1", "average_precision"])
def test_nan_keys_are_refused_on_every_path(good: pl.DataFrame, metric: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # NaN is not equal to itself: grouping hashes it as one key while joins and the
    # kernel's runs compare it, so a NaN group scored differently by path (1.0 or NaN).
    bad = good.with_columns(seed=pl.when(pl.col("id") < 3).then(float("nan")).otherwise(1.0))
    n_bad = bad.filter(pl.col("seed").is_nan()).height
    path = tmp_path / "bad.parquet"
    bad.write_parquet(path)
    function = getattr(pl_metrics, metric)
    calls = [
        lambda: function(bad, by="seed"),
        lambda: function(bad.lazy(), by="seed").collect(),
        lambda: function(bad.lazy(), by="seed").collect(engine="streaming"),
        lambda: pl_metrics.score(path, metric, by="seed", progress=False),
        lambda: pl_metrics.score(bad, metric, by="seed", n_chunks=2, progress=False),
        lambda: pl_metrics.bootstrap(bad, metric, by="seed", n_resamples=5),
    ]
    for call in calls:
        with pytest.raises(MetricsInputError, match=rf"^column 'seed': {n_bad} rows are NaN \("):
            call()
    nan_ids = bad.with_columns(id=pl.col("id").cast(pl.Float64)).with_columns(
        id=pl.when(pl.col("id") == 0).then(float("nan")).otherwise(pl.col("id"))
    )
    with pytest.raises(MetricsInputError, match=r"^column 'id': 4 rows are NaN; drop or replace"):
        function(nan_ids)
    folds = bad.with_columns(fold=pl.col("seed"))
    with pytest.raises(MetricsInputError, match=rf"^column 'fold': {n_bad} rows are NaN \("):
        pl_metrics.best_threshold(folds, "f1", fold_col="fold")


def test_nested_fold_columns_are_refused_and_nested_groups_named(good: pl.DataFrame) -> None:
    # A list fold with a null panicked in polars' as-of join; a list or struct `by` with a
    # null panicked while the error message ordered its groups.
    folds = good.with_columns(fold=pl.concat_list(pl.col("id") % 2))
    with pytest.raises(MetricsInputError, match=r"^column 'fold' \(option 'fold_col'\): folds"):
        pl_metrics.best_threshold(folds, "f1", fold_col="fold")
    structs = folds.with_columns(fold=pl.struct(k=pl.col("fold").list.first()))
    for frame in (folds, structs):
        by = frame.with_columns(fold=pl.when(pl.col("id") == 0).then(None).otherwise("fold"))
        with pytest.raises(MetricsInputError, match=r"^column 'fold': 4 rows are null \(in 1 "):
            pl_metrics.f1(by, by="fold")


def test_an_option_of_other_metrics_is_named_as_report_names_it(good: pl.DataFrame) -> None:
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^lrap: option 'threshold' is not one of its options; the metrics that take it: "
        r"confusion, f1, ",
    ):
        pl_metrics.lrap(good, threshold=0.3)  # type: ignore[call-arg]
    # Not "did you mean 'id_col'?": the option is a known one, of other metrics.
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^calibration_curve: option 'weight_col' is not one of its options; it takes no "
        r"sample weights$",
    ):
        pl_metrics.calibration_curve(good, weight_col="id")  # type: ignore[call-arg]
    # A close name of its own options comes first: thresholds= meant threshold=.
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^f1: option 'thresholds' is not one of its options; did you mean 'threshold'\? "
        r"\(the metrics that take it: threshold_sweep\)$",
    ):
        pl_metrics.f1(good, thresholds=0.3)  # type: ignore[call-arg]
    # The same mistake in a report or `score()`: the same class of error (a TypeError).
    weighted = good.with_columns(w=pl.lit(1.0))
    for call in (pl_metrics.report, pl_metrics.score):
        with pytest.raises(
            pl_metrics.UnknownOptionError, match=r"^option 'threshold' is not used by lrap; "
        ):
            call(good, ["lrap"], threshold=0.3)
        with pytest.raises(TypeError, match=r"^option 'weight_col' is not used by padded_cmap"):
            call(weighted, ["padded_cmap"], weight_col="w")
        with pytest.raises(TypeError, match=r"^option 'weight_col': padded_cmap takes no weights"):
            call(weighted, ["lrap", "padded_cmap"], weight_col="w")
    # Not any close name: average= is no slip for 'ragged'.
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^lrap: option 'average' is not one of its options; the metrics that take it: f1",
    ):
        pl_metrics.lrap(good, average="macro")  # type: ignore[call-arg]


def test_slips_in_values_and_renamed_columns_get_a_suggestion(good: pl.DataFrame) -> None:
    with pytest.raises(
        MetricsInputError,
        match=r"^option 'average': unknown value 'mcaro'; did you mean 'micro' or 'macro'\? "
        r"\(expected one of None, 'macro',",
    ):
        pl_metrics.f1(good, average="mcaro")  # type: ignore[arg-type]
    # The one column of the right type, when no name is close: truth written as "label".
    renamed = good.drop("w").rename({"truth": "label", "score": "prob"})
    with pytest.raises(MetricsInputError, match=r"; pass truth_col='label' if that column holds"):
        pl_metrics.lrap(renamed, score_col="prob")
    with pytest.raises(MetricsInputError, match=r"; pass score_col='prob' if that column holds"):
        pl_metrics.lrap(renamed, truth_col="label")
    # (Its weights 'w', the other float column, are no scores to offer.)
    with pytest.raises(MetricsInputError, match=r"; pass score_col='prob' if that column holds"):
        pl_metrics.lrap(good.rename({"score": "prob"}), truth_col="truth")
    # Ids and classes, of any type, under the names dumps often give them.
    usual = good.rename({"id": "sample_id", "class": "label"})
    with pytest.raises(MetricsInputError, match=r"; pass id_col='sample_id' if that column holds"):
        pl_metrics.lrap(usual, class_col="label")
    with pytest.raises(MetricsInputError, match=r"; pass class_col='label' if that column holds"):
        pl_metrics.lrap(usual, id_col="sample_id")
    with pytest.raises(MetricsInputError, match=r"^option 'metrics': 'roc_curve' is a table "):
        pl_metrics.compare(good.with_columns(fold=pl.lit(0)), "roc_curve")
    with pytest.raises(MetricsInputError, match=r"^unknown metric 'F1'; did you mean 'f1'\?"):
        pl_metrics.report(good, "F1")
    with pytest.raises(
        MetricsInputError, match=r"^options 'id_col' and 'score_col' both name column 'id'; give"
    ):
        pl_metrics.lrap(good, score_col="id")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("eps", 0.7),
        ("k", 0),
        ("n_bins", -1),
        ("strategy", "foo"),
        ("threshold", "x"),
        ("max_fpr", 2.0),
        ("class_weights", {"a": -1.0}),
    ],
)
def test_an_unused_option_is_refused_as_unused_before_its_value(
    good: pl.DataFrame, option: str, value: object
) -> None:
    # "--eps: expected a number in [0, 0.5)" for lrap, which takes no eps, sent the user to
    # fix a value that nothing would use.
    with pytest.raises(pl_metrics.UnknownOptionError, match=f"option '{option}' is not used by"):
        pl_metrics.report(good, "lrap", **{option: value})
    taker = {"eps": "log_loss", "k": "ndcg", "n_bins": "expected_calibration_error"}
    taker |= {"strategy": "expected_calibration_error", "threshold": "f1", "max_fpr": "roc_auc"}
    taker |= {"class_weights": "weighted_log_loss"}
    with pytest.raises(MetricsInputError, match=f"option '{option}'") as caught:
        pl_metrics.report(good, taker[option], **{option: value})
    assert not isinstance(caught.value, pl_metrics.UnknownOptionError)


def test_per_class_and_per_id_mistakes_point_at_average() -> None:
    """f1(per_class=True) named lwlrap and padded_cmap, not f1's average=None; per_id with
    average=None said f1 'averages over classes'."""
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.1, 0.2, 0.3, 0.4]}
    ).with_columns(truth=pl.Series([True, False, False, True]))
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^f1: option 'per_class' is not one of its options; its per-class values are "
        r"those of average=None$",
    ):
        pl_metrics.f1(df, per_class=True)  # type: ignore[call-arg]
    with pytest.raises(
        MetricsInputError,
        match=r"^option 'per_id': f1 gives values per class with average=None; per-id values",
    ):
        pl_metrics.f1(df, average=None, per_id=True)
    with pytest.raises(pl_metrics.UnknownOptionError, match=r"the metrics that take it: lwlrap"):
        pl_metrics.lrap(df, per_class=True)  # type: ignore[call-arg]


def test_several_missing_columns_are_told_at_once(good: pl.DataFrame) -> None:
    # A dump of other names: each was told in a run of its own, four runs to find them.
    renamed = good.rename({"id": "Id", "class": "Class", "score": "Pred", "truth": "Target"})
    renamed = renamed.drop("model", "w")
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.lrap(renamed)
    assert str(caught.value) == (
        "columns 'id' (option 'id_col'), 'class' (option 'class_col'), 'truth' (option "
        "'truth_col'), 'score' (option 'score_col') are not in the table; its columns are "
        "['Id', 'Class', 'Pred', 'Target']; 'id': did you mean 'Id'? pass id_col='Id'; 'class': "
        "did you mean 'Class'? pass class_col='Class'; 'truth': pass truth_col='Target' if that "
        "column holds it; 'score': pass score_col='Pred' if that column holds it"
    )
    # A wide table (a column of scores per class): told so.
    wide = good.pivot(on="class", index="id", values="score")
    with pytest.raises(MetricsInputError, match=r"; the table looks wide \(a column of scores per"):
        pl_metrics.lrap(wide)
    # predict_proba's frame, no id column: from_numpy numbers its rows.
    proba = wide.drop("id")
    with pytest.raises(MetricsInputError, match=r"\(from_numpy\(y_true, y_score\) of scores wi"):
        pl_metrics.lrap(proba)
    with pytest.raises(MetricsInputError, match=r"; scores without ids \(predict_proba's\) are "):
        pl_metrics.from_wide(proba)
    # Beside its labels (a column a class could be named as): told as wide, no column offered.
    labelled = wide.with_columns(target=pl.lit(1))
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.lrap(labelled)
    assert "; the table looks wide" in str(caught.value)
    assert "pass class_col" not in str(caught.value)
    # Classes named like the class column (Otto's Class_1..Class_9, a "cat"): wide, where
    # the table's score columns were offered as the class column.
    # So are classes named like the score column (the bird 'grecor').
    for names in (
        ["Class_1", "Class_2", "Class_3"],
        ["bird", "frog", "cat"],
        ["grecor", "a", "b"],
        ["store", "online", "phone"],  # (close to 'score', beside nothing but the ids)
    ):
        otto = pl.DataFrame({"id": [1, 2], **{n: [0.5, 0.25] for n in names}})
        with pytest.raises(MetricsInputError) as caught:
            pl_metrics.lrap(otto)
        assert "; the table looks wide" in str(caught.value)
        assert "did you mean" not in str(caught.value)
    # Nor is one whose score column is named much like 'score' (a class column named apart).
    scored = good.rename({"class": "label", "score": "scores"}).with_columns(
        v=pl.lit(1.0), u=pl.lit(2.0)
    )
    with pytest.raises(MetricsInputError, match=r"'score': did you mean 'scores'\?") as caught:
        pl_metrics.lrap(scored)
    assert "looks wide" not in str(caught.value)
    # Nor one that has its truth column (a wide table has none), whatever its floats' names.
    named_apart = good.rename({"class": "species", "score": "pred"}).with_columns(v=pl.lit(1.0))
    with pytest.raises(MetricsInputError, match=r"'class': pass class_col='species'") as caught:
        pl_metrics.lrap(named_apart)
    assert "looks wide" not in str(caught.value)
    # A long table of other names, with float weight columns, is not taken for a wide one.
    weighted = renamed.with_columns(w=pl.lit(1.0), v=pl.lit(2.0))
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.lrap(weighted)
    assert "'class': did you mean 'Class'? pass class_col='Class'" in str(caught.value)
    assert "wide" not in str(caught.value)
    # Each option's close names, whatever the others': a long table with a float weight is
    # no wide one, and one column may be offered to two options.
    cases = {
        "'class': did you mean 'Class'? pass class_col='Class'; 'score': did you mean 'Score'? "
        "pass score_col='Score'": {
            "id": [1, 1], "Class": ["a", "b"], "Score": [0.1, 0.9], "truth": [True, False],
            "weight": [1.0, 1.0],
        },
        "'class': did you mean 'class_name' or 'class_score'?; 'score': did you mean "
        "'class_score'? pass score_col='class_score'": {
            "id": [1, 1], "class_name": ["a", "b"], "class_score": [0.1, 0.9],
            "truth": [True, False],
        },
        # Kaggle's binary layout: "target" was offered as the classes and as the truth.
        "'class': if the table is binary (a truth and a score per id), it needs a class "
        "column of one value: add one (class 1 on every row, say; in polars, "
        "pl.lit(1).alias('class')); 'truth': did you mean 'target'? pass truth_col='target'; "
        "'score': pass score_col='prediction' if that column holds it": {
            "id": [0, 1], "target": [0, 1], "prediction": [0.1, 0.8],
        },
    }  # fmt: skip
    for told, columns in cases.items():
        with pytest.raises(MetricsInputError) as caught:
            pl_metrics.roc_auc(pl.DataFrame(columns))
        assert str(caught.value).endswith(told)
    binary = pl.DataFrame(cases[told])  # (the last case's)
    with pytest.raises(MetricsInputError, match=r"'prediction'\]; if the table is binary"):
        pl_metrics.roc_auc(binary, truth_col="target", score_col="prediction")
    # Of a table of many columns, the first few and their count.
    many = pl.DataFrame({"id": [0], **{f"sp{k:03d}": [0.5] for k in range(182)}})
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.lrap(many)
    assert "its columns are ['id', 'sp000', 'sp001', " in str(caught.value)
    assert "'sp010', ...] (183 columns); the table looks wide" in str(caught.value)


def test_csvs_of_other_separators_or_spaced_names_are_told_so(
    good: pl.DataFrame, tmp_path: Path
) -> None:
    """A CSV of semicolons is one column; one of ', ' holds names ' class': "did you mean
    ' class'?" led to values ' 0.9' held as text."""
    rows = [("id", "class", "score", "truth"), ("1", "a", "0.9", "1"), ("1", "b", "0.1", "0")]
    cases = {
        ";": r"the file looks separated by ';', not commas \(its one column is "
        r"'id;class;score;truth'\): write it with commas$",
        ", ": r"columns ' class', ' score', ' truth' have spaces around the name: a CSV written "
        r"with ', ' between values reads so, its values too",
    }
    # A name with spaces beside another close one: both told; a by typo offers no 'pass by='.
    padded = good.rename({"class": " class", "score": "Score"})
    with pytest.raises(
        MetricsInputError,
        match=r"column ' class' has spaces .*; 'score': did you mean 'Score'\? pass "
        r"score_col='Score'$",
    ):
        pl_metrics.lrap(padded)
    with pytest.raises(MetricsInputError, match=r"did you mean 'model'\?$"):
        pl_metrics.lrap(good, by=["modle"])
    for separator, told in cases.items():
        path = tmp_path / "dump.csv"
        path.write_text("".join(separator.join(row) + "\n" for row in rows))
        with pytest.raises(MetricsInputError, match=told):
            pl_metrics.lrap(pl.read_csv(path))
        with pytest.raises(MetricsInputError, match=told):
            pl_metrics.score(path, "lrap")


@pytest.fixture
def dump() -> pl.DataFrame:
    """Two models of 300 ids and 5 classes, single-label, weights per id: one bad cell hides."""
    rng = np.random.default_rng(3)
    truth = np.eye(5, dtype=bool)[rng.integers(0, 5, 300)]
    frames = [
        long_table(truth, rng.random((300, 5)), weight=rng.random(300) + 0.5, group=model)
        for model in ("a", "b")
    ]
    return pl.concat(frames).rename({"g": "model"})


def _at(model: str, id_: int, cls: int) -> pl.Expr:
    return (pl.col("model") == model) & (pl.col("id") == id_) & (pl.col("class") == cls)


@pytest.mark.parametrize("path", ["eager", "pandas", "lazy", "score"])
@pytest.mark.parametrize(
    ("metric", "spoil", "told"),
    [
        (
            "lrap",
            lambda d: d.with_columns(
                score=pl.when(_at("b", 250, 3)).then(float("nan")).otherwise("score")
            ),
            r"1 row is (NaN or infinite|null) .*; e\.g\. model='b', id=250, "
            r"class=3(: score=nan)?$",  # (pandas' NaN is its null)
        ),
        (
            "f1",
            lambda d: d.with_columns(truth=pl.when(_at("a", 7, 1)).then(None).otherwise("truth")),
            r"1 row is null .*; drop or fill it first; "
            r"e\.g\. model='a', id=7, class=1$",
        ),
        (
            "log_loss",
            lambda d: d.with_columns(
                truth=pl.col("truth").cast(pl.Int8) + _at("b", 9, 0).cast(pl.Int8) * 2
            ),
            r"neither 0 nor 1 .*; e\.g\. model='b', id=9, "
            r"class=0: truth=[23]$",
        ),
        (
            "roc_auc",
            lambda d: pl.concat([d, d.filter(_at("a", 42, 4))]),
            r"e\.g\. model='a', id=42, class=4: 2 rows$",
        ),
        (
            "lwlrap",
            lambda d: d.filter(~(_at("b", 5, 2) | _at("b", 6, 2) | _at("b", 6, 0))),
            r"3 \(id, class\) rows are missing.*; e\.g\. model='b', id=5 lacks class=2; "
            r"model='b', id=6 lacks class=0, 2$",
        ),
        (
            "lrap",
            lambda d: pl.concat([d.filter(~_at("a", 8, 0)), d.filter(_at("a", 9, 1))]),
            r"has ids that repeat a class and ids that lack one.*; e\.g\. model='a', id=9, "
            r"class=1: 2 rows; model='a', id=8 lacks class=0$",
        ),
        (
            # Two rows missing, one repeated: "1 row is missing" (net), and ragged='allow'
            # was then refused for the repeat.
            "lrap",
            lambda d: pl.concat(
                [d.filter(~(_at("a", 8, 0) | _at("a", 9, 2))), d.filter(_at("a", 8, 2))]
            ),
            r"1 \(id, class\) row is missing.*; some ids also repeat a class \(the count is net "
            r"of them\): drop those rows; e\.g\. model='a', id=8, class=2: 2 rows; "
            r"model='a', id=8 lacks class=0; model='a', id=9 lacks class=2$",
        ),
        (
            "lrap",
            lambda d: d.with_columns(w=pl.when(_at("a", 11, 2)).then(9.0).otherwise("w")),
            r"1 id has weights that vary .*; e\.g\. model='a', id=11: weights \d\.\d+ to 9\.0$",
        ),
        (
            "top_k_accuracy",
            lambda d: d.with_columns(truth=pl.col("truth") | _at("b", 12, 0) | _at("b", 12, 1)),
            r"has more than one true class.*; e\.g\. model='b', id=12: "
            r"[23] true classes$",
        ),
        (
            "log_loss",
            lambda d: d.with_columns(truth=pl.col("truth") & ~(pl.col("id") == 13)),
            r"2 ids have no true class.*; e\.g\. model='a', id=13; model='b', id=13$",
        ),
    ],
)
def test_a_failed_check_names_its_first_rows(
    dump: pl.DataFrame, tmp_path: Path, path: str, metric: str, spoil: Any, told: str
) -> None:
    """Counts alone leave a bad cell of a large dump unfound: the rows are named, on every path."""
    bad = spoil(dump)
    weights = {"weight_col": "w"} if metric in ("lrap", "log_loss", "f1") else {}
    bad.write_parquet(tmp_path / "dump.parquet")
    runs = {
        "eager": lambda: pl_metrics.report(bad, metric, by="model", **weights),
        "pandas": lambda: pl_metrics.report(bad.to_pandas(), metric, by="model", **weights),
        "lazy": lambda: pl_metrics.report(bad.lazy(), metric, by="model", **weights).collect(),
        "score": lambda: pl_metrics.score(tmp_path / "dump.parquet", metric, by="model", **weights),
    }
    with pytest.raises(MetricsInputError, match=told):
        runs[path]()


@pytest.mark.parametrize("lazy", [False, True])
def test_compare_and_bootstrap_name_the_first_rows(dump: pl.DataFrame, lazy: bool) -> None:
    bad = dump.with_columns(
        fold=pl.col("id") % 2, score=pl.when(_at("b", 250, 3)).then(None).otherwise("score")
    )
    frame = bad.lazy() if lazy else bad
    told = r"1 row is null .*; e\.g\. model='b', fold=0, id=250, class=3$"
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.compare(frame, "lrap", fold_col="fold").lazy().collect()
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.bootstrap(frame, "lrap", by=["model", "fold"], n_resamples=5).lazy().collect()


def test_a_missing_column_is_offered_no_column_another_option_names(good: pl.DataFrame) -> None:
    """``class_col="species"`` is close to "score", which is the scores: offer "class"."""
    for typo in ("species", "scores"):
        with pytest.raises(MetricsInputError, match=r"; pass class_col='class' if that column"):
            pl_metrics.lrap(good, class_col=typo)
    with pytest.raises(MetricsInputError, match=r"'idx': did you mean 'id'\? pass id_col='id'"):
        pl_metrics.lrap(good, class_col="species", id_col="idx")


def test_scikit_learn_options_are_told_what_they_are_here(good: pl.DataFrame) -> None:
    # (report's is not "did you mean 'class_weights'?", which are per class)
    for call in (
        lambda: pl_metrics.f1(good, sample_weight="w"),
        lambda: pl_metrics.report(good, "f1", sample_weight="w"),
        lambda: pl_metrics.score(good, "f1", sample_weight="w"),
        lambda: pl_metrics.compare(good, "f1", sample_weight="w"),
    ):
        with pytest.raises(MetricsInputError, match=r"'sample_weight'; weights are a column"):
            call()
    with pytest.raises(MetricsInputError, match=r"'sample_weight'; it takes no sample weights$"):
        pl_metrics.weighted_log_loss(good, sample_weight="w")
    told = r"from_numpy: unknown option 'labels'; did you mean 'class_names'\?"
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.from_numpy(np.eye(2), np.eye(2), labels=["a", "b"])
    # top_k_accuracy_score's and log_loss's labels= name y_score's columns: filtering to
    # them, as the hint said alone, changes the number (top-k 0.75 becomes 1.0).
    told = r"'labels'; every class of the table is scored .* to score some classes only, filter"
    for call in (
        lambda: pl_metrics.lrap(good, labels=[1, 2]),
        lambda: pl_metrics.top_k_accuracy(good, labels=[1, 2]),
        lambda: pl_metrics.report(good, "log_loss", labels=[1, 2]),
        lambda: pl_metrics.score(good, "roc_auc", labels=[1, 2]),
    ):
        with pytest.raises(MetricsInputError, match=told):
            call()
    # A binary problem's options: scikit-learn's binary average, its positive label, and
    # ROC AUC's one-vs-one (none of which were told).
    with pytest.raises(MetricsInputError, match=r"'binary'; a binary problem is one class here"):
        pl_metrics.f1(good, average="binary")  # type: ignore[arg-type]
    with pytest.raises(MetricsInputError, match=r"'pos_label'; a binary problem is one class"):
        pl_metrics.f1(good, pos_label=1)
    with pytest.raises(MetricsInputError, match=r"'multi_class'; roc_auc is one-vs-rest"):
        pl_metrics.roc_auc(good, multi_class="ovo")


def test_examples_name_each_id_once_after_the_advice(dump: pl.DataFrame) -> None:
    """Weights are per id, repeats are told per id; the advice comes before the examples."""
    infinite = dump.with_columns(w=pl.when(pl.col("id") == 5).then(float("inf")).otherwise("w"))
    with pytest.raises(MetricsInputError, match=r"e\.g\. model='a', id=5: w=inf; model='b', "):
        pl_metrics.lrap(infinite, by="model", weight_col="w")
    twice = pl.concat([dump, dump.filter(pl.col("id") < 9)])
    told = r"e\.g\. model='a', id=0, class=0: 2 rows; model='a', id=1, class=0: 2 rows; "
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.lrap(twice, by="model")
    seeds = pl.concat([dump.with_columns(seed=pl.lit(s)) for s in range(2)])
    advice_first = r"pass by=\['model', 'seed'\] if each \(model, seed\) holds .*; e\.g\. model="
    with pytest.raises(MetricsInputError, match=advice_first):
        pl_metrics.bootstrap(seeds, "lrap", by="model", n_resamples=5)
    # A NaN key is in the key already; rows alike in text are told once.
    nan_class = dump.with_columns(
        pl.when(pl.col("id") == 4).then(float("nan")).otherwise(pl.col("class")).alias("class")
    )
    with pytest.raises(MetricsInputError, match=r"e\.g\. model='a', id=4, class=nan; model='b'"):
        pl_metrics.lrap(nan_class, by="model")


def test_score_reads_on_until_more_rows_than_named_are_found(
    dump: pl.DataFrame, tmp_path: Path
) -> None:
    """Bad rows one in each chunk: the examples are read from as many chunks as it takes to
    tell that there are more than are named (the '...')."""
    one = dump.filter(pl.col("model") == "a").drop("model")
    bad_ids = [10, 100, 180, 260]
    nan = one.with_columns(
        score=pl.when(pl.col("id").is_in(bad_ids) & (pl.col("class") == 0))
        .then(float("nan"))
        .otherwise("score")
    )
    nan.sort("id").write_parquet(tmp_path / "nan.parquet", row_group_size=200)
    with pytest.raises(MetricsInputError, match=r"4 rows are NaN or infinite") as told:
        pl_metrics.score(tmp_path / "nan.parquet", "lrap", n_chunks=4)
    examples = str(told.value).split("; e.g. ")[1]
    assert examples.endswith("; ...")
    named = examples.removesuffix("; ...").split("; ")
    assert named == [f"id={i}, class=0: score=nan" for i in bad_ids[:3]]  # (as read)


def test_rows_missing_alone_are_not_told_as_repeats(dump: pl.DataFrame) -> None:
    """The note of repeats netted out of the count is for dumps that repeat a class only."""
    ragged = dump.filter(~(_at("a", 8, 0) | _at("b", 9, 2)))
    with pytest.raises(MetricsInputError, match=r"2 \(id, class\) rows are missing") as missing:
        pl_metrics.lrap(ragged, by="model")
    told = str(missing.value)
    assert "repeat" not in told
    assert told.endswith("e.g. model='a', id=8 lacks class=0; model='b', id=9 lacks class=2")


@pytest.mark.parametrize("n_chunks", [1, 4])
def test_score_names_the_first_rows_chunk_by_chunk(
    dump: pl.DataFrame, tmp_path: Path, n_chunks: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read again in the chunks of the failed call (its memory budget), without groups too."""
    import pl_metrics._examples as examples

    parts_read = []
    found = examples._found

    def counted(find: Any, search: Any, parts: Any) -> list[str]:
        parts_read.append(len(parts()))
        return found(find, search, parts)

    monkeypatch.setattr(examples, "_found", counted)
    one = dump.filter(pl.col("model") == "a").drop("model")
    ragged = one.filter(~((pl.col("id") == 299) & (pl.col("class") == 4)))
    ragged.sort("id").write_parquet(tmp_path / "ragged.parquet", row_group_size=200)
    with pytest.raises(MetricsInputError, match=r"; e\.g\. id=299 lacks class=4$"):
        pl_metrics.score(tmp_path / "ragged.parquet", "lrap", n_chunks=n_chunks)
    nan = one.with_columns(score=pl.when(pl.col("id") >= 290).then(float("nan")).otherwise("score"))
    nan.sort("id").write_parquet(tmp_path / "nan.parquet", row_group_size=200)
    told = r"e\.g\. id=290, class=0: score=nan; id=290, class=1: score=nan; id=290, class=2: "
    with pytest.raises(MetricsInputError, match=told + r"score=nan; \.\.\.$"):
        pl_metrics.score(tmp_path / "nan.parquet", "lrap", n_chunks=n_chunks)
    assert parts_read == [n_chunks, n_chunks]
    # Nulls in a later chunk only: no chunk without them is told as a CSV's blank line.
    null = one.with_columns(score=pl.when(pl.col("id") == 299).then(None).otherwise("score"))
    null.sort("id").write_parquet(tmp_path / "null.parquet", row_group_size=200)
    told = r"5 rows are null; drop or fill them first; e\.g\. id=299, class=0; id=299, class=1"
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.score(tmp_path / "null.parquet", "lrap", n_chunks=n_chunks)


def test_per_id_beside_per_class_is_told_first(good: pl.DataFrame) -> None:
    # With lrap in the report, it was told that lrap has no per-class values; without it,
    # that the two do not go together: the same mistake, told twice over.
    for metrics in (["lwlrap", "lrap"], ["lrap"], ["lwlrap"]):
        with pytest.raises(
            MetricsInputError, match=r"^option 'per_id': values per id and per class: choose one$"
        ):
            pl_metrics.report(good, metrics, per_id=True, per_class=True)


def test_a_missing_column_is_not_offered_another_roles_column() -> None:
    """A boolean 'pred' was offered as the truth (truth dropped by scan(), say): taken, it
    scores the predictions against themselves; a weight was offered as the scores."""
    preds = pl.DataFrame({"id": [0, 0], "class": ["a", "b"], "score": [0.1, 0.9], "pred": [0, 1]})
    preds = preds.with_columns(pl.col("pred").cast(pl.Boolean))
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.f1(preds)
    assert "pass truth_col" not in str(caught.value)
    sklearn_named = preds.rename({"score": "y_score", "pred": "y_pred"})
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.f1(sklearn_named, truth_col="y_true", score_col="y_score")
    assert "did you mean" not in str(caught.value)
    assert "pass truth_col" not in str(caught.value)
    weighted = pl.DataFrame(
        {
            "id": [0, 0],
            "class": ["a", "b"],
            "p": [0.1, 0.9],
            "truth": [False, True],
            "weight": [1.0, 2.0],
        }
    )
    with pytest.raises(MetricsInputError) as caught:
        pl_metrics.lrap(weighted)
    assert str(caught.value).endswith("; pass score_col='p' if that column holds it")
    for weight in ("weight", "sample_weights"):
        with pytest.raises(MetricsInputError) as caught:
            pl_metrics.lrap(weighted.drop("p").rename({"weight": weight}))
        assert "pass score_col" not in str(caught.value)


def test_a_binary_table_given_its_truth_column_is_told_it_needs_a_class() -> None:
    """truth_col given, no column left to offer as the classes: the binary table's advice,
    not nothing."""
    binary = pl.DataFrame({"id": [0, 1], "target": [0, 1], "prediction": [0.1, 0.8]})
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.roc_auc(binary, truth_col="target")
    assert str(caught.value).endswith(
        "'class': if the table is binary (a truth and a score per id), it needs a class "
        "column of one value: add one (class 1 on every row, say; in polars, "
        "pl.lit(1).alias('class')); 'score': pass score_col='prediction' if that column holds it"
    )


def test_sample_weight_is_told_of_from_numpys_weight_column() -> None:
    """from_numpy makes the weight column scikit-learn's sample_weight= is: say so."""
    good = pl.DataFrame({"id": [0, 0], "class": [0, 1], "score": [0.2, 0.8], "truth": [0, 1]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"pl_metrics\.from_numpy\(\.\.\., sample_weight=w\) makes it, then pass "
        r"weight_col='weight'",
    ):
        pl_metrics.f1(good, sample_weight=[1.0])


@pytest.mark.parametrize(
    "metrics", [["roc_auc"], ["average_precision", "coverage_error"], ["brier_score"]]
)
def test_score_names_the_metrics_undefined_for_weights_all_zero_as_report_does(
    metrics: list[str], tmp_path: Path
) -> None:
    """Cut by class, score() checks the weights in its id chunks: the metrics named are the
    call's, not those of the state that counts the checks."""
    rng = np.random.default_rng(3)
    ids = np.repeat(np.arange(24), 4)
    df = pl.DataFrame(
        {
            "id": ids,
            "class": np.tile(np.arange(4), 24),
            "score": rng.random(96),
            "truth": rng.random(96) < 0.5,
            "g": ids % 2,
            "w": np.where(ids % 2 == 0, 0.0, 1.0 + ids % 3),
        }
    )
    path = tmp_path / "w.parquet"
    df.write_parquet(path)
    with pytest.raises(MetricsInputError) as whole:
        pl_metrics.report(df, metrics, by="g", weight_col="w")
    assert f"{', '.join(metrics)} {'is' if len(metrics) == 1 else 'are'} undefined" in str(
        whole.value
    )
    with pytest.raises(MetricsInputError) as chunked:
        pl_metrics.score(path, metrics, by="g", weight_col="w", n_chunks=4)
    assert str(chunked.value) == str(whole.value)


def test_threshold_tables_of_nan_or_infinite_thresholds_are_refused(good: pl.DataFrame) -> None:
    """A NaN threshold would predict nothing, an infinite one nothing or everything."""
    for bad in (float("nan"), float("inf"), -float("inf")):
        table = pl.DataFrame({"class": [0, 1, 2, 3], "threshold": [0.5, bad, 0.5, bad]})
        with pytest.raises(
            MetricsInputError, match=r"^option 'threshold': 2 thresholds of the table are null, "
        ):
            pl_metrics.f1(good, threshold=table)


def test_a_fold_column_among_by_is_named_as_such(good: pl.DataFrame) -> None:
    df = good.with_columns(fold=pl.col("id") % 2)
    with pytest.raises(MetricsInputError, match=r"^option 'fold_col': 'fold' is also in 'by'$"):
        pl_metrics.best_threshold(df, by=["model", "fold"], fold_col="fold")


def test_integer_options_take_their_largest_value(good: pl.DataFrame) -> None:
    """A bound of an integer option is in its range: the largest seed is taken, one more not."""
    largest = pl_metrics.bootstrap(good, "lrap", n_resamples=2, seed=2**63 - 1)
    assert largest.equals(pl_metrics.bootstrap(good, "lrap", n_resamples=2, seed=2**63 - 1))
    with pytest.raises(MetricsInputError, match=r"option 'seed': expected an integer in \[0, "):
        pl_metrics.bootstrap(good, "lrap", n_resamples=2, seed=2**63)


def test_eps_is_refused_from_one_half() -> None:
    """eps in [0, 0.5): at 0.5 every probability clips to 0.5 and every loss is log 2."""
    p = np.array([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])
    y = np.array([1, 0, 1])
    df = long_table(np.eye(2, dtype=bool)[y], p)
    eps = 0.4999
    want = -np.log(np.clip(p[np.arange(3), y], eps, 1 - eps)).mean()
    assert pl_metrics.log_loss(df, eps=eps).item() == pytest.approx(want, rel=1e-12)
    with pytest.raises(MetricsInputError, match=r"option 'eps': expected a number in \[0, 0\.5\)"):
        pl_metrics.log_loss(df, eps=0.5)


@pytest.mark.parametrize("confidence", [0, 1, 1.0, np.float64(1.0)])
def test_confidence_is_refused_at_its_bounds(good: pl.DataFrame, confidence: object) -> None:
    """confidence in (0, 1): at 1 the interval would be the resamples' extremes, not a level."""
    with pytest.raises(
        MetricsInputError, match=r"option 'confidence': expected a number in \(0, 1\)"
    ):
        pl_metrics.bootstrap(good, "lrap", n_resamples=2, confidence=confidence)


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), float("nan")])
def test_nonfinite_weights_are_told_as_such(good: pl.DataFrame, value: float) -> None:
    """An infinite weight is no extreme finite one: told as NaN's are, by their rows."""
    ids = good["id"].unique().sort().head(2)
    bad = good.with_columns(
        w=pl.when(pl.col("id").is_in(ids.implode())).then(value).otherwise(pl.col("w"))
    )
    n = bad.filter(pl.col("id").is_in(ids.implode())).height
    pattern = rf"^column 'w': {n} rows are NaN or infinite; drop or replace them first"
    with pytest.raises(MetricsInputError, match=pattern):
        pl_metrics.roc_auc(bad, weight_col="w")
    with pytest.raises(MetricsInputError, match=pattern):
        pl_metrics.roc_auc(bad.lazy(), weight_col="w").collect()


def test_integer_thresholds_past_2_63_compare_as_numpy_compares_them() -> None:
    """UInt64 scores and an integer threshold in [2**63, 2**64): compared exactly, not as floats."""
    from sklearn.metrics import f1_score

    scores = np.array([2**64 - 1, 2**64 - 2, 2**64 - 1, 2**63, 2**64 - 2], dtype=np.uint64)
    truth = np.array([True, False, True, False, True])
    df = pl.DataFrame(
        {"id": range(5), "class": 0, "score": pl.Series(scores, dtype=pl.UInt64), "truth": truth}
    )
    for threshold in (2**64 - 1, 2**63 + 1):
        want = f1_score(truth, scores >= np.uint64(threshold))
        assert pl_metrics.f1(df, threshold=threshold).item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("roc_auc", {}),
        ("log_loss", {}),
        ("lrap", {"ragged": "allow"}),
        ("lwlrap", {"ragged": "allow"}),
    ],
)
def test_weights_that_vary_within_an_id_are_counted_on_every_path(
    good: pl.DataFrame, metric: str, options: dict[str, Any], tmp_path: Path
) -> None:
    """Weights are per id: ids whose rows disagree are refused, counted, on every path (ragged
    input allowed too, which the per-id aggregation scores)."""
    df = good.with_columns(truth=pl.col("class") == pl.col("id") % 4)  # one true class per id
    bad = df.with_columns(
        w=pl.when((pl.col("id") < 2) & (pl.col("class") == 1)).then(9.0).otherwise(pl.col("w"))
    )
    n = bad.group_by("id").agg(pl.col("w").n_unique() > 1)["w"].sum()
    assert n == 2
    path = tmp_path / "bad.parquet"
    bad.write_parquet(path)
    pattern = rf"^column 'w': {n} ids have weights that vary between rows; weights are per id"
    for call in (
        lambda: pl_metrics.report(bad, metric, weight_col="w", **options),
        lambda: pl_metrics.report(bad.lazy(), metric, weight_col="w", **options).collect(),
        lambda: pl_metrics.score(path, metric, weight_col="w", **options),
    ):
        with pytest.raises(MetricsInputError, match=pattern):
            call()


@pytest.mark.parametrize("option", ["id_col", "labels_col"])
@pytest.mark.parametrize("value", [["id"], ("id",), 0])
def test_one_column_options_refuse_what_is_no_name(option: str, value: object) -> None:
    """A list (or a tuple, or a number) for a one-column option is named, not a later failure."""
    wide = pl.DataFrame({"id": [0, 1], "a": [0.1, 0.9], "b": [0.9, 0.1]})
    truth = pl.DataFrame({"id": [0, 1], "labels": ["a", "b"]})
    pattern = rf"^option '{option}': expected a column name, got {re.escape(repr(value))}$"
    with pytest.raises(MetricsInputError, match=pattern):
        pl_metrics.from_wide(wide, truth, **{option: value})


@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt8, pl.Int32])
def test_integer_scores_are_taken_as_scikit_learn_takes_them(dtype: pl.DataType) -> None:
    """Votes or ranks as scores: numbers, scored as scikit-learn scores them (ties too)."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    truth = np.zeros((12, 3), dtype=bool)
    truth[np.arange(12), np.arange(12) % 3] = True
    scores = rng.integers(0, 5, (12, 3))
    df = long_table(truth, scores.astype(float)).with_columns(pl.col("score").cast(dtype))
    want = roc_auc_score(truth, scores, average="macro")
    assert pl_metrics.roc_auc(df).item() == pytest.approx(want, rel=1e-12)
    assert pl_metrics.roc_auc(df.lazy()).collect().item() == pytest.approx(want, rel=1e-12)


def test_a_threshold_table_keyed_by_minus_zero_matches_class_zero() -> None:
    """-0.0 == 0.0: a float class key of the threshold table matches the rows' as numbers do."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    truth = rng.random((10, 2)) < 0.5
    truth[0] = truth[1] = [True, False]
    scores = rng.random((10, 2))
    df = long_table(truth, scores).with_columns(pl.col("class").cast(pl.Float64))
    table = pl.DataFrame({"class": [-0.0, 1.0], "threshold": [0.3, 0.6]})
    pred = scores >= np.array([0.3, 0.6])
    want = f1_score(truth, pred, average="macro", zero_division=0)
    assert pl_metrics.f1(df, threshold=table).item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("index", ["Unnamed: 0", "__index_level_0__"])
def test_a_pandas_row_index_is_no_group_to_offer_for_duplicates(
    good: pl.DataFrame, index: str
) -> None:
    """A row number (pandas' index, written to a CSV and read back) groups nothing."""
    two = pl.concat([good.with_columns(model=pl.lit(m)) for m in "ab"]).with_row_index(index)
    with pytest.raises(MetricsInputError) as error:
        pl_metrics.lrap(two)
    assert "the table has column model: pass by=['model'] if each model holds" in str(error.value)
    assert index not in str(error.value)


def test_an_id_lacking_many_classes_names_the_smallest_then_dots() -> None:
    """The classes an id lacks are named in order, the first few, then '...'."""
    ids, classes = np.repeat(np.arange(4), 8), np.tile(np.arange(8), 4)
    df = pl.DataFrame(
        {"id": ids, "class": classes, "score": np.linspace(0, 1, 32), "truth": classes == ids}
    )
    lacked = [6, 1, 4, 3, 7]
    ragged = df.filter(~((pl.col("id") == 2) & pl.col("class").is_in(lacked)))
    shown = ", ".join(str(c) for c in sorted(lacked)[:3])
    for table in (ragged, ragged.sort("class", descending=True)):
        with pytest.raises(MetricsInputError, match=r"5 \(id, class\) rows are missing") as told:
            pl_metrics.lrap(table)
        assert str(told.value).endswith(f"e.g. id=2 lacks class={shown}, ...")


@pytest.mark.parametrize("n_models", [3, 4])
def test_a_problem_in_several_groups_names_three_then_says_e_g(n_models: int) -> None:
    """Up to three groups are all named; of more, the first three, "e.g."."""
    ids, classes = np.repeat(np.arange(5), 2), np.tile(np.arange(2), 5)
    one = pl.DataFrame({"id": ids, "class": classes, "score": 0.5, "truth": classes == ids % 2})
    models = pl.concat([one.with_columns(model=pl.lit(f"m{m}")) for m in range(n_models)])
    bad = models.with_columns(score=pl.when(pl.col("id") == 3).then(None).otherwise("score"))
    named = "; ".join(f"model='m{m}'" for m in range(3))
    e_g = ", e.g." if n_models > 3 else ""
    with pytest.raises(MetricsInputError) as told:
        pl_metrics.lrap(bad, by="model")
    assert f"{2 * n_models} rows are null (in {n_models} groups{e_g}: {named})" in str(told.value)


@pytest.mark.parametrize("path", ["eager", "lazy", "score"])
def test_weights_summing_near_but_not_to_zero_are_scored_as_scikit_learn(path: str) -> None:
    """Weights whose sum is small beside their magnitudes (0.001 of 2.999) do not sum to
    zero: only rounding (1e-12 of the magnitudes) is taken for a zero sum, and
    scikit-learn's ``np.average`` over them gives a number."""
    from sklearn.metrics import coverage_error, label_ranking_loss

    rng = np.random.default_rng(5)
    truth = rng.random((4, 3)) < 0.5
    truth[:, 0] = True
    scores = rng.random((4, 3))
    weights = np.array([1.0, -0.999, 0.5, -0.5])
    df = long_table(truth, scores, weight=weights, rng=rng)
    metrics = ["coverage_error", "label_ranking_loss"]
    run = {
        "eager": lambda: pl_metrics.report(df, metrics, weight_col="w"),
        "lazy": lambda: pl_metrics.report(df.lazy(), metrics, weight_col="w").collect(),
        "score": lambda: pl_metrics.score(df.lazy(), metrics, weight_col="w", n_chunks=2),
    }[path]
    got = run()
    want = [
        coverage_error(truth, scores, sample_weight=weights),
        label_ranking_loss(truth, scores, sample_weight=weights),
    ]
    assert [got[m].item() for m in metrics] == pytest.approx(want, rel=1e-9)


def test_class_sets_broken_in_every_fold_are_one_group_of_the_result() -> None:
    """Tuned out of fold, a problem of groups counts the result's groups, not its folds: two
    folds of one group, each with an id repeating a class and lacking another, are 1 group,
    as without the fold column."""
    rng = np.random.default_rng(0)
    df = long_table(rng.random((8, 3)) < 0.5, rng.random((8, 3))).with_columns(
        fold=pl.col("id") % 2
    )
    swapped = df.with_columns(  # ids 0 (fold 0) and 1 (fold 1) repeat class 1, lack class 2
        pl.when(pl.col("id").is_in([0, 1]) & (pl.col("class") == 2))
        .then(1)
        .otherwise(pl.col("class"))
        .alias("class")
    )
    told = r"^column 'class': 1 group has ids that repeat a class and ids that lack one "
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.best_threshold(swapped, "f1")
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.best_threshold(swapped, "f1", fold_col="fold")


def test_a_repeat_in_one_fold_is_told_beside_missing_rows_in_another() -> None:
    """Tuned out of fold, each fold's count of repeated rows is its own: rows missing in
    another fold do not cancel it out in the result group's count (whole, the group both
    repeats and lacks rows)."""
    rng = np.random.default_rng(0)
    df = long_table(rng.random((8, 3)) < 0.5, rng.random((8, 3))).with_columns(
        fold=pl.col("id") % 2
    )
    bad = pl.concat(
        [
            df.filter(~((pl.col("id") == 5) & (pl.col("class") < 2))),  # fold 1: 2 missing
            df.filter((pl.col("id") == 0) & (pl.col("class") == 1)),  # fold 0: 1 repeated
        ]
    )
    with pytest.raises(MetricsInputError, match=r"^column 'class': 1 row repeats a \("):
        pl_metrics.best_threshold(bad, "f1", fold_col="fold")


@pytest.mark.parametrize(
    "metric",
    ["padded_cmap", "expected_calibration_error", "calibration_curve", "weighted_log_loss"],
)
def test_misspelled_weight_col_of_a_metric_without_weights_is_not_called_truth_col(
    good: pl.DataFrame, metric: str
) -> None:
    # weigth_col= on a metric that takes no weights suggested 'truth_col' (its closest
    # option), sending the user to the wrong column; report() suggested 'weight_col'.
    told = f"{metric}: unknown option 'weigth_col'; did you mean 'weight_col'? it takes no "
    with pytest.raises(pl_metrics.UnknownOptionError, match=f"^{re.escape(told)}sample weights$"):
        getattr(pl_metrics, metric)(good, weigth_col="w")


def test_a_slip_of_the_metrics_own_option_is_not_sent_to_another_metrics(
    good: pl.DataFrame,
) -> None:
    # (review) threshold_sweep takes thresholds=; 'thresold' (one letter off its own option)
    # was "did you mean 'thresholds'?", and is now "did you mean 'threshold'? the metrics
    # that take it: ..." - an option threshold_sweep refuses.
    with pytest.raises(pl_metrics.UnknownOptionError, match=r"did you mean 'thresholds'\?"):
        pl_metrics.threshold_sweep(good, thresold=[0.5])  # type: ignore[call-arg]


def test_a_slip_of_an_argument_is_not_told_as_an_option_the_metric_lacks(
    good: pl.DataFrame,
) -> None:
    # (review) best_threshold's own 'metric' argument: 'metrics=' was "did you mean
    # 'metric'?"; now "... the metrics that take it: threshold_sweep, best_threshold",
    # as if best_threshold took no metric.
    with pytest.raises(pl_metrics.UnknownOptionError) as info:
        pl_metrics.best_threshold(good, metrics="f1")  # type: ignore[call-arg]
    assert "did you mean 'metric'?" in str(info.value)
    assert "the metrics that take it" not in str(info.value), str(info.value)


def test_a_slip_of_other_metrics_option_is_told_with_its_metrics(good: pl.DataFrame) -> None:
    # (Imported here, as the other tests of the registry's options.)
    from pl_metrics._registry import METRICS

    # thresh= is 0.8 alike to threshold= (difflib's ratio: 2 * 6 / 15), the cutoff of a slip:
    # named, with every metric whose options hold 'threshold'.
    takers = ", ".join(m for m, entry in METRICS.items() if "threshold" in entry.options)
    told = "lrap: unknown option 'thresh'; did you mean 'threshold'? the metrics that take it: "
    with pytest.raises(pl_metrics.UnknownOptionError, match=f"^{re.escape(told + takers)}$"):
        pl_metrics.lrap(good, thresh=0.5)  # type: ignore[call-arg]
    # A name closer to the metric's own option (threshold, 0.95) than to another metric's
    # (threshold_sweep's thresholds, 0.9) is a slip of its own.
    with pytest.raises(
        pl_metrics.UnknownOptionError,
        match=r"^f1: unknown option 'thresholdz'; did you mean "
        r"'threshold'\?$",
    ):
        pl_metrics.f1(good, thresholdz=0.5)  # type: ignore[call-arg]
    # per_class= of a metric without average=: the metrics that take it, not average=None.
    takers = ", ".join(m for m, entry in METRICS.items() if "per_class" in entry.options)
    told = "lrap: option 'per_class' is not one of its options; the metrics that take it: "
    with pytest.raises(pl_metrics.UnknownOptionError, match=f"^{re.escape(told + takers)}$"):
        pl_metrics.lrap(good, per_class=True)  # type: ignore[call-arg]


def _two_folds() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    good = pl_metrics.from_numpy(rng.random((6, 4)) < 0.5, rng.random((6, 4)))
    good = good.with_columns(model=pl.lit("m"), w=pl.lit(1.0))
    return pl.concat([good.with_columns(fold=pl.lit(k)) for k in range(2)])


@pytest.mark.parametrize("name", ["k_fold", "kfolds", "fold_id", "fold_no", "foldnumber", "Fold"])
def test_a_float_fold_is_a_key_by_any_of_its_names(name: str) -> None:
    # (kills: _FOLD without (k_?)?, without its suffixes, or without re.IGNORECASE)
    two = _two_folds().with_columns(pl.col("fold").cast(pl.Float64)).rename({"fold": name})
    told = re.escape(f"has columns model, {name}: pass by=['model', '{name}']")
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.report(two, "lrap")


@pytest.mark.parametrize("name", ["^g$", "*"])
def test_column_names_polars_reads_as_patterns_are_refused(
    good: pl.DataFrame, tmp_path: Path, name: str
) -> None:
    # pl.col reads '^...$' as a regular expression and '*' as every column: such a column
    # crashed every metric with polars' internal errors (out-of-bounds gathers, KeyError).
    message = rf"^column '{re.escape(name)}' \(option '(by|score_col)'\): polars reads a name"
    grouped = good.with_columns(pl.lit("a").alias(name))
    for metric in (pl_metrics.lrap, pl_metrics.f1, pl_metrics.roc_auc):
        with pytest.raises(MetricsInputError, match=message):
            metric(grouped, by=name)
    with pytest.raises(MetricsInputError, match=message):
        pl_metrics.lrap(good.rename({"score": name}), score_col=name)
    path = tmp_path / "grouped.parquet"
    grouped.write_parquet(path)
    with pytest.raises(MetricsInputError, match=message):
        pl_metrics.score(path, "lrap", by=name)
    wide = pl.DataFrame({"id": [1, 2], name: [0.1, 0.8], "b": [0.9, 0.2]})
    with pytest.raises(MetricsInputError, match=rf"^column '{re.escape(name)}': polars reads"):
        pl_metrics.from_wide(wide, wide.with_columns(pl.col("b").round()))


def _two_tasks(*, shared_class: bool = True, disjoint_ids: bool = False) -> pl.DataFrame:
    """Two tasks' predictions of two models in one table, 'other' a class of both tasks."""
    rows = []
    last = "other" if shared_class else "other_b"
    for t, (task, classes) in enumerate([("a", ["x", "other"]), ("b", ["y", "z", last])]):
        for model in ["m1", "m2"]:
            for i in range(6):
                for k, c in enumerate(classes):
                    rows.append(
                        {
                            "task": task,
                            "model": model,
                            "id": i + (100 * t if disjoint_ids else 0),
                            "class": c,
                            "score": round(0.1 * ((i + k) % 7) + (0.03 if model == "m2" else 0), 3),
                            "truth": (i * (t + 1) + k) % 2 == 0,
                            "w": 1.0 if task == "a" else 2.0,
                        }
                    )
    return pl.DataFrame(rows)


def test_paired_tells_a_models_repeated_cells_as_duplicates() -> None:
    # Two tasks sharing a class name, scored without their column: each model repeats
    # (id, 'other'), which paired told as a truth (or weight) differing between models.
    df = _two_tasks()
    for weight_col in (None, "w"):
        with pytest.raises(pl_metrics.MetricsInputError) as error:
            pl_metrics.paired(df, "lrap", "m1", "m2", n_resamples=20, weight_col=weight_col)
        message = str(error.value)
        assert "a different" not in message
        assert "rows repeat a (model, id, class) already present" in message
        assert "pass by=['task']" in message
    # Scored by task, the two models pair.
    got = pl_metrics.paired(df, "lrap", "m1", "m2", by="task", n_resamples=20)
    want = pl_metrics.lrap(df, by=["task", "model"])
    assert got["difference"].to_list() == pytest.approx(
        [
            want.filter(task=t, model="m2")["lrap"].item()
            - want.filter(task=t, model="m1")["lrap"].item()
            for t in ("a", "b")
        ]
    )


@pytest.mark.parametrize("shared_ids", [False, True])
def test_ids_of_two_tasks_are_told_to_be_scored_by_task(shared_ids: bool) -> None:
    # Tasks of their own classes in one table look ragged (or like ids that both repeat a
    # class and lack one); the advice was ragged='allow', which pools the tasks.
    df = _two_tasks(shared_class=shared_ids, disjoint_ids=not shared_ids)
    if shared_ids:  # some ids in both tasks, 'other' repeated there
        df = pl.concat([df.filter(task="a"), df.filter(task="b").with_columns(pl.col("id") + 3)])
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.lrap(df.drop("w"), by="model")
    message = str(error.value)
    assert (
        "if the table's column task tells tasks (or datasets) of their own classes apart, "
        "pass by=['model', 'task'] (each task scored on its own)"
    ) in message
    if not shared_ids:  # ... before ragged='allow'
        assert message.index("by=['model', 'task']") < message.index("ragged='allow'")
    # A fold column holds every class: not offered as tasks.
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.lrap(df.drop("w").rename({"task": "fold"}), by="model")
    assert "tasks (or datasets)" not in str(error.value)


def test_a_key_named_like_a_per_class_column_is_told_so() -> None:
    # lwlrap(by="weight") was told "lwlrap makes a column of this name", which a call
    # without per_class does not: it makes it per class (README: with any of its options).
    df = pl.DataFrame(
        {
            "id": [0, 0, 0, 1, 1, 1],
            "class": [0, 1, 2] * 2,
            "score": [0.1, 0.5, 0.5, 0.9, 0.2, 0.2],
            "truth": [True, False, True, False, False, True],
            "weight": "w1",
        }
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'weight' \(option 'by'\): lwlrap \(per class\) makes a column of this "
        "name; rename the input's column$",
    ):
        pl_metrics.lwlrap(df, by="weight")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'lwlrap' \(option 'by'\): lwlrap makes"
    ):
        pl_metrics.lwlrap(df.rename({"weight": "lwlrap"}), by="lwlrap")


def test_decimal_weights_are_told_which_numbers_are_read() -> None:
    # "weights must be numeric, not Decimal(...)": a Decimal is a number.
    from decimal import Decimal

    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": [0, 1] * 2,
            "score": [0.1, 0.5, 0.9, 0.2],
            "truth": [True, False, False, True],
            "w": pl.Series([Decimal("1.5")] * 4, dtype=pl.Decimal(10, 2)),
        }
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"weights must be numeric \(float or integer\), not Decimal.*; cast them first",
    ):
        pl_metrics.lrap(df, weight_col="w")


@pytest.mark.parametrize("name", ["w", "models", "truths", "rows"])
@pytest.mark.parametrize("role", ["by", "id_col", "class_col"])
def test_paired_takes_keys_named_like_its_checks_counts(name: str, role: str) -> None:
    # Its check of the models' cells counted into columns "models", "truths" and "w"
    # beside the keys: a key so named raised polars' DuplicateError.
    rows = [
        (model, i % 2, i, c, (0.3 + 0.1 * ((i + c) % 3) + offset) % 1, c == i % 2)
        for model, offset in (("a", 0.0), ("b", 0.1))
        for i in range(6)
        for c in range(2)
    ]
    df = pl.DataFrame(rows, schema=["model", "fold", "id", "class", "score", "truth"], orient="row")
    want = pl_metrics.paired(df, "lrap", "a", "b", by="fold", n_resamples=10)
    renamed = {"by": "fold", "id_col": "id", "class_col": "class"}[role]
    options = {"by": name} if role == "by" else {"by": "fold", role: name}
    got = pl_metrics.paired(
        df.rename({renamed: name}).lazy(), "lrap", "a", "b", n_resamples=10, **options
    )
    assert got.collect()["difference"].to_list() == want["difference"].to_list()


def test_padded_cmap_takes_a_key_named_average_precision() -> None:
    # Its values were made as average_precision, then renamed: a key so named was not found.
    df = pl.DataFrame(
        {
            "average_precision": ["x"] * 4 + ["y"] * 4,
            "id": [1, 1, 2, 2] * 2,
            "class": [0, 1] * 4,
            "score": [0.9, 0.1, 0.2, 0.8] * 2,
            "truth": [True, False, False, True, False, True, False, True],
        }
    )
    want = pl_metrics.padded_cmap(df.rename({"average_precision": "g"}), by="g")
    for got in (
        pl_metrics.padded_cmap(df, by="average_precision"),
        pl_metrics.report(df.lazy(), ["padded_cmap"], by="average_precision").collect(),
    ):
        assert got["padded_cmap"].to_list() == want["padded_cmap"].to_list()


def test_the_duplicate_rows_hint_offers_no_column_named_for_the_class() -> None:
    # by=['model', 'class_name'] was offered: grouped by a class's name, every id is split
    # into groups of one class each (lrap 1.0 in each, silently).
    df = pl.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 4,
            "id": [1, 1, 2, 2] * 2,
            "class": [0, 1, 0, 1] * 2,
            "class_name": ["cat", "dog"] * 4,
            "label": ["cat", "dog"] * 4,
            "score": [0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.3, 0.7],
            "truth": [True, False, False, True] * 2,
        }
    )
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.lrap(df.lazy()).collect()
    assert "the table has column model: pass by=['model'] if each model holds" in str(error.value)


def test_paired_tells_other_truths_beside_a_repeated_cell() -> None:
    # A cell one model repeats (told by the metric's duplicate check) switched the truth
    # check off for every cell: with validate=False, ten ids of other truth passed.
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 2, 30)
    other = np.where(np.arange(30) < 10, 1 - truth, truth)
    a = pl.DataFrame(
        {"model": "a", "id": np.arange(30), "class": "x", "score": rng.random(30), "truth": truth}
    )
    b = pl.DataFrame(
        {"model": "b", "id": np.arange(30), "class": "x", "score": rng.random(30), "truth": other}
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'truth': 10 \(id, class\) rows have a different truth",
    ):
        pl_metrics.paired(
            pl.concat([a, b, b.tail(1)]), "roc_auc", "a", "b", n_resamples=40, validate=False
        )


def test_a_column_of_the_class_names_letters_is_still_offered() -> None:
    # Columns named for the class are not offered as groups; with class_col="c", every
    # column holding a "c" (source) was left out too.
    df = (
        _two_tasks(shared_class=False, disjoint_ids=True)
        .drop("w")
        .rename({"task": "source", "class": "c"})
    )
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.lrap(df, by="model", class_col="c")
    assert "pass by=['model', 'source']" in str(error.value)


def _set_rows(df: pl.DataFrame, column: str, rows: list[int], value: Any) -> pl.DataFrame:
    values = df[column].to_list()
    for row in rows:
        values[row] = value
    return df.with_columns(pl.Series(column, values, dtype=df.schema[column], strict=False))


@pytest.mark.parametrize(
    ("column", "rows", "value", "told"),
    [
        ("truth", [8], 2, r"column 'truth': 1 row is neither 0 nor 1"),
        ("truth", [8, 38], 0.5, r"column 'truth': 2 rows are neither 0 nor 1"),
        ("id", [5, 6], None, r"column 'id': 2 rows are null"),
        ("id", [5, 40], None, r"column 'id': 2 rows are null"),
        ("class", [5, 40], None, r"column 'class': 2 rows are null"),
        ("w", [4], 9.0, r"column 'w': 1 id has weights that vary"),
    ],
)
def test_paired_tells_bad_rows_of_one_model_as_they_are(
    column: str, rows: list[int], value: Any, told: str
) -> None:
    # The pairing checks came first: a truth of 2 in one model was "a different truth in
    # 'a' and 'b'", a null class "4 (id, class) rows scored by only one of" them.
    df = pl.DataFrame(
        [
            (
                model,
                i,
                c,
                round(0.1 + 0.8 * (((i * 7 + c * 3 + m) % 10) / 10), 3),
                int(c == i % 3),
                1.0 + i % 3,
            )
            for m, model in enumerate(["a", "b"])
            for i in range(10)
            for c in range(3)
        ],
        schema={
            "model": pl.String,
            "id": pl.Int64,
            "class": pl.Int64,
            "score": pl.Float64,
            "truth": pl.Float64,
            "w": pl.Float64,
        },
        orient="row",
    )
    bad = _set_rows(df, column, rows, value)
    options: dict[str, Any] = {"weight_col": "w"} if column == "w" else {}
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        pl_metrics.f1(bad, by="model", **options)  # as every other path tells it
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        pl_metrics.paired(bad.lazy(), "f1", "a", "b", n_resamples=20, **options).collect()
    # Clean rows that differ between the models are still told as such.
    other = _set_rows(df, "truth", [8], 1 - df["truth"][8])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"a different truth in 'a' and 'b'"):
        pl_metrics.paired(other, "f1", "a", "b", n_resamples=20)


@pytest.mark.parametrize("name", ["bin", "count"])
def test_the_group_hints_offer_no_column_the_metric_makes(name: str) -> None:
    # calibration_curve makes 'bin' and 'count': the duplicate rows' hint offered by=['bin'],
    # which it then refused.
    one = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2],
            "class": ["x", "y"] * 3,
            "score": [0.1, 0.8, 0.6, 0.3, 0.9, 0.2],
            "truth": [0, 1, 1, 0, 1, 0],
        }
    )
    df = pl.concat([one.with_columns(pl.lit(k).alias(name)) for k in (0, 1)])
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.calibration_curve(df, n_bins=2)
    assert f"by=['{name}']" not in str(error.value)
    with pytest.raises(pl_metrics.MetricsInputError) as error:  # (lrap makes no such column)
        pl_metrics.lrap(df)
    assert f"pass by=['{name}']" in str(error.value)
