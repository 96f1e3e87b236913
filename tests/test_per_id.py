"""Per-id values (per_id=True) equal scikit-learn's value of each id's row."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics
from pl_metrics._registry import METRICS

EPS = float(np.finfo(float).eps)


def one_row(metric: str, t: np.ndarray, s: np.ndarray) -> float:
    """scikit-learn's metric of a single id (a one-row indicator matrix)."""
    rows_t, rows_s = t[None, :].astype(int), s[None, :]
    rows_p = (rows_s >= 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value: Any = {
            "lrap": lambda: skm.label_ranking_average_precision_score(rows_t, rows_s),
            "coverage_error": lambda: skm.coverage_error(rows_t, rows_s),
            "label_ranking_loss": lambda: skm.label_ranking_loss(rows_t, rows_s),
            "ndcg": lambda: skm.ndcg_score(rows_t, rows_s),
            "accuracy": lambda: skm.accuracy_score(rows_t, rows_p),
            "hamming_loss": lambda: skm.hamming_loss(rows_t, rows_p),
            "f1": lambda: skm.f1_score(rows_t, rows_p, average="samples", zero_division=0),
            "jaccard": lambda: skm.jaccard_score(
                rows_t, rows_p, average="samples", zero_division=0
            ),
            "average_precision": lambda: skm.average_precision_score(
                rows_t, rows_s, average="samples"
            ),
            "roc_auc": lambda: skm.roc_auc_score(rows_t, rows_s, average="samples"),
            "log_loss": lambda: skm.log_loss(t.argmax()[None], rows_s, labels=range(len(s))),
            "top_k_accuracy": lambda: skm.top_k_accuracy_score(
                t.argmax()[None], rows_s, k=1, labels=range(len(s))
            ),
        }[metric]()
    return float(value)


MULTILABEL = [
    "lrap",
    "coverage_error",
    "label_ranking_loss",
    "ndcg",
    "accuracy",
    "hamming_loss",
    "f1",
    "jaccard",
    "average_precision",
    "roc_auc",
]


@pytest.mark.parametrize("metric", MULTILABEL)
def test_multilabel_per_id(metric: str) -> None:
    rng = np.random.default_rng(4)
    truth = rng.random((40, 5)) < 0.4
    truth[:, 0] |= ~truth.any(axis=1)  # a positive in every id
    truth[:, 1] &= ~truth.all(axis=1)  # and a negative: every id's AUC is defined
    score = np.round(rng.random((40, 5)), 1)
    df = pl_metrics.from_numpy(truth, score)
    options: dict[str, Any] = {"average": "samples"} if "average" in METRICS[metric].options else {}
    for frame in (df, df.lazy()):
        out = pl_metrics.report(frame, metric, per_id=True, **options)
        out = out.collect() if isinstance(out, pl.LazyFrame) else out
        assert out.columns == ["id", metric]
        want = [one_row(metric, truth[i], score[i]) for i in range(len(truth))]
        np.testing.assert_allclose(out.sort("id")[metric], want, rtol=1e-12, atol=1e-15)
        mean = pl_metrics.report(df, metric, **options)[metric].item()
        assert out[metric].mean() == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize("metric", ["log_loss", "top_k_accuracy"])
def test_multiclass_per_id(metric: str) -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 30)
    p = rng.dirichlet(np.ones(4), 30)
    df = pl_metrics.from_numpy(y, p)
    out = (
        pl_metrics.report(df, metric, per_id=True, eps=EPS)
        if metric == "log_loss"
        else (pl_metrics.report(df, metric, per_id=True))
    )
    truth = np.eye(4, dtype=bool)[y]
    want = [one_row(metric, truth[i], p[i]) for i in range(30)]
    np.testing.assert_allclose(out.sort("id")[metric], want, rtol=1e-12)


def test_lwlrap_per_id_weights_add_up_to_the_group_value() -> None:
    df = pl.read_parquet("data/digits_properties_oof.parquet")
    per_id = pl_metrics.lwlrap(df, by="model", per_id=True)
    assert per_id.columns == ["model", "id", "lwlrap", "weight"]
    # In a report too, beside lwlrap, as per class (it came last).
    both = pl_metrics.report(df, ["lwlrap", "lrap"], by="model", per_id=True)
    assert both.columns == ["model", "id", "lwlrap", "weight", "lrap"]
    per_class = pl_metrics.report(df, ["lwlrap", "f1"], by="model", per_class=True)
    assert per_class.columns == ["model", "class", "lwlrap", "weight", "f1"]
    summed = per_id.group_by("model").agg((pl.col("lwlrap") * pl.col("weight")).sum()).sort("model")
    np.testing.assert_allclose(
        summed["lwlrap"], pl_metrics.lwlrap(df, by="model")["lwlrap"], rtol=1e-12
    )


def test_per_id_needs_metrics_that_are_means_over_ids() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    with pytest.raises(
        pl_metrics.MetricsInputError, match="option 'per_id' is not used by roc_curve"
    ):
        pl_metrics.report(df, "roc_curve", per_id=True)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^option 'per_id': f1 averages over classes with average='macro'; per-id values "
        r"are those of average='samples': pass it$",
    ):
        pl_metrics.f1(df, per_id=True)
    with pytest.raises(pl_metrics.MetricsInputError, match="f1, roc_auc average over classes"):
        pl_metrics.report(df, ["f1", "roc_auc"], per_id=True, average="micro")
    with pytest.raises(pl_metrics.MetricsInputError, match="per_id"):
        pl_metrics.bootstrap(df, "lrap", per_id=True, n_resamples=5)
    # Beside a metric that has per-id values, every other one must have them too.
    for without in ("binary_log_loss", "padded_cmap", "brier_score"):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=f"^option 'per_id': {without} has no per-id"
        ):
            pl_metrics.report(df, [without, "lrap"], per_id=True)


PER_ID = [m for m, entry in METRICS.items() if "per_id" in entry.options and entry.weights]


@pytest.mark.parametrize("metric", PER_ID)
@pytest.mark.parametrize("zero_division", [0.0, 1.0, float("nan")])
def test_an_ids_value_does_not_depend_on_its_weight(metric: str, zero_division: float) -> None:
    """Weights weigh ids in the group's mean; an id of weight 0 still gets its own value."""
    rng = np.random.default_rng(6)
    truth = rng.random((30, 4)) < 0.4
    truth[np.arange(30), rng.integers(0, 4, 30)] = True  # a positive in every id
    truth[:, 1] &= ~truth.all(axis=1)  # and a negative
    score = np.round(rng.random((30, 4)), 1)
    if METRICS[metric].options >= {"k"} or metric in ("log_loss", "top_k_accuracy"):
        truth = np.eye(4, dtype=bool)[truth.argmax(axis=1)]  # single-label metrics
        score = score / score.sum(axis=1, keepdims=True)
    weights = rng.choice([0.0, 0.5, 2.0], 30)
    df = pl_metrics.from_numpy(truth, score).with_columns(
        w=pl.lit(pl.Series(weights)).gather(pl.col("id"))
    )
    options: dict[str, Any] = {}
    if "average" in METRICS[metric].options:
        options["average"] = "samples"
    if "zero_division" in METRICS[metric].options:
        options["zero_division"] = zero_division
    elif not np.isnan(zero_division) and zero_division:
        return  # the other zero_division values say nothing new here
    plain = pl_metrics.report(df, metric, per_id=True, **options).sort("id")
    weighted = pl_metrics.report(df, metric, per_id=True, weight_col="w", **options).sort("id")
    np.testing.assert_allclose(weighted[metric], plain[metric], rtol=1e-12)


@pytest.mark.parametrize("metric", PER_ID)
def test_a_group_of_zero_weights_still_has_per_id_values(metric: str) -> None:
    """Its mean is undefined (refused), not its ids' values: lrap gave them, while
    coverage_error, ndcg, log_loss and others refused the group."""
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2],
            "class": ["a", "b"] * 3,
            "score": [0.7, 0.3, 0.4, 0.6, 0.5, 0.5],
            "truth": [1, 0, 1, 0, 0, 1],
            "w": [0.0] * 6,
        }
    )
    options: dict[str, Any] = {"average": "samples"} if "average" in METRICS[metric].options else {}
    plain = pl_metrics.report(df, metric, per_id=True, **options)
    weighted = pl_metrics.report(df, metric, per_id=True, weight_col="w", **options)
    assert_frame_equal(weighted.select("id", metric), plain.select("id", metric))
    if METRICS[metric].zero_weights != "nan":
        with pytest.raises(pl_metrics.MetricsInputError, match="weights that are all zero"):
            pl_metrics.report(df, metric, weight_col="w", **options)
