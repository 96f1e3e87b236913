"""F-beta, Jaccard, specificity, Matthews correlation, Hamming loss and subset accuracy
against scikit-learn, on random multilabel tables with ties, weights and groups."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    f1_score,
    fbeta_score,
    hamming_loss,
    jaccard_score,
    matthews_corrcoef,
    multilabel_confusion_matrix,
    precision_score,
    recall_score,
)

import pl_metrics
from pl_metrics._registry import METRICS
from tests.conftest import dense_problems, grouped_table, long_table, on_the_plan, run

SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
THRESHOLD = 0.5


def per_column(
    function: Any, truth: np.ndarray, pred: np.ndarray, w: np.ndarray | None
) -> np.ndarray:
    return np.array(
        [function(truth[:, k], pred[:, k], sample_weight=w) for k in range(truth.shape[1])]
    )


def reference(
    metric: str, truth: np.ndarray, pred: np.ndarray, w: np.ndarray | None, options: dict[str, Any]
) -> np.ndarray | float:
    average = options.get("average", "macro")
    zd = options.get("zero_division", 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if metric == "fbeta":
            return fbeta_score(
                truth,
                pred,
                beta=options["beta"],
                average=average,
                zero_division=zd,
                sample_weight=w,
            )
        if metric == "jaccard":
            return jaccard_score(truth, pred, average=average, zero_division=zd, sample_weight=w)
        if metric == "hamming_loss":
            return hamming_loss(truth, pred, sample_weight=w)
        if metric == "accuracy":
            return accuracy_score(truth, pred, sample_weight=w)
        if metric == "specificity":
            if average == "micro":
                counts = multilabel_confusion_matrix(truth, pred, sample_weight=w).sum(0)
                tn, fp = counts[0, 0], counts[0, 1]
                return zd if tn + fp == 0 else tn / (tn + fp)

            def tnr(t: np.ndarray, p: np.ndarray, sample_weight: Any) -> float:
                return float(
                    recall_score(t, p, pos_label=0, zero_division=zd, sample_weight=sample_weight)
                )

            values = per_column(tnr, truth, pred, w)
        else:  # matthews_corrcoef
            if average == "micro":
                return matthews_corrcoef(
                    truth.ravel(),
                    pred.ravel(),
                    sample_weight=None if w is None else np.repeat(w, truth.shape[1]),
                )
            values = per_column(matthews_corrcoef, truth, pred, w)
    if average is None:
        return values
    kept = values[~np.isnan(values)]
    return float(kept.mean()) if kept.size else float("nan")


def option_draws(metric: str, data: st.DataObject) -> dict[str, Any]:
    entry = METRICS[metric]
    options: dict[str, Any] = {}
    if entry.averages:
        options["average"] = data.draw(st.sampled_from(entry.averages))
    if "zero_division" in entry.options:
        # scikit-learn's jaccard_score takes no NaN; pl_metrics does, as for every metric.
        values = [0.0, 1.0] if metric == "jaccard" else [0.0, 1.0, float("nan")]
        options["zero_division"] = data.draw(st.sampled_from(values))
    if "beta" in entry.options:
        options["beta"] = data.draw(st.sampled_from([0.5, 1.0, 2.0]))
    return options


NEW = ["fbeta", "jaccard", "specificity", "matthews_corrcoef", "hamming_loss", "accuracy"]


@pytest.mark.parametrize("metric", NEW)
@given(data=st.data())
@SETTINGS
def test_matches_sklearn(kind: str, metric: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=2, weights=data.draw(st.booleans())))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"])
    options = option_draws(metric, data)
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    function = getattr(pl_metrics, metric)
    out = run(df, kind, function, by="g", threshold=THRESHOLD, weight_col=weight_col, **options)
    for g, p in enumerate(problems):
        pred = p["score"] >= THRESHOLD
        want = reference(metric, p["truth"], pred, p.get("weight"), options)
        rows = out.filter(pl.col("g") == g)
        np.testing.assert_allclose(
            rows[metric].to_numpy(), np.atleast_1d(want), rtol=1e-12, atol=1e-12
        )


def test_macro_mcc_of_a_class_of_nan_is_nan() -> None:
    # Negative weights make class b's product negative: its MCC is NaN, as scikit-learn's,
    # and the macro average was the other class's value, NaN left out as zero_division=nan's.
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": ["a", "b"] * 4,
            "score": [0.9, 0.9, 0.1, 0.9, 0.9, 0.1, 0.1, 0.1],
            "truth": [1, 1, 0, 0, 1, 1, 0, 0],
            "w": [-1.0, -1.0, 2.0, 2.0, -1.5, -1.5, 3.0, 3.0],
        }
    )
    truth = df["truth"].to_numpy().reshape(4, 2)
    pred = df["score"].to_numpy().reshape(4, 2) >= THRESHOLD
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = per_column(matthews_corrcoef, truth, pred, np.array([-1, 2, -1.5, 3]))
    per_class = pl_metrics.matthews_corrcoef(df, weight_col="w", average=None)
    np.testing.assert_array_equal(per_class["matthews_corrcoef"].to_numpy(), want)
    assert np.isnan(want[1])
    for frame in (df, df.lazy()):
        got = pl_metrics.matthews_corrcoef(frame, weight_col="w")
        assert np.isnan(got.lazy().collect().item())


def test_fbeta_with_beta_one_is_f1() -> None:
    rng = np.random.default_rng(0)
    df = pl_metrics.from_numpy(rng.random((30, 4)) < 0.4, rng.random((30, 4)))
    for average in (None, "macro", "micro", "weighted", "samples"):
        f1 = pl_metrics.f1(df, average=average)["f1"]
        fb = pl_metrics.fbeta(df, beta=1.0, average=average)["fbeta"]
        np.testing.assert_allclose(fb.to_numpy(), f1.to_numpy(), rtol=1e-15)


def test_beta_must_be_a_finite_number_at_least_0() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0]]), np.array([[0.7, 0.2]]))
    for beta in (-1.0, float("inf"), True):
        with pytest.raises(pl_metrics.MetricsInputError, match="option 'beta'"):
            pl_metrics.fbeta(df, beta=beta)
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'beta' is not used by f1"):
        pl_metrics.report(df, "f1", beta=2.0)


def test_fbeta_at_the_ends_of_beta() -> None:
    # beta = 0 is precision, as scikit-learn (it was refused); a huge beta is recall (beta²
    # overflowed to NaN beyond 1.3e154), whatever the weights (1e150 with weights of 1e10
    # was NaN too). Past 1e150 it is refused (as scikit-learn's overflows from 1e155): there
    # 1 / beta² underflows, and a class of no positive took zero_division for its 0.
    rng = np.random.default_rng(3)
    df = pl_metrics.from_numpy(rng.random((40, 3)) < 0.4, rng.random((40, 3)))
    df = df.with_columns(w=(pl.col("id") % 5 + 1) * 1e10)
    for average in (None, "macro", "micro", "weighted", "samples"):
        options = {"average": average, "weight_col": "w", "zero_division": 0.0}
        precision = pl_metrics.precision(df, **options)["precision"].to_numpy()
        recall = pl_metrics.recall(df, **options)["recall"].to_numpy()
        zero = pl_metrics.fbeta(df, beta=0, **options)["fbeta"].to_numpy()
        np.testing.assert_allclose(zero, precision, rtol=1e-14)
        huge = pl_metrics.fbeta(df, beta=1e150, **options)["fbeta"].to_numpy()
        np.testing.assert_allclose(huge, recall, rtol=1e-14)
        with pytest.raises(pl_metrics.MetricsInputError, match=r"'beta': expected a number in"):
            pl_metrics.fbeta(df, beta=1e160, **options)
    truth, scores = rng.random((40, 3)) < 0.4, rng.random((40, 3))
    for beta in (0.0, 0.3, 2.0, 1e3):
        got = pl_metrics.fbeta(pl_metrics.from_numpy(truth, scores), beta=beta).item()
        want = fbeta_score(truth, scores >= 0.5, beta=beta, average="macro", zero_division=0)
        assert got == pytest.approx(want, rel=1e-12)


def test_integer_thresholds_compare_integer_scores_exactly(tmp_path: Any) -> None:
    """Integer scores past 2**53 against an integer threshold: numpy's exact comparison.

    As a float, 2**53 + 5 rounds to 2**53 + 4, and the scores 2**53 + 4 counted as positive.
    """
    from pl_metrics import expr
    from pl_metrics.cli import main

    rng = np.random.default_rng(0)
    scores = rng.integers(0, 10, 200) + 2**53
    truth = rng.random(200) < 0.5
    df = pl.DataFrame({"id": range(200), "class": "x", "score": scores, "truth": truth})
    threshold = 2**53 + 5
    pred = scores >= threshold  # numpy's comparison, in int64
    want = ((pred & truth).sum(), (pred & ~truth).sum(), (~pred & truth).sum())
    assert ((scores >= float(threshold)) & truth).sum() != want[0]  # (a float would differ)
    got = pl_metrics.confusion(df, threshold=threshold)
    assert got.select("tp", "fp", "fn").row(0) == want
    struct = df.select(expr.confusion("score", "truth", threshold=threshold)).item()
    assert (struct["tp"], struct["fp"], struct["fn"]) == want
    path, out = tmp_path / "big.parquet", tmp_path / "out.csv"
    df.write_parquet(path)
    args = ["score", str(path), "-m", "confusion", "--threshold", str(threshold)]
    assert main([*args, "-o", str(out), "--format", "csv"]) == 0
    assert pl.read_csv(out).select("tp", "fp").row(0) == got.select("tp", "fp").row(0)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.0])
def test_fbeta_of_negative_weights_that_cancel_is_zero_division(beta: float) -> None:
    # Class "a": tp + fn = tp + fp = 0 (weights 1, -1, -1): scikit-learn's denominator is 0;
    # ours summed the shares' rounding (1 - 0.8 - 0.2), and tp over it gave -1.8e16.
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2, 3, 3],
            "class": ["a", "b"] * 3,
            "score": [0.9, 0.1, 0.1, 0.9, 0.9, 0.1],
            "truth": [1, 0, 1, 0, 0, 1],
            "w": [1.0, 1.0, -1.0, -1.0, -1.0, -1.0],
        }
    )
    want = fbeta_score([1, 1, 0], [1, 0, 1], beta=beta, sample_weight=[1, -1, -1], zero_division=0)
    got = pl_metrics.fbeta(df, beta=beta, weight_col="w", average=None)
    assert got["fbeta"][0] == want == 0.0
    swept = pl_metrics.threshold_sweep(df, "fbeta", [0.5], beta=beta, weight_col="w")
    assert swept["value"][0] == 0.0
    best = pl_metrics.best_threshold(df, "fbeta", beta=beta, weight_col="w")
    assert best["value"].abs().max() < 10


def test_hamming_loss_of_ragged_rows_pools_the_cells_present() -> None:
    # ragged="allow": the share of the cells present predicted wrong, each weighing its id's
    # weight, as the docs say (not the mean of the classes' shares, which on a dense table
    # is the same number: a class of fewer rows weighs less).
    rng = np.random.default_rng(4)
    truth, score = rng.random((20, 3)) < 0.5, rng.random((20, 3))
    w = rng.integers(1, 4, 20).astype(float)
    present = np.ones((20, 3), dtype=bool)
    present[:12, 2] = False  # class 2 of 8 ids only
    df = long_table(truth, score, weight=w).filter(pl.Series(present.reshape(-1)))
    wrong = (score >= THRESHOLD) != truth
    cells = np.broadcast_to(w[:, None], (20, 3)) * present
    for weight_col, weights in ((None, present * 1.0), ("w", cells)):
        want = (wrong * weights).sum() / weights.sum()
        per_class = (wrong * weights).sum(0) / weights.sum(0)
        assert want != pytest.approx(per_class.mean())  # (what the classes' mean would be)
        options = {"weight_col": weight_col, "ragged": "allow"}
        for got in (
            pl_metrics.hamming_loss(df, **options).item(),
            pl_metrics.hamming_loss(df.lazy(), **options).collect().item(),
            on_the_plan(lambda: pl_metrics.hamming_loss(df, **options).item()),  # noqa: B023
        ):
            assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("metric", ["hamming_loss", "f1", "jaccard"])
def test_per_id_values_do_not_depend_on_the_weights_on_every_path(metric: str) -> None:
    # Each id's value is of its own unweighted cells, an id of weight 0 (or negative) too,
    # on the kernel's path and on the plan's (weighted cells would give 0 / 0 there).

    rng = np.random.default_rng(6)
    truth, score = rng.random((8, 3)) < 0.5, rng.random((8, 3))
    truth[1] = score[1] >= THRESHOLD  # the id of weight 0 has a value of 1 (or loss 0)
    df = long_table(truth, score, weight=np.array([1.0, 0.0, 2.0, -1.0, 3.0, 0.0, 1.0, 2.0]))
    pred = score >= THRESHOLD
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if metric == "hamming_loss":
            want = [hamming_loss(truth[i], pred[i]) for i in range(8)]
        else:
            function = {"f1": f1_score, "jaccard": jaccard_score}[metric]
            want = [function(truth[i], pred[i], zero_division=0) for i in range(8)]
    options = {"weight_col": "w", "per_id": True}
    if metric != "hamming_loss":
        options["average"] = "samples"
    function = getattr(pl_metrics, metric)
    for got in (
        function(df, **options),
        function(df.lazy(), **options).collect(),
        on_the_plan(lambda: function(df, **options)),
        on_the_plan(lambda: function(df.lazy(), **options).collect()),
    ):
        np.testing.assert_allclose(got.sort("id")[metric].to_numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("metric", ["f1", "precision", "recall", "fbeta"])
def test_samples_of_nan_ids_leave_out_their_weights(metric: str) -> None:
    # zero_division=nan: an id whose value is undefined (no positive, nothing predicted) is
    # left out of the weighted mean over ids with its weight, as scikit-learn's _nanaverage
    # (its jaccard_score takes no NaN).

    rng = np.random.default_rng(9)
    truth, score = rng.random((12, 3)) < 0.4, rng.random((12, 3))
    truth[:4], score[:4] = False, 0.1  # four ids of no positive and no prediction: NaN
    w = np.array([5.0, 4.0, 3.0, 6.0, 1.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0])
    df = long_table(truth, score, weight=w)
    options = {"beta": 2.0} if metric == "fbeta" else {}
    sklearn = {
        "f1": f1_score,
        "precision": precision_score,
        "recall": recall_score,
        "fbeta": fbeta_score,
    }[metric]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sklearn(
            truth,
            score >= THRESHOLD,
            average="samples",
            sample_weight=w,
            zero_division=np.nan,
            **options,
        )
    assert np.isfinite(want)
    function = getattr(pl_metrics, metric)
    kwargs = {"average": "samples", "weight_col": "w", "zero_division": float("nan"), **options}
    for got in (
        function(df, **kwargs).item(),
        function(df.lazy(), **kwargs).collect().item(),
        on_the_plan(lambda: function(df, **kwargs).item()),
    ):
        assert got == pytest.approx(want, rel=1e-12)


def test_the_options_left_out_are_the_documented_defaults() -> None:
    # threshold=0.5 (scores of 0.45 and 0.55 tell it from its neighbours), average="macro"
    # (classes of different sizes tell it from micro), zero_division=0 (class 3 is never
    # true nor predicted, class 2 always true): each function called bare is scikit-learn
    # with those options.

    rng = np.random.default_rng(12)
    truth = rng.random((30, 4)) < [0.1, 0.4, 0.7, 0.0]
    score = rng.choice([0.05, 0.45, 0.5, 0.55, 0.95], (30, 4))
    truth[:, 2], score[:, 3] = True, 0.05
    df = long_table(truth, score)
    pred = score >= 0.5

    def macro(function: Any) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(np.mean([function(truth[:, k], pred[:, k]) for k in range(4)]))

    def specificity(t: np.ndarray, p: np.ndarray) -> float:
        return float(recall_score(t, p, pos_label=0, zero_division=0))

    def balanced_f1(t: np.ndarray, p: np.ndarray) -> float:
        tpr = recall_score(t, p, zero_division=0)
        tnr = recall_score(t, p, pos_label=0, zero_division=0)
        return 0.0 if tpr + tnr == 0 else 2 * tpr * tnr / (tpr + tnr)

    def balanced_accuracy(t: np.ndarray, p: np.ndarray) -> float:
        if t.all() or not t.any():  # (the undefined rate as zero_division, 0: documented)
            return float(np.mean([recall_score(t, p, zero_division=0), specificity(t, p)]))
        return float(balanced_accuracy_score(t, p))

    sklearn = {"average": "macro", "zero_division": 0}
    want = {
        "f1": f1_score(truth, pred, **sklearn),
        "precision": precision_score(truth, pred, **sklearn),
        "recall": recall_score(truth, pred, **sklearn),
        "fbeta": fbeta_score(truth, pred, beta=1.0, **sklearn),
        "jaccard": jaccard_score(truth, pred, **sklearn),
        "specificity": macro(specificity),
        "matthews_corrcoef": macro(matthews_corrcoef),
        "balanced_accuracy": macro(balanced_accuracy),
        "balanced_f1": macro(balanced_f1),
        "mfif": macro(lambda t, p: f1_score(t, p, average="macro", labels=[0, 1], zero_division=0)),
        "hamming_loss": hamming_loss(truth, pred),
        "accuracy": accuracy_score(truth, pred),
    }
    assert want["f1"] != pytest.approx(f1_score(truth, pred, average="micro"))
    assert want["accuracy"] != pytest.approx(accuracy_score(truth, score >= 0.55))
    for metric, value in want.items():
        assert getattr(pl_metrics, metric)(df).item() == pytest.approx(value, rel=1e-12), metric
    counts = multilabel_confusion_matrix(truth, pred)
    got = pl_metrics.confusion(df).sort("class").select("tn", "fp", "fn", "tp").to_numpy()
    np.testing.assert_array_equal(got, counts.reshape(4, 4))


def test_ids_of_more_than_255_classes_count_on_every_path() -> None:
    # The kernel sums each id's run of flags: an id of 300 classes, 256 of them wrong (or
    # 290 true positives), must not wrap around a byte's count.

    rng = np.random.default_rng(13)
    truth = rng.random((4, 300)) < 0.5
    truth[1] = True
    score = np.where(truth, 0.9, 0.1)
    score[0, :256] = np.where(truth[0, :256], 0.1, 0.9)  # id 0: 256 cells wrong
    score[1, :10] = 0.1  # id 1: 290 true positives, 10 false negatives
    df = long_table(truth, score)
    pred = score >= THRESHOLD
    want = {
        "accuracy": accuracy_score(truth, pred),
        "f1": f1_score(truth, pred, average="samples"),
        "jaccard": jaccard_score(truth, pred, average="samples"),
        "hamming_loss": hamming_loss(truth, pred),
    }
    options = {"f1": {"average": "samples"}, "jaccard": {"average": "samples"}}
    for metric, value in want.items():
        function = getattr(pl_metrics, metric)
        kwargs = options.get(metric, {})
        for got in (
            function(df, **kwargs).item(),
            on_the_plan(lambda: function(df, **kwargs).item()),  # noqa: B023
        ):
            assert got == pytest.approx(value, rel=1e-12), metric
    per_id = pl_metrics.accuracy(df, per_id=True).sort("id")["accuracy"].to_list()
    assert per_id == [float((truth[i] == pred[i]).all()) for i in range(4)]


@pytest.mark.parametrize("metric", ["precision", "recall", "f1", "jaccard"])
def test_negative_weighted_denominators_divide_as_sklearn(kind: str, metric: str) -> None:
    # Weights of -2 make some class's tp + fp (or tp + fn) negative, not zero: scikit-learn
    # divides by it (a negative rate); only a zero denominator gives zero_division.
    truth = np.array([[1, 0], [1, 1], [0, 1], [1, 1]], bool)
    pred = np.array([[1, 1], [1, 0], [0, 1], [0, 1]], bool)
    w = np.array([-2.0, 1.0, 0.5, -3.0])
    df = long_table(truth, pred.astype(float), weight=w)
    function = {
        "precision": precision_score,
        "recall": recall_score,
        "f1": f1_score,
        "jaccard": jaccard_score,
    }[metric]
    for average in [None, "micro", "macro"]:
        got = run(
            df,
            kind,
            getattr(pl_metrics, metric),
            average=average,
            weight_col="w",
            threshold=THRESHOLD,
            zero_division=0,
        )
        want = function(truth, pred, average=average, sample_weight=w, zero_division=0)
        np.testing.assert_allclose(got[metric].to_numpy(), np.atleast_1d(want), rtol=1e-12)
        assert (np.atleast_1d(want) != 0).all()  # (no denominator is zero)
