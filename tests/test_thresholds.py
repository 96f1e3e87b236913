"""Threshold sweeps, the best threshold per class (also out of fold) and threshold tables,
against brute force with scikit-learn."""

from __future__ import annotations

import functools
import math
import re
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score, fbeta_score, matthews_corrcoef, recall_score

import pl_metrics
from pl_metrics._registry import sweepable
from tests.conftest import dense_problems, grouped_table, run

SETTINGS = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SKLEARN: dict[str, Any] = {
    "f1": lambda t, p, w: f1_score(t, p, sample_weight=w, zero_division=0),
    "fbeta": lambda t, p, w: fbeta_score(t, p, beta=2.0, sample_weight=w, zero_division=0),
    "recall": lambda t, p, w: recall_score(t, p, sample_weight=w, zero_division=0),
    "matthews_corrcoef": lambda t, p, w: matthews_corrcoef(t, p, sample_weight=w),
}


def sk(metric: str, t: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(SKLEARN[metric](t, p, w))


def brute_best(
    metric: str, t: np.ndarray, s: np.ndarray, w: np.ndarray | None
) -> tuple[float, float]:
    """Over the distinct scores: the highest value, ties to the highest threshold."""
    best = max(((sk(metric, t, s >= c, w), c) for c in np.unique(s)), key=lambda vc: (vc[0], vc[1]))
    return best[1], best[0]


@pytest.mark.parametrize("metric", list(SKLEARN))
@given(data=st.data())
@SETTINGS
def test_sweep_and_best_match_brute_force(kind: str, metric: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=1, weights=data.draw(st.booleans())))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"]) + 0.5
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    beta = {"beta": 2.0} if metric == "fbeta" else {}
    grid = [0.0, 0.2, 0.25, 0.5, 0.6, 1.0, 1.5]
    sweep = run(
        df,
        kind,
        functools.partial(pl_metrics.threshold_sweep, metric=metric),
        thresholds=grid,
        by="g",
        weight_col=weight_col,
        **beta,
    )
    best = run(
        df,
        kind,
        functools.partial(pl_metrics.best_threshold, metric=metric),
        by="g",
        weight_col=weight_col,
        **beta,
    )
    for g, p in enumerate(problems):
        w = p.get("weight")
        for k in range(p["truth"].shape[1]):
            t, s = p["truth"][:, k], p["score"][:, k]
            rows = sweep.filter((pl.col("g") == g) & (pl.col("class") == k))
            assert rows["threshold"].to_list() == grid
            want = [sk(metric, t, s >= c, w) for c in grid]
            np.testing.assert_allclose(rows["value"].to_numpy(), want, rtol=1e-12, atol=1e-12)
            row = best.filter((pl.col("g") == g) & (pl.col("class") == k))
            threshold, value = brute_best(metric, t, s, w)
            assert row["threshold"].item() == threshold
            assert row["value"].item() == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_sweep_equals_the_metric_at_each_threshold() -> None:
    rng = np.random.default_rng(1)
    df = pl_metrics.from_numpy(rng.random((60, 3)) < 0.3, np.round(rng.random((60, 3)), 1))
    for metric in sweepable():
        sweep = pl_metrics.threshold_sweep(df, metric, [0.3, 0.7])
        for threshold in (0.3, 0.7):
            want = pl_metrics.report(df, metric, threshold=threshold, average=None)
            got = sweep.filter(pl.col("threshold") == threshold).select("class", "value")
            np.testing.assert_allclose(got["value"], want[metric], rtol=1e-12)


def test_the_default_grid_is_the_thresholds_a_user_types() -> None:
    # linspace(0, 1, 101) has 0.5700000000000001 where the user reads and types 0.57: a score
    # of 0.57 was below its threshold in the sweep and at it in `f1(threshold=0.57)`.
    rng = np.random.default_rng(4)
    df = pl_metrics.from_numpy(rng.random((400, 3)) < 0.4, np.round(rng.random((400, 3)), 2))
    sweep = pl_metrics.threshold_sweep(df, "f1")
    assert sweep["threshold"].unique().sort().to_list() == [k / 100 for k in range(101)]
    for threshold in (0.35, 0.57, 0.58, 0.7, 0.95):
        want = pl_metrics.f1(df, threshold=threshold, average=None)["f1"]
        got = sweep.filter(pl.col("threshold") == threshold)["value"]
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_threshold_table_applies_per_class_and_group() -> None:
    rng = np.random.default_rng(2)
    parts = []
    for model in ("a", "b"):
        part = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2))
        parts.append(part.with_columns(model=pl.lit(model)))
    df = pl.concat(parts)
    table = pl.DataFrame({"class": [0, 1, 2], "threshold": [0.2, 0.5, 0.8]})
    got = pl_metrics.f1(df, threshold=table, average=None, by="model")
    for cls, threshold in zip([0, 1, 2], [0.2, 0.5, 0.8], strict=True):
        want = pl_metrics.f1(df, threshold=threshold, average=None, by="model").filter(
            pl.col("class") == cls
        )
        assert_frame_equal(got.filter(pl.col("class") == cls), want)
    # keyed by group too, class names as strings against an integer class column
    best = pl_metrics.best_threshold(df, by="model")
    shipped = pl_metrics.f1(
        df, threshold=best.with_columns(pl.col("class").cast(pl.String)), by="model", average=None
    )
    np.testing.assert_allclose(shipped["f1"], best["value"], rtol=1e-12)
    lazy = pl_metrics.report(df.lazy(), ["f1", "precision"], threshold=best, by="model").collect()
    assert_frame_equal(lazy, pl_metrics.report(df, ["f1", "precision"], threshold=best, by="model"))


@pytest.mark.parametrize("weighted", [False, True])
def test_a_threshold_table_keyed_by_folds_applies_each_folds_and_pools_them(
    weighted: bool,
) -> None:
    # Out-of-fold tuned thresholds, the folds pooled: each row takes its fold's threshold,
    # on every path that pools (the metric by model, compare, the bootstrap, paired).
    rng = np.random.default_rng(8)
    parts = []
    for fold in range(3):  # each fold its own ids; both models score them all
        part = pl_metrics.from_numpy(rng.random((30, 3)) < 0.4, np.round(rng.random((30, 3)), 1))
        part = part.with_columns(pl.col("id") + 100 * fold, fold=pl.lit(fold))
        w = pl.col("id").hash(3) % 4 + 1  # per id, the same in both models
        parts += [part.with_columns(model=pl.lit(m), w=w.cast(pl.Float64)) for m in "ab"]
    df = pl.concat(parts)
    noise = pl.Series(np.round(rng.normal(0, 0.2, df.height), 1))  # model b: another model
    df = df.with_columns(pl.col("score") + pl.when(pl.col("model") == "b").then(noise).otherwise(0))
    weight = {"weight_col": "w"} if weighted else {}
    table = pl_metrics.best_threshold(df, by=["model", "fold"], **weight)
    table = table.select("fold", "model", "class", "threshold")  # its own key order
    joined = df.join(table, on=["model", "fold", "class"])
    predicted = joined.with_columns(p=pl.col("score") >= pl.col("threshold"))
    metrics = ["f1", "precision", "accuracy"]
    want = pl_metrics.report(predicted, metrics, by="model", pred_col="p", **weight)
    assert want["f1"].n_unique() == 2
    got = pl_metrics.report(df, metrics, by="model", threshold=table, **weight)
    assert_frame_equal(got, want)
    assert_frame_equal(
        pl_metrics.report(df.lazy(), metrics, by="model", threshold=table, **weight).collect(), want
    )
    chunked = pl_metrics.score(df, metrics, by="model", threshold=table, n_chunks=4, **weight)
    assert_frame_equal(chunked, want, check_exact=False, rel_tol=1e-12)
    per_class = pl_metrics.f1(df, by="model", threshold=table, average=None, **weight)
    assert_frame_equal(
        per_class, pl_metrics.f1(predicted, by="model", pred_col="p", average=None, **weight)
    )
    compared = pl_metrics.compare(df, "f1", threshold=table, **weight)
    assert dict(compared.select("model", "f1").iter_rows()) == dict(
        want.select("model", "f1").iter_rows()
    )
    resampled = pl_metrics.bootstrap(
        df, "f1", by="model", threshold=table, n_resamples=20, **weight
    )
    assert resampled["estimate"].to_list() == want["f1"].to_list()
    pair = pl_metrics.paired(df, "f1", "a", "b", threshold=table, n_resamples=20, **weight)
    f1 = dict(want.select("model", "f1").iter_rows())
    assert pair["difference"][0] == pytest.approx(f1["b"] - f1["a"], abs=1e-15)
    # A fold the table lacks names the table's groups, the pooled key among them.
    with pytest.raises(pl_metrics.MetricsInputError, match=r"in 4 groups: model='a', fold='0';"):
        pl_metrics.f1(df, by="model", threshold=table.filter(pl.col("fold") < 2))


def test_the_classes_a_threshold_table_lacks_are_named(tmp_path: Path) -> None:
    """The error counted rows without a threshold and listed the table's first 12 classes:
    with 60 birds, the one missing could not be seen (nor a class missing in one group)."""
    rng = np.random.default_rng(0)
    birds = [f"bird{i:03d}" for i in range(60)]
    df = pl.DataFrame(
        {
            "model": np.repeat(["a", "b"], 600),
            "id": np.tile(np.repeat(np.arange(10), 60), 2),
            "class": birds * 20,
            "score": rng.random(1_200).round(2),
            "truth": rng.random(1_200) < 0.3,
        }
    )
    best = pl_metrics.best_threshold(df, "f1", by="model")
    lacking = best.filter((pl.col("class") != "bird037") | (pl.col("model") == "a"))
    path = tmp_path / "birds.parquet"
    df.write_parquet(path)
    told = r"10 rows have no threshold .*; the table lacks model='b', class='bird037'$"
    for scoring in (
        lambda: pl_metrics.f1(df, by="model", threshold=lacking),
        lambda: pl_metrics.f1(df.lazy(), by="model", threshold=lacking).collect(),
        lambda: pl_metrics.score(path, "f1", by="model", threshold=lacking, n_chunks=3),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            scoring()
    # More than three: the first three, and more.
    few = best.filter(pl.col("class") < "bird050")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"lacks model='a', class='bird050'; model='a', class='bird051'; model='a', "
        r"class='bird052'; \.\.\.$",
    ):
        pl_metrics.f1(df, by="model", threshold=few)


def test_threshold_tables_are_checked() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"2 rows have no threshold .*; the threshold table's 1 class, compared as text, "
        r"is '0'; the table lacks class=1$",
    ):
        pl_metrics.f1(df, threshold=pl.DataFrame({"class": [0], "threshold": [0.5]}))
    # Whole floats (a CSV read through pandas) key integer classes; other floats do not.
    floats = pl.DataFrame({"class": [0.0, 1.0], "threshold": [0.5, 0.2]})
    ints = floats.with_columns(pl.col("class").cast(pl.Int64))
    assert pl_metrics.f1(df, threshold=floats).equals(pl_metrics.f1(df, threshold=ints))
    # A group the table lacks: the table's groups are named.
    by_model = df.with_columns(model=pl.lit("b"))
    table = pl.DataFrame({"model": ["a", "a"], "class": [0, 1], "threshold": [0.5, 0.2]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"the threshold table's 2 classes \(in 1 group: model='a'\), compared as text, "
        r"are '0', '1'; the table lacks model='b', class=0; model='b', class=1$",
    ):
        pl_metrics.f1(by_model, threshold=table, by="model")
    # Groups of two keys, in the call's order, apart: not "fold='0', model='a', fold='0', ...".
    folds = pl.concat([by_model.with_columns(fold=pl.lit(f)) for f in (0, 1)])
    table = pl.concat(
        [table.with_columns(fold=pl.lit(f), model=pl.lit(m)) for f, m in [(0, "a"), (1, "c")]]
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"classes \(in 2 groups: model='a', fold='0'; model='c', fold='1'\), compared",
    ):
        pl_metrics.f1(
            folds,
            threshold=table.select("fold", "model", "class", "threshold"),
            by=["model", "fold"],
        )
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"are '0\.5', '1'; the table lacks class=0$"
    ):
        pl_metrics.f1(df, threshold=pl.DataFrame({"class": [0.5, 1.0], "threshold": [0.5, 0.2]}))
    with pytest.raises(pl_metrics.MetricsInputError, match="needs a numeric 'threshold' column"):
        pl_metrics.f1(df, threshold=pl.DataFrame({"class": [0, 1]}))
    with pytest.raises(pl_metrics.MetricsInputError, match="needs the class column"):
        pl_metrics.f1(df, threshold=pl.DataFrame({"label": [0, 1], "threshold": [0.5, 0.5]}))
    # A key column the data lacks is to be dropped, not grouped by.
    named = pl.DataFrame({"class": [0, 1], "metric": ["f1"] * 2, "threshold": [0.5, 0.5]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"no column 'metric', a key of the threshold table \(\['class', 'metric'\]\); drop",
    ):
        pl_metrics.f1(df, threshold=named)
    # Several models' thresholds, of data of one model without the column: dropped, the
    # column would leave a class's thresholds repeated (the advice led to that error).
    models = pl.concat([named.with_columns(model=pl.lit(m)) for m in ("a", "b")]).drop("metric")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"its 'model' holds 2 values \('a', 'b'\), each with its thresholds: keep the "
        r"table's rows of this data's 'model', then drop that column$",
    ):
        pl_metrics.f1(df, threshold=models)
    # Keys of the rows' values would apply the labels (or the scores) themselves.
    for column, role in (("truth", "truth_col"), ("score", "score_col")):
        leaky = pl.DataFrame({"class": [0, 1], column: [True, False], "threshold": [0.5, 0.5]})
        if column == "score":
            leaky = leaky.with_columns(pl.col("score").cast(pl.Float64))
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"keyed by column '{column}', the {role}: thresholds are keyed by the class",
        ):
            pl_metrics.f1(df, threshold=leaky)
    # A Series (it streams Arrow) raised a TypeError from the conversion.
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"a table of \(class, threshold\) rows, got Series$"
    ):
        pl_metrics.f1(df, threshold=pl.Series([0.5]))
    # A table of thresholds alone raised zip()'s ValueError.
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\['threshold'\] hold no key"):
        pl_metrics.f1(df, threshold=pl.DataFrame({"threshold": [0.5]}))
    # A lazy table's columns are checked at the call, as the data's: they were at collect.
    for lazy, message in (
        ({"class": [0, 1], "thr": [0.5, 0.5]}, "needs a numeric 'threshold' column"),
        ({"threshold": [0.5]}, r"\['threshold'\] hold no key"),
        ({"class": [0, 1], "threshold": [True, False]}, "holds Boolean values, not numbers"),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.f1(df.lazy(), threshold=pl.LazyFrame(lazy))
    # (Text thresholds may be a CSV's header alone: told when read, as its rows are.)
    header = pl.LazyFrame(schema={"class": pl.String, "threshold": pl.String})
    lazy_f1 = pl_metrics.f1(df.lazy(), threshold=header)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"the threshold table is empty$"):
        lazy_f1.collect()
    with pytest.raises(pl_metrics.MetricsInputError, match="repeats a"):
        pl_metrics.f1(df, threshold=pl.DataFrame({"class": [0, 0], "threshold": [0.5, 0.6]}))
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'metric'"):
        pl_metrics.best_threshold(df, "roc_auc")


def test_out_of_fold_tuning_matches_brute_force() -> None:
    rng = np.random.default_rng(3)
    n, n_classes, folds = 90, 3, 3
    truth = rng.random((n, n_classes)) < 0.35
    score = np.clip(np.round(truth * 0.3 + rng.random((n, n_classes)) * 0.7, 1), 0, 1)
    fold = np.arange(n) % folds
    df = pl_metrics.from_numpy(truth, score).with_columns(fold=pl.col("id") % folds)
    out = pl_metrics.best_threshold(df, "f1", fold_col="fold")
    assert out.columns == ["class", "threshold", "value", "held_out_value"]
    for k in range(n_classes):
        t, s = truth[:, k], score[:, k]
        threshold, value = brute_best("f1", t, s, None)
        row = out.filter(pl.col("class") == k)
        assert row["threshold"].item() == threshold
        assert row["value"].item() == pytest.approx(value, rel=1e-12)
        held_pred = np.zeros(n, dtype=bool)
        for f in range(folds):
            tuned, _ = brute_best("f1", t[fold != f], s[fold != f], None)
            held_pred[fold == f] = s[fold == f] >= tuned
        assert row["held_out_value"].item() == pytest.approx(
            sk("f1", t, held_pred, None), rel=1e-12
        )
    lazy = pl_metrics.best_threshold(df.lazy(), "f1", fold_col="fold").collect()
    assert_frame_equal(lazy, out)


def test_numpy_numbers_are_thresholds() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    assert pl_metrics.f1(df, threshold=np.float32(0.5)).item() == pl_metrics.f1(df).item()
    sweep = pl_metrics.threshold_sweep(df, "f1", np.arange(2))
    assert sweep["threshold"].unique().sort().to_list() == [0.0, 1.0]
    table = pl.DataFrame({"class": ["0", "1"], "threshold": [0.3, 0.7]})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"got a table; a table .* is option 'threshold'$"
    ):
        pl_metrics.threshold_sweep(df, "f1", table)  # type: ignore[arg-type]


def _tuned_over_folds(path: str, table: pl.DataFrame, **options: Any) -> pl.DataFrame:
    """best_threshold with fold_col 'fold', eagerly, lazily or in class chunks of 3."""
    if path == "chunks":
        # A chunk per class: a rare class's chunk alone may have a single fold in every class.
        return pl_metrics.score(table, "best_threshold", fold_col="fold", n_chunks=3, **options)
    got = pl_metrics.best_threshold(
        table.lazy() if path == "lazy" else table, fold_col="fold", **options
    )
    return got.collect() if isinstance(got, pl.LazyFrame) else got


@pytest.mark.parametrize("path", ["eager", "lazy", "chunks"])
def test_a_fold_column_of_one_fold_per_class_is_refused(path: str) -> None:
    """One fold, or a "fold" that follows the class: nothing to tune out of fold."""
    rng = np.random.default_rng(5)
    df = pl_metrics.from_numpy(rng.random((30, 3)) < 0.4, rng.random((30, 3)))
    folds = pl.col("id") % 3

    best = functools.partial(_tuned_over_folds, path)
    error = pl_metrics.MetricsInputError
    whole = r"^column 'fold': 1 fold in every class; tuning a fold's thresholds .* two or more"
    for fold in (pl.lit(0), pl.col("class").cast(pl.Int64) % 2):
        with pytest.raises(error, match=whole):
            best(df.with_columns(fold=fold))
    two = pl.concat(
        [
            df.with_columns(model=pl.lit("a"), fold=folds),
            df.with_columns(model=pl.lit("b"), fold=pl.lit(0, pl.Int64)),
        ]
    )
    with pytest.raises(error, match=r"1 group has a single fold in every class \(model='b'\)"):
        best(two, by="model")
    # A rare class seen in one fold (a ragged table) is no error: its held-out value is null.
    rare = df.with_columns(fold=folds).filter((pl.col("class") != 2) | (pl.col("id") % 3 == 0))
    got = best(rare, ragged="allow")
    assert got["held_out_value"].is_null().to_list() == [False, False, True]
    assert got.drop("held_out_value").equals(pl_metrics.best_threshold(rare, ragged="allow"))


@pytest.mark.parametrize("path", ["eager", "lazy", "chunks"])
def test_a_fold_that_differs_within_an_id_is_named_first(path: str) -> None:
    # The fold splits such an id's classes over groups, where it looks ragged: the fix is
    # the fold column, not ragged='allow' (which ran, and tuned on the split ids).
    rng = np.random.default_rng(8)
    df = pl_metrics.from_numpy(rng.random((30, 2)) < 0.4, rng.random((30, 2)))
    df = df.with_columns(fold=(pl.col("id") + pl.col("class").cast(pl.Int64)) % 3)
    frame = df.lazy() if path == "lazy" else df

    def best() -> object:
        if path == "chunks":
            return pl_metrics.score(frame, "best_threshold", fold_col="fold", n_chunks=2)
        got = pl_metrics.best_threshold(frame, "f1", fold_col="fold")
        return got.collect() if isinstance(got, pl.LazyFrame) else got

    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"rows are missing: .*; an id is in one fold: if option 'fold_col' \('fold'\) "
        r"differs between the classes of an id, fix that column; if ids do lack classes, pass",
    ):
        best()


@pytest.mark.parametrize("path", ["eager", "lazy", "chunks"])
def test_ids_in_several_folds_are_refused(path: str) -> None:
    # Predictions of every fold's model on the same ids (a test set, or repeats): tuned on
    # the other folds, held_out_value was in-sample, told as held out.
    rng = np.random.default_rng(3)
    df = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, rng.random((40, 3)))
    df = df.with_columns(fold=pl.col("id") % 4)
    again = df.filter(pl.col("id") < 3).with_columns(fold=(pl.col("fold") + 1) % 4)
    spread = pl.concat([df, again, again.with_columns(fold=(pl.col("fold") + 1) % 4)])
    two = pl.concat([df.with_columns(model=pl.lit("a")), spread.with_columns(model=pl.lit("b"))])

    best = functools.partial(_tuned_over_folds, path)
    told = r"^column 'fold': 18 rows repeat an \(id, class\) of another fold{}; a fold's thresholds"
    # (Each error names the first keys, with their folds, as the README says of every check.)
    first = "{0}id=0, class=0 in fold=0, fold=1, fold=2; {0}id=1, class=0 in fold=1, fold=2"
    with pytest.raises(pl_metrics.MetricsInputError, match=told.format("")) as error:
        best(spread)
    assert "; e.g. " + first.format("") in str(error.value)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=told.format(r" \(in 1 group: model='b'\)")
    ) as error:
        best(two, by="model")
    assert "; e.g. " + first.format("model='b', ") in str(error.value)
    # Repeats in classes that class chunks score apart: counted alike on every path.
    some = (pl.col("id") == 0) & (pl.col("class") == 0) | (pl.col("id") == 1) & (
        pl.col("class") == 2
    )
    ragged = pl.concat([df, df.filter(some).with_columns(fold=(pl.col("fold") + 1) % 4)])
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'fold': 2 rows repeat an \("
    ) as error:
        best(ragged, ragged="allow")
    # The key named is the repeated (id, class), not the id's first class: id 1's class 0
    # is in fold 1 alone, its class 2 in folds 1 and 2 (id % 4, then shifted by one).
    assert str(error.value).endswith(
        "; e.g. id=0, class=0 in fold=0, fold=1; id=1, class=2 in fold=1, fold=2"
    ), str(error.value)
    # More ids repeated than are shown: the examples end with "...".
    five = df.filter(pl.col("id") < 5).with_columns(fold=(pl.col("fold") + 1) % 4)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'fold': 15 rows repeat"
    ) as error:
        best(pl.concat([df, five]))
    assert str(error.value).endswith(
        "; e.g. id=0, class=0 in fold=0, fold=1; id=1, class=0 in fold=1, fold=2; "
        "id=2, class=0 in fold=2, fold=3; ..."
    ), str(error.value)
    # Checks off (validate=False): as asked; ids of one fold each: tuned as before.
    assert best(spread, validate=False).height == 3
    assert_frame_equal(
        best(two.filter(model="a"), by="model"),
        best(df).insert_column(0, pl.Series("model", ["a"] * 3)),
    )


@pytest.mark.parametrize("path", ["eager", "lazy", "chunks"])
def test_a_fold_of_zero_weights_is_no_group_of_zero_weights(path: str) -> None:
    # Held out, such a fold adds nothing to the counts: only a model whose folds all weigh
    # nothing is refused, counted and named as a model (the folds' checks used to add up).
    rng = np.random.default_rng(9)
    one = pl_metrics.from_numpy(rng.random((30, 3)) < 0.4, rng.random((30, 3)))
    two = pl.concat([one.with_columns(model=pl.lit(m), fold=pl.col("id") % 3) for m in "ab"])
    zero_fold = two.with_columns(w=pl.when(pl.col("fold") == 0).then(0.0).otherwise(1.0))

    def best(table: pl.DataFrame) -> pl.DataFrame:
        options: dict[str, Any] = {"by": "model", "fold_col": "fold", "weight_col": "w"}
        if path == "chunks":
            return pl_metrics.score(table, "best_threshold", n_chunks=3, **options)
        got = pl_metrics.best_threshold(table.lazy() if path == "lazy" else table, **options)
        return got.collect() if isinstance(got, pl.LazyFrame) else got

    got = best(zero_fold)
    fitted = pl_metrics.best_threshold(zero_fold.filter(pl.col("fold") > 0), by="model")
    assert_frame_equal(got.drop("held_out_value"), fitted)
    a_zero = zero_fold.with_columns(w=pl.when(pl.col("model") == "a").then(0.0).otherwise("w"))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'w': 1 group has weights that are all zero \(model='a'\); best_thr",
    ):
        best(a_zero)


def test_the_duplicate_rows_hint_leaves_out_the_fold_column() -> None:
    rng = np.random.default_rng(6)
    one = pl_metrics.from_numpy(rng.random((30, 3)) < 0.4, rng.random((30, 3)))
    two = pl.concat([one.with_columns(model=pl.lit(m), fold=pl.col("id") % 2) for m in "ab"])
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"the table has column model: pass by=\['model'\] if"
    ):
        pl_metrics.best_threshold(two, fold_col="fold")
    assert pl_metrics.best_threshold(two, fold_col="fold", by="model").height == 6


def test_a_fold_column_named_like_a_result_column_is_named_as_fold_col() -> None:
    rng = np.random.default_rng(6)
    one = pl_metrics.from_numpy(rng.random((30, 3)) < 0.4, rng.random((30, 3)))
    folds = one.with_columns(held_out_value=pl.col("id") % 2)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'held_out_value' \(option 'fold_col'\): best_threshold makes a column",
    ):
        pl_metrics.best_threshold(folds, fold_col="held_out_value")


def test_a_table_of_float_classes_applies_to_its_own_data() -> None:
    rng = np.random.default_rng(7)
    df = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2))
    floats = df.with_columns(pl.col("class").cast(pl.Float64))
    best = pl_metrics.best_threshold(floats)
    got = pl_metrics.f1(floats, threshold=best, average=None)
    np.testing.assert_allclose(got["f1"], best["value"], rtol=1e-12)
    # and to the same classes as integers
    assert pl_metrics.f1(df, threshold=best).item() == pytest.approx(
        pl_metrics.f1(floats, threshold=best).item(), rel=1e-12
    )


@pytest.mark.parametrize(("dtype", "at"), [(pl.Float32, 0.7), (pl.Float16, 0.4)])
def test_narrow_float_scores_meet_a_threshold_the_same_way_however_it_is_given(
    kind: str, dtype: pl.DataType, at: float
) -> None:
    # 0.7 as Float32 is 0.699999988 as Float64 (0.4 as Float16, 0.39990234): compared in
    # Float64, below the threshold; in their own type, equal to it.
    rng = np.random.default_rng(3)
    truth = rng.random((30, 3)) < 0.5
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(30), 3),
            "class": np.tile(np.arange(3), 30),
            "score": pl.Series(np.round(rng.random(90), 1)).cast(dtype),
            "truth": truth.ravel(),
        }
    )
    score = df["score"].to_numpy().reshape(30, 3)  # numpy compares in the narrow type too
    predicted = score >= at
    assert (score.astype(np.float64) == at).sum() == 0 < (score == score.dtype.type(at)).sum()
    want = f1_score(truth, predicted, average="macro", zero_division=0)
    table = pl.DataFrame({"class": [0, 1, 2], "threshold": [at] * 3})
    for threshold in (at, table):
        got = run(df, kind, pl_metrics.f1, threshold=threshold)["f1"].item()
        assert got == pytest.approx(want, rel=1e-12)
    swept = run(df, kind, pl_metrics.threshold_sweep, thresholds=[at])
    per_class = f1_score(truth, predicted, average=None, zero_division=0)
    assert swept.sort("class")["value"].to_list() == pytest.approx(per_class.tolist())


def test_best_threshold_ties_survive_rounding_of_weighted_ratios() -> None:
    # Precision 2/8 at 0.875 and 3/12 at 0.375: a tie, to the highest threshold. Weighted by
    # 0.1, the second is 0.3 / 1.2 = 0.25000000000000006.
    score = [0.875] * 8 + [0.75, 0.5, 0.5, 0.375] + [0.0] * 4
    truth = [True, True] + [False] * 9 + [True] + [False] * 4
    df = pl.DataFrame({"id": range(16), "class": "a", "score": score, "truth": truth})
    for weighted in (df, df.with_columns(w=pl.lit(0.1))):
        weight_col = "w" if "w" in weighted.columns else None
        best = pl_metrics.best_threshold(weighted, "precision", weight_col=weight_col)
        assert best["threshold"].item() == 0.875
        assert best["value"].item() == pytest.approx(0.25, rel=1e-15)
    # F1 0.25 at 0.0 and at 0.5, as weighted sums that differ in their last bits
    # (0.24999999999999997 at 0.5): the tie goes to 0.5, on every path.
    df = pl.DataFrame(
        {
            "id": range(6),
            "class": "a",
            "score": [0.0, 0.0, 0.5, 0.5, 0.75, 0.0],
            "truth": [False, True, False, True, False, False],
            "w": [0.7, 0.2, 0.2, 0.1, 0.2, 0.7],
        }
    )
    for frame in (df, df.lazy()):
        best = pl_metrics.best_threshold(frame, "f1", weight_col="w")
        best = best.collect() if isinstance(best, pl.LazyFrame) else best
        assert best["threshold"].item() == 0.5


@pytest.mark.parametrize("metric", sweepable())
def test_ids_of_weight_zero_change_no_best_threshold(metric: str) -> None:
    """Their scores are no candidates: a threshold above every weighted score would
    otherwise offer 'predict nothing', which no weighted score does."""
    rng = np.random.default_rng(7)
    truth, score = rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2)
    weight = np.where(np.arange(40) % 5 == 0, 0.0, rng.choice([0.5, 1.0, 2.0], 40))
    score[::5] = 0.995  # the weight-0 ids score above everything else
    df = pl_metrics.from_numpy(truth, score).join(
        pl.DataFrame({"id": np.arange(40), "w": weight}), on="id"
    )
    df = df.with_columns(fold=pl.col("id") % 3)
    weighed = df.filter(pl.col("w") > 0)
    for options in ({}, {"fold_col": "fold"}):
        got = pl_metrics.best_threshold(df, metric, weight_col="w", **options)
        want = pl_metrics.best_threshold(weighed, metric, weight_col="w", **options)
        assert_frame_equal(got, want)


@pytest.mark.parametrize("metric", ["recall", "specificity"])  # (balanced: the other rate)
def test_a_class_whose_every_value_is_nan_keeps_its_candidates(metric: str) -> None:
    """zero_division=nan on a class without positives (recall) or negatives (specificity):
    every candidate's value is NaN. The best is still a candidate (the highest score of
    some weight, as with zero_division=0) and its value NaN, as the sweep shows it; it
    was the highest score of weight 0, of a null value."""
    truth = 1 if metric == "specificity" else 0
    df = pl.DataFrame(
        {"id": [0, 1, 2], "class": "a", "score": [0.2, 0.4, 0.9], "truth": truth}
    ).with_columns(w=pl.Series([1.0, 1.0, 0.0]), fold=pl.Series([0, 1, 1]))
    for options in ({}, {"fold_col": "fold"}):
        got = pl_metrics.best_threshold(
            df, metric, weight_col="w", zero_division=math.nan, **options
        )
        assert got["threshold"].to_list() == [0.4]
        assert math.isnan(got["value"].item())
        zero = pl_metrics.best_threshold(df, metric, weight_col="w", zero_division=0, **options)
        assert zero["threshold"].to_list() == [0.4]


@pytest.mark.parametrize("seed", range(4))
def test_held_out_value_is_the_metric_of_thresholds_tuned_without_each_fold(seed: int) -> None:
    """With negative weights among them: each fold's threshold is `best_threshold` of the
    other folds' rows, and held_out_value the metric of the predictions so made."""
    rng = np.random.default_rng(seed)
    n = 40
    df = pl.DataFrame(
        {
            "id": np.arange(n),
            "class": "a",
            "score": rng.integers(0, 8, n) / 8,
            "truth": rng.random(n) < 0.4,
            "w": rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], n),
            "fold": np.arange(n) % 3,
        }
    )
    for metric in ("precision", "f1"):
        got = pl_metrics.best_threshold(df, metric, weight_col="w", fold_col="fold")
        tuned = {
            f: pl_metrics.best_threshold(df.filter(pl.col("fold") != f), metric, weight_col="w")[
                "threshold"
            ][0]
            for f in range(3)
        }
        made = df.with_columns(
            pred=pl.col("score") >= pl.col("fold").replace_strict(tuned, return_dtype=pl.Float64)
        )
        want = getattr(pl_metrics, metric)(made, pred_col="pred", weight_col="w").item()
        assert got["held_out_value"][0] == pytest.approx(want, rel=1e-12, abs=1e-12), metric


def test_a_score_whose_other_folds_weights_cancel_is_no_candidate() -> None:
    """Folds 1 and 2 weigh +1 and -1 at 0.9: without fold 0 that score weighs nothing, as
    `best_threshold` of those rows has it."""
    df = pl.DataFrame(
        {
            "id": range(7),
            "class": "a",
            "score": [0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.3],
            "truth": [False, False, True, True, False, True, False],
            "w": [1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 1.0],
            "fold": [0, 0, 1, 1, 1, 2, 2],
        }
    )
    options: dict[str, Any] = {"weight_col": "w", "zero_division": 1.0}
    got = pl_metrics.best_threshold(df, "precision", fold_col="fold", **options)
    tuned = {
        f: pl_metrics.best_threshold(df.filter(pl.col("fold") != f), "precision", **options)[
            "threshold"
        ][0]
        for f in range(3)
    }
    made = df.with_columns(
        pred=pl.col("score") >= pl.col("fold").replace_strict(tuned, return_dtype=pl.Float64)
    )
    want = pl_metrics.precision(made, pred_col="pred", **options).item()
    assert got["held_out_value"][0] == want == 0.0


def test_a_fold_without_a_threshold_from_the_others_predicts_nothing() -> None:
    """Class a: fold 1's one positive weighs 0, so fold 0 gets no threshold from it; its
    positives are then missed, not left out of held_out_value."""
    df = pl.DataFrame(
        {
            "id": [10, 24, 3, 10, 24, 3, 5],
            "class": ["a"] * 3 + ["b"] * 4,
            "score": [0.11, 0.48, 0.98, 0.2, 0.7, 0.4, 0.9],
            "truth": [1, 1, 1, 0, 1, 0, 1],
            "w": [3.0, 2.0, 0.0, 3.0, 2.0, 0.0, 1.0],
            "fold": [0, 0, 1, 0, 0, 1, 1],
        }
    )
    for zero_division in (0.0, 1.0):
        got = pl_metrics.best_threshold(
            df, "f1", fold_col="fold", weight_col="w", zero_division=zero_division, ragged="allow"
        )
        assert got.filter(pl.col("class") == "a")["held_out_value"].item() == 0.0


def counting_reads(table: pl.DataFrame) -> tuple[pl.LazyFrame, list[int]]:
    """``table`` as a LazyFrame, and the list it appends to each time it is read."""
    reads: list[int] = []

    def read() -> pl.DataFrame:
        reads.append(1)
        return table

    return pl.defer(read, schema=table.schema), reads


def test_a_lazy_threshold_table_is_read_when_the_result_is_collected(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    df = pl_metrics.from_numpy(rng.random((60, 3)) < 0.4, np.round(rng.random((60, 3)), 2))
    df = df.with_columns(model=pl.col("id") % 2)
    best = pl_metrics.best_threshold(df, by="model")
    lazy_best, reads = counting_reads(best)
    lazy = pl_metrics.f1(df.lazy(), threshold=lazy_best, by="model", average=None)
    assert reads == []  # the call reads nothing, the table included
    assert_frame_equal(lazy.collect(), pl_metrics.f1(df, threshold=best, by="model", average=None))
    assert reads
    # Tuned lazily, applied lazily: one query.
    tuned = pl_metrics.best_threshold(df.lazy(), by="model")
    applied = pl_metrics.f1(df.lazy(), threshold=tuned, by="model", average=None).collect()
    np.testing.assert_allclose(applied["f1"], best["value"], rtol=1e-12)
    # Its options are checked at the call all the same; its file when read.
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^option 'threshold': the predictions"):
        pl_metrics.f1(df.lazy(), threshold=lazy_best, pred_col="truth")
    missing = pl_metrics.f1(df.lazy(), threshold=pl.scan_parquet("/nonexistent/t.parquet"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^option 'threshold': cannot read"):
        missing.collect()
    # A reader's error in one line: polars adds lines of advice.
    rows = "".join(f"{c},0.5\n" for c in range(10))
    (tmp_path / "t.csv").write_text(f"class,threshold\n{rows}x,0.5\n")
    unparsed = pl.scan_csv(tmp_path / "t.csv", infer_schema_length=5)
    with pytest.raises(pl_metrics.MetricsInputError) as unread:
        pl_metrics.f1(df, threshold=unparsed)
    assert str(unread.value).startswith("option 'threshold': cannot read the table: could not")
    assert "\n" not in str(unread.value)


def test_a_lazy_threshold_tables_call_keeps_its_arguments_as_given() -> None:
    """Its query is resolved again at collect, where the table is read: a `by` iterator was
    spent by then (polars' SchemaError), a list of metrics appended to or class weights
    changed after the call were taken as changed."""
    rng = np.random.default_rng(6)
    df = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2))
    df = df.with_columns(fold=pl.col("id") % 2)
    table = pl.DataFrame({"class": [0, 1, 2], "threshold": [0.2, 0.3, 0.4]})
    metrics = ["f1", "lrap"]
    lazy = pl_metrics.report(df.lazy(), metrics, by=iter(["fold"]), threshold=table.lazy())
    metrics.append("accuracy")
    want = pl_metrics.report(df, ["f1", "lrap"], by="fold", threshold=table)
    assert_frame_equal(lazy.collect(), want)
    by = np.array(["fold"])  # (changed in place)
    lazy = pl_metrics.report(df.lazy(), ["f1", "lrap"], by=by, threshold=table.lazy())
    by[0] = "id"
    assert_frame_equal(lazy.collect(), want)
    one_class = pl_metrics.from_numpy(rng.integers(0, 3, 30), rng.dirichlet(np.ones(3), 30))
    weights = {0: 1.0, 1: 2.0, 2: 1.0}
    lazy = pl_metrics.report(
        one_class.lazy(), ["weighted_log_loss", "f1"], class_weights=weights, threshold=table.lazy()
    )
    weights[1] = 9.0
    want = pl_metrics.report(
        one_class,
        ["weighted_log_loss", "f1"],
        class_weights={0: 1.0, 1: 2.0, 2: 1.0},
        threshold=table,
    )
    assert_frame_equal(lazy.collect(), want)


def test_compare_bootstrap_and_paired_read_a_lazy_threshold_table_once_when_collected() -> None:
    # compare resolved its options with the table itself: read at the call, not the collect.
    rng = np.random.default_rng(6)
    truth = rng.random((80, 3)) < 0.4
    df = pl.concat(
        pl_metrics.from_numpy(truth, np.round(rng.random((80, 3)), 2)).with_columns(
            model=pl.lit(model), fold=pl.col("id") % 2
        )
        for model in ("a", "b")
    )
    best = pl_metrics.best_threshold(df, by="model")
    lazy_best, reads = counting_reads(best)
    lazy = pl_metrics.compare(df.lazy(), ["f1", "precision"], threshold=lazy_best)
    assert reads == []
    want = pl_metrics.compare(df, ["f1", "precision"], threshold=best)
    assert_frame_equal(lazy.collect(), want)
    assert len(reads) == 1  # (once a collect, for the folds' values and the pooled ones)
    # bootstrap and paired read it once too (for their checks, then again for the estimate).
    for call, eager in [
        (
            lambda t: pl_metrics.bootstrap(df.lazy(), "f1", n_resamples=5, by="model", threshold=t),
            lambda: pl_metrics.bootstrap(df, "f1", n_resamples=5, by="model", threshold=best),
        ),
        (
            lambda t: pl_metrics.paired(df.lazy(), "f1", "a", "b", n_resamples=5, threshold=t),
            lambda: pl_metrics.paired(df, "f1", "a", "b", n_resamples=5, threshold=best),
        ),
    ]:
        lazy_best, reads = counting_reads(best)
        lazy = call(lazy_best)
        assert reads == []
        assert_frame_equal(lazy.collect(), eager())
        assert len(reads) == 1


def test_a_threshold_table_applies_to_float_keys_of_either_zero() -> None:
    # -0.0 and 0.0 are one group everywhere, but a table was matched by text ("-0.0").
    df = pl.DataFrame(
        {
            "g": [0.0, 0.0, -0.0, -0.0],
            "id": [0, 0, 1, 1],
            "class": [0, 1, 0, 1],
            "score": [0.9, 0.2, 0.4, 0.7],
            "truth": [True, False, False, True],
        }
    )
    best = pl_metrics.best_threshold(df, "f1", by="g")
    for table in (best, best.with_columns(g=-pl.col("g"))):
        got = pl_metrics.f1(df, by="g", threshold=table, average=None)
        np.testing.assert_allclose(got["f1"], best["value"], rtol=1e-12)


def test_integer_scores_beyond_float_precision_are_thresholds_once() -> None:
    # Distinct integers that are one Float64 were several thresholds of one value, sorted
    # in any order: best_threshold and threshold_sweep changed between identical calls.
    rng = np.random.default_rng(1)
    df = pl.DataFrame(
        {"id": np.arange(30), "class": 0, "score": rng.integers(0, 100, 30) + 2**60}
    ).with_columns(truth=pl.Series(rng.random(30) < 0.5))
    threshold = float(2**60 + 50)
    want = pl_metrics.f1(df, threshold=threshold).item()
    swept = {pl_metrics.threshold_sweep(df, "f1", thresholds=[threshold]).item(0, "value")}
    swept |= {pl_metrics.threshold_sweep(df, "f1", thresholds=[threshold]).item(0, "value")}
    assert swept == {want}
    best = {pl_metrics.best_threshold(df, "f1").item(0, "value") for _ in range(5)}
    assert len(best) == 1


def test_the_bootstrap_and_paired_read_a_lazy_threshold_table_when_collected() -> None:
    rng = np.random.default_rng(6)
    df = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2))
    df = pl.concat([df.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    best = pl_metrics.best_threshold(df, by="model")
    lazy_best, reads = counting_reads(best)
    options: dict[str, Any] = {"threshold": lazy_best, "n_resamples": 20}
    intervals = pl_metrics.bootstrap(df.lazy(), "f1", by="model", **options)
    paired = pl_metrics.paired(
        df.lazy(), "f1", model_col="model", model_a="a", model_b="b", **options
    )
    assert reads == []
    assert_frame_equal(
        intervals.collect(),
        pl_metrics.bootstrap(df, "f1", by="model", threshold=best, n_resamples=20),
    )
    want = pl_metrics.paired(
        df, "f1", model_col="model", model_a="a", model_b="b", threshold=best, n_resamples=20
    )
    assert_frame_equal(paired.collect(), want)


def test_a_misspelt_metric_to_tune_gets_a_close_name() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    for tune in (pl_metrics.best_threshold, pl_metrics.threshold_sweep):
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=r"^option 'metric': 'f11' is not a metric of one class's confusion counts; "
            r"did you mean 'f1'\? expected one of f1, precision",
        ):
            tune(df, "f11")


@given(
    seed=st.integers(0, 2**32 - 1),
    n_keys=st.integers(1, 3),
    values=st.sampled_from(["spread", "tied", "nan", "null", "infinite"]),
    layout=st.sampled_from(["blocks", "shuffled", "rising"]),
)
@SETTINGS
def test_the_best_in_blocks_equals_the_plan(
    seed: int, n_keys: int, values: str, layout: str
) -> None:
    # Candidates whose keys' thresholds lie together and fall (the curves table summed in its
    # blocks) are read a block at a time in numpy; the rows chosen are the plan's (polars
    # windows): ties within 1e-12 of the best, NaN values (candidates of no value), nulls
    # (no candidate), blocks without a number or a candidate, infinite values, null keys and
    # blocks out of key order. Other layouts take the plan.
    from pl_metrics import _thresholds

    rng = np.random.default_rng(seed)
    keys = ["model", "fold", "class"][-n_keys:]
    key_types = {"model": pl.String, "fold": pl.Int8, "class": pl.Int16}
    cells = [(m, f, c) for m in ["a", None] for f in [0, 1, None] for c in [0, 1, 2]]
    chosen = rng.permutation(len(cells))[: int(rng.integers(1, len(cells) + 1))]
    blocks = []
    for cell in dict.fromkeys(cells[k][-n_keys:] for k in chosen):
        n = int(rng.integers(1, 9))
        thresholds = np.sort(rng.choice(np.arange(-20, 40) / 8, n, replace=False))[::-1]
        value = rng.integers(0, 4, n) / 3
        if values == "tied":  # the best and values within (or just beyond) 1e-12 of it
            value = value.max() * (1 - rng.choice([0.0, 1e-13, 5e-13, 1e-11], n))
        value_list: list[float | None] = value.tolist()
        for k in range(n):
            roll = rng.random()
            if values == "nan" and roll < 0.5:
                value_list[k] = float("nan")
            elif values == "null" and roll < 0.6:
                value_list[k] = None
            elif values == "infinite" and roll < 0.3:
                value_list[k] = float(rng.choice([np.inf, -np.inf]))
        columns = dict(zip(keys, cell, strict=True))
        blocks.append(
            pl.DataFrame(
                {**{k: [v] * n for k, v in columns.items()}, "threshold": thresholds},
                schema={k: key_types[k] for k in keys} | {"threshold": pl.Float64},
            ).with_columns(pl.Series("value", value_list, dtype=pl.Float64))
        )
    df = pl.concat(blocks)
    if layout == "shuffled":
        df = df.sample(fraction=1.0, shuffle=True, seed=seed)
    elif layout == "rising":
        df = df.reverse()
    in_blocks = _thresholds._best_in_blocks(df, keys)
    if layout == "blocks":
        assert in_blocks is not None
    want = _thresholds._best_plan(df.lazy(), keys).collect()
    if in_blocks is not None:
        assert_frame_equal(in_blocks, want, check_exact=True)
    assert_frame_equal(_thresholds._best(df.lazy(), keys).collect(), want, check_exact=True)


@given(
    seed=st.integers(0, 2**32 - 1),
    n_by=st.integers(0, 1),
    metric=st.sampled_from(["f1", "recall", "matthews_corrcoef"]),
    counts=st.sampled_from(["counts", "zeros", "floats"]),
    layout=st.sampled_from(["blocks", "shuffled"]),
)
@SETTINGS
def test_out_of_fold_tuning_in_blocks_equals_the_plan(
    seed: int, n_by: int, metric: str, counts: str, layout: str
) -> None:
    # A curves table of counts in blocks (each (group, fold, class)'s scores together and
    # falling, as the kernel gives it) is pooled and tuned fold by fold in numpy; the
    # thresholds and values are the plans' bit for bit: scores shared by folds (0.0 and
    # -0.0 as one), folds missing from some classes, classes in one fold, rows of no
    # weight, null keys and folds, Float32 scores. Float weights and other layouts take
    # the plans.
    from pl_metrics import _thresholds
    from pl_metrics._spec import make_options
    from pl_metrics._state import CURVE_NEG, CURVE_POS, CURVE_SCORE

    rng = np.random.default_rng(seed)
    keys = [*["model"][:n_by], "class"]
    blocks = []
    for model in ["a", None][: 1 + n_by]:
        for cls in range(int(rng.integers(1, 4))):
            for fold in rng.permutation([0, 1, 2, None])[: int(rng.integers(1, 5))]:
                n = int(rng.integers(1, 7))
                scores = np.sort(rng.choice(np.arange(0, 12) / 8, n, replace=False))[::-1]
                if rng.random() < 0.3:  # a fold's zero is -0.0: the same threshold
                    scores = np.where(scores == 0, -0.0, scores)
                pos = rng.integers(0, 3, n).astype(float)
                neg = rng.integers(0, 3, n).astype(float)
                if counts == "zeros":
                    pos, neg = pos * (rng.random(n) < 0.5), neg * (rng.random(n) < 0.5)
                elif counts == "floats":  # (never whole: all-zero positives are counts)
                    pos = pos * rng.random(n) + 0.25
                blocks.append(
                    pl.DataFrame(
                        {
                            "model": [model] * n,
                            "fold": [fold] * n,
                            "class": [cls] * n,
                            CURVE_SCORE: scores,
                            CURVE_POS: pos,
                            CURVE_NEG: neg,
                        },
                        schema={
                            "model": pl.String,
                            "fold": pl.Int64,
                            "class": pl.Int16,
                            CURVE_SCORE: pl.Float32 if seed % 2 else pl.Float64,
                            CURVE_POS: pl.Float64,
                            CURVE_NEG: pl.Float64,
                        },
                    )
                )
    df = pl.concat(blocks).select(*keys[:-1], "fold", "class", CURVE_SCORE, CURVE_POS, CURVE_NEG)
    if layout == "shuffled":
        df = df.sample(fraction=1.0, shuffle=True, seed=seed)
    opts = make_options(metric=metric, fold_col="fold")
    got = _thresholds._fold_tables_in_blocks(df, keys, "fold", opts)
    if counts == "floats":
        assert got is None
    elif layout == "blocks":
        assert got is not None
    if got is not None:
        # (The plan's rows of folds come in no particular order.)
        want = _thresholds._fold_tables_plan(df.lazy(), keys, "fold", opts).collect()
        order = [*keys, "fold", "__plm_pooled"]
        assert_frame_equal(
            got.sort(order, nulls_last=True), want.sort(order, nulls_last=True), check_exact=True
        )


@given(
    seed=st.integers(0, 2**32 - 1),
    score_dtype=st.sampled_from([pl.Float16, pl.Float32, pl.Float64]),
    weighted=st.booleans(),
    grid=st.sampled_from([None, (0.7, 0.1, 0.1, 0.30000001, 2.0, -1.0), (0.4, 0.5)]),
)
@settings(max_examples=40, deadline=None)
def test_a_sweep_in_blocks_is_the_plan_s_to_the_bit(
    seed: int, score_dtype: Any, weighted: bool, grid: tuple[float, ...] | None
) -> None:
    """The sweep's counts looked up in the cumulated blocks (a binary search per class) are
    the plan's as-of join's: narrow scores against thresholds rounded to their type,
    repeated thresholds and thresholds past every score, weights, groups."""
    from pl_metrics import _thresholds

    rng = np.random.default_rng(seed)
    n_ids, n_classes = int(rng.integers(1, 300)), int(rng.integers(1, 5))
    scores = np.round(rng.random((n_ids, n_classes)), int(rng.integers(1, 4)))
    df = pl_metrics.from_numpy(rng.random((n_ids, n_classes)) < 0.3, scores).with_columns(
        pl.col("score").cast(score_dtype),
        g=pl.col("id") % 3,
        # Quarters: their sums are exact in any order. (The groups' ids interleave, so their
        # weights are added by a polars group_by, whose float sums may move in the last bits
        # from run to run, as the README says: thirds made this test fail now and then.)
        w=(pl.col("id") % 4 + 1) / 4,
    )
    options: dict[str, Any] = {"by": "g", "thresholds": grid}
    if weighted:
        options["weight_col"] = "w"
    blocks = pl_metrics.threshold_sweep(df, "f1", **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_thresholds, "_at_thresholds_in_blocks", lambda *args: None)
        plan = pl_metrics.threshold_sweep(df, "f1", **options)
    assert_frame_equal(blocks, plan, check_exact=True)


def test_a_threshold_table_keyed_by_float_columns() -> None:
    # Float keys' text lost its name ("literal"): two of them collided, one got lost.
    df = pl.DataFrame(
        {
            "a": [0.0] * 4 + [1.0] * 4,
            "b": [0.5] * 8,
            "id": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": ["x", "y"] * 4,
            "score": [0.9, 0.1, 0.4, 0.6, 0.3, 0.8, 0.7, 0.2],
            "truth": [1, 0, 0, 1, 0, 1, 1, 0],
        }
    )
    best = pl_metrics.best_threshold(df, "f1", by=["a", "b"])
    got = pl_metrics.f1(df, by=["a", "b"], threshold=best)
    for (a, b), rows in df.group_by("a", "b"):
        cut = best.filter(a=a, b=b).join(rows, on="class")
        want = [
            f1_score(part["truth"], part["score"] >= part["threshold"])
            for _, part in cut.group_by("class")
        ]
        assert got.filter(a=a, b=b)["f1"].item() == pytest.approx(np.mean(want), abs=1e-12)
    one = pl_metrics.best_threshold(df, "f1", by="a")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"repeats a \(a, class\) key"):
        pl_metrics.f1(df, by="a", threshold=pl.concat([one, one.head(1)]))


def test_threshold_keys_read_as_decimals_and_times_lose_nothing_nor_collide() -> None:
    from decimal import Decimal

    rng = np.random.default_rng(0)
    n = 200
    cents = (
        pl.when(pl.col("id") % 2 == 0)
        .then(pl.lit(Decimal("0.00")))
        .otherwise(pl.lit(Decimal("1.50")))
    )
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n), 2),
            "class": np.tile(["a", "b"], n),
            "score": rng.random(2 * n),
            "truth": rng.random(2 * n) < 0.4,
        }
    ).with_columns(
        cents.cast(pl.Decimal(10, 2)).alias("dec"),
        pl.lit(datetime(2024, 1, 1)).cast(pl.Datetime("ms")).alias("ms"),
    )
    # Two texts of one value: refused, not joined twice (rows counted twice).
    twice = pl.DataFrame(
        {"dec": ["0.0", "0.00", "1.5"] * 2, "class": [*"aaabbb"], "threshold": 0.5}
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\('a', '0.0'\) and \('a', '0.00'\)"):
        pl_metrics.f1(df, by="dec", threshold=twice, validate=False)
    # Digits the rows' type would cut: no threshold, not the 0.00 group's or the second's.
    cut = pl.DataFrame({"dec": ["0.004", "1.5"] * 2, "class": [*"aabb"], "threshold": 0.5})
    with pytest.raises(pl_metrics.MetricsInputError, match="200 rows have no threshold"):
        pl_metrics.f1(df, by="dec", threshold=cut)
    late = pl.DataFrame({"ms": "2024-01-01 00:00:00.0004", "class": ["a", "b"], "threshold": 0.5})
    with pytest.raises(pl_metrics.MetricsInputError, match="400 rows have no threshold"):
        pl_metrics.f1(df, by="ms", threshold=late)
    exact = pl.DataFrame({"ms": "2024-01-01T00:00:00.000", "class": ["a", "b"], "threshold": 0.5})
    assert_frame_equal(
        pl_metrics.f1(df, by="ms", threshold=exact), pl_metrics.f1(df, by="ms", threshold=0.5)
    )


@pytest.mark.parametrize("fold_col", [None, "fold"])
def test_thresholds_of_float32_scores_hold_for_them_as_float64_too(fold_col: str | None) -> None:
    """Tuned on Float32 scores, a threshold of 0.86 was 0.8600000143051147: applied to the
    decimals the scores were rounded from (a test dump, a copy of the CLI's table), it was
    above every 0.86 there, and predicted them negative. Given as 0.86, 0.45 (whose
    Float32 is 0.44999998807907104) was above the Float32 scores widened to Float64."""
    rng = np.random.default_rng(8)
    n, classes = 400, 24
    score = np.round(rng.random(n * classes), 2)
    decimals = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n), classes),
            "fold": np.repeat(np.arange(n) % 4, classes),
            "class": np.tile(np.arange(classes), n),
            "score": score,
            "truth": rng.random(n * classes) < score**3,
        }
    )
    narrow = decimals.with_columns(pl.col("score").cast(pl.Float32))
    widened = narrow.with_columns(pl.col("score").cast(pl.Float64))
    best = pl_metrics.best_threshold(narrow, "f1", fold_col=fold_col)
    thresholds = best["threshold"]
    assert (thresholds == thresholds.round(2)).any()  # 0.86, say
    assert (thresholds != thresholds.round(2)).any()  # 0.44999998807907104, say
    assert (thresholds.cast(pl.Float32) == thresholds.round(2).cast(pl.Float32)).all()
    for data in (narrow, widened, decimals):
        got = pl_metrics.f1(data, threshold=best, average=None)
        assert got["f1"].to_list() == pytest.approx(best["value"].to_list(), rel=1e-12)


def test_lacked_keys_are_told_in_the_datas_group_order() -> None:
    df = pl.read_parquet(Path(__file__).parent.parent / "data" / "digits_oof.parquet")
    df = df.filter(pl.col("id") < 300)
    table = pl_metrics.best_threshold(df, "f1", by=["model", "fold"]).select(
        "fold", "model", "class", "threshold"
    )
    lacking = table.filter(~((pl.col("fold") == 2) & (pl.col("class") == "1")))
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"the table lacks model='\w+', fold=2, class='1';"
    ):
        pl_metrics.f1(df, by="model", threshold=lacking)


def test_a_dict_of_thresholds_is_told_how_to_make_it_a_table() -> None:
    df = pl.read_parquet(Path(__file__).parent.parent / "data" / "digits_oof.parquet")
    by_class = {str(c): 0.3 for c in range(10)}
    with pytest.raises(pl_metrics.MetricsInputError, match=r"got dict; a dict of thresholds"):
        pl_metrics.f1(df, threshold=by_class, by="model")
    table = pl.DataFrame({"class": list(by_class), "threshold": list(by_class.values())})
    assert_frame_equal(
        pl_metrics.f1(df, threshold=table, by="model"), pl_metrics.f1(df, threshold=0.3, by="model")
    )


def test_the_best_plan_keeps_a_class_without_a_candidate() -> None:
    """A class whose values are all null (its ids all weigh 0) keeps its highest threshold,
    of a null value, in the plan as in the blocks (the hypothesis test meets such a block
    only by chance)."""
    from pl_metrics import _thresholds

    df = pl.DataFrame(
        {"class": [0, 0, 1, 1], "threshold": [0.9, 0.4, 0.8, 0.2], "value": [None, None, 0.5, 0.7]},
        schema_overrides={"value": pl.Float64},
    )
    want = pl.DataFrame(
        {"class": [0, 1], "threshold": [0.9, 0.2], "value": [None, 0.7]},
        schema_overrides={"value": pl.Float64},
    )
    for table in (df, df.reverse()):  # falling thresholds (the blocks) and rising (the plan)
        for best in (_thresholds._best, _thresholds._best_plan):
            assert_frame_equal(best(table.lazy(), ["class"]).collect().sort("class"), want)


def test_a_table_of_float_classes_applies_to_negative_integer_classes() -> None:
    """Whole floats (-1.0, as pandas reads a CSV's integers) key the integer classes, the
    negative ones too: scikit-learn's F1 at each class's threshold."""
    rng = np.random.default_rng(8)
    truth, score = rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 2)
    df = pl_metrics.from_numpy(truth, score).with_columns(pl.col("class") - 1)
    at = [0.3, 0.5, 0.7]
    floats = pl.DataFrame({"class": [-1.0, 0.0, 1.0], "threshold": at})
    want = f1_score(truth, score >= np.array(at), average=None, zero_division=0)
    got = pl_metrics.f1(df, threshold=floats, average=None)
    np.testing.assert_allclose(got.sort("class")["f1"], want, rtol=1e-12)


def test_values_apart_by_more_than_rounding_are_no_ties() -> None:
    """Recall 1 - 1e-7 at 0.9 and 1 at 0.5: apart by far more than the rounding of a ratio
    (1e-12), so 0.5 wins, as the brute force has it."""
    df = pl.DataFrame(
        {
            "id": [0, 1, 2],
            "class": "a",
            "score": [0.9, 0.5, 0.2],
            "truth": [True, True, False],
            "w": [1.0, 1e-7, 1.0],
        }
    )
    t, s, w = (df[c].to_numpy() for c in ("truth", "score", "w"))
    threshold, value = brute_best("recall", t, s, w)
    for frame in (df, df.lazy()):
        got = pl_metrics.best_threshold(frame, "recall", weight_col="w")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got["threshold"].item() == threshold == 0.5
        assert got["value"].item() == pytest.approx(value, rel=1e-12)


def test_a_block_without_a_tied_row_takes_no_row_of_the_next() -> None:
    """Class 0's best is +inf (best - 1e-12 * inf is NaN: nothing ties, in the plan too), so
    it has no row; class 1's first row is no row of class 0's."""
    from pl_metrics import _thresholds

    df = pl.DataFrame(
        {
            "class": [0, 0, 1, 1],
            "threshold": [0.5, 0.2, 0.7, 0.1],
            "value": [math.inf, 1.0, 0.5, 0.25],
        },
        schema={"class": pl.Int16, "threshold": pl.Float64, "value": pl.Float64},
    )
    want = _thresholds._best_plan(df.lazy(), ["class"]).collect()
    in_blocks = _thresholds._best_in_blocks(df, ["class"])
    assert in_blocks is not None
    assert_frame_equal(in_blocks, want, check_exact=True)


def test_a_negative_best_value_is_still_the_best() -> None:
    """Negative weights: every threshold's f1 is below 0 (-0.4 the highest). The best is
    within 1e-12 of itself, relatively, for negative values too: the class keeps its row,
    with or without folds (the folds' tables of weights that are no counts: the plan)."""
    df = pl.DataFrame(
        {
            "id": range(4),
            "class": "a",
            "score": [0.4, 0.8, 0.6, 0.8],
            "truth": [False, True, False, False],
            "w": [3.0, -1.0, 1.0, 3.0],
            "fold": [0, 1, 0, 1],
        }
    )
    t, s, w = (df[c].to_numpy() for c in ("truth", "score", "w"))
    threshold, value = brute_best("f1", t, s, w)
    assert value < 0
    fold_options: list[dict[str, Any]] = [{}, {"fold_col": "fold"}]
    for options in fold_options:
        for frame in (df, df.lazy()):
            got = pl_metrics.best_threshold(frame, "f1", weight_col="w", **options)
            got = got.collect() if isinstance(got, pl.LazyFrame) else got
            assert got["threshold"].to_list() == [threshold]
            assert got["value"].item() == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    ("values", "want"),
    [
        ([math.nan, math.nan, math.nan], (0.5, math.nan)),  # every value NaN: the highest
        ([-1.0, -0.4, -2.0], (0.2, -0.4)),  # negative values: the best ties with itself
        ([-0.4 * (1 + 1e-13), -0.4, -2.0], (0.5, -0.4 * (1 + 1e-13))),  # a tie: the highest
    ],
)
def test_the_best_plan_and_blocks_keep_a_class_of_nan_or_negative_values(
    values: list[float], want: tuple[float, float]
) -> None:
    """Class 0's candidates, read by both `_best`s; class 1 beside it, of a plain best."""
    from pl_metrics import _thresholds

    df = pl.DataFrame(
        {
            "class": [0, 0, 0, 1, 1],
            "threshold": [0.5, 0.2, 0.1, 0.7, 0.3],
            "value": [*values, 0.25, 0.5],
        },
        schema={"class": pl.Int16, "threshold": pl.Float64, "value": pl.Float64},
    )
    plan = _thresholds._best_plan(df.lazy(), ["class"]).collect()
    in_blocks = _thresholds._best_in_blocks(df, ["class"])
    assert in_blocks is not None
    assert_frame_equal(in_blocks, plan, check_exact=True)
    assert plan["class"].to_list() == [0, 1]
    threshold, value = plan.row(0)[1:]
    assert threshold == want[0]
    assert value == want[1] or (math.isnan(value) and math.isnan(want[1]))
    assert plan.row(1)[1:] == (0.3, 0.5)


@pytest.mark.parametrize("path", ["eager", "lazy", "chunks"])
@pytest.mark.parametrize("big", [1e16, 1e80])
def test_held_out_value_keeps_small_weights_beside_a_large_one(path: str, big: float) -> None:
    # Fold 0 holds one id of weight `big`; the other folds, ids of weight 1, all positive,
    # tune the threshold 0.1, which predicts fold 0's id (score 0.1) positive: every id is
    # a hit, so the held-out F1 is 1. Subtracting fold 0's counts from the pooled ones
    # (1 + big - big) loses the other folds' weights, which then offer no threshold.
    df = pl.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "class": [0, 0, 0, 0],
            "score": [0.1, 1.0, 0.5, 0.1],
            "truth": [True, True, True, True],
            "fold": [2, 1, 1, 0],
            "w": [1.0, 1.0, 1.0, big],
        }
    )
    got = _tuned_over_folds(path, df, metric="f1", weight_col="w")
    assert got["threshold"].item() == 0.1
    assert got["held_out_value"].item() == pytest.approx(1.0, rel=1e-12)


def test_a_group_column_named_value_keys_the_thresholds() -> None:
    # best_threshold's 'value' column is no key; a group column of the data named so is one
    # where the call groups by it: it was dropped, and group m2 took m1's threshold.
    rows = pl.DataFrame(
        {
            "id": [0, 1, 2, 3] * 2,
            "value": ["m1"] * 4 + ["m2"] * 4,
            "class": "x",
            "score": [0.1, 0.4, 0.6, 0.9] * 2,
            "truth": [0, 1, 1, 1, 0, 0, 1, 1],
        }
    )
    one = pl.DataFrame({"value": ["m1"], "class": ["x"], "threshold": [0.3]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"value='m2'"):
        pl_metrics.f1(rows, threshold=one, by="value")
    both = pl.DataFrame({"value": ["m1", "m2"], "class": "x", "threshold": [0.3, 0.5]})
    got = pl_metrics.f1(rows, threshold=both, by="value")
    assert got["f1"].to_list() == [
        f1_score([0, 1, 1, 1], [0, 1, 1, 1]),
        f1_score([0, 0, 1, 1], [0, 0, 1, 1]),
    ]
    # best_threshold's own table keeps applying, its value column no key, with or without
    # the data holding one.
    tuned = pl_metrics.best_threshold(rows.rename({"value": "model"}), "f1", by="model")
    assert set(tuned.columns) >= {"value", "threshold"}
    applied = pl_metrics.f1(rows.rename({"value": "model"}), threshold=tuned, by="model")
    assert applied["f1"].to_list() == tuned["value"].to_list()
    per_model = rows.rename({"value": "model"}).filter(pl.col("model") == "m1")
    single = tuned.filter(pl.col("model") == "m1").drop("model")
    assert pl_metrics.f1(per_model.drop("model"), threshold=single).item() == 1.0


def test_float16_thresholds_hold_for_the_scores_written_as_text() -> None:
    # polars writes a Float16 as its Float32's shortest decimal (0.09307861 for
    # 0.09307861328125), below it: the tuned threshold missed that score in a CSV copy.
    import io

    rows = pl.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "class": "x",
            "score": pl.Series([0.05, 0.09307861328125, 0.5, 0.9], dtype=pl.Float16),
            "truth": [0, 1, 1, 1],
        }
    )
    tuned = pl_metrics.best_threshold(rows, "f1")
    assert tuned["value"].item() == 1.0
    copy = pl.read_csv(io.StringIO(rows.write_csv()))
    assert copy["score"].dtype == pl.Float64
    for scored in (rows, copy, rows.with_columns(pl.col("score").cast(pl.Float64))):
        assert pl_metrics.f1(scored, threshold=tuned).item() == 1.0


@pytest.mark.parametrize(
    ("table", "told"),
    [
        ({"class": ["1", "1.0", "2"], "threshold": [0.9, 0.1, 0.5]}, "keys ('1',) and ('1.0',)"),
        ({"class": [1, 2], "threshold": [0.5, float("nan")]}, "infinite, e.g. class=2: nan"),
        ({"class": [1, 2], "threshold": [None, 0.5]}, "infinite, e.g. class=1: null"),
    ],
)
def test_a_bad_threshold_table_row_is_shown_as_written(table: dict[str, Any], told: str) -> None:
    # '1' and '1.0' were shown as ('1',) and ('1',); a NaN threshold was not shown at all.
    rows = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": [1, 2, 1, 2],
            "score": [0.1, 0.9, 0.8, 0.2],
            "truth": [0, 1, 1, 0],
        }
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(told)):
        pl_metrics.f1(rows, threshold=pl.DataFrame(table))


def test_best_thresholds_apply_where_the_data_groups_by_a_value_column() -> None:
    # The table's 'value' (best_threshold's F1, floats) was taken as a key where the call
    # grouped by a data column named so: no row matched.
    rng = np.random.default_rng(0)
    rows = pl.DataFrame(
        {
            "model": ["m1"] * 40 + ["m2"] * 40,
            "id": list(range(40)) * 2,
            "class": "x",
            "score": rng.random(80),
            "truth": rng.integers(0, 2, 80),
        }
    )
    tuned = pl_metrics.best_threshold(rows, "f1", by="model")
    got = pl_metrics.f1(
        rows.with_columns(value=pl.lit("a")), threshold=tuned, by=["model", "value"]
    )
    assert got["f1"].to_list() == tuned["value"].to_list()


def test_json_thresholds_of_long_durations_in_nanoseconds_apply() -> None:
    # JSON writes 40 years as 'PT1261440000S': ten digits of seconds, which the parser
    # took for past an Int64 of nanoseconds.
    import datetime as dt
    import io

    classes = [dt.timedelta(days=365 * 40), dt.timedelta(seconds=1)]
    rows = pl.DataFrame(
        {
            "id": [i for i in range(6) for _ in classes],
            "class": pl.Series(classes * 6, dtype=pl.Duration("ns")),
            "score": [0.1 * ((i + k) % 5) for i in range(6) for k in range(2)],
            "truth": [(i + k) % 2 for i in range(6) for k in range(2)],
        }
    )
    tuned = pl_metrics.best_threshold(rows, "f1")
    back = pl.read_json(io.StringIO(tuned.write_json()))
    got = pl_metrics.f1(rows, threshold=back, average=None)
    assert got.sort("class")["f1"].to_list() == tuned.sort("class")["value"].to_list()


def test_float16_thresholds_hold_for_the_scores_pandas_writes() -> None:
    # pandas and numpy write a Float16 as its own shortest decimal (0.0509 for
    # 0.0509033203125), below the Float32 decimal the threshold took.
    import io

    rows = pl.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "class": "x",
            "score": pl.Series([0.01, float(np.float16(0.0509)), 0.97, 0.99], dtype=pl.Float16),
            "truth": [0, 1, 1, 1],
        }
    )
    tuned = pl_metrics.best_threshold(rows, "f1")
    for copy in (rows.to_pandas().to_csv(index=False), rows.write_csv()):
        assert pl_metrics.f1(pl.read_csv(io.StringIO(copy)), threshold=tuned).item() == 1.0
    assert pl_metrics.f1(rows, threshold=tuned).item() == 1.0
