"""The thresholded family against scikit-learn and seed 004's formulas."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    balanced_accuracy_score,
    f1_score,
    multilabel_confusion_matrix,
    precision_score,
    recall_score,
)

import pl_metrics
from tests.conftest import dense_problems, grouped_table, long_table, run

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SKLEARN = {"f1": f1_score, "precision": precision_score, "recall": recall_score}
FUNCTIONS = {
    "f1": pl_metrics.f1,
    "precision": pl_metrics.precision,
    "recall": pl_metrics.recall,
    "balanced_accuracy": pl_metrics.balanced_accuracy,
    "balanced_f1": pl_metrics.balanced_f1,
    "mfif": pl_metrics.mfif,
}
THRESHOLD = 0.5


def seed_004_rates(truth: np.ndarray, pred: np.ndarray, w: np.ndarray, zd: float):
    """Seed 004's counts per class, weighted, with zero_division in place of eps."""
    t, p = truth.astype(float), pred.astype(float)
    tp = ((p * t) * w[:, None]).sum(0)
    fn = (((1 - p) * t) * w[:, None]).sum(0)
    fp = ((p * (1 - t)) * w[:, None]).sum(0)
    tn = (((1 - p) * (1 - t)) * w[:, None]).sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = np.where(tp + fn == 0, zd, tp / (tp + fn))
        tnr = np.where(tn + fp == 0, zd, tn / (tn + fp))
    return tp, fp, fn, tn, tpr, tnr


def reference(metric: str, truth, pred, weight, average, zd) -> np.ndarray | float:
    w = np.ones(len(truth)) if weight is None else weight
    if metric in SKLEARN:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SKLEARN[metric](
                truth, pred, average=average, zero_division=zd, sample_weight=weight
            )
    if metric == "mfif":
        per_class = np.array(
            [
                f1_score(
                    truth[:, k],
                    pred[:, k],
                    average="macro",
                    labels=[0, 1],
                    zero_division=zd,
                    sample_weight=weight,
                )
                for k in range(truth.shape[1])
            ]
        )
    tp, fp, fn, tn, tpr, tnr = seed_004_rates(truth, pred, w, zd)
    if metric == "balanced_accuracy":  # (zero_division=nan: an undefined rate left out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per_class = np.nanmean([tpr, tnr], axis=0)
    elif metric == "balanced_f1":
        with np.errstate(divide="ignore", invalid="ignore"):
            per_class = np.where(tpr + tnr == 0, 0.0, 2 * tpr * tnr / (tpr + tnr))
    if average is None:
        return per_class
    if average == "micro":
        pooled = [np.array([c.sum()]) for c in (tp, fp, fn, tn)]
        with np.errstate(divide="ignore", invalid="ignore"):
            tpr_m = np.where(pooled[0] + pooled[2] == 0, zd, pooled[0] / (pooled[0] + pooled[2]))
            tnr_m = np.where(pooled[3] + pooled[1] == 0, zd, pooled[3] / (pooled[3] + pooled[1]))
            if metric == "balanced_accuracy":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return float(np.nanmean([tpr_m[0], tnr_m[0]]))
            if metric == "balanced_f1":
                s = tpr_m + tnr_m
                return float(np.where(s == 0, 0.0, 2 * tpr_m * tnr_m / s)[0])
            f1_pos = np.where(
                2 * pooled[0] + pooled[1] + pooled[2] == 0,
                zd,
                2 * pooled[0] / (2 * pooled[0] + pooled[1] + pooled[2]),
            )
            f1_neg = np.where(
                2 * pooled[3] + pooled[1] + pooled[2] == 0,
                zd,
                2 * pooled[3] / (2 * pooled[3] + pooled[1] + pooled[2]),
            )
            return float(np.nanmean([f1_pos[0], f1_neg[0]]))
    support = tp + fn if average == "weighted" else None
    keep = ~np.isnan(per_class)
    if not keep.any():
        return float("nan")
    if support is None or support[keep].sum() == 0:
        return float(per_class[keep].mean())
    return float(np.average(per_class[keep], weights=support[keep]))


@pytest.mark.parametrize("metric", list(FUNCTIONS))
@given(data=st.data())
@SETTINGS
def test_matches_sklearn(kind: str, metric: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=2, weights=data.draw(st.booleans())))
    averages = [None, "macro", "micro", "weighted"] + (["samples"] if metric in SKLEARN else [])
    average = data.draw(st.sampled_from(averages))
    zd = data.draw(st.sampled_from([0.0, 1.0, float("nan")]))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"])
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    out = run(
        df,
        kind,
        FUNCTIONS[metric],
        by="g",
        threshold=THRESHOLD,
        average=average,
        zero_division=zd,
        weight_col=weight_col,
    )
    for g, p in enumerate(problems):
        pred = p["score"] >= THRESHOLD
        want = reference(metric, p["truth"], pred, p.get("weight"), average, zd)
        rows = out.filter(pl.col("g") == g)
        if average is None:
            assert rows["class"].to_list() == list(range(p["truth"].shape[1]))
        np.testing.assert_allclose(
            rows[metric].to_numpy(), np.atleast_1d(want), rtol=1e-12, atol=1e-12
        )


@given(problems=dense_problems(min_classes=2, weights=True))
@SETTINGS
def test_confusion_matches_sklearn(problems) -> None:  # type: ignore[no-untyped-def]
    df = grouped_table(problems).with_columns(pred=pl.col("score") >= 0.25)
    out = pl_metrics.confusion(df, by="g", pred_col="pred", weight_col="w")
    assert out.columns == ["g", "class", "tp", "fp", "fn", "tn"]
    for g, p in enumerate(problems):
        mcm = multilabel_confusion_matrix(p["truth"], p["score"] >= 0.25, sample_weight=p["weight"])
        rows = out.filter(pl.col("g") == g)
        want = np.column_stack([mcm[:, 1, 1], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 0, 0]])
        np.testing.assert_allclose(
            rows.select("tp", "fp", "fn", "tn").to_numpy(), want, rtol=1e-12, atol=1e-12
        )


def test_confusion_integer_counts_and_pred_column() -> None:
    rng = np.random.default_rng(0)
    truth = rng.random((30, 3)) < 0.4
    score = rng.random((30, 3))
    df = long_table(truth, score)
    by_score = pl_metrics.confusion(df, threshold=0.7)
    by_pred = pl_metrics.confusion(
        df.with_columns(p=(pl.col("score") >= 0.7).cast(pl.Int8)), pred_col="p"
    )
    assert by_score.schema["tp"] == pl.Int64
    assert by_score.equals(by_pred)
    assert (
        by_score.select(pl.sum_horizontal("tp", "fp", "fn", "tn")).to_series().to_list() == [30] * 3
    )


def test_balanced_accuracy_equals_sklearn_when_both_kinds_present() -> None:
    rng = np.random.default_rng(1)
    truth = rng.random((40, 4)) < 0.3
    truth[0] = True
    truth[1] = False
    score = rng.random((40, 4))
    out = pl_metrics.balanced_accuracy(long_table(truth, score), average=None)
    want = [balanced_accuracy_score(truth[:, k], score[:, k] >= 0.5) for k in range(4)]
    np.testing.assert_allclose(out["balanced_accuracy"].to_numpy(), want, rtol=1e-12)


def test_balanced_accuracy_class_without_positives_differs_from_sklearn() -> None:
    """Documented: sklearn drops the undefined TPR; we average it as zero_division, and
    zero_division=nan leaves it out, as sklearn does."""
    truth = np.array([[False], [False], [False], [False]])
    pred_score = np.array([[0.9], [0.1], [0.1], [0.1]])
    df = long_table(truth, pred_score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert balanced_accuracy_score(truth[:, 0], pred_score[:, 0] >= 0.5) == 0.75
    assert pl_metrics.balanced_accuracy(df).item() == pytest.approx(0.375)
    assert pl_metrics.balanced_accuracy(df, zero_division=1).item() == pytest.approx(0.875)
    nan = pl_metrics.balanced_accuracy(df, zero_division=float("nan")).item()
    assert nan == pytest.approx(0.75)


def simulate_seed_004(
    n_samples: int, n_trials: int, p_pos: float, p_correct: float, seed: int = 0
) -> pl.DataFrame:
    """Seed 004's simulation as one long table: one binary problem per trial."""
    rng = np.random.default_rng(seed)
    target = rng.random((n_trials, n_samples)) < p_pos
    correct = rng.random((n_trials, n_samples)) < p_correct
    pred = np.where(correct, target, ~target)
    return pl.DataFrame(
        {
            "trial": np.repeat(np.arange(n_trials, dtype=np.int32), n_samples),
            "id": np.tile(np.arange(n_samples, dtype=np.int32), n_trials),
            "class": pl.Series(["bird"] * (n_trials * n_samples), dtype=pl.Categorical),
            "pred": pred.reshape(-1),
            "truth": target.reshape(-1),
        }
    )


def test_seed_004_simulation() -> None:
    """10,560 samples x 1,000 trials, 10% positives, 70% correct, one query per metric."""
    df = simulate_seed_004(10_560, 1_000, 0.1, 0.7).lazy()
    metrics = ["f1", "mfif", "balanced_accuracy", "balanced_f1"]
    scores = [getattr(df.metrics, m)(pred_col="pred", by="trial", validate=False) for m in metrics]
    out = pl.concat(scores, how="align").collect()
    assert out.height == 1_000
    means = out.select(metrics).mean().row(0, named=True)
    # Expected values of the simulated model: F1 = 2·0.07 / (2·0.07 + 0.27 + 0.03), etc.
    assert means["f1"] == pytest.approx(0.14 / 0.44, abs=0.005)
    assert means["mfif"] == pytest.approx((0.14 / 0.44 + 1.26 / 1.56) / 2, abs=0.005)
    assert means["balanced_accuracy"] == pytest.approx(0.7, abs=0.005)
    assert means["balanced_f1"] == pytest.approx(0.7, abs=0.005)
    # Seed 004's conclusion: balanced accuracy tolerates false positives more than MFIF.
    # Per trial, regress each metric on its false-positive count: BA falls less per FP.
    counts = df.metrics.confusion(pred_col="pred", by="trial", validate=False).collect()
    joined = out.join(counts, on="trial")
    fp = joined["fp"].to_numpy().astype(float)
    slope = {m: np.polyfit(fp, joined[m].to_numpy(), 1)[0] for m in ("mfif", "balanced_accuracy")}
    assert slope["balanced_accuracy"] < 0
    assert slope["mfif"] < 0
    assert abs(slope["balanced_accuracy"]) < abs(slope["mfif"])
    # The same in the seed's words: with 10 positives and 90 negatives, a false negative
    # costs balanced accuracy what 90/10 = 9 false positives cost (the seed says "10 ... and
    # 1", roughly); MFIF is hurt far more by the 9 false positives.
    truth = np.array([True] * 10 + [False] * 90)
    nine_fp = truth.copy()
    nine_fp[10:19] = True
    one_fn = truth.copy()
    one_fn[0] = False
    small = pl.concat(
        [
            pl.DataFrame(
                {"case": case, "id": range(100), "class": "x", "pred": pred, "truth": truth}
            )
            for case, pred in (("9 fp", nine_fp), ("1 fn", one_fn))
        ]
    )
    ba = pl_metrics.balanced_accuracy(small, pred_col="pred", by="case")["balanced_accuracy"]
    assert ba[0] == pytest.approx(ba[1])
    mf = pl_metrics.mfif(small, pred_col="pred", by="case")["mfif"]
    assert mf[1] < mf[0] - 0.1  # rows are sorted: '1 fn', then '9 fp'


@pytest.mark.parametrize("metric", ["balanced_accuracy", "balanced_f1", "mfif"])
def test_samples_only_for_f1_precision_recall(metric: str) -> None:
    df = long_table(np.array([[True, False]]), np.array([[0.7, 0.2]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="'samples' is defined for"):
        FUNCTIONS[metric](df, average="samples")


def test_bad_options() -> None:
    df = long_table(np.array([[True, False]]), np.array([[0.7, 0.2]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'average': unknown value"):
        pl_metrics.f1(df, average="binary")  # type: ignore[arg-type]
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'zero_division'"):
        pl_metrics.f1(df, zero_division=0.5)
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'threshold'"):
        pl_metrics.f1(df, threshold=float("nan"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"'prd' \(option 'pred_col'\)"):
        pl_metrics.f1(df, pred_col="prd")
    bad_pred = df.with_columns(p=pl.Series([2, 0]))
    with pytest.raises(pl_metrics.MetricsInputError, match="column 'p': 1 row is neither 0 nor 1"):
        pl_metrics.f1(bad_pred, pred_col="p")


def test_checks_apply_to_thresholded() -> None:
    rng = np.random.default_rng(2)
    df = long_table(rng.random((5, 3)) < 0.5, rng.random((5, 3)))
    with pytest.raises(pl_metrics.MetricsInputError, match="repeat"):
        pl_metrics.f1(pl.concat([df, df.head(2)]).lazy()).collect()
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged"):
        pl_metrics.recall(df.tail(-1), average="samples")
    with pytest.raises(pl_metrics.MetricsInputError, match="empty"):
        pl_metrics.f1(df.clear(), validate=False)
    with pytest.raises(pl_metrics.MetricsInputError, match="NaN or infinite"):
        pl_metrics.mfif(df.with_columns(score=pl.lit(float("nan"))))


@pytest.mark.parametrize("metric", ["f1", "precision", "recall", "fbeta", "jaccard"])
@pytest.mark.parametrize("weights", [[1.0, -1.0, 2.0, -2.0], [1.0, -1.0, 0.0], [0.0, 2.0, 1.0]])
@pytest.mark.parametrize("zd", [0.0, 1.0, float("nan")])
def test_samples_of_zero_or_cancelling_weights_match_sklearn(
    metric: str, weights: list[float], zd: float
) -> None:
    # The random problems' weights are never 0, and mostly made positive: the samples
    # average's handling of ids of weight 0 and of weights summing to 0 could change
    # unseen (f1 -inf where scikit-learn gives 0.75; 0.444 against 0.667).
    from sklearn.metrics import fbeta_score, jaccard_score

    if metric == "jaccard" and (np.isnan(zd) or sum(weights) == 0):
        pytest.skip("scikit-learn's jaccard_score refuses these (its average divides by 0)")
    rng = np.random.default_rng(len(weights))
    truth = rng.random((len(weights), 4)) < 0.5
    score = rng.integers(0, 4, (len(weights), 4)) / 4
    df = long_table(truth, score, weight=np.array(weights))
    options = {"beta": 2.0} if metric == "fbeta" else {}
    got = getattr(pl_metrics, metric)(
        df, average="samples", weight_col="w", zero_division=zd, threshold=0.5, **options
    ).item()
    sklearn = {**SKLEARN, "fbeta": fbeta_score, "jaccard": jaccard_score}[metric]
    want = sklearn(
        truth, score >= 0.5, average="samples", sample_weight=weights, zero_division=zd, **options
    )
    np.testing.assert_allclose(got, want, rtol=1e-12)
