"""Wide tables and numpy arrays to the long format."""

from __future__ import annotations

import decimal
import fractions
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    f1_score,
    label_ranking_average_precision_score,
    log_loss,
    matthews_corrcoef,
    roc_auc_score,
)

import pl_metrics


@pytest.fixture
def arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.random((20, 4)) < 0.4, rng.random((20, 4)).round(1)


def wide(score: np.ndarray, names: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"id": range(len(score)), **{n: score[:, k] for k, n in enumerate(names)}})


def test_from_numpy(arrays: tuple[np.ndarray, np.ndarray]) -> None:
    truth, score = arrays
    want = label_ranking_average_precision_score(truth, score)
    assert pl_metrics.from_numpy(truth, score).metrics.lrap().item() == pytest.approx(want)
    y = np.array([0, 2, 1])
    long = pl_metrics.from_numpy(y, np.eye(3), class_names=["a", "b", "c"], ids=["x", "y", "z"])
    assert long.filter("truth").select("id", "class").rows() == [("x", "a"), ("y", "c"), ("z", "b")]
    with pytest.raises(pl_metrics.MetricsInputError, match="differ in shape"):
        pl_metrics.from_numpy(truth[:, :2], score)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"1 value is no column index of y_score \(0 to 2\), such as 5",
    ):
        pl_metrics.from_numpy(np.array([0, 5]), np.ones((2, 3)))


def test_from_numpy_copies_the_scores() -> None:
    """The score column was a view of y_score: an array reused for the next model changed
    the table, and a lazy metric of it (ROC AUC 0.0 where scikit-learn's is 1.0)."""
    y, p = np.array([0, 1, 0, 1]), np.array([0.1, 0.9, 0.2, 0.8])
    for scores in (p, np.column_stack([1 - p, p])):
        df = pl_metrics.from_numpy(y, scores, class_names=None if scores.ndim == 1 else [0, 1])
        lazy = df.lazy().metrics.roc_auc()
        scores[:] = scores[::-1].copy()
        assert lazy.collect().item() == 1.0
        assert pl_metrics.roc_auc(df).item() == 1.0


def test_from_numpy_takes_sample_weight_as_scikit_learn_does() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    truth, score = rng.random((60, 4)) < 0.35, rng.random((60, 4)).round(1)
    truth[:, 0] |= ~truth.any(axis=1)  # a true class each, for scikit-learn's log loss
    weight = rng.random(60) * 3
    long = pl_metrics.from_numpy(truth, score, sample_weight=pd.Series(weight))
    assert long.schema["weight"] == pl.Float64
    got = long.metrics.report(["lrap", "f1", "roc_auc"], weight_col="weight")
    assert got["lrap"].item() == pytest.approx(
        label_ranking_average_precision_score(truth, score, sample_weight=weight), rel=1e-12
    )
    assert got["f1"].item() == pytest.approx(
        f1_score(truth, score >= 0.5, average="macro", sample_weight=weight), rel=1e-12
    )
    assert got["roc_auc"].item() == pytest.approx(
        roc_auc_score(truth, score, sample_weight=weight), rel=1e-12
    )
    labels = rng.integers(0, 3, 30)
    proba = rng.dirichlet(np.ones(3), 30)
    single = pl_metrics.from_numpy(labels, proba, sample_weight=np.arange(30) % 4)
    assert single.metrics.log_loss(weight_col="weight").item() == pytest.approx(
        log_loss(labels, proba, sample_weight=np.arange(30) % 4, labels=[0, 1, 2]), rel=1e-12
    )
    for bad, message in [
        (weight[:3], r"expected one weight per row of y_score \(60\), got shape \(3,\)"),
        (weight[:, None], r"got shape \(60, 1\)"),
        (np.where(np.arange(60) < 2, np.nan, 1.0), "2 weights are NaN or infinite"),
        (np.array(["1"] * 60), "weights must be numbers"),
    ]:
        with pytest.raises(pl_metrics.MetricsInputError, match=f"sample_weight: .*{message}"):
            pl_metrics.from_numpy(truth, score, sample_weight=bad)


def test_from_numpy_tells_how_to_give_one_column() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"give np.ravel\(y_true\)"):
        pl_metrics.from_numpy(np.array([[0], [2]]), np.eye(3)[:2])


def test_from_numpy_takes_binary_scores_as_scikit_learn() -> None:
    """scikit-learn's binary call, (y, p), was refused; (y, predict_proba) was taken as two
    classes, whose thresholded metrics average both: F1 0.614 for scikit-learn's 0.602."""
    rng = np.random.default_rng(0)
    p = np.round(rng.uniform(0, 1, 400), 1)
    y = (rng.uniform(0, 1, 400) < 0.3 + 0.4 * p).astype(int)
    w = rng.integers(0, 3, 400).astype(float)
    binary = pl_metrics.from_numpy(y, p, sample_weight=w)
    assert binary["class"].unique().to_list() == [1]
    weighted = {"weight_col": "weight"}
    checks = [
        (pl_metrics.f1, f1_score(y, p >= 0.5, sample_weight=w)),
        (pl_metrics.average_precision, average_precision_score(y, p, sample_weight=w)),
        (pl_metrics.matthews_corrcoef, matthews_corrcoef(y, p >= 0.5, sample_weight=w)),
        (pl_metrics.accuracy, accuracy_score(y, p >= 0.5, sample_weight=w)),
        (pl_metrics.roc_auc, roc_auc_score(y, p, sample_weight=w)),
    ]
    for metric, want in checks:
        assert metric(binary, **weighted).item() == pytest.approx(want, rel=1e-12)
    named = pl_metrics.from_numpy(y.astype(bool), p, class_names=["spam"])
    assert named["class"].unique().to_list() == ["spam"]
    with pytest.warns(UserWarning, match=r"y_score has 2 columns, each a class.*y_score\[:, 1\]"):
        two = pl_metrics.from_numpy(y, np.c_[1 - p, p])
    assert pl_metrics.f1(two).item() != pytest.approx(f1_score(y, p >= 0.5))
    # A frame's second column as each library takes it ([:, 1] fails on a DataFrame).
    for frame, second in (
        (pd.DataFrame(np.c_[1 - p, p]), "iloc"),
        (pl.DataFrame(np.c_[1 - p, p]), "to_series"),
    ):
        with pytest.warns(UserWarning, match=rf"from_numpy\(y_true, y_score\.{second}\(?\[?"):
            pl_metrics.from_numpy(y, frame)
    # The warning's advice holds: the positive column's log loss is binary_log_loss's (it
    # said log_loss), and ROC AUC of the two columns is the positive's, unless 1 - p rounds.
    # (Scores of 0 and 1 clip apart: 1 - (1 - eps) is not eps.)
    q = np.clip(p, 0.05, 0.95)
    with pytest.warns(UserWarning, match=r"binary_log_loss its log loss"):
        want = pl_metrics.log_loss(pl_metrics.from_numpy(y, np.c_[1 - q, q])).item()
    assert pl_metrics.binary_log_loss(pl_metrics.from_numpy(y, q)).item() == pytest.approx(want)
    assert pl_metrics.roc_auc(two).item() == pytest.approx(roc_auc_score(y, p), rel=1e-12)
    tiny = np.array([1e-20, 1e-18, 0.6, 0.7])  # (1 - 1e-20 is 1: the other column ties)
    with pytest.warns(UserWarning, match=r"binary_log_loss its log loss.*where 1 - p rounds"):
        rounded = pl_metrics.from_numpy([0, 1, 0, 1], np.c_[1 - tiny, tiny])
    assert pl_metrics.roc_auc(rounded).item() != roc_auc_score([0, 1, 0, 1], tiny)
    with warnings.catch_warnings():  # (two classes meant: named)
        warnings.simplefilter("error")
        pl_metrics.from_numpy(y, np.c_[1 - p, p], class_names=[0, 1])
    with pytest.raises(pl_metrics.MetricsInputError, match="y_true: 1 value is neither 0 nor 1"):
        pl_metrics.from_numpy(np.array([0, 2]), np.array([0.2, 0.7]))
    # Keras' sigmoid scores, (n, 1): binary too (a column index of all-zero truth made every
    # id positive); a truth of another shape is no row's.
    keras = pl_metrics.from_numpy(y, p.reshape(-1, 1))
    assert_frame_equal(keras, pl_metrics.from_numpy(y, p))
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"needs y_true of 0/1 of shape \(400,\)"
    ):
        pl_metrics.from_numpy(y.reshape(200, 2), p)
    # Two classes of labels other than 0 and 1 are no binary problem: not warned of.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.from_numpy(y * 4 + 3, np.c_[1 - p, p], class_names=[3, 7])
        pl_metrics.from_numpy(np.array(["a", "b"]), np.eye(2), class_names=["a", "b"])
    # Labels counted from 1, the last absent: read as positions, one class off.
    with pytest.warns(UserWarning, match=r"y_true holds no 0.*class_names=\[1, \.\.\., 3\]"):
        pl_metrics.from_numpy(np.array([1, 2, 1]), rng.random((3, 3)))


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_with_wide_truth(arrays: tuple[np.ndarray, np.ndarray], lazy: bool) -> None:
    truth, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    scores = wide(score, names).with_columns(model=pl.lit("m"))
    truth_wide = wide(truth.astype(np.int8), names)
    if lazy:
        long = pl_metrics.from_wide(scores.lazy(), truth_wide.lazy())
        assert isinstance(long, pl.LazyFrame)
        long = long.collect()
    else:
        long = pl_metrics.from_wide(scores, truth_wide)
    assert long.columns == ["id", "model", "class", "score", "truth"]
    want = label_ranking_average_precision_score(truth, score)
    assert pl_metrics.lrap(long, by="model").item(0, "lrap") == pytest.approx(want)


def test_from_wide_with_label_lists(arrays: tuple[np.ndarray, np.ndarray]) -> None:
    truth, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    labels = [" ".join(n for n, t in zip(names, row, strict=True) if t) for row in truth]
    scores = wide(score, names).with_columns(labels=pl.Series(labels))
    long = pl_metrics.from_wide(scores, labels_col="labels")
    want = label_ranking_average_precision_score(truth, score)
    assert pl_metrics.lrap(long).item() == pytest.approx(want)
    as_lists = pl.DataFrame({"id": range(20), "labels": [s.split() for s in labels]})
    long2 = pl_metrics.from_wide(wide(score, names), as_lists, labels_col="labels")
    assert long2.equals(long)


def test_from_wide_errors(arrays: tuple[np.ndarray, np.ndarray]) -> None:
    _, score = arrays
    with pytest.raises(pl_metrics.MetricsInputError, match="give the truth"):
        pl_metrics.from_wide(wide(score, ["a", "b", "c", "d"]))
    with pytest.raises(pl_metrics.MetricsInputError, match="not in the table"):
        pl_metrics.from_wide(wide(score, ["a", "b", "c", "d"]), classes=["a", "z"], labels_col="x")
    # A misspelt id column gets the close names, as the metrics' options do.
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'idd' \(option 'id_col'\) is not in the scores; .*did you mean 'id'",
    ):
        pl_metrics.from_wide(wide(score, ["a", "b", "c", "d"]), id_col="idd", labels_col="x")
    # Ids of one table missing from the other: refused, not scored on the ids both have.
    scores = wide(score, ["a", "b", "c", "d"])  # ids 0 to 19
    missing_truth = pl.DataFrame({"id": [0], "labels": ["a"]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'id': 19 ids of the scores are not in the truth table: 1, 2, 3, \.\.\.$",
    ):
        pl_metrics.from_wide(scores, missing_truth, labels_col="labels")
    extra = pl.DataFrame({"id": [*range(20), 25], "labels": ["a"] * 21})
    lazy = pl_metrics.from_wide(scores.lazy(), extra.lazy(), labels_col="labels")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"1 id of the truth table is .*: 25$"):
        lazy.collect()  # lazy: checked when collected
    wide_truth = wide((score > 0.5).astype(int), ["a", "b", "c", "d"]).head(5)
    with pytest.raises(pl_metrics.MetricsInputError, match="15 ids of the scores are not in"):
        pl_metrics.from_wide(scores, wide_truth)


@pytest.mark.parametrize(
    ("y_true", "message"),
    [
        ([[0.3, 1.0], [1.0, 0.0]], r"^y_true: 1 value is neither 0 nor 1$"),
        ([[2, 1], [1, 0]], r"^y_true: 1 value is neither 0 nor 1$"),
        ([[-1, 2], [1, 3]], r"^y_true: 3 values are neither 0 nor 1$"),
        ([[np.nan, 1.0], [1.0, np.nan]], r"^y_true: 2 values .* \(2 of them NaN\)$"),
        ([["1", "0"], ["0", "1"]], r"^y_true: must be boolean or numeric 0/1, not <U1$"),
    ],
)
def test_from_numpy_refuses_truth_outside_0_1(y_true: list[list[object]], message: str) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.from_numpy(np.array(y_true), np.array([[0.2, 0.8], [0.6, 0.4]]))


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint8, np.int64, np.float32, np.float64])
def test_from_numpy_takes_0_1_of_any_numeric_type(
    arrays: tuple[np.ndarray, np.ndarray], dtype: type
) -> None:
    truth, score = arrays
    long = pl_metrics.from_numpy(truth.astype(dtype), score)
    assert long["truth"].to_list() == truth.reshape(-1).tolist()


def test_from_numpy_refuses_nonfinite_scores(arrays: tuple[np.ndarray, np.ndarray]) -> None:
    truth, score = arrays
    score = score.copy()
    score[0, 0], score[3, 1], score[5, 2] = np.nan, np.inf, -np.inf
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^y_score: 3 values are NaN or infinite$"
    ):
        pl_metrics.from_numpy(truth, score)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_score: scores must be numeric"):
        pl_metrics.from_numpy(truth, score.astype(str))


def lazy_noting_reads(df: pl.DataFrame, reads: list[int]) -> pl.LazyFrame:
    """``df`` as a LazyFrame that notes in ``reads`` each time its rows are read."""

    def read(batch: pl.DataFrame) -> pl.DataFrame:
        reads.append(batch.height)
        return batch

    return df.lazy().map_batches(read)


def long_of(
    scores: pl.DataFrame, truth: pl.DataFrame, *, lazy: bool, **options: Any
) -> pl.DataFrame:
    """``from_wide`` of the two tables, eagerly or through LazyFrames collected."""
    if lazy:
        return pl_metrics.from_wide(scores.lazy(), truth.lazy(), **options).collect()
    return pl_metrics.from_wide(scores, truth, **options)


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_refuses_wide_truth_outside_0_1(
    arrays: tuple[np.ndarray, np.ndarray], lazy: bool
) -> None:
    truth, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    truth_wide = wide(truth.astype(np.float64), names).with_columns(
        bird=pl.Series([0.3, 2.0] + [0.0] * 18), frog=pl.Series([np.nan] + [1.0] * 19)
    )
    # (each column's first value, with its id: "1" alone read as the value, which is allowed)
    message = (
        r"^truth: 3 values are neither 0 nor 1 \(column 'bird': 2, e\.g\. id=0: 0\.3; "
        r"column 'frog': 1, e\.g\. id=0: nan\)$"
    )
    if not lazy:
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.from_wide(wide(score, names), truth_wide)
        return
    reads: list[int] = []
    long = pl_metrics.from_wide(wide(score, names).lazy(), lazy_noting_reads(truth_wide, reads))
    assert isinstance(long, pl.LazyFrame)
    assert reads == [], "the truth was read before collect"
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        long.collect()
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        long.metrics.lrap().collect()


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_takes_wide_truth_of_booleans_integers_and_floats(
    arrays: tuple[np.ndarray, np.ndarray], lazy: bool
) -> None:
    truth, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    truth_wide = wide(truth, names).with_columns(
        pl.col("frog").cast(pl.Int64), pl.col("bat").cast(pl.Float32), pl.col("owl").cast(pl.UInt8)
    )
    got = long_of(wide(score, names), truth_wide, lazy=lazy)
    want = label_ranking_average_precision_score(truth, score)
    assert pl_metrics.lrap(got).item() == pytest.approx(want)


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_refuses_0_1_truth_columns_that_are_not_score_columns(
    arrays: tuple[np.ndarray, np.ndarray], lazy: bool
) -> None:
    """Classes are found by type: one the scores lack, or hold as integers, is not dropped."""
    truth, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    scores, truth_wide = wide(score, names), wide(truth, names)

    integer_scores = scores.with_columns((pl.col("bat") * 100).cast(pl.Int64))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"scores are not float, so not taken as classes: 'bat' \(Int64\); if they are",
    ):
        long_of(integer_scores, truth_wide, lazy=lazy)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"no score column, classes the submission lacks: 'owl'"
    ):
        long_of(scores.drop("owl"), truth_wide, lazy=lazy)
    # Named classes are taken as given.
    chosen = long_of(integer_scores, truth_wide, classes=["bird", "frog"], lazy=lazy)
    assert chosen["class"].unique().sort().to_list() == ["bird", "frog"]
    # Other columns of a truth table are no classes: text (Kaggle's Usage), numbers that are
    # not all 0/1 (a weight, a duration), a key the scores hold too (a fold).
    n = truth_wide.height
    metadata = truth_wide.with_columns(
        Usage=pl.lit("Public"), Weight=pl.lit(0.5), seconds=pl.int_range(n) * 5, fold=pl.lit(3)
    )
    got = long_of(scores.with_columns(fold=pl.lit(3)), metadata, lazy=lazy)
    assert got["class"].unique().sort().to_list() == sorted(names)
    assert pl_metrics.lrap(got).item() == pytest.approx(
        label_ranking_average_precision_score(truth, score)
    )


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("in_truth_table", [False, True])
def test_from_wide_refuses_labels_that_are_not_class_columns(
    arrays: tuple[np.ndarray, np.ndarray], lazy: bool, in_truth_table: bool
) -> None:
    _, score = arrays
    names = ["bird", "frog", "bat", "owl"]
    labels = ["frog cat", "bird", "cow dog ant bird", "eel", *[""] * 16]
    message = (
        r"^column 'labels': 3 ids have labels that are not class columns: "
        r"'ant', 'cat', 'cow', \.\.\. \(5 such labels\)$"
    )
    scores = wide(score, names)
    label_table = pl.DataFrame({"id": range(20), "labels": labels})
    if not in_truth_table:
        scores, label_table = scores.join(label_table, on="id"), None
    if not lazy:
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.from_wide(scores, label_table, labels_col="labels")
        return
    reads: list[int] = []
    long = pl_metrics.from_wide(
        lazy_noting_reads(scores, reads),
        None if label_table is None else lazy_noting_reads(label_table, reads),
        labels_col="labels",
    )
    assert isinstance(long, pl.LazyFrame)
    assert reads == [], "the tables were read before collect"
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        long.collect()


@pytest.mark.parametrize("in_truth_table", [False, True])
def test_from_wide_refuses_null_labels(in_truth_table: bool) -> None:
    scores = pl.DataFrame({"id": [0, 1, 2], "bird": [0.9, 0.2, 0.5], "frog": [0.4, 0.7, 0.1]})
    labels = pl.DataFrame({"id": [0, 1, 2], "labels": ["bird", None, ""]})
    message = r"^column 'labels': 1 row is null; an id without true labels has an empty"
    tables = (scores, labels) if in_truth_table else (scores.join(labels, on="id"), None)
    with pytest.raises(pl_metrics.MetricsInputError, match=message + r".*fill_null\(''\)$"):
        pl_metrics.from_wide(*tables, labels_col="labels")
    # Lists of labels are filled with an empty list (a string would not cast).
    lists = labels.with_columns(pl.col("labels").str.split(" "))
    tables = (scores, lists) if in_truth_table else (scores.join(lists, on="id"), None)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"fill_null\(\[\]\)$"):
        pl_metrics.from_wide(*tables, labels_col="labels")


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_tells_of_integer_zero_score_columns_beside_labels(lazy: bool) -> None:
    """A class no id has, whose scores a CSV wrote as 0 (read as Int64), was dropped in
    silence beside labels (a wide truth table shows it): padded cmAP changed. It may as
    well be the fold of a single-fold file: a warning, not a refusal."""
    scores = pl.DataFrame(
        {"id": [0, 1, 2], "bird": [0.9, 0.2, 0.5], "frog": [0.4, 0.7, 0.1], "owl": [0, 0, 0]}
    )
    labels = pl.DataFrame({"id": [0, 1, 2], "labels": ["bird frog", "frog", "bird"]})
    with pytest.warns(
        UserWarning,
        match=r"^from_wide: integer columns of the scores holding only 0 and 1 are kept as "
        r"columns, not taken as classes: 'owl' \(Int64\); if they are classes",
    ) as told:
        kept = long_of(scores, labels, labels_col="labels", lazy=lazy)
    assert kept.columns == ["id", "owl", "class", "score", "truth"]
    # Once, at the caller's line (a lazy result was checked, and told, at each collect).
    assert len(told) == 1
    assert told[0].filename == __file__
    # As floats it is a class; other integers (3 folds) and flags are kept without a word.
    as_float = long_of(
        scores.with_columns(pl.col("owl").cast(pl.Float64)), labels, labels_col="labels", lazy=lazy
    )
    assert as_float["class"].unique().sort().to_list() == ["bird", "frog", "owl"]
    other = scores.with_columns(owl=pl.Series([0, 1, 2]), flag=pl.lit(True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = long_of(other, labels, labels_col="labels", lazy=lazy)
    assert got.columns == ["id", "owl", "flag", "class", "score", "truth"]
    # Hard 0/1 predictions of a class no label names changed LRAP (its scores left unranked)
    # without a word; classes= silences it (a fold of a two-fold file).
    hard = scores.with_columns(owl=pl.Series([1, 0, 1]))
    tables = (hard.lazy(), labels.lazy()) if lazy else (hard, labels)

    def scored() -> pl.DataFrame:  # (lazily, each of the chunks' scans checks the table)
        long = pl_metrics.from_wide(*tables, labels_col="labels")
        return pl_metrics.score(long, ["lrap", "f1"], n_chunks=2)

    with pytest.warns(UserWarning, match=r"only 0 and 1 .* 'owl' \(Int64\).* classes=\[") as told:
        scored()
    assert len(told) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        named = long_of(hard, labels, labels_col="labels", classes=["bird", "frog"], lazy=lazy)
    assert named.columns == ["id", "owl", "class", "score", "truth"]


@pytest.mark.parametrize("lazy", [False, True])
def test_a_label_naming_an_integer_score_column_says_to_cast_it(lazy: bool) -> None:
    # Once an id has the label, the refusal named it "not a class column", without the
    # warning's hint (the refusal came first).
    scores = pl.DataFrame({"id": [1, 2, 3], "bird": [0.9, 0.1, 0.4], "owl": [0, 0, 0]})
    labels = pl.DataFrame({"id": [1, 2, 3], "labels": ["bird", "owl", "bird owl"]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"2 ids have labels that are not class columns: 'owl'; 'owl' is an integer "
        r"column of the scores, kept as such, not taken as a class .*: cast it to float$",
    ):
        long_of(scores, labels, labels_col="labels", lazy=lazy)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"class columns: 'cat'$"):
        long_of(scores, labels.with_columns(labels=pl.lit("cat")), labels_col="labels", lazy=lazy)
    # Class names joined by another separator than the one given: that one is offered.
    commas = labels.with_columns(labels=pl.Series(["bird", "owl,bird", "bird;owl"]))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"class columns: 'bird;owl', 'owl,bird'; 'bird;owl' holds class names separated "
        r"by ';': pass separator=';'$",
    ):
        long_of(
            scores.with_columns(pl.col("owl").cast(pl.Float64)),
            commas,
            labels_col="labels",
            lazy=lazy,
        )


def test_from_wide_names_one_unknown_label_and_ignores_empty_ones() -> None:
    scores = pl.DataFrame({"id": [0, 1], "bird": [0.9, 0.2], "frog": [0.4, 0.7]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'labels': 1 id has labels that are not class columns: 'cat'$",
    ):
        pl_metrics.from_wide(
            scores,
            pl.DataFrame({"id": [0, 1], "labels": [["frog", "cat"], ["frog"]]}),
            labels_col="labels",
        )
    # Empty labels (no positive class; or two separators in a row) are not labels.
    long = pl_metrics.from_wide(
        scores, pl.DataFrame({"id": [0, 1], "labels": ["", "bird  frog"]}), labels_col="labels"
    )
    assert long["truth"].to_list() == [False, False, True, True]


def test_from_wide_takes_labels_of_classes_left_out_on_purpose() -> None:
    scores = pl.DataFrame({"id": [0, 1], "bird": [0.9, 0.2], "frog": [0.4, 0.7], "cat": 0.5})
    labels = pl.DataFrame({"id": [0, 1], "labels": ["bird cat", "frog"]})
    long = pl_metrics.from_wide(scores, labels, classes=["bird", "frog"], labels_col="labels")
    assert long["truth"].to_list() == [True, False, False, True]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"not class columns: 'cow'$"):
        pl_metrics.from_wide(
            scores, labels.with_columns(labels=pl.lit("cow")), classes=["bird"], labels_col="labels"
        )


def test_from_wide_refuses_columns_named_like_its_own() -> None:
    truth = pl.DataFrame({"id": [1, 2], "p": [0, 1], "q": [1, 0]})
    cases = [
        (
            pl.DataFrame({"id": [1, 2], "class": ["x", "y"], "p": [0.1, 0.9], "q": [0.4, 0.3]}),
            "id",
            r"column 'class' \(a column kept\)",
        ),
        (
            pl.DataFrame({"id": [1, 2], "score": [0.1, 0.9], "q": [0.4, 0.3]}),
            "id",
            r"column 'score' \(a class column\)",
        ),
        (
            pl.DataFrame({"truth": [1, 2], "p": [0.1, 0.9], "q": [0.4, 0.3]}),
            "truth",
            r"column 'truth' \(option 'id_col'\)",
        ),
    ]
    for scores, id_col, pattern in cases:
        with pytest.raises(pl_metrics.MetricsInputError, match=pattern):
            pl_metrics.from_wide(scores, truth.rename({"id": id_col}), id_col=id_col)


def test_from_numpy_takes_sparse_truth_and_refuses_mixed_names() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    y = np.array([[1, 0, 1], [0, 1, 0]])
    p = np.array([[0.9, 0.2, 0.4], [0.1, 0.8, 0.3]])
    assert pl_metrics.from_numpy(sparse.csr_matrix(y), p).equals(pl_metrics.from_numpy(y, p))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"class_names: expected all strings or all integers, got int, str",
    ):
        pl_metrics.from_numpy(y, p, class_names=["a", 1, "b"])


def test_from_wide_labels_column_may_be_called_truth() -> None:
    sub = pl.DataFrame({"clip": [1, 2], "cat": [0.9, 0.2], "dog": [0.1, 0.8]})
    sol = pl.DataFrame({"clip": [1, 2], "truth": ["cat", "dog"]})
    want = pl_metrics.from_wide(
        sub, sol.rename({"truth": "labels"}), id_col="clip", labels_col="labels"
    )
    assert pl_metrics.from_wide(sub, sol, id_col="clip", labels_col="truth").equals(want)
    together = sub.join(sol, on="clip")
    assert pl_metrics.from_wide(together, id_col="clip", labels_col="truth").equals(want)


def test_from_wide_names_ids_of_other_types_and_no_classes() -> None:
    scores = pl.DataFrame({"id": [1, 2], "a": [0.1, 0.8], "b": [0.9, 0.2]})
    truth = pl.DataFrame({"id": ["1", "2"], "a": [0, 1], "b": [1, 0]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"ids are Int64 and the truth .*String"):
        pl_metrics.from_wide(scores, truth)
    narrow = truth.with_columns(pl.col("id").cast(pl.Int32))
    assert pl_metrics.from_wide(scores, narrow)["truth"].to_list() == [False, True, True, False]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"give at least one class column"):
        pl_metrics.from_wide(scores, narrow, classes=[])


SCORES = pl.DataFrame({"id": [1, 2, 3], "a": [0.1, 0.8, 0.3], "b": [0.9, 0.2, 0.7]})
TRUTH = pl.DataFrame({"id": [1, 2, 3], "a": [0, 1, 0], "b": [1, 0, 1]})
LABELS = pl.DataFrame({"id": [1, 2, 3], "labels": ["b", "a", "b a"]})


@pytest.mark.parametrize(
    ("truth", "options", "message"),
    [
        (TRUTH, {"classes": ["a", "a"]}, r"option 'classes': 'a' named more than once"),
        (TRUTH, {"classes": ["id", "a"]}, r"'id' is the id column \(option 'id_col'\), not a"),
        (TRUTH, {"classes": 5.0}, r"option 'classes': expected names, got 5.0"),
        (None, {"classes": ["a", "labels"], "labels_col": "labels"}, r"'labels' is the labels"),
        (LABELS, {"labels_col": "labels", "separator": None}, r"option 'separator': expected a"),
        (LABELS, {"labels_col": "labels", "separator": ""}, r"a non-empty string, got ''"),
        (TRUTH, {"id_col": ["id"]}, r"option 'id_col': expected a column name, got \['id'\]"),
        (LABELS, {"labels_col": ["labels"]}, r"option 'labels_col': expected a column name"),
        (LABELS, {"labels_col": "id"}, r"options 'id_col' and 'labels_col' both name column"),
        ({"id": [1]}, {}, r"option 'truth': expected a polars DataFrame"),
    ],
)
def test_from_wide_refuses_bad_options_by_name(
    truth: Any, options: dict[str, Any], message: str
) -> None:
    """Each once leaked a polars DuplicateError, SchemaError, a panic or a TypeError."""
    scores = SCORES.with_columns(labels=LABELS["labels"]) if truth is None else SCORES
    for table in (scores, scores.lazy()):
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.from_wide(table, truth, **options)


def test_from_numpy_reads_labels_by_class_names() -> None:
    """scikit-learn's y_true of labels with labels=[...]: as the indices of those labels."""
    score = np.random.default_rng(3).random((4, 3))
    score /= score.sum(axis=1, keepdims=True)
    names = ["cat", "dog", "eel"]
    labels = np.array(["cat", "eel", "cat", "dog"])
    got = pl_metrics.from_numpy(labels, score, class_names=names)
    want = pl_metrics.from_numpy(np.array([0, 2, 0, 1]), score, class_names=names)
    assert_frame_equal(got, want)
    assert pl_metrics.log_loss(got).item() == pytest.approx(log_loss(labels, score, labels=names))
    cases = [
        (labels, {}, r"^1-D y_true holds text values, not class indices: pass class_names"),
        (np.array([0.0, 1.0, 2.0, 0.0]), {}, r"holds float64 values, not class indices.*astype"),
        # Floats are no labels, whatever the names (scikit-learn's y_true of 0.0 and 1.0).
        (np.array([0.0, 1.0, 2.0, 0.0]), {"class_names": [2, 1, 0]}, r"holds float64 values"),
        (labels, {"class_names": ["cat", "cat", "dog"]}, r"class_names"),
        (
            np.array(["cat", "cow", "ant", "dog"]),
            {"class_names": names},
            r"no class_names: 'ant', 'cow'$",
        ),
        # Text labels of integer names: the same text, told so (it read "labels that are no
        # class_names: 1, 2, 3" beside class_names [1, 2, 3]).
        (
            np.array(["1", "2", "1", "2"]),
            {"class_names": [1, 2, 3]},
            r"no class_names: '1', '2'; y_true holds text and class_names integers: pass "
            r"y_true.astype\(int\)",
        ),
        (np.array([1, 2]), {}, r"one class index per row of y_score: 2 values for 4 rows"),
    ]
    for y_true, options, message in cases:
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.from_numpy(y_true, score, **options)


def test_from_numpy_reads_integer_labels_by_integer_class_names() -> None:
    """labels=[1, 2, 3] in scikit-learn: y_true's 3 is the third column, not the fourth."""
    rng = np.random.default_rng(4)
    score = rng.random((30, 3))
    score /= score.sum(axis=1, keepdims=True)
    labels = rng.choice([10, 20, 30], 30)
    names = [10, 20, 30]
    got = pl_metrics.from_numpy(labels, score, class_names=names)
    want = pl_metrics.from_numpy(labels // 10 - 1, score, class_names=["a", "b", "c"])
    assert_frame_equal(got.drop("class"), want.drop("class"))
    assert pl_metrics.log_loss(got).item() == pytest.approx(log_loss(labels, score, labels=names))
    # Names in another order name other columns (scikit-learn sorts labels= instead).
    shuffled = [30, 10, 20]
    got = pl_metrics.from_numpy(labels, score, class_names=shuffled)
    want = log_loss(labels, score[:, [1, 2, 0]], labels=names)
    assert pl_metrics.log_loss(got).item() == pytest.approx(want)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"no class_names: 40"):
        pl_metrics.from_numpy(np.array([10, 40] * 15), score, class_names=names)
    # Labels 1 to 3 without names: read as positions, the 3s are named, with the way out.
    one_based = np.array([1, 2, 3] * 10)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^1-D y_true: 10 values are no column index of y_score \(0 to 2\), such as 3; "
        r"for labels .* class_names=\[\.\.\.\]$",
    ):
        pl_metrics.from_numpy(one_based, score)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"looked up in integer names$"):
        pl_metrics.from_numpy(one_based, score, class_names=["a", "b", "c"])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"y_true\.astype\(str\) to read"):
        pl_metrics.from_numpy(one_based, score, class_names=["1", "2", "3"])


def test_from_wide_classes_one_name_and_of_numbers() -> None:
    one = pl_metrics.from_wide(SCORES.rename({"a": "ab"}), TRUTH.rename({"a": "ab"}), classes="ab")
    assert one["class"].unique().to_list() == ["ab"]  # one class, not its letters
    text = SCORES.with_columns(a=pl.lit("x"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"must hold numbers, not 'a' \(Str"):
        pl_metrics.from_wide(text, TRUTH, classes=["a", "b"])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"option 'scores': expected a polars"):
        pl_metrics.from_wide(None, TRUTH)  # type: ignore[type-var]


def test_from_numpy_refuses_bad_names_and_ids() -> None:
    y, p = np.eye(2, dtype=bool), np.array([[0.9, 0.2], [0.1, 0.8]])
    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=r"option 'class_names': 'a' named more than once"):
        pl_metrics.from_numpy(y, p, class_names=["a", "a"])
    with pytest.raises(error, match=r"option 'class_names': expected a name per column, got 'ab'"):
        pl_metrics.from_numpy(y, p, class_names="ab")
    with pytest.raises(error, match=r"option 'class_names': expected names, got 5"):
        pl_metrics.from_numpy(y, p, class_names=5)  # type: ignore[arg-type]
    with pytest.raises(error, match=r"option 'ids': 1 id repeats \(7\); each row needs its own"):
        pl_metrics.from_numpy(y, p, ids=[7, 7])
    with pytest.raises(error, match=r"option 'ids': expected one id per row, got shape \(\)"):
        pl_metrics.from_numpy(y, p, ids="xy")
    with pytest.raises(error, match=r"option 'ids': expected one id per row, got shape \(1, 2\)"):
        pl_metrics.from_numpy(y, p, ids=[[1, 2]])
    with pytest.raises(error, match=r"option 'ids': expected numbers or strings of one type"):
        pl_metrics.from_numpy(y, p, ids=np.array([1, "a"], dtype=object))
    # A list of several types: numpy made text of them all ("1" for 1), silently.
    with pytest.raises(error, match=r"option 'ids': expected numbers or strings of one type"):
        pl_metrics.from_numpy(y, p, ids=["x", 1])
    assert pl_metrics.from_numpy(y, p, ids=[1, 2.5])["id"].to_list() == [1.0, 1.0, 2.5, 2.5]
    with pytest.raises(error, match=r"^option 'ids': 1 id is NaN \(the first in row 0\)"):
        pl_metrics.from_numpy(y, p, ids=np.array([np.nan, 1.0]))  # (the metrics: "2 rows")
    with pytest.raises(error, match=r"y_score: cannot be read as an array"):
        pl_metrics.from_numpy(y, [[0.9, 0.2], [0.1]])  # type: ignore[arg-type]
    # A null id was kept, and refused only by the metric, as rows of the long table.
    # (also from a Series, whose null numpy would make a NaN id)
    for ids in ([1, None], pl.Series([1, None]), pd.Series(["a", None]), pd.array([1, None])):
        with pytest.raises(error, match=r"^option 'ids': 1 id is null \(the first in row 1\)"):
            pl_metrics.from_numpy(y, p, ids=ids)
    assert pl_metrics.from_numpy(y, p, ids=pd.Index([5, 6]))["id"].to_list() == [5, 5, 6, 6]
    # (the columns' other mistakes named as a list's)
    with pytest.raises(error, match=r"option 'ids': expected numbers or strings of one type"):
        pl_metrics.from_numpy(y, p, ids=pd.Series([1, "a"]))
    with pytest.raises(error, match=r"option 'ids': expected one id per row, got shape \(2, 1\)"):
        pl_metrics.from_numpy(y, p, ids=pd.DataFrame({"a": [1, 2]}))


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_refuses_null_ids_naming_the_table(lazy: bool) -> None:
    # A null id in the scores was named as a truth id the scores lack; one in the truth
    # table made rows of null truth, refused only by the metric.
    scores = pl.DataFrame({"id": [1, 2, 3], "a": [0.9, 0.2, 0.1], "b": [0.1, 0.8, 0.9]})
    truth = pl.DataFrame({"id": [1, 2, 3], "a": [1, 0, 0], "b": [0, 1, 1]})
    no_id = pl.col("id").replace(2, None)

    def made(s: pl.DataFrame, t: pl.DataFrame, **options: Any) -> pl.DataFrame:
        out = pl_metrics.from_wide(s.lazy() if lazy else s, t.lazy() if lazy else t, **options)
        return out.collect() if isinstance(out, pl.LazyFrame) else out

    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=r"^column 'id': 1 row of the scores is null; each row needs"):
        made(scores.with_columns(no_id), truth)
    with pytest.raises(error, match=r"^column 'id': 2 rows of the truth table are null; each"):
        made(scores, truth.with_columns(pl.col("id").replace([2, 3], None)))
    labels = pl.DataFrame({"id": [1, None], "labels": ["a", "b"]})
    with pytest.raises(error, match=r"^column 'id': 1 row of the truth table is null"):
        made(scores, labels, labels_col="labels")
    assert made(scores, truth).height == 6


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_refuses_repeated_ids_naming_the_table(lazy: bool) -> None:
    # An id on two rows made a row per class twice: the metrics then named the class column.
    scores = pl.DataFrame({"id": [1, 1, 2], "a": [0.1, 0.2, 0.3], "b": [0.9, 0.8, 0.7]})
    truth = pl.DataFrame({"id": [1, 2, 2, 3, 3], "a": [0, 1, 1, 0, 0], "b": [1, 0, 0, 1, 1]})

    def made(s: pl.DataFrame, t: pl.DataFrame) -> pl.DataFrame:
        out = pl_metrics.from_wide(s.lazy() if lazy else s, t.lazy() if lazy else t)
        return out.collect() if isinstance(out, pl.LazyFrame) else out

    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'id': 1 id repeats in the scores, "
    ):
        made(scores, truth.filter(pl.col("id") < 3).unique("id"))
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"2 ids repeat in the truth table, .*: 2, 3$"
    ):
        made(pl.DataFrame({"id": [1, 2, 3], "a": [0.1] * 3, "b": [0.2] * 3}), truth)
    # Once per model is one row per (model, id): a kept column is part of the key.
    one_truth = truth.filter(pl.col("id") < 3).unique("id")
    once = scores.unique("id", keep="first")
    models = pl.concat([once.with_columns(model=pl.lit(m)) for m in "xy"])
    assert made(models, one_truth).height == 8
    with pytest.raises(pl_metrics.MetricsInputError, match=r"one row per \(model, id\): 1$"):
        made(pl.concat([models, models.sort("id").head(1)]), one_truth)


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_keeps_float32_scores_and_checks_each_model_has_every_id(lazy: bool) -> None:
    """Float32 columns were widened, so a threshold equal to a score (0.7) fell above it;
    a model (a kept column) that skipped ids was scored on the ids it had."""
    score = np.array([[0.7, 0.2], [0.1, 0.7], [0.7, 0.6]], dtype=np.float32)
    truth = np.array([[1, 0], [0, 1], [1, 1]])
    scores = wide(score, ["a", "b"])
    truths = wide(truth, ["a", "b"])
    long = long_of(scores, truths, lazy=lazy)
    assert long.schema["score"] == pl.Float32
    want = f1_score(truth, score >= 0.7, average="macro")
    assert pl_metrics.f1(long, threshold=0.7).item() == pytest.approx(want)
    assert pl_metrics.f1(pl_metrics.from_numpy(truth, score), threshold=0.7).item() == want
    mixed = scores.with_columns(pl.col("b").cast(pl.Float64))
    assert long_of(mixed, truths, lazy=lazy).schema["score"] == pl.Float64
    # Each model has every id; a fold (one value per id) gives each id one row.
    models = pl.concat([scores.with_columns(model=pl.lit(m)) for m in ("m1", "m2")])
    folds = models.with_columns(fold=pl.col("id") % 2)
    assert long_of(folds, truths, lazy=lazy).height == 12
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'id': 1 id of the scores has rows for fewer values of the kept columns "
        r"\('model', 'fold'\) than others \(as few as 1 of 2\): 2; a model that skips ids",
    ):
        long_of(folds.filter((pl.col("model") == "m1") | (pl.col("id") != 2)), truths, lazy=lazy)


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_takes_any_name_for_labels_and_kept_columns(lazy: bool) -> None:
    """A labels column named "class" or "score", or as a kept column of the scores, and a
    kept column named "len", stopped polars with its own errors."""
    scores = pl.DataFrame({"id": [1, 2, 3], "a": [0.1, 0.5, 0.9], "b": [0.3, 0.2, 0.1]})
    labels = ["a", "b", "a b"]
    want = pl_metrics.from_wide(
        scores, pl.DataFrame({"id": [1, 2, 3], "l": labels}), labels_col="l"
    )
    for name in ("class", "score", "truth"):
        table = pl.DataFrame({"id": [1, 2, 3], name: labels})
        assert_frame_equal(long_of(scores, table, labels_col=name, lazy=lazy), want)
        inline = scores.with_columns(pl.Series(name, labels))
        frame = inline.lazy() if lazy else inline
        got = pl_metrics.from_wide(frame, labels_col=name)
        assert_frame_equal(got.collect() if lazy else got, want)
    kept = scores.with_columns(l=pl.lit("x"), len=pl.lit(5))
    got = long_of(kept, pl.DataFrame({"id": [1, 2, 3], "l": labels}), labels_col="l", lazy=lazy)
    assert_frame_equal(got.drop("l", "len"), want)
    nested = pl.DataFrame({"id": [1, 2, 3], "l": [[["a"]], [["b"]], [["a"]]]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'l': true labels must be a list of labels, a separated string or one "
        r"label per id \(an integer or categorical\), not List\(List\(String\)\)$",
    ):
        long_of(scores, nested, labels_col="l", lazy=lazy)


@pytest.mark.parametrize("lazy", [False, True])
def test_from_wide_takes_one_integer_or_categorical_label_per_id(lazy: bool) -> None:
    # A multi-class target 0..K-1 beside score columns "0".."K-1" (a Kaggle train.csv).
    rng = np.random.default_rng(4)
    p = rng.dirichlet(np.ones(3), 12)
    y = rng.integers(0, 3, 12)
    scores = pl.DataFrame({"id": range(12), **{str(k): p[:, k] for k in range(3)}})
    want = long_of(
        scores, pl.DataFrame({"id": range(12), "t": [str(v) for v in y]}), labels_col="t", lazy=lazy
    )
    for target in (pl.Series("t", y), pl.Series("t", y.astype(str)).cast(pl.Categorical)):
        table = pl.DataFrame({"id": range(12)}).with_columns(target)
        got = long_of(scores, table, labels_col="t", lazy=lazy)
        assert_frame_equal(got, want)
        assert pl_metrics.log_loss(got).item() == pytest.approx(log_loss(y, p), rel=1e-12)
    # A null label: dropped by the user (no empty string or list means "none" here).
    table = pl.DataFrame({"id": range(12), "t": [None, *y[1:].tolist()]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 't': 1 row is null; each id needs its label: drop those rows$",
    ):
        long_of(scores, table, labels_col="t", lazy=lazy)


def test_from_numpy_names_what_it_cannot_tell_apart() -> None:
    """Integers that are both positions and names' text were read as positions without a
    word; names equal but for their numpy type were not caught as repeated; a pandas column
    of objects was called text, and a nullable pandas frame's numbers 'object'."""
    score = np.array([[0.7, 0.2, 0.1], [0.1, 0.7, 0.2], [0.2, 0.1, 0.7]])
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^1-D y_true: integers are read as column positions \(1 is column 1, class "
        r"'2'\), but each is also the text of a class name; pass y_true\.astype\(str\)",
    ):
        pl_metrics.from_numpy(np.array([1, 2, 2]), score, class_names=["1", "2", "3"])
    labels = pl_metrics.from_numpy(np.array(["1", "2", "3"]), score, class_names=["1", "2", "3"])
    assert pl_metrics.top_k_accuracy(labels).item() == 1.0
    # Where the readings agree, or no integer is a name, positions they are.
    for names in (["0", "1", "2"], ["a", "b", "c"], ["1", "5", "9"]):
        long = pl_metrics.from_numpy(np.array([0, 1, 2]), score, class_names=names)
        assert pl_metrics.top_k_accuracy(long).item() == 1.0
    for names in (["a", np.str_("a"), "b"], [1, np.int64(1), 2]):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=r"^option 'class_names': .* twice|more than once"
        ):
            pl_metrics.from_numpy(np.array([0, 1, 2]), score, class_names=names)
    objects = np.array([1, 0, 2], dtype=object)
    got = pl_metrics.from_numpy(objects, score)
    assert_frame_equal(got, pl_metrics.from_numpy(np.array([1, 0, 2]), score))
    nullable = pd.DataFrame(score, dtype="Float64").to_numpy()
    assert nullable.dtype == object
    # Scores of floats as objects are read as scikit-learn reads them; a truth of integers
    # as objects is told (scikit-learn does not tell its type either).
    assert_frame_equal(
        pl_metrics.from_numpy(np.eye(3), nullable), pl_metrics.from_numpy(np.eye(3), score)
    )
    hint = r"not object \(a pandas frame of nullable types, .*frame\.to_numpy\(dtype=float\)\)$"
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_true: .*" + hint):
        pl_metrics.from_numpy(pd.DataFrame(np.eye(3), dtype="Int64").to_numpy(), score)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^1-D y_true holds objects, not"):
        pl_metrics.from_numpy(np.array([1.0, 0.0, 2.0], dtype=object), score)


def test_from_wide_says_a_float_column_was_taken_for_a_class() -> None:
    scores = pl.DataFrame(
        {"clip": ["a", "b"], "bird": [0.9, 0.2], "frog": [0.4, 0.7], "w": [1.0, 2.0]}
    )
    truth = pl.DataFrame({"clip": ["a", "b"], "bird": [1, 0], "frog": [1, 1]})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^truth: columns \['w'\] of the scores are not in the table; every float column "
        r"of the scores is taken for a class: .* classes=\[\.\.\.\]$",
    ):
        pl_metrics.from_wide(scores, truth, id_col="clip")
    # A class spelled otherwise in the truth (a space after it): its close name is offered.
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^truth: columns \['frog '\] of the scores are not in the table \('frog ': did "
        r"you mean 'frog'\?\); every float column of the scores is taken for a class",
    ):
        pl_metrics.from_wide(scores.drop("w").rename({"frog": "frog "}), truth, id_col="clip")
    long = pl_metrics.from_wide(scores, truth, id_col="clip", classes=["bird", "frog"])
    assert long.columns == ["clip", "w", "class", "score", "truth"]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"not in the table$"):
        pl_metrics.from_wide(scores, truth, id_col="clip", classes=["bird", "w"])


def test_from_wide_keeps_null_cells_for_the_ragged_metrics() -> None:
    """A wide table's missing cell is no row once dropped, which ragged='allow' scores."""
    scores = pl.DataFrame({"id": [1, 2, 3], "a": [0.1, None, 0.9], "b": [0.3, 0.2, 0.4]})
    truth = pl.DataFrame({"id": [1, 2, 3], "a": [1, None, 1], "b": [0, 1, 0]})
    long = pl_metrics.from_wide(scores, truth).drop_nulls(["score", "truth"])
    assert long.height == 5
    want = np.mean([0.5, 1.0, 1.0])  # id 1 ranks its positive second; id 2 has one class
    assert pl_metrics.lrap(long, ragged="allow").item() == pytest.approx(want)


def test_from_numpy_of_no_rows_is_an_empty_table_of_typed_classes() -> None:
    """The class column of no rows was of polars' Null type: the metrics then refused its
    type ("classes must be integers, strings, ..."), not the empty table."""
    for names in (None, ["a", "b", "c"]):
        empty = pl_metrics.from_numpy(np.zeros((0, 3), int), np.zeros((0, 3)), class_names=names)
        assert empty.schema["class"] == (pl.Int64 if names is None else pl.String)
        with pytest.raises(pl_metrics.MetricsInputError, match=r"^the table is empty"):
            empty.metrics.f1()


def test_from_wide_gives_the_same_order_on_every_call() -> None:
    """The rows of an (id, class), one per model, came in another order on each call."""
    oof = pl.read_parquet(Path(__file__).parent.parent / "data" / "digits_oof.parquet")
    scores = oof.pivot(on="class", index=["model", "fold", "id"], values="score")
    truth = oof.filter(pl.col("model") == "knn").pivot(on="class", index="id", values="truth")
    first = pl_metrics.from_wide(scores, truth)
    assert first["model"].head(4).to_list() == ["forest", "knn", "logreg", "naive_bayes"]
    for _ in range(5):
        assert_frame_equal(pl_metrics.from_wide(scores, truth), first)
        lazy = pl_metrics.from_wide(scores.lazy(), truth.lazy())
        assert_frame_equal(lazy.collect(engine="streaming"), first)


def test_from_numpy_reads_long_double_scores_and_refuses_nat_ids() -> None:
    truth = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    score = np.random.default_rng(0).random((4, 3))
    expected = label_ranking_average_precision_score(truth, score)
    frame = pl_metrics.from_numpy(truth, score.astype(np.longdouble))  # (polars: Object)
    assert frame.schema["score"] == pl.Float64
    assert pl_metrics.lrap(frame).item() == pytest.approx(expected, abs=1e-15)
    dates = np.array(["2024-01-01", "NaT", "2024-01-03", "2024-01-04"], dtype="datetime64[D]")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"option 'ids': 1 id is null \(the first in row 1"
    ):
        pl_metrics.from_numpy(truth, score, ids=dates)


def test_from_wide_refuses_columns_named_as_its_own() -> None:
    scores = pl.DataFrame({"id": [0, 1], "a": [0.1, 0.2], "b": [0.5, 0.4]})
    truth = pl.DataFrame({"id": [0, 1], "a": [1, 0], "b": [0, 1]})
    labels = pl.DataFrame({"id": [0, 1], "l": ["a", "b"]})
    own = "__plm_wide_repeat_0"
    for call in (
        lambda: pl_metrics.from_wide(scores.with_columns(pl.lit("m").alias(own)), truth),
        lambda: pl_metrics.from_wide(scores, truth.with_columns(pl.lit(1).alias(own))),
        lambda: pl_metrics.from_wide(
            scores.with_columns(pl.lit("m").alias(own)), labels, labels_col="l"
        ),
    ):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=rf"column '{own}': names starting with"
        ):
            call()


def test_from_numpy_reads_pandas_nullable_numbers_as_scikit_learn_does() -> None:
    rng = np.random.default_rng(0)
    truth = np.eye(3, dtype=int)[rng.integers(0, 3, 8)]
    truth[:2, 2] = 1  # (multi-label rows too)
    score = rng.random((8, 3))
    expected = label_ranking_average_precision_score(truth, score)
    for y_true, y_score in (
        (pd.DataFrame(truth).astype("Int8"), score),
        (truth, pd.DataFrame(score).astype("Float64")),
        (pd.DataFrame(truth).astype("boolean"), pd.DataFrame(score).astype("float64[pyarrow]")),
        (pd.DataFrame(truth).astype({0: "Int8"}), score),  # (nullable beside numpy's)
    ):
        frame = pl_metrics.from_numpy(y_true, y_score)
        assert pl_metrics.lrap(frame).item() == pytest.approx(expected, abs=1e-15)
    labels = pd.Series(truth.argmax(axis=1), dtype="Int64")
    assert_frame_equal(
        pl_metrics.from_numpy(labels, score), pl_metrics.from_numpy(labels.to_numpy(int), score)
    )
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^y_true: 1 value is missing \(pandas' NA\); drop"
    ):
        pl_metrics.from_numpy(labels.where(labels.index != 3), score)


def test_from_wide_classes_name_a_pandas_frames_integer_columns() -> None:
    rng = np.random.default_rng(0)
    score = rng.random((6, 3))
    scores = pd.DataFrame(score).assign(id=range(6))
    truth = pd.DataFrame((score > 0.5).astype(int)).assign(id=range(6))
    expected = pl_metrics.from_wide(scores, truth, classes=["0", "1", "2"])
    assert_frame_equal(pl_metrics.from_wide(scores, truth, classes=[0, 1, 2]), expected)
    assert_frame_equal(pl_metrics.from_wide(scores, truth, classes=np.arange(3)), expected)
    # One integer is one name, as one string is (it was "expected names, got 0").
    one = pl_metrics.from_wide(scores, truth, classes=["1"])
    assert_frame_equal(pl_metrics.from_wide(scores, truth, classes=1), one)
    assert_frame_equal(pl_metrics.from_wide(scores, truth, classes=np.int64(1)), one)


def test_from_wide_matches_text_ids_to_categorical_ones() -> None:
    """One pandas frame's ids a category, the other's text: the same ids."""
    scores = pl.DataFrame({"id": ["x", "y"], "a": [0.1, 0.2], "b": [0.5, 0.4]})
    truth = pl.DataFrame({"id": ["y", "x"], "a": [1, 0], "b": [0, 1]})
    expected = pl_metrics.from_wide(scores, truth)
    categorical = pl.col("id").cast(pl.Categorical)
    got = pl_metrics.from_wide(scores, truth.with_columns(categorical))
    assert_frame_equal(got, expected)
    got = pl_metrics.from_wide(scores.lazy().with_columns(categorical), truth.lazy()).collect()
    assert_frame_equal(got, expected.with_columns(categorical))


def test_from_wide_tells_of_ids_in_an_unnamed_pandas_index() -> None:
    """Not "did you mean 'bird'? pass id_col='bird'": a class column is no id column."""
    scores = pd.DataFrame({"cat": [0.1, 0.2], "dog": [0.5, 0.4], "bird": [0.3, 0.3]})
    truth = pd.DataFrame({"id": ["u", "v"], "cat": [1, 0], "dog": [0, 1], "bird": [0, 0]})
    told = r"\['cat', 'dog', 'bird'\]; the frame's index is unnamed, so no column: pass frame"
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        pl_metrics.from_wide(scores.set_axis(["u", "v"]), truth)
    # (The rows' numbers: no ids to point at; from_numpy numbers the rows.)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"'bird'\]; scores without ids"):
        pl_metrics.from_wide(scores, truth)
    # An id column to name instead (the index of a shuffled frame is no hint then).
    named = scores.assign(sample_id=["u", "v"]).set_axis([5, 3])  # (as sorted or sampled)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"pass id_col='sample_id' if [^;]*$"):
        pl_metrics.from_wide(named, truth.rename(columns={"id": "sample_id"}))


def test_from_numpy_refuses_a_lazyframe_by_name() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_true: a LazyFrame; from_numpy"):
        pl_metrics.from_numpy(pl.LazyFrame({"a": [1, 0]}), np.zeros((2, 1)))


def test_a_fragmented_pandas_frame_with_a_named_index_warns_of_nothing() -> None:
    """pd.read_csv makes a block per column: pandas warned of fragmentation on our reset."""
    rng = np.random.default_rng(0)
    names = [f"sp{j}" for j in range(120)]
    scores = pd.DataFrame(dict(zip(names, rng.random((120, 8)), strict=True))).assign(
        clip=[f"c{i}" for i in range(8)]
    )
    truth = (scores.set_index("clip") > 0.9).astype(int)
    fragmented = pd.DataFrame({"clip": scores["clip"]})
    with warnings.catch_warnings():  # (pandas warns of the very frame this test makes)
        warnings.simplefilter("ignore")
        for name in names:  # (a column at a time, as read_csv's blocks)
            fragmented[name] = scores[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = pl_metrics.from_wide(fragmented.set_index("clip"), truth, id_col="clip")
    assert out.height == 8 * 120


@pytest.mark.parametrize("as_list", [False, True])
def test_from_wide_tells_how_to_give_a_nocall_label(as_list: bool) -> None:
    """BirdCLEF 2021 wrote 'nocall' for a clip without birds: refused as an unknown label,
    and now told what the library takes instead, a hint that works as written."""
    submission = pl.DataFrame(
        {"row_id": ["a", "b", "c"], "bird": [0.9, 0.1, 0.2], "frog": [0.1, 0.8, 0.3]}
    )
    labels = [["bird"], ["frog"], ["nocall"]] if as_list else ["bird", "frog", "nocall"]
    solution = pl.DataFrame({"row_id": ["a", "b", "c"], "labels": labels})
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.from_wide(submission, solution, id_col="row_id", labels_col="labels")
    message = str(caught.value)
    assert "if 'nocall' marks an id without labels" in message
    fix = message.split(": ")[-1]
    mended = solution.with_columns(eval(fix, {"pl": pl}))
    long = pl_metrics.from_wide(submission, mended, id_col="row_id", labels_col="labels")
    assert long.filter(pl.col("row_id") == "c")["truth"].to_list() == [False, False]
    elsewhere = solution.with_columns(labels=pl.lit("cat") if not as_list else pl.lit(["cat"]))
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.from_wide(submission, elsewhere, id_col="row_id", labels_col="labels")
    assert "marks an id without labels" not in str(caught.value)


def test_from_numpy_warns_of_pandas_labels_in_another_order() -> None:
    """Frames of the same columns (or index) in another order were paired by position
    without a word (LRAP 0.5 for 1.0): warned of, with the reordering that pairs them."""
    y_true = pd.DataFrame({"a": [1, 0], "b": [0, 1]})
    y_score = pd.DataFrame({"b": [0.1, 0.9], "a": [0.8, 0.2]})
    with pytest.warns(UserWarning, match=r"same column labels in another order") as caught:
        by_position = pl_metrics.from_numpy(y_true, y_score)
    assert caught[0].filename == __file__
    assert by_position.metrics.lrap().item() == 0.5  # as scikit-learn reads them
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reordered = y_true.loc[y_score.index, y_score.columns]
        assert pl_metrics.from_numpy(reordered, y_score).metrics.lrap().item() == 1.0
        pl_metrics.from_numpy(y_true, y_score.set_axis(["c", "d"], axis=1))  # other names
        pl_metrics.from_numpy(y_true.to_numpy(), y_score)
    with pytest.warns(UserWarning, match=r"same row \(index\) labels .*\(y_true.loc\[y_score.ind"):
        pl_metrics.from_numpy(y_true.set_axis([7, 3]), y_score[["a", "b"]].set_axis([3, 7]))
    # Weights of another row order (after a merge): warned of too.
    scores = y_score[["a", "b"]].set_axis([3, 7])
    weights = pd.Series([1.0, 2.0], index=[7, 3])
    with pytest.warns(UserWarning, match=r"^sample_weight holds y_score's row \(index\) labels"):
        pl_metrics.from_numpy(y_true.to_numpy(), scores, sample_weight=weights)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.from_numpy(y_true.to_numpy(), scores, sample_weight=weights.loc[scores.index])
    # Beside y_true's frame alone, y_true's rows are named.
    with pytest.warns(UserWarning, match=r"\(sample_weight\.loc\[y_true\.index\]\)$"):
        pl_metrics.from_numpy(y_true.set_axis([3, 7]), scores.to_numpy(), sample_weight=weights)
    # Polars frames' columns are named too (they were not compared), and a pandas frame's
    # beside a polars one.
    for true, score in (
        (pl.from_pandas(y_true), pl.from_pandas(y_score)),
        (y_true, pl.from_pandas(y_score)),
        (pl.from_pandas(y_true), y_score),
    ):
        with pytest.warns(
            UserWarning, match=r"column labels .*\(y_true\[list\(y_score.columns\)\]\)"
        ):
            assert pl_metrics.from_numpy(true, score).metrics.lrap().item() == 0.5
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            in_order = pl_metrics.from_numpy(true[list(score.columns)], score)
            assert in_order.metrics.lrap().item() == 1.0
    # A shuffled frame's labels beside predict_proba's frame (a default index): no rows named.
    frame = pd.DataFrame({"y": [0, 1, 2, 0, 1, 2]}).sample(frac=1, random_state=0)
    proba = pd.DataFrame(np.eye(3)[frame["y"].to_numpy()] * 0.8 + 0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pl_metrics.from_numpy(frame["y"], proba).metrics.lrap().item() == 1.0


def test_from_numpy_warns_of_columns_that_are_the_class_names_in_another_order() -> None:
    # class_names name y_score's columns by position: a frame of [dog, cat] beside
    # class_names=[cat, dog] named the dog column "cat" without a word, and labels looked
    # up in class_names paired with the other column.
    y_score = pd.DataFrame({"dog": [0.9, 0.2], "cat": [0.1, 0.8]})
    y_true = np.array(["dog", "cat"])
    with pytest.warns(UserWarning, match=r"y_score's columns are the class_names in another"):
        by_position = pl_metrics.from_numpy(y_true, y_score, class_names=["cat", "dog"])
    assert by_position.metrics.lrap().item() == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aligned = pl_metrics.from_numpy(y_true, y_score[["cat", "dog"]], class_names=["cat", "dog"])
        assert aligned.metrics.lrap().item() == 1.0
        pl_metrics.from_numpy(np.eye(2), y_score, class_names=["x", "y"])  # other names
        pl_metrics.from_numpy(y_true, y_score.to_numpy(), class_names=["cat", "dog"])
        # A frame's default columns (0, 1) name nothing; names given as an iterator, once.
        pl_metrics.from_numpy(np.eye(2), pd.DataFrame(np.eye(2)), class_names=[1, 0])
        pl_metrics.from_numpy(y_true, y_score, class_names=iter(["dog", "cat"]))


def test_from_numpy_warns_of_y_true_columns_in_another_order_and_not_of_a_string() -> None:
    y_true = pd.DataFrame({"dog": [1, 0], "cat": [0, 1]})
    y_score = np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.warns(UserWarning, match=r"y_true's columns are the class_names in another"):
        pl_metrics.from_numpy(y_true, y_score, class_names=["cat", "dog"])
    frame = pd.DataFrame({"b": [0.1, 0.2], "a": [0.3, 0.4]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(pl_metrics.MetricsInputError, match="class_names"):
            pl_metrics.from_numpy(np.eye(2), frame, class_names="ab")  # refused, unwarned


def test_from_wide_refuses_a_null_label_in_a_list() -> None:
    """A null in a list of labels was dropped without a word: told, with the fix."""
    submission = pl.DataFrame(
        {"row_id": ["a", "b", "c"], "bird": [0.9, 0.1, 0.2], "frog": [0.1, 0.8, 0.3]}
    )
    solution = pl.DataFrame({"row_id": ["a", "b", "c"], "labels": [["bird", None], ["frog"], []]})
    calls = [
        lambda: pl_metrics.from_wide(submission, solution, id_col="row_id", labels_col="labels"),
        lambda: pl_metrics.from_wide(
            submission.lazy(), solution.lazy(), id_col="row_id", labels_col="labels"
        ).collect(),
    ]
    for call in calls:
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=r"^column 'labels': 1 row holds a null label in the list; .*list.drop_nulls\(\)",
        ):
            call()
    mended = solution.with_columns(pl.col("labels").list.drop_nulls())
    long = pl_metrics.from_wide(submission, mended, id_col="row_id", labels_col="labels")
    assert long.filter("truth").select("row_id", "class").rows() == [("a", "bird"), ("b", "frog")]


def test_from_numpy_refuses_a_score_frames_id_column() -> None:
    """A submission frame's integer ids beside its float scores were one more class (the
    ids its scores, y_true's class indices one column off): LRAP 0.604 for scikit-learn's
    0.646, without a word (scikit-learn's top_k_accuracy_score refuses it)."""
    rng = np.random.default_rng(0)
    proba, y = rng.dirichlet([1, 1, 1], size=8), np.array([0, 1, 2, 0, 1, 2, 0, 1])
    scores = pd.DataFrame(proba, columns=["a", "b", "c"])
    told = r"^y_score: column '{}' holds integers other than 0 and 1 beside float scores: is it"
    for frame, message in [
        (scores.assign(id=np.arange(100, 108)), told.format("id")),
        (scores.assign(n=np.arange(8)), told.format("n")),
    ]:
        for given in (frame, pl.from_pandas(frame)):
            with pytest.raises(pl_metrics.MetricsInputError, match=message):
                pl_metrics.from_numpy(y, given)
    # A class of 0/1 integers, or one named "id" (Indonesian's code) of floats, is a class.
    for frame in (scores.assign(d=[0, 1] * 4), scores.rename(columns={"b": "id"})):
        assert pl_metrics.from_numpy(y, frame)["class"].n_unique() == frame.shape[1]
    # A column of text is named, where the hint was of pandas' nullable types.
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"not object \(its column 'label' holds no numbers: y_score holds a column per",
    ):
        pl_metrics.from_numpy(y, scores.assign(label=list("abcdefgh")))
    truth = pd.DataFrame({"a": [1, 0], "b": [0, 1], "c": ["0", "0"]})  # (y_true's too)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'c' holds no numbers: y_true"):
        pl_metrics.from_numpy(truth, np.full((2, 3), 0.5))
    # Scores alone, integer ones too, are read as before.
    want = label_ranking_average_precision_score(np.eye(3)[y], proba)
    assert pl_metrics.lrap(pl_metrics.from_numpy(y, scores)).item() == pytest.approx(want)
    counts = pd.DataFrame({"a": [3, 0], "b": [1, 2]})
    assert pl_metrics.from_numpy(np.array([0, 1]), counts, class_names=[0, 1]).height == 4


def test_a_pandas_users_series_and_arrays_are_told_what_to_pass() -> None:
    """A Series of class weights was "expected a non-empty mapping"; a Series of thresholds,
    a Series of scores and scikit-learn's arrays got the accepted types, not the fix."""
    df = pl.read_parquet("data/digits_oof.parquet").filter(
        pl.col("model") == "knn", pl.col("fold") == 0
    )
    by_class = pd.Series([0.5] * 10, index=[str(c) for c in range(10)])
    with pytest.raises(pl_metrics.MetricsInputError, match=r", got a Series: pass \.to_dict\(\)$"):
        pl_metrics.weighted_log_loss(df, class_weights=by_class)  # type: ignore[arg-type]
    fix = "series.rename_axis('class').reset_index(name='threshold')"
    with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(fix)):
        pl_metrics.f1(df, threshold=by_class)  # type: ignore[arg-type]
    table = by_class.rename_axis("class").reset_index(name="threshold")
    assert pl_metrics.f1(df, threshold=table).item() == pl_metrics.f1(df).item()
    indexed = df.to_pandas().set_index(["id", "class"])
    with pytest.raises(TypeError, match=r"got pandas\.Series; for a pandas Series, pass series\."):
        pl_metrics.lrap(indexed["score"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"; for scikit-learn's arrays, pl_metrics\.from_numpy"):
        pl_metrics.lrap(np.zeros((3, 3)))  # type: ignore[arg-type]


def test_from_numpy_takes_a_column_of_binary_truth_beside_1d_scores() -> None:
    """scikit-learn's roc_auc_score takes y_true of shape (n, 1) beside (n,) scores."""
    y, p = np.array([0, 1, 1, 0, 1]), np.array([0.2, 0.7, 0.4, 0.5, 0.9])
    table = pl_metrics.from_numpy(y.reshape(-1, 1), p)
    assert table["class"].unique().to_list() == [1]
    assert pl_metrics.roc_auc(table).item() == pytest.approx(roc_auc_score(y, p))


def test_from_numpy_warns_of_labels_from_1_only_where_they_are_read_as_positions() -> None:
    """Named classes, or labels that no column holds (an error says so), are no case for
    the warning of labels counted from 1."""
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.from_numpy(np.array([1, 2, 1]), rng.random((3, 3)), class_names=["a", "b", "c"])
        with pytest.raises(pl_metrics.MetricsInputError, match="no column index of y_score"):
            pl_metrics.from_numpy(np.array([1, 2, 3]), rng.random((3, 3)))


def test_from_wide_takes_integer_score_columns_named_in_classes() -> None:
    """Named classes are any numeric columns, not only float ones (scores as counts, ranks)."""
    rng = np.random.default_rng(3)
    truth, score = rng.random((30, 3)) < 0.5, rng.integers(0, 9, (30, 3))
    names = ["a", "b", "c"]
    long = pl_metrics.from_wide(wide(score, names), wide(truth, names), classes=names)
    assert long["score"].dtype == pl.Float64
    got = long.metrics.roc_auc(average="macro").item()
    assert got == pytest.approx(roc_auc_score(truth, score, average="macro"))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (["a"], r"^truth: 1 value is neither 0 nor 1 \(column 'a': 1, e\.g\. id=0: 2\.0\)$"),
        (
            ["a", "b", "c"],
            r"^truth: 3 values are neither 0 nor 1 \(column 'a': 1, e\.g\. id=0: 2\.0; "
            r"column 'b': 1, e\.g\. id=0: 2\.0; column 'c': 1, e\.g\. id=0: 2\.0\)$",
        ),
        (
            ["a", "b", "c", "d"],
            r"^truth: 4 values are neither 0 nor 1 \(column 'a': 1, e\.g\. id=0: 2\.0; "
            r"column 'b': 1, e\.g\. id=0: 2\.0; column 'c': 1, e\.g\. id=0: 2\.0; and 1 more "
            r"columns\)$",
        ),
    ],
)
def test_from_wide_counts_wide_truth_outside_0_1_by_column(bad: list[str], message: str) -> None:
    names = ["a", "b", "c", "d"]
    score = np.arange(12, dtype=float).reshape(3, 4) / 12
    truth = wide(np.eye(3, 4), names).with_columns(
        pl.when(pl.col("id") == 0).then(2.0).otherwise(pl.col(c)).alias(c) for c in bad
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.from_wide(wide(score, names), truth)


def test_from_wide_takes_a_truth_column_of_nulls_for_no_class() -> None:
    """A column of the truth without values (all null) holds no 0/1: no class the scores lack."""
    rng = np.random.default_rng(4)
    truth, score = rng.random((20, 3)) < 0.5, rng.random((20, 3))
    names = ["a", "b", "c"]
    notes = wide(truth, names).with_columns(note=pl.lit(None, dtype=pl.Int64))
    long = pl_metrics.from_wide(wide(score, names), notes)
    assert_frame_equal(long, pl_metrics.from_wide(wide(score, names), wide(truth, names)))
    got = long.metrics.lrap().item()
    assert got == pytest.approx(label_ranking_average_precision_score(truth, score))


def test_from_wide_reads_lists_of_integer_labels_as_the_class_columns_text() -> None:
    rng = np.random.default_rng(5)
    truth, score = rng.random((20, 3)) < 0.5, rng.random((20, 3))
    names = ["0", "1", "2"]
    labels = pl.DataFrame(
        {"id": range(20), "labels": [np.flatnonzero(row).tolist() for row in truth]},
        schema_overrides={"labels": pl.List(pl.Int64)},
    )
    long = pl_metrics.from_wide(wide(score, names), labels, labels_col="labels")
    got = long.metrics.lrap().item()
    assert got == pytest.approx(label_ranking_average_precision_score(truth, score))


def test_from_wide_counts_unknown_labels_by_id_not_by_model_row() -> None:
    """Labels in the scores ride along each model's row of an id: the ids are counted once."""
    one = SCORES.join(LABELS, on="id").with_columns(
        labels=pl.when(pl.col("id") == 2).then(pl.lit("z")).otherwise("labels")
    )
    models = pl.concat([one.with_columns(model=pl.lit(m)) for m in ("x", "y", "w")])
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"column 'labels': 1 id has labels that are not .*'z'"
    ):
        pl_metrics.from_wide(models, labels_col="labels")


def test_from_wide_counts_unknown_labels_only_beyond_those_shown() -> None:
    """Three unknown labels are all shown: no ``...`` and no count of them."""
    labels = LABELS.with_columns(labels=pl.Series(["b x", "y a", "z"]))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'labels': 3 ids have labels that are not class columns: 'x', 'y', 'z'$",
    ):
        pl_metrics.from_wide(SCORES, labels, labels_col="labels")


def test_from_wide_refuses_float_ids_beside_integer_ones() -> None:
    """Integer ids of two widths match; float ids are another type (1.5 is no integer id)."""
    long = pl_metrics.from_wide(SCORES, TRUTH.with_columns(pl.col("id").cast(pl.UInt8)))
    assert_frame_equal(long, pl_metrics.from_wide(SCORES, TRUTH))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"the scores' ids are Int64 and the truth table's Float64",
    ):
        pl_metrics.from_wide(SCORES, TRUTH.with_columns(pl.col("id").cast(pl.Float64)))


def test_from_numpy_names_a_one_column_indicator_matrix_by_its_column_number() -> None:
    """A 2-D y_true of one column is an indicator matrix: its class is column 0, as the
    default names are the column numbers; a 1-D y_true beside it is binary, class 1."""
    y, p = np.array([0, 1, 1, 0, 1]), np.array([0.2, 0.7, 0.4, 0.5, 0.9])
    for truth, name in ((y.reshape(-1, 1), 0), (y, 1)):
        long = pl_metrics.from_numpy(truth, p.reshape(-1, 1))
        assert long["class"].unique().to_list() == [name]
        assert long.metrics.roc_auc().item() == pytest.approx(roc_auc_score(y, p))


def test_from_numpy_warns_of_two_columns_only_for_two() -> None:
    """Class indices 0 and 1 beside three columns are multi-class: no binary warning."""
    rng = np.random.default_rng(6)
    y, p = np.array([0, 1, 1, 0, 1, 0]), rng.dirichlet(np.ones(3), 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        long = pl_metrics.from_numpy(y, p)
    got = long.metrics.log_loss().item()
    assert got == pytest.approx(log_loss(y, p, labels=[0, 1, 2]))
    with pytest.warns(UserWarning, match=r"y_score has 2 columns, each a class"):
        pl_metrics.from_numpy(y, p[:, :2])


def test_from_numpy_tells_of_labels_from_1_only_beyond_two_columns() -> None:
    """Two columns and indices all 1: binary, told as such, not as labels counted from 1."""
    with pytest.warns(UserWarning, match=r"y_score has 2 columns") as told:
        pl_metrics.from_numpy(np.array([1, 1, 1]), np.array([[0.2, 0.8], [0.4, 0.6], [0.9, 0.1]]))
    messages = [str(w.message) for w in told]
    assert not any("holds no 0" in m for m in messages), messages


def test_from_numpy_names_the_first_index_outside_the_columns() -> None:
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"2 values are no column index of y_score \(0 to 2\), such as 5;",
    ):
        pl_metrics.from_numpy(np.array([0, 5, 1, 7]), np.ones((4, 3)))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_from_numpy_tells_to_ravel_a_column_of_class_indices(n_classes: int) -> None:
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=rf"y_true \(3, 1\) and y_score \(3, {n_classes}\) differ in shape: .*np\.ravel",
    ):
        pl_metrics.from_numpy(np.array([[0], [1], [1]]), np.ones((3, n_classes)))


def test_from_numpy_tells_to_cast_text_labels_only_when_all_name_a_class() -> None:
    p = np.full((3, 2), 0.5)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"y_true\.astype\(int\)"):
        pl_metrics.from_numpy(np.array(["1", "2", "1"]), p, class_names=[1, 2])
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.from_numpy(np.array(["1", "x", "2"]), p, class_names=[1, 2])
    assert "no class_names: '1', '2', 'x'" in str(caught.value)
    assert "astype" not in str(caught.value)


def test_from_numpy_refuses_weights_of_text_by_name() -> None:
    y, p = np.eye(3, 2), np.full((3, 2), 0.5)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^sample_weight: weights must be numbers, not object"
    ):
        pl_metrics.from_numpy(y, p, sample_weight=np.array(["1", "2", "x"], dtype=object))


def test_from_numpy_tells_of_a_missing_value_in_an_integer_class_beside_float_scores() -> None:
    """pandas' NA (or polars' null) in a 0/1 column is told as missing, not as a column of ids
    (numpy turns pandas' NA into NaN in recent pandas, where older versions refused the cast)."""
    y = np.array([[1, 0], [0, 1], [1, 0]])
    scores = pd.DataFrame({"a": [0.1, 0.5, 0.2], "b": pd.array([0, 1, None], dtype="Int64")})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"1 value is missing \(pandas' NA\)"):
        pl_metrics.from_numpy(y, scores)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^y_score: 1 value is missing \(null\)"
    ):
        pl_metrics.from_numpy(y, pl.from_pandas(scores))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_true: 2 values are missing \(null"):
        pl_metrics.from_numpy(pl.DataFrame({"a": [1, None, 0], "b": [0, 1, None]}), scores["a"])
    # A 2-D array as a polars Series of arrays: a null inside a row, too.
    rows = pl.Series([[0.2, 0.8], [0.5, None], [0.1, 0.9]], dtype=pl.Array(pl.Float64, 2))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_score: 1 value is missing \(null"):
        pl_metrics.from_numpy(y, rows)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_true: 1 value is missing \(null"):
        pl_metrics.from_numpy(pl.Series([[1, 0], [0, None], [1, 1]]), np.full((3, 2), 0.5))


@pytest.mark.parametrize(
    "weights",
    [
        np.array([1, 2.5, 3, 1, 0.5, 2, 1, 4], dtype=object),
        [decimal.Decimal(w) for w in ("1", "2.5", "3", "1", "0.5", "2", "1", "4")],
        pl.Series([decimal.Decimal(w) for w in ("1", "2.5", "3", "1", "0.5", "2", "1", "4")]),
        np.array([fractions.Fraction(n, 2) for n in (2, 5, 6, 2, 1, 4, 2, 8)], dtype=object),
        np.array([True, False, True, True, False, True, True, True], dtype=object),
    ],
    ids=["numbers", "decimals", "polars-decimals", "fractions", "bools"],
)
def test_from_numpy_takes_weights_of_numbers_held_as_objects(weights: Any) -> None:
    """Numbers held as objects (Decimals as SQL reads NUMERIC, Fractions, bools) are taken,
    as scikit-learn takes them; a missing one is told as such, text by its type."""
    rng = np.random.default_rng(7)
    y, p = rng.random((8, 3)) < 0.5, rng.random((8, 3))
    long = pl_metrics.from_numpy(y, p, sample_weight=weights)
    got = long.metrics.lrap(weight_col="weight").item()
    want = label_ranking_average_precision_score(y, p, sample_weight=np.array(weights, float))
    assert got == pytest.approx(want, rel=1e-12)
    for missing in (None, pd.NA):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=r"^sample_weight: 1 value is missing \(None or"
        ):
            pl_metrics.from_numpy(y, p, sample_weight=np.array([1, missing, *[1] * 6], object))
    with pytest.raises(pl_metrics.MetricsInputError, match="weights must be numbers, not object"):
        pl_metrics.from_numpy(y, p, sample_weight=np.array([1, "2", *[1] * 6], object))
    for unreadable in (decimal.Decimal("sNaN"), 10**400):
        with pytest.raises(pl_metrics.MetricsInputError, match=r"^sample_weight: cannot be read"):
            pl_metrics.from_numpy(y, p, sample_weight=np.array([1, unreadable, *[1] * 6], object))


def test_from_numpy_takes_scores_of_numbers_held_as_objects() -> None:
    """y_score of numbers as objects (Decimals, say) is read as floats, as scikit-learn
    reads it; a None among them is missing; text is refused with its hint, as before."""
    rng = np.random.default_rng(8)
    y, p = rng.random((8, 3)) < 0.5, rng.random((8, 3)).round(2)
    decimals = np.array([[decimal.Decimal(str(v)) for v in row] for row in p], dtype=object)
    got = pl_metrics.from_numpy(y, decimals).metrics.lrap().item()
    assert got == pytest.approx(label_ranking_average_precision_score(y, decimals), rel=1e-12)
    gap = decimals.copy()
    gap[2, 1] = None
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_score: 1 value is missing"):
        pl_metrics.from_numpy(y, gap)
    gap[2, 1] = "x"
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_score: scores must be numeric"):
        pl_metrics.from_numpy(y, gap)


def test_from_wide_hints_at_float_columns_only_where_the_truth_has_the_ids() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"not in the table; every float col"):
        pl_metrics.from_wide(SCORES.with_columns(w=pl.lit(1.0)), TRUTH)
    # The id column missing from the truth (a solution's "id" beside a submission's
    # "row_id"): told as the id column, with the truth's other columns (the classes aside).
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^truth: column 'id' \(option 'id_col'\), the scores' ids, is not in the table "
        r"\(its one other column is 'key'\): name the id column alike in both tables$",
    ):
        pl_metrics.from_wide(SCORES, TRUTH.rename({"id": "key"}))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"table \(did you mean 'ids'\?\): "):
        pl_metrics.from_wide(SCORES, TRUTH.rename({"id": "ids"}).with_columns(note=pl.lit(1)))


def test_from_wide_refuses_one_model_skipping_ids() -> None:
    """A single kept column (a model) whose values miss an id: its metric would skip it."""
    scores = pl.concat(
        [SCORES.with_columns(model=pl.lit("x")), SCORES.head(2).with_columns(model=pl.lit("y"))]
    )
    message = (
        r"^column 'id': 1 id of the scores has rows for fewer values of the kept columns "
        r"'model' than others \(as few as 1 of 2\): 3;"
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.from_wide(scores, TRUTH)
    lazy = pl_metrics.from_wide(scores.lazy(), TRUTH)  # (checked when collected)
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        lazy.collect()


def test_from_wide_keeps_an_integer_fold_column_beside_wide_truth_without_a_word() -> None:
    """The warning of integer 0/1 columns is for labels, which show no class the scores lack."""
    scores = SCORES.with_columns(fold=pl.Series([0, 1, 0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        long = pl_metrics.from_wide(scores, TRUTH)
    assert long.columns == ["id", "fold", "class", "score", "truth"]
    got = long.metrics.roc_auc(average="macro").item()
    want = roc_auc_score(TRUTH.select("a", "b").to_numpy(), SCORES.select("a", "b").to_numpy())
    assert got == pytest.approx(want)


def test_from_numpy_tells_nan_in_a_pandas_frame_of_numpys_floats_as_nan() -> None:
    y, p = np.eye(3, 2), pd.DataFrame({"a": [0.1, np.nan, 0.3], "b": [0.5, 0.5, 0.5]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^y_score: 1 value is NaN or inf"):
        pl_metrics.from_numpy(y, p)


def test_from_wide_gives_no_index_hint_for_an_unnamed_multiindex() -> None:
    scores = pd.DataFrame({"cat": [0.1, 0.2], "dog": [0.5, 0.4]})
    truth = pd.DataFrame({"id": ["u", "v"], "cat": [1, 0], "dog": [0, 1]})
    multi = scores.set_axis(pd.MultiIndex.from_tuples([("u", 1), ("v", 2)]))
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.from_wide(multi, truth)
    assert "is not in the scores" in str(caught.value)
    assert "index is unnamed" not in str(caught.value)


def test_from_wide_names_the_smallest_repeated_ids() -> None:
    scores = pl.DataFrame({"id": [9, 9, 7, 7, 5, 5, 1], "a": [0.5] * 7, "b": [0.5] * 7})
    truth = pl.DataFrame({"id": [9, 7, 5, 1], "a": [0, 1, 0, 1], "b": [1, 0, 1, 0]})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"3 ids repeat in the scores, .*: 5, 7, 9$"
    ):
        pl_metrics.from_wide(scores, truth)


def test_from_numpy_refuses_a_set_of_class_names() -> None:
    """set(y) names the columns in its hash's order, which moves between runs: refused."""
    y, proba = np.array(["a", "c"]), np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"'class_names': a set has no order"):
        pl_metrics.from_numpy(y, proba, class_names={"a", "b", "c"})
    named = pl_metrics.from_numpy(y, proba, class_names=sorted({"a", "b", "c"}))
    assert named["class"].unique(maintain_order=True).to_list() == ["a", "b", "c"]


def test_from_numpy_warns_of_a_polars_frame_in_another_order() -> None:
    """A polars frame's columns are named as a pandas frame's are: read by position, warned of
    when they are the class_names in another order (silent, log_loss 1.18 for 1.33)."""
    names = ["a", "b", "c"]
    proba = pl.DataFrame(np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]), schema=names)
    with pytest.warns(UserWarning, match=r"y_score's columns are the class_names in another"):
        pl_metrics.from_numpy(["a", "c"], proba.select("b", "a", "c"), class_names=names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.from_numpy(["a", "c"], proba, class_names=names)


def test_from_numpy_tells_a_polars_series_of_lists_to_be_arrays() -> None:
    """Not the pandas hint: numpy reads a Series of lists (of any lengths) as objects."""
    lists = pl.Series([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"a polars Series of lists: cast it"):
        pl_metrics.from_numpy([0, 1], lists)
    arrays = pl_metrics.from_numpy([0, 1], lists.cast(pl.Array(pl.Float64, 2)), class_names=[0, 1])
    assert arrays.height == 4


@pytest.mark.parametrize("labels", [[-1, 1], [1, 2], ["neg", "pos"]])
def test_from_numpy_tells_binary_labels_other_than_0_and_1_how(labels: list[Any]) -> None:
    """scikit-learn's binary metrics take -1/1 or "neg"/"pos" with pos_label: one line to 0/1."""
    y = np.array(labels * 3)
    p = np.linspace(0.1, 0.9, 6)
    negative, positive = labels
    told = f"two labels, {negative!r} and {positive!r}: pass y_true == its positive label, e.g."
    with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(told)):
        pl_metrics.from_numpy(y, p)
    with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(told)):  # (objects)
        pl_metrics.from_numpy(pd.Series(labels * 3), p)
    got = pl_metrics.roc_auc(pl_metrics.from_numpy(y == positive, p)).item()
    assert got == pytest.approx(roc_auc_score(y, p), rel=1e-12)  # (its positive: the greater)


def test_from_numpy_refuses_a_frozenset_of_class_names() -> None:
    # (kills: the set refusal narrowed to set)
    with pytest.raises(pl_metrics.MetricsInputError, match="a set has no order"):
        pl_metrics.from_numpy(
            [0, 1, 1], [[0.2, 0.8], [0.3, 0.7], [0.1, 0.9]], class_names=frozenset({"a", "b"})
        )


def test_from_wide_suggests_close_names_of_labels_col_and_classes() -> None:
    # Misspelled, they were told with no name to use (id_col's suggests one).
    scores = pl.DataFrame({"id": ["a1", "a2"], "cat": [0.7, 0.1], "dog": [0.3, 0.9]})
    labels = pl.DataFrame({"id": ["a1", "a2"], "label": ["cat", "dog"], "n": [1, 2]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\('lable': did you mean 'label'\?\)$"):
        pl_metrics.from_wide(scores, labels, labels_col="lable")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"; its columns are 'id', 'label', 'n'$"
    ):
        pl_metrics.from_wide(scores, labels, labels_col="zzzzzz")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\('dgo': did you mean 'dog'\?\)$"):
        pl_metrics.from_wide(scores, labels, labels_col="label", classes=["cat", "dgo"])
