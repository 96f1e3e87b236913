"""Wide tables and numpy arrays to the long format."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import label_ranking_average_precision_score

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
    with pytest.raises(pl_metrics.MetricsInputError, match="class indices outside"):
        pl_metrics.from_numpy(np.array([0, 5]), np.ones((2, 3)))


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
    missing_truth = pl.DataFrame({"id": [0], "labels": ["a"]})
    long = pl_metrics.from_wide(
        wide(score, ["a", "b", "c", "d"]), missing_truth, labels_col="labels"
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'truth': .* rows are null"):
        pl_metrics.lrap(long)
